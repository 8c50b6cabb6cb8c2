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
    /** The list's subagent sessions by parent id: this session's children, and theirs. */
    private readonly subagents: ReadonlyMap<string, readonly SessionInfo[]> = new Map(),
  ) {
    super(parent);
  }

  /** Whether this session is a subagent nested under another session's node. */
  get isSubagent(): boolean {
    return this.parent instanceof SessionNode;
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
    item.description = [age, folder].filter(Boolean).join(' · ');
    item.tooltip = this.tooltip(label, ms);
    const archived = this.section === 'archived';
    item.iconPath = new vscode.ThemeIcon(archived ? 'archive' : this.isSubagent ? 'robot' : 'comment-discussion');
    item.contextValue = this.contextValue();
    item.accessibilityInformation = {
      label: `${label}, ${archived ? 'archived' : 'active'} session${this.isSubagent ? vscode.l10n.t(', subagent') : ''}${children ? vscode.l10n.t(', {0} subagents', children) : ''}${age ? `, updated ${age} ago` : ''}`,
    };
    if (this.capabilities?.loadSession) {
      item.command = { command: 'acpSessions.openTranscript', title: 'Open Transcript', arguments: [this] };
    }
    return item;
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
      ['Updated', ms === undefined ? 'unknown' : new Date(ms).toLocaleString()],
      ['Folder', this.session.cwd],
      ['Session ID', this.session.sessionId],
      ['State', this.section === 'archived' ? 'Archived' : 'Active'],
      ['Agent', this.agent],
    ];
    if (this.isSubagent) rows.push([vscode.l10n.t('Subagent of'), (this.parent as SessionNode).session.sessionId]);
    // Only figures the agent sent in a transcript opened in this window: never estimated.
    const usage = this.ctx.learned.usage(this.agent, this.session.sessionId);
    if (usage) {
      const cost = usage.cost ? ` · ${usage.cost.amount.toFixed(2)} ${usage.cost.currency}` : '';
      rows.push([vscode.l10n.t('Context'), vscode.l10n.t('{0} / {1} tokens{2}', usage.used.toLocaleString(), usage.size.toLocaleString(), cost)]);
    }
    for (const [name, value] of rows) {
      md.appendMarkdown(`${name}: ${markdownText(value)}  \n`);
    }
    return md;
  }
}
