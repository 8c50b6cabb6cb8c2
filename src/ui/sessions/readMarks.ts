// What needs you, in the Sessions view: unread sessions (src/sessions/readState.ts) and sessions
// waiting for you (the agent's live state `requires_action`, from `session/status` or the AIR list
// metadata) carry a decoration on their row (a FileDecorationProvider on the row's resourceUri, a
// badge and the theme's colour, as Git's decorations do), the view's badge counts them
// (`acpSessions.badge`), and Mark as Read, Mark as Unread and Mark All as Read act on them. Nothing
// is loaded for it: what the lists and the status requests already gave.
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import { groupBy } from '../../sessions/format';
import { ReadState } from '../../sessions/readState';
import type { SessionsModel } from '../../sessions/sessionsModel';
import type { CommandTargets, Invocation } from './commandTargets';
import { AgentNode } from './treeNodes/agentNode';
import { FolderNode } from './treeNodes/folderNode';
import { SectionNode } from './treeNodes/sectionNode';
import { parseRowUri } from './treeNodes/rowUri';

/** What the view's badge counts (`acpSessions.badge`). */
export type BadgeCounts = 'waitingAndUnread' | 'waiting' | 'unread' | 'off';

export function readBadgeSetting(): BadgeCounts {
  const value = vscode.workspace.getConfiguration('acpSessions').get<unknown>('badge');
  return value === 'waiting' || value === 'unread' || value === 'off' ? value : 'waitingAndUnread';
}

export const isWaiting = (session: SessionInfo): boolean => session.state === 'requires_action';

export class ReadMarks implements vscode.FileDecorationProvider, vscode.Disposable {
  readonly state: ReadState;
  private readonly decorationsChanged = new vscode.EventEmitter<vscode.Uri[]>();
  /** What each row's decoration was when VS Code last asked for it. */
  private readonly given = new Map<string, { uri: vscode.Uri; mark: 'waiting' | 'unread' | undefined }>();
  readonly onDidChangeFileDecorations = this.decorationsChanged.event;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** Read state changed here: the rows redraw, the badge counts again. */
  readonly onDidChange = this.changeEmitter.event;

