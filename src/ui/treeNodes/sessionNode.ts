// One session: its title (or a fallback), age, a rich tooltip, an icon by state, and a
// contextValue that says which operations the agent allows on it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import { relativeTime, sessionLabel, updatedAtMs } from '../../sessions/format';
import type { Section, SessionList } from '../../sessions/sessionsModel';
import { markdownText, plainLine } from '../plainText';
import { TreeNode, type TreeContext } from './treeNode';

export class SessionNode extends TreeNode {
  constructor(
    private readonly ctx: TreeContext,
    parent: TreeNode,
    readonly list: SessionList,
    readonly session: SessionInfo,
  ) {
    super(parent);
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
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const ms = updatedAtMs(session);
    const age = ms === undefined ? undefined : relativeTime(ms, this.ctx.now());
    // Without a folder grouping above it, the folder is part of what tells sessions apart.
    const folder = this.list.cwd === undefined ? plainLine(path.basename(session.cwd)) : undefined;
    item.description = [age, folder].filter(Boolean).join(' · ');
    item.tooltip = this.tooltip(label, ms);
    const archived = this.section === 'archived';
    item.iconPath = new vscode.ThemeIcon(archived ? 'archive' : 'comment-discussion');
    item.contextValue = this.contextValue();
    // What a sighted user sees, in words: title, section, age, folder, and the live state when there is one.
    const justNow = ms !== undefined && this.ctx.now() - ms < 60_000;
    const seen = archived
      ? (age === undefined ? vscode.l10n.t('{0}, archived session', label) : justNow ? vscode.l10n.t('{0}, archived session, updated just now', label) : vscode.l10n.t('{0}, archived session, updated {1} ago', label, age))
      : (age === undefined ? vscode.l10n.t('{0}, active session', label) : justNow ? vscode.l10n.t('{0}, active session, updated just now', label) : vscode.l10n.t('{0}, active session, updated {1} ago', label, age));
    item.accessibilityInformation = { label: [seen, folder, this.liveStateText()].filter(Boolean).join(', ') };
    if (this.capabilities?.loadSession) {
      item.command = { command: 'acpSessions.openTranscript', title: vscode.l10n.t('Open Transcript'), arguments: [this] };
    }
    return item;
  }

  /** The session's live state as the row shows it (running, waiting, …); none until sessions carry one. */
  private liveStateText(): string | undefined {
    return undefined;
  }

  private get capabilities() {
    return this.ctx.registry.agent(this.agent)?.capabilities;
  }

  /** `session:<active|archived>` then the allowed operations, matched by regexes in package.json menus. */
  contextValue(): string {
    const caps = this.capabilities;
    const parts = ['session', this.section];
    if (caps?.archive) parts.push('archivable');
    if (caps?.delete) parts.push('deletable');
    if (caps?.loadSession) parts.push('loadable');
    if (caps?.title) parts.push('renamable');
    return parts.join(':');
  }

  private tooltip(label: string, ms: number | undefined): vscode.MarkdownString {
    // Agent text, escaped whole: no Markdown, link, autolink, HTML or icon of it renders.
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${markdownText(label)}**\n\n`);
    const rows: [string, string][] = [
      [vscode.l10n.t('Updated'), ms === undefined ? vscode.l10n.t('unknown') : new Date(ms).toLocaleString()],
      [vscode.l10n.t('Folder'), this.session.cwd],
      [vscode.l10n.t('Session ID'), this.session.sessionId],
      [vscode.l10n.t('State'), this.section === 'archived' ? vscode.l10n.t('Archived') : vscode.l10n.t('Active')],
      [vscode.l10n.t('Agent'), this.agent],
    ];
    for (const [name, value] of rows) {
      md.appendMarkdown(`${name}: ${markdownText(value)}  \n`);
    }
    return md;
  }
}
