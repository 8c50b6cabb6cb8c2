// One session: its title (or a fallback), age, a rich tooltip, an icon by state, and a
// contextValue that says which operations the agent allows on it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionInfo, SessionState } from '../../../acp/types';
import { relativeTime, sessionLabel, updatedAtMs } from '../../../sessions/format';
import { isPlainToken } from '../../../sessions/resume';
import type { Section, SessionList } from '../../../sessions/sessionsModel';
import type { SessionProblem } from '../../../sessions/health';
import { markdownText, plainLine } from '../../common/plainText';
import { resumeTemplate } from '../../common/settings';
import { changesDescription, changesTooltip } from './changesText';
import { ContextWord, contextValue } from './contextValues';
import { sessionRowUri } from './rowUri';
import { TreeNode, type TreeContext } from './treeNode';

export class SessionNode extends TreeNode {
  constructor(
    private readonly ctx: TreeContext,
    parent: TreeNode,
    private currentList: SessionList,
    private currentSession: SessionInfo,
    /** The list's subagent sessions by parent id: this session's children, and theirs. */
    private subagents: ReadonlyMap<string, readonly SessionInfo[]> = new Map(),
  ) {
    super(parent);
  }

  get list(): SessionList {
    return this.currentList;
  }

  /** The session as its list holds it now. */
  get session(): SessionInfo {
    return this.currentSession;
  }

  protected override update(fresh: SessionNode): void {
    this.currentList = fresh.currentList;
    this.currentSession = fresh.currentSession;
    this.subagents = fresh.subagents;
  }

  /** Whether this session is a subagent nested under another session's node (not a fork of it). */
  get isSubagent(): boolean {
    return this.parent instanceof SessionNode && !this.isFork;
  }

  /** Whether this session is nested under the session it was forked from. */
  get isFork(): boolean {
    return this.parent instanceof SessionNode && this.ctx.learned.forkOriginOf(this.agent, this.session) === this.parent.session.sessionId;
  }

  override getChildren(): TreeNode[] {
    return (this.subagents.get(this.session.sessionId) ?? []).map((s) => new SessionNode(this.ctx, this, this.list, s, this.subagents));
  }

  get agent(): string {
    return this.list.agent;
  }

  get section(): Section {
    return this.list.section;
  }

  /** The same session keeps its id across refreshes and date groups; a move to the other section is a new item. */
  get id(): string {
    return `session:${JSON.stringify([this.agent, this.section, this.session.sessionId])}`;
  }

