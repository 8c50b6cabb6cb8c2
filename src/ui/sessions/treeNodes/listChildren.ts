// What a list shows: loading, error with Retry, empty, or its sessions (optionally grouped by
// date) followed by "Load more" when the agent has more.
import * as vscode from 'vscode';
import { messageOf } from '../../../acp/errors';
import { dateGroup, dateGroupOrder, type DateGroup } from '../../../sessions/format';
import { CapabilityMissingError, type SessionList } from '../../../sessions/sessionsModel';
import type { SessionInfo } from '../../../acp/types';
import { nestSubagents } from '../../../sessions/lineage';
import { pinnedParts } from './pinnedParts';
import { DateGroupNode } from './dateGroupNode';
import { LoadMoreNode } from './loadMoreNode';
import { MessageNode } from './messageNode';
import { RetryNode } from './retryNode';
import { SessionNode } from './sessionNode';
import type { SessionFilter, TreeContext, TreeNode } from './treeNode';

export function listChildren(ctx: TreeContext, parent: TreeNode, list: SessionList): TreeNode[] {
  switch (list.status) {
    case 'idle':
      ctx.load(list);
      return [new MessageNode(parent, 'loading', vscode.l10n.t('Loading sessions…'))];
    case 'loading':
      return [new MessageNode(parent, 'loading', vscode.l10n.t('Loading sessions…'))];
    case 'error': {
      const error = list.error;
      if (error instanceof CapabilityMissingError) return [new MessageNode(parent, 'info', error.message)];
      return [
        new MessageNode(parent, 'error', vscode.l10n.t('Could not list sessions: {0}', messageOf(error)), {
          tooltip: vscode.l10n.t('{0}\n\nRetry, or see the log (ACP Sessions: Show Log).', messageOf(error)),
        }),
        new RetryNode(parent, { list }),
      ];
    }
    case 'loaded':
      break;
  }
  const filter = ctx.filter();
  // A pin whose session is gone is neither unread nor waiting; it is a problem to see (Unpin).
  const showsGone = filter !== 'unread' && filter !== 'waiting';
  if (list.sessions.length === 0 && !list.hasMore) {
    // A pinned session the agent no longer lists shows as gone, also when it was the last one.
    const gone = showsGone ? pinnedParts(ctx, parent, list, []).gone : [];
    if (gone.length > 0) return gone;
    const archived = list.section === 'archived';
    const what = list.cwd === undefined
      ? (archived ? vscode.l10n.t('No archived sessions') : vscode.l10n.t('No active sessions'))
      : (archived ? vscode.l10n.t('No archived sessions in this folder') : vscode.l10n.t('No active sessions in this folder'));
    return [new MessageNode(parent, 'empty', what)];
  }
  // A filter applies to what is loaded; Load more still fetches further pages, and while pages
  // are left the list says how many it looked at instead of claiming there are none.
  const shown = filter === 'all' ? list.sessions : list.sessions.filter((s) => passes(ctx, filter, list.agent, s));
  const more = list.hasMore || list.loadingMore;
  if (shown.length === 0 && !more) {
    const gone = filter === 'problems' ? pinnedParts(ctx, parent, list, []).gone : [];
    return gone.length > 0 ? gone : [new MessageNode(parent, 'empty', filterEmptyText(filter), { key: `no-${filter}` })];
  }
  // Subagents and forks go under their parent or origin, which alone is dated and counted;
  // turning subagents off leaves forks where they are.
  const subagentOf = (s: SessionInfo) => ctx.learned.parentOf(list.agent, s);
  const visible = ctx.showSubagents() ? shown : shown.filter((s) => subagentOf(s) === undefined);
  const nested = nestSubagents(visible, (s) => subagentOf(s) ?? ctx.learned.forkOriginOf(list.agent, s), true);
  // Pinned sessions first in Active, above the date groups (src/ui/sessions/pinCommands.ts).
  const parts = pinnedParts(ctx, parent, list, nested.roots);
  const { pinned, rest } = parts;
  const gone = showsGone ? parts.gone : [];
  const children: TreeNode[] = [...gone, ...pinned.map((s) => new SessionNode(ctx, parent, list, s, nested.children))];
  children.push(...(ctx.groupByDate()
    ? groups(list, rest, ctx.now()).map(([group, sessions]) => new DateGroupNode(ctx, parent, list, group, sessions, nested.children))
    : rest.map((s) => new SessionNode(ctx, parent, list, s, nested.children))));
  if (filter !== 'all' && shown.length === 0) children.push(new MessageNode(parent, 'empty', filterNoneLoadedText(filter, list.sessions.length), { key: `none-loaded-${filter}` }));
  if (more) children.push(new LoadMoreNode(parent, list, filter === 'all' ? undefined : shown.length));
  return children;
}

/** Whether a session passes the view's filter. */
export function passes(ctx: Pick<TreeContext, 'health' | 'read'>, filter: SessionFilter, agent: string, session: SessionInfo): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'problems':
      return ctx.health.problemOf(agent, session) !== undefined;
    case 'unread':
      return ctx.read?.isUnread(agent, session) === true;
    case 'waiting':
      return session.state === 'requires_action';
  }
}

function filterEmptyText(filter: SessionFilter): string {
  switch (filter) {
    case 'unread':
      return vscode.l10n.t('No unread sessions');
    case 'waiting':
      return vscode.l10n.t('No sessions waiting for you');
    default:
      return vscode.l10n.t('No sessions with problems');
  }
}

/** A filtered list with pages left whose loaded sessions all fail the filter: it says how many it looked at. */
function filterNoneLoadedText(filter: SessionFilter, loaded: number): string {
  switch (filter) {
    case 'unread':
      return vscode.l10n.t('None of the {0} sessions loaded is unread', loaded);
    case 'waiting':
      return vscode.l10n.t('None of the {0} sessions loaded is waiting for you', loaded);
    default:
      return vscode.l10n.t('None of the {0} sessions loaded has a problem', loaded);
  }
}

/** By the time each session is placed by, so a session whose date just changed keeps its group too. */
function groups(list: SessionList, sessions: readonly SessionInfo[], now: number): [DateGroup, SessionInfo[]][] {
  const byGroup = new Map<DateGroup, SessionInfo[]>();
  for (const session of sessions) {
    const group = dateGroup(list.placeTime(session), now);
    byGroup.set(group, [...(byGroup.get(group) ?? []), session]);
  }
  return dateGroupOrder.filter((g) => byGroup.has(g)).map((g) => [g, byGroup.get(g)!]);
}
