// Kept Here: under an agent, after Archived, the sessions the agent no longer has and of which a
// copy was kept here, each with its own icon and words (never as if the agent had it), and the
// copies that do not read as whole, each saying so and offering to delete it.
import * as vscode from 'vscode';
import type { KeptCopy, DamagedCopy } from '../../../keep/keptStore';
import { relativeTime, sessionLabel, updatedAtMs } from '../../../sessions/format';
import { markdownText, plainLine } from '../../common/plainText';
import { ContextWord, contextValue } from './contextValues';
import { TreeNode, type TreeContext } from './treeNode';

export class KeptSectionNode extends TreeNode {
  constructor(
    private readonly ctx: TreeContext,
    parent: TreeNode,
    readonly agent: string,
  ) {
    super(parent);
  }

  get id(): string {
    return `${this.parent!.id}/section:kept`;
  }

  getTreeItem(): vscode.TreeItem {
    const name = vscode.l10n.t('Kept Here');
    const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('save-all');
    const count = this.ctx.kept?.sessions(this.agent).length ?? 0;
    const damaged = this.ctx.kept?.damaged(this.agent).length ?? 0;
    item.description = damaged ? vscode.l10n.t('{0} · {1} damaged', count, damaged) : String(count);
    item.tooltip = vscode.l10n.t('Sessions this agent no longer has, of which ACP Sessions kept a copy when they were last read. They open read-only from the copy; the agent is not asked.');
    item.contextValue = contextValue(ContextWord.section, ContextWord.kept);
    item.accessibilityInformation = { label: vscode.l10n.t('{0} section, {1} sessions', name, count) };
    return item;
  }

  override getChildren(): TreeNode[] {
    const kept = this.ctx.kept;
    if (!kept) return [];
    return [...kept.sessions(this.agent).map((c) => new KeptNode(this.ctx, this, c)), ...kept.damaged(this.agent).map((d) => new DamagedKeptNode(this, d))];
  }
}

export class KeptNode extends TreeNode {
  constructor(
    private readonly ctx: TreeContext,
    parent: TreeNode,
    private current: KeptCopy,
  ) {
    super(parent);
  }

  get copy(): KeptCopy {
    return this.current;
  }

  get agent(): string {
    return this.current.meta.agentName;
  }

  get sessionId(): string {
    return this.current.meta.sessionId;
  }

  protected override update(fresh: KeptNode): void {
    this.current = fresh.current;
  }

  get id(): string {
    return `kept:${JSON.stringify([this.agent, this.sessionId])}`;
  }

  getTreeItem(): vscode.TreeItem {
    const { meta } = this.current;
    const label = plainLine(sessionLabel({ sessionId: meta.sessionId, title: meta.title ?? null }));
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const ms = updatedAtMs({ updatedAt: meta.updatedAt ?? null });
    const keptMs = Date.parse(meta.keptAt);
    const age = ms === undefined ? undefined : relativeTime(ms, this.ctx.now());
    item.description = age === undefined ? vscode.l10n.t('kept copy') : vscode.l10n.t('kept copy · {0}', age);
    item.iconPath = new vscode.ThemeIcon('save');
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${markdownText(label)}**\n\n`);
    md.appendMarkdown(
      `${markdownText(vscode.l10n.t('{0} no longer has this session. ACP Sessions kept a copy of it on {1}, when it was last read; it opens read-only from that copy.', this.agent, Number.isNaN(keptMs) ? meta.keptAt : new Date(keptMs).toLocaleString()))}\n\n`,
    );
    const rows: [string, string][] = [
      [vscode.l10n.t('Updated'), ms === undefined ? vscode.l10n.t('unknown') : new Date(ms).toLocaleString()],
      [vscode.l10n.t('Folder'), meta.cwd],
      [vscode.l10n.t('Session ID'), meta.sessionId],
      [vscode.l10n.t('Copy'), vscode.l10n.t('{0} updates, {1} KB on disk', meta.updates, Math.max(1, Math.round(this.current.bytes / 1024)))],
    ];
    for (const [name, value] of rows) md.appendMarkdown(`${name}: ${markdownText(value)}  \n`);
    item.tooltip = md;
    item.contextValue = contextValue(ContextWord.kept);
    item.accessibilityInformation = { label: vscode.l10n.t('{0}, kept copy of a session {1} no longer has', label, this.agent) };
    item.command = { command: 'acpSessions.openKeptCopy', title: vscode.l10n.t('Open Kept Copy'), arguments: [this] };
    return item;
  }
}

export class DamagedKeptNode extends TreeNode {
  constructor(
    parent: TreeNode,
    readonly damaged: DamagedCopy,
  ) {
    super(parent);
  }

  get id(): string {
    return `${this.parent!.id}/damaged:${this.damaged.path}`;
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(vscode.l10n.t('Damaged copy'), vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.description = plainLine(this.damaged.reason);
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
    item.tooltip = vscode.l10n.t('This kept copy does not read as whole ({0}): it is not shown as a session. {1}', plainLine(this.damaged.reason), this.damaged.path);
    item.contextValue = contextValue(ContextWord.kept, ContextWord.damaged);
    item.command = { command: 'acpSessions.deleteKeptCopy', title: vscode.l10n.t('Delete Damaged Copy…'), arguments: [this] };
    return item;
  }
}
