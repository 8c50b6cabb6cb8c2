// What a list shows: loading, error with Retry, empty, or its sessions (optionally grouped by
// date) followed by "Load more" when the agent has more.
import { messageOf } from '../../sessions/agentRegistry';
import { dateGroup, dateGroupOrder, updatedAtMs, type DateGroup } from '../../sessions/format';
import { CapabilityMissingError, type SessionList } from '../../sessions/sessionsModel';
import type { SessionInfo } from '../../acp/types';
import { nestSubagents } from '../../sessions/lineage';
import { DateGroupNode } from './dateGroupNode';
import { LoadMoreNode } from './loadMoreNode';
import { MessageNode } from './messageNode';
import { RetryNode } from './retryNode';
import { SessionNode } from './sessionNode';
import type { TreeContext, TreeNode } from './treeNode';

export function listChildren(ctx: TreeContext, parent: TreeNode, list: SessionList): TreeNode[] {
  switch (list.status) {
    case 'idle':
      ctx.load(list);
      return [new MessageNode(parent, 'loading', 'Loading sessions…')];
    case 'loading':
      return [new MessageNode(parent, 'loading', 'Loading sessions…')];
    case 'error': {
      const error = list.error;
      if (error instanceof CapabilityMissingError) return [new MessageNode(parent, 'info', error.message)];
      return [
        new MessageNode(parent, 'error', `Could not list sessions: ${messageOf(error)}`, {
          tooltip: `${messageOf(error)}\n\nRetry, or see the log (ACP Sessions: Show Log).`,
        }),
        new RetryNode(parent, { list }),
      ];
    }
    case 'loaded':
      break;
  }
  if (list.sessions.length === 0 && !list.hasMore) {
    const what = list.section === 'archived' ? 'No archived sessions' : 'No active sessions';
    return [new MessageNode(parent, 'empty', list.cwd === undefined ? what : `${what} in this folder`)];
  }
  // Subagents go under their parent, which alone is dated and counted.
  const nested = nestSubagents(list.sessions, (s) => ctx.learned.parentOf(list.agent, s), ctx.showSubagents());
  const children: TreeNode[] = ctx.groupByDate()
    ? groups(nested.roots, ctx.now()).map(([group, sessions]) => new DateGroupNode(ctx, parent, list, group, sessions, nested.children))
    : nested.roots.map((s) => new SessionNode(ctx, parent, list, s, nested.children));
  if (list.hasMore || list.loadingMore) children.push(new LoadMoreNode(parent, list));
  return children;
}

function groups(sessions: readonly SessionInfo[], now: number): [DateGroup, SessionInfo[]][] {
  const byGroup = new Map<DateGroup, SessionInfo[]>();
  for (const session of sessions) {
    const group = dateGroup(updatedAtMs(session), now);
    byGroup.set(group, [...(byGroup.get(group) ?? []), session]);
  }
  return dateGroupOrder.filter((g) => byGroup.has(g)).map((g) => [g, byGroup.get(g)!]);
}