  constructor(
    memento: vscode.Memento,
    private readonly model: SessionsModel,
    private readonly treeView: () => vscode.TreeView<unknown> | undefined,
  ) {
    this.state = new ReadState(memento);
    const changed = () => {
      this.fireChangedDecorations();
      this.updateBadge();
    };
    const stateListener = this.state.onDidChange(() => {
      changed();
      this.changeEmitter.fire();
    });
    this.disposables.push(
      this.decorationsChanged,
      this.changeEmitter,
      { dispose: () => stateListener.dispose() },
      vscode.window.registerFileDecorationProvider(this),
      model.onDidChange((change) => {
        // A list's sessions are sighted as they come: one first seen here is read.
        if (change.list?.status === 'loaded') this.state.sighted(change.agent, change.list.sessions);
        changed();
      }),
      // A session the agent no longer has is forgotten, whoever deleted it.
      model.onDidDelete(({ agent, sessionId }) => this.state.forget(agent, [sessionId])),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('acpSessions.badge') && this.updateBadge()),
    );
  }

  isUnread(agent: string, session: SessionInfo): boolean {
    return this.state.isUnread(agent, session);
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    const row = parseRowUri(uri);
    if (!row) return undefined;
    const mark = this.markOf(row.agent, row.sessionId);
    this.given.set(uri.toString(), { uri, mark });
    switch (mark) {
      case 'waiting':
        return new vscode.FileDecoration('!', vscode.l10n.t('Waiting for you'), new vscode.ThemeColor('acpSessions.waitingForeground'));
      case 'unread':
        return new vscode.FileDecoration('●', vscode.l10n.t('Unread: the agent has something newer than you last saw'), new vscode.ThemeColor('acpSessions.unreadForeground'));
      default:
        return undefined;
    }
  }

  private markOf(agent: string, sessionId: string): 'waiting' | 'unread' | undefined {
    const found = this.model.find(agent, sessionId);
    if (!found) return undefined;
    if (isWaiting(found.session)) return 'waiting';
    return this.state.isUnread(agent, found.session) ? 'unread' : undefined;
  }

  /**
   * Tells VS Code of the rows whose mark changed, and of no other: a change event redraws each
   * row it names, and a row redrawn under the pointer loses the inline action being clicked.
   */
  private fireChangedDecorations(): void {
    const changed: vscode.Uri[] = [];
    for (const [key, given] of this.given) {
      const row = parseRowUri(given.uri);
      if (!row || !this.model.find(row.agent, row.sessionId)) {
        // Its session left the lists: its row is gone (a marked one is told so).
        this.given.delete(key);
        if (given.mark !== undefined) changed.push(given.uri);
        continue;
      }
      const mark = this.markOf(row.agent, row.sessionId);
      if (mark === given.mark) continue;
      changed.push(given.uri);
      // Asked again, it is recorded again; a row gone from the lists is asked for no more.
      this.given.delete(key);
    }
    if (changed.length > 0) this.decorationsChanged.fire(changed);
  }

  /** Every session the loaded lists hold now, once each (a session is in one list). */
  private listed(): { agent: string; session: SessionInfo }[] {
    const seen = new Set<string>();
    const out: { agent: string; session: SessionInfo }[] = [];
    for (const list of this.model.allLists()) {
      if (list.status !== 'loaded' && list.sessions.length === 0) continue;
      for (const session of list.sessions) {
        const key = JSON.stringify([list.agent, session.sessionId]);
        if (seen.has(key) || !this.model.inScope(session.cwd)) continue;
        seen.add(key);
        out.push({ agent: list.agent, session });
      }
    }
    return out;
  }

  /** How many listed sessions wait for the user, and how many are unread (a waiting one counts as waiting only). */
  counts(): { waiting: number; unread: number } {
    let waiting = 0;
    let unread = 0;
    for (const { agent, session } of this.listed()) {
      if (isWaiting(session)) waiting++;
      else if (this.state.isUnread(agent, session)) unread++;
    }
    return { waiting, unread };
  }

  updateBadge(): void {
    const view = this.treeView();
    if (!view) return;
    const what = readBadgeSetting();
    const { waiting, unread } = this.counts();
    const value = what === 'off' ? 0 : what === 'waiting' ? waiting : what === 'unread' ? unread : waiting + unread;
    if (value === 0) {
      if (view.badge !== undefined) view.badge = undefined;
      return;
    }
    const parts = [
      what !== 'unread' && waiting > 0 ? vscode.l10n.t('{0} waiting for you', waiting) : undefined,
      what !== 'waiting' && unread > 0 ? vscode.l10n.t('{0} unread', unread) : undefined,
    ];
    const tooltip = parts.filter(Boolean).join(', ');
    if (view.badge?.value !== value || view.badge.tooltip !== tooltip) view.badge = { value, tooltip };
  }

  /** Mark All as Read: every session of the agent's (or the folder's) loaded lists. */
  markAllRead(agent: string, cwd?: string, section?: 'active' | 'archived'): number {
    const sessions = this.model
      .allLists(agent)
      .filter((l) => (section === undefined || l.section === section) && (cwd === undefined || l.cwd === cwd))
      .flatMap((l) => l.sessions.filter((s) => this.model.inScope(s.cwd)));
    const unread = sessions.filter((s) => this.state.isUnread(agent, s));
    if (unread.length > 0) this.state.markRead(agent, unread);
    return unread.length;
  }

  /** Mark All as Read from the palette: every agent's listed sessions. */
  markEveryAgentRead(): number {
    return [...new Set(this.model.allLists().map((l) => l.agent))].reduce((n, agent) => n + this.markAllRead(agent), 0);
  }

  /** A transcript of the session was shown (its replay ended, or its tab was revealed). */
  shown(agent: string, sessionId: string): void {
    const found = this.model.find(agent, sessionId);
    this.state.markRead(agent, [found?.session ?? { sessionId, cwd: '' }]);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Mark as Read, Mark as Unread (one or many), Mark All as Read (an agent's or a folder's row). */
export function registerReadCommands(marks: ReadMarks, targets: CommandTargets): vscode.Disposable[] {
  const resolve = (values: unknown[], nothingDone: string) => {
    const invocation: Invocation = values.length > 0 ? { via: 'args', args: values } : { via: 'key' };
    return targets.resolve(invocation, 'many', nothingDone);
  };
  return [
    vscode.commands.registerCommand('acpSessions.markRead', async (...values: unknown[]) => {
      for (const [agent, refs] of groupBy(await resolve(values, vscode.l10n.t('Nothing was marked')), (t) => t.agent)) {
        marks.state.markRead(agent, refs.map((r) => r.session));
      }
    }),
    vscode.commands.registerCommand('acpSessions.markUnread', async (...values: unknown[]) => {
      for (const [agent, refs] of groupBy(await resolve(values, vscode.l10n.t('Nothing was marked')), (t) => t.agent)) {
        marks.state.markUnread(agent, refs.map((r) => r.session));
      }
    }),
    vscode.commands.registerCommand('acpSessions.markAllRead', (node: unknown) => {
      if (node instanceof AgentNode) return marks.markAllRead(node.agent.name);
      if (node instanceof FolderNode) return marks.markAllRead(node.agent, node.folder.path, node.section);
      if (node instanceof SectionNode) return marks.markAllRead(node.agent, undefined, node.section);
      // From the palette (no row): every agent's; another row's menu does not offer it.
      return node === undefined ? marks.markEveryAgentRead() : 0;
    }),
  ];
}