  getTreeItem(): vscode.TreeItem {
    const session = this.session;
    const label = plainLine(sessionLabel(session));
    const children = this.subagents.get(session.sessionId)?.length ?? 0;
    // Collapsed: a parent's subagents are there on demand, not in the way.
    const item = new vscode.TreeItem(label, children ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const ms = updatedAtMs(session);
    const age = ms === undefined ? undefined : relativeTime(ms, this.ctx.now());
    // Without a folder grouping above it, the folder is part of what tells sessions apart.
    const folder = this.list.cwd === undefined ? plainLine(path.basename(session.cwd)) : undefined;
    const live = liveState(session.state);
    const branch = this.ctx.showBranch() && session.details?.gitBranch ? plainLine(session.details.gitBranch) : undefined;
    // Ahead of the agent's own clean-up: when it will remove the session, in the row itself.
    const retention = this.ctx.retention?.(this.agent, session);
    const removal = retention ? removalText(retention.removal, this.ctx.now()) : undefined;
    const changes = this.ctx.showChanges?.() ? changesDescription(this.ctx.changes?.(this.agent, session.sessionId)) : undefined;
    item.description = [live?.label, age, removal, branch, changes, folder].filter(Boolean).join(' · ');
    const unread = this.ctx.read?.isUnread(this.agent, session) === true;
    // Unread and waiting show as the row's decoration (src/ui/sessions/readMarks.ts), by this URI;
    // a row with neither has none, and renders as a plain row (nothing to ask the decorations for).
    if (unread || session.state === 'requires_action') item.resourceUri = sessionRowUri(this.agent, session.sessionId);
    const problem = this.ctx.health.problemOf(this.agent, session);
    item.tooltip = this.tooltip(label, ms, problem, unread);
    const archived = this.section === 'archived';
    // As VS Code's own agent sessions: what runs or waits shows in the icon; idle is the usual look.
    // A problem (missing folder, failed load) outranks it: the session may not open at all.
    item.iconPath = problem
      ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'))
      : live?.icon ?? new vscode.ThemeIcon(archived ? 'archive' : this.pinned ? 'pinned' : this.isSubagent ? 'robot' : this.isFork ? 'repo-forked' : 'comment-discussion');
    item.contextValue = contextValue(...this.contextWords(), ...(unread ? [ContextWord.unread] : []), ...(problem ? [ContextWord.problem] : []));
    // What a sighted user sees, in words: title, section, age, folder, lineage, live state, problem.
    const justNow = ms !== undefined && this.ctx.now() - ms < 60_000;
    const seen = archived
      ? (age === undefined ? vscode.l10n.t('{0}, archived session', label) : justNow ? vscode.l10n.t('{0}, archived session, updated just now', label) : vscode.l10n.t('{0}, archived session, updated {1} ago', label, age))
      : (age === undefined ? vscode.l10n.t('{0}, active session', label) : justNow ? vscode.l10n.t('{0}, active session, updated just now', label) : vscode.l10n.t('{0}, active session, updated {1} ago', label, age));
    const lineage = [this.pinned ? vscode.l10n.t('pinned') : undefined, this.isSubagent ? vscode.l10n.t('subagent') : this.isFork ? vscode.l10n.t('fork') : undefined, children ? vscode.l10n.t('{0} subagents', children) : undefined];
    const news = unread ? vscode.l10n.t('unread') : undefined;
    item.accessibilityInformation = { label: [seen, news, folder, ...lineage, live?.name, problem ? plainLine(problemText(problem)) : undefined].filter(Boolean).join(', ') };
    if (this.capabilities?.loadSession) {
      item.command = { command: 'acpSessions.openTranscript', title: vscode.l10n.t('Open Transcript'), arguments: [this] };
    }
    return item;
  }

  private get pinned(): boolean {
    return this.ctx.pins?.isPinned(this.agent, this.session.sessionId) === true;
  }

  private get capabilities() {
    return this.ctx.registry.agent(this.agent)?.capabilities;
  }

  /** `session:<active|archived>` then the allowed operations and the pin, matched by regexes in package.json menus. */
  private contextWords(): ContextWord[] {
    const caps = this.capabilities;
    const words: ContextWord[] = [ContextWord.session, ContextWord[this.section]];
    if (caps?.archive) words.push(ContextWord.archivable);
    if (caps?.delete) words.push(ContextWord.deletable);
    if (caps?.loadSession) words.push(ContextWord.loadable);
    if (caps?.title) words.push(ContextWord.renamable);
    // Resume refuses an id that is not a plain token (it could be read as an option): not offered there.
    if (resumeTemplate(this.agent) && isPlainToken(this.session.sessionId)) words.push(ContextWord.resumable);
    if (this.pinned) words.push(ContextWord.pinned);
    return words;
  }

  private tooltip(label: string, ms: number | undefined, problem: SessionProblem | undefined, unread: boolean): vscode.MarkdownString {
    const session = this.session;
    // Agent text, escaped whole: no Markdown, link, autolink, HTML or icon of it renders.
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${markdownText(label)}**\n\n`);
    if (problem) md.appendMarkdown(`${markdownText(`⚠ ${problemText(problem)}`)}\n\n`);
    if (session.state === 'requires_action') md.appendMarkdown(`${markdownText(`● ${vscode.l10n.t('Waiting for you: the agent reports it needs your input.')}`)}\n\n`);
    else if (unread) md.appendMarkdown(`${markdownText(`● ${vscode.l10n.t('Unread: the agent has something newer than you last saw of it.')}`)}\n\n`);
    const rows: [string, string][] = [
      [vscode.l10n.t('Updated'), ms === undefined ? vscode.l10n.t('unknown') : new Date(ms).toLocaleString()],
      [vscode.l10n.t('Folder'), this.session.cwd],
      [vscode.l10n.t('Session ID'), this.session.sessionId],
      [vscode.l10n.t('State'), this.section === 'archived' ? vscode.l10n.t('Archived') : vscode.l10n.t('Active')],
      ...(session.state ? [[vscode.l10n.t('Live state'), vscode.l10n.t('{0} (reported by the agent)', liveState(session.state)!.name)] as [string, string]] : []),
      [vscode.l10n.t('Agent'), this.agent],
    ];
    if (this.isSubagent) rows.push([vscode.l10n.t('Subagent of'), (this.parent as SessionNode).session.sessionId]);
    // What the agent tells of the session besides the list's fields (the AIR session index).
    const details = session.details;
    if (details?.forkedFrom !== undefined) rows.push([vscode.l10n.t('Forked from'), details.forkedFrom]);
    if (details?.model !== undefined) rows.push([vscode.l10n.t('Model'), details.model]);
    if (details?.gitBranch !== undefined) rows.push([vscode.l10n.t('Branch'), details.worktree ? vscode.l10n.t('{0} (worktree)', details.gitBranch) : details.gitBranch]);
    const when = (iso: string | undefined) => (iso === undefined || Number.isNaN(Date.parse(iso)) ? undefined : new Date(Date.parse(iso)).toLocaleString());
    const created = when(details?.createdAt);
    if (created) rows.push([vscode.l10n.t('Created'), created]);
    const lastPrompt = when(details?.lastPromptAt);
    if (lastPrompt) rows.push([vscode.l10n.t('Last prompt'), lastPrompt]);
    if (details?.cost) rows.push([vscode.l10n.t('Cost'), `${details.cost.amount.toFixed(2)} ${details.cost.currency}`]);
    // Only figures the agent sent in a transcript opened in this window: never estimated.
    const usage = this.ctx.learned.usage(this.agent, this.session.sessionId);
    if (usage) {
      const cost = usage.cost ? ` · ${usage.cost.amount.toFixed(2)} ${usage.cost.currency}` : '';
      rows.push([vscode.l10n.t('Context'), vscode.l10n.t('{0} / {1} tokens{2}', usage.used.toLocaleString(), usage.size.toLocaleString(), cost)]);
    }
    for (const [name, value] of rows) {
      md.appendMarkdown(`${name}: ${markdownText(value)}  \n`);
    }
    if (this.ctx.changes) md.appendMarkdown(`\n${changesTooltip(this.ctx.changes(this.agent, session.sessionId), session).map((line) => markdownText(line)).join('  \n')}\n`);
    const retention = this.ctx.retention?.(this.agent, session);
    if (retention) {
      const when = new Date(retention.removal).toLocaleDateString();
      const text = retention.removal <= this.ctx.now()
        ? vscode.l10n.t('Claude Code removes this session the next time it starts (cleanupPeriodDays: {0}, {1}).', retention.days, retention.settings)
        : vscode.l10n.t('Claude Code removes this session on {0} (cleanupPeriodDays: {1}, {2}).', when, retention.days, retention.settings);
      const kept = this.ctx.keptAt?.(this.agent, session);
      const copy = kept
        ? vscode.l10n.t('A copy is kept here (made {0}): once Claude Code removes it, it stays under Kept Here.', new Date(Date.parse(kept)).toLocaleString())
        : vscode.l10n.t('No copy is kept here yet: open it (or Keep Sessions…) to keep one.');
      md.appendMarkdown(`\n${markdownText(`⏳ ${text} ${copy}`)}`);
    }
    return md;
  }
}

/**
 * How a live state shows: `label` in the description (none for idle, the usual state), the
 * icon that replaces the session's own (none for idle), and `name` for the tooltip.
 */
export function liveState(state: SessionState | undefined): { name: string; label?: string; icon?: vscode.ThemeIcon } | undefined {
  switch (state) {
    case undefined:
      return undefined;
    case 'running':
      return { name: vscode.l10n.t('Running'), label: vscode.l10n.t('Running'), icon: new vscode.ThemeIcon('loading~spin') };
    case 'requires_action':
      return { name: vscode.l10n.t('Waiting for input'), label: vscode.l10n.t('Waiting for input'), icon: new vscode.ThemeIcon('bell-dot') };
    case 'error':
      return { name: vscode.l10n.t('Last turn failed'), label: vscode.l10n.t('Failed'), icon: new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground')) };
    case 'open':
      return { name: vscode.l10n.t('Open in the agent'), label: vscode.l10n.t('Open'), icon: new vscode.ThemeIcon('circle-filled') };
    case 'idle':
      return { name: vscode.l10n.t('Idle') };
  }
}

/** "removed in 3 d", or "removed at next start" when the date has passed (the agent removes it when it starts). */
export function removalText(removal: number, now: number): string {
  const days = Math.ceil((removal - now) / 86_400_000);
  return days <= 0 ? vscode.l10n.t('removed at next start') : vscode.l10n.t('removed in {0} d', days);
}

/** One line about a session's problem, with its reason and date (the tooltip, the clean-up preview). */
export function problemText(problem: SessionProblem): string {
  const date = new Date(problem.since).toLocaleString();
  return problem.kind === 'missingFolder'
    ? vscode.l10n.t('Its folder no longer exists: {0} (found missing {1})', problem.detail, date)
    : vscode.l10n.t('Its transcript failed to load on {0}: {1}', date, problem.detail);
}
