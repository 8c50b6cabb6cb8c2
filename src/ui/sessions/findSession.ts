// "Find Session…": a quick pick over the loaded sessions of every agent, that fetches further
// pages on demand ("Load more…") and opens the picked session's transcript.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import { relativeTime, sessionLabel, sortNewestFirst, updatedAtMs } from '../../sessions/format';
import type { SessionList, SessionsModel } from '../../sessions/sessionsModel';
import { quickPickText } from '../common/plainText';
import { walkthrough } from './walkthrough';

export interface SessionPick extends vscode.QuickPickItem {
  agent?: string;
  session?: SessionInfo;
  loadMore?: true;
  archived?: boolean;
}

export interface FindSessionDeps {
  registry: AgentRegistry;
  model: SessionsModel;
}

/** The lists Find Session searches: Active and Archived of every listing agent, in scope. */
export function searchableLists(deps: FindSessionDeps): SessionList[] {
  const lists: SessionList[] = [];
  for (const agent of deps.registry.agents) {
    if (agent.state.kind !== 'connected' || !agent.capabilities?.list) continue;
    for (const section of deps.model.sections(agent.name)) {
      for (const cwd of deps.model.cwds()) lists.push(deps.model.list(agent.name, section, cwd));
    }
  }
  return lists;
}

/** Shows the quick pick and returns it (integration tests drive it through the command's result). */
export async function findSession(
  deps: FindSessionDeps,
  open: (agent: string, session: SessionInfo) => Promise<void>,
): Promise<vscode.QuickPick<SessionPick>> {
  // Agents start on demand: make sure every one is up before listing.
  await Promise.all(deps.registry.agents.map((a) => deps.registry.getClient(a.name).catch(() => undefined)));
  const pick = vscode.window.createQuickPick<SessionPick>();
  pick.title = vscode.l10n.t('Find Session');
  pick.placeholder = vscode.l10n.t('Search sessions by title, folder or agent');
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;

  const render = () => {
    const lists = searchableLists(deps);
    pick.busy = lists.some((l) => l.busy);
    const entries = lists.flatMap((list) => list.sessions.map((session) => ({ list, session })));
    const listOf = new Map(entries.map((e) => [e.session, e.list]));
    const items: SessionPick[] = sortNewestFirst(entries.map((e) => e.session)).map((session) => {
      const list = listOf.get(session)!;
      const ms = updatedAtMs(session);
      return {
        // Agent text: `$(name)` in it must not render as an icon.
        label: quickPickText(sessionLabel(session)),
        description: quickPickText(`${list.agent} · ${path.basename(session.cwd)}`),
        detail: quickPickText([
          ms === undefined ? undefined : `${new Date(ms).toLocaleString()} (${relativeTime(ms)})`,
          list.section === 'archived' ? vscode.l10n.t('Archived') : undefined,
          session.cwd,
        ]
          .filter(Boolean)
          .join(' · ')),
        iconPath: new vscode.ThemeIcon(list.section === 'archived' ? 'archive' : 'comment-discussion'),
        agent: list.agent,
        session,
        archived: list.section === 'archived',
      };
    });
    if (lists.some((l) => l.hasMore)) {
      items.push({ label: `$(more) ${vscode.l10n.t('Load more sessions…')}`, alwaysShow: true, loadMore: true, description: vscode.l10n.t('ask the agents for further pages') });
    }
    const active = pick.activeItems[0];
    pick.items = items;
    // Keep the highlighted row across re-renders (a page arriving must not move the cursor).
    const again = active && items.find((i) => (active.loadMore ? i.loadMore : i.session?.sessionId === active.session?.sessionId));
    if (again) pick.activeItems = [again];
  };

  let shown = true;
  const subscription = deps.model.onDidChange(() => render());
  // A list's last change event comes while it is still busy: render again once each load is done,
  // or the progress bar would stay on.
  for (const list of searchableLists(deps)) void list.load().then(() => shown && render());
  render();

  pick.onDidAccept(async () => {
    const chosen = pick.selectedItems[0];
    if (!chosen) return;
    if (chosen.loadMore) {
      pick.busy = true;
      await Promise.all(searchableLists(deps).filter((l) => l.hasMore).map((l) => l.loadMore()));
      render();
      return;
    }
    pick.hide();
    if (chosen.archived) walkthrough.archivedShown();
    if (chosen.agent && chosen.session) await open(chosen.agent, chosen.session);
  });
  pick.onDidHide(() => {
    shown = false;
    subscription.dispose();
    pick.dispose();
  });
  pick.show();
  return pick;
}
