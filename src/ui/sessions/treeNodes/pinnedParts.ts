// How an Active list's rows are ordered with its pins (src/sessions/pins.ts): the tree's part of
// pinning; the Pin and Unpin commands are in src/ui/sessions/pinCommands.ts.
import type { SessionInfo } from '../../../acp/types';
import type { SessionList } from '../../../sessions/sessionsModel';
import { GonePinNode } from './gonePinNode';
import type { TreeContext, TreeNode } from './treeNode';

/**
 * How an Active list's sessions are ordered: the pinned ones first (in the agent's order), the
 * rest after them, and a row for each pin of this list's folder that the agent no longer lists.
 * A pin is gone only once every page of Active has been listed and it is not in Archived either
 * (Archived is listed for that, without loading any session).
 */
export function pinnedParts(
  ctx: TreeContext,
  parent: TreeNode,
  list: SessionList,
  roots: readonly SessionInfo[],
): { pinned: SessionInfo[]; rest: SessionInfo[]; gone: TreeNode[] } {
  const agentPins = ctx.pins && list.section === 'active' ? ctx.pins.of(list.agent) : [];
  if (agentPins.length === 0) return { pinned: [], rest: [...roots], gone: [] };
  const ids = new Set(agentPins.map((p) => p.sessionId));
  const pinned = roots.filter((s) => ids.has(s.sessionId));
  const rest = roots.filter((s) => !ids.has(s.sessionId));
  const gone: TreeNode[] = [];
  if (list.status === 'loaded' && !list.hasMore) {
    for (const pin of agentPins) {
      if (!list.covers({ cwd: pin.cwd }) || ctx.model.find(list.agent, pin.sessionId)) continue;
      if (ctx.registry.agent(list.agent)?.capabilities?.archive) {
        const archived = ctx.model.list(list.agent, 'archived', list.cwd);
        if (archived.status === 'idle') ctx.load(archived);
        if (archived.status !== 'loaded' || archived.hasMore) continue;
      }
      gone.push(new GonePinNode(parent, pin));
    }
  }
  return { pinned, rest, gone };
}
