// "Active" (`archived: "exclude"`) or "Archived" (`archived: "only"`) under an agent.
import * as vscode from 'vscode';
import type { Section } from '../../../sessions/sessionsModel';
import { ContextWord, contextValue } from './contextValues';
import { FolderNode } from './folderNode';
import { listChildren } from './listChildren';
import { TreeNode, type TreeContext } from './treeNode';

export class SectionNode extends TreeNode {
  constructor(
    private readonly ctx: TreeContext,
    parent: TreeNode,
    readonly agent: string,
    readonly section: Section,
  ) {
    super(parent);
  }

  get id(): string {
    return `${this.parent!.id}/section:${this.section}`;
  }

  /** Folders in the current scope: none (all folders in one list), or each workspace folder. */
  private folders() {
    return this.ctx.model.scope.kind === 'all' ? [] : this.ctx.folders();
  }

  getTreeItem(): vscode.TreeItem {
    const archived = this.section === 'archived';
    // Active starts open; Archived is history, opened (and listed) on demand.
    const item = new vscode.TreeItem(
      archived ? vscode.l10n.t('Archived') : vscode.l10n.t('Active'),
      archived ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon(archived ? 'archive' : 'history');
    const lists = this.lists();
    if (lists.length > 0 && lists.every((l) => l.status === 'loaded')) {
      const count = lists.reduce((n, l) => n + l.sessions.length, 0);
      item.description = `${count}${lists.some((l) => l.hasMore || l.mayHoldMore !== undefined) ? '+' : ''}`;
    }
    item.tooltip = archived
      ? vscode.l10n.t('Sessions the agent keeps archived (session/list with archived: "only").')
      : vscode.l10n.t('Sessions that are not archived.');
    const capped = lists.find((l) => l.status === 'loaded' && l.mayHoldMore !== undefined);
    if (capped) item.tooltip += '\n\n' + vscode.l10n.t('The agent may hold more: it ended its list on a page of {0} sessions without a cursor to the rest.', capped.mayHoldMore!);
    item.contextValue = contextValue(ContextWord.section, ContextWord[this.section]);
    const name = archived ? vscode.l10n.t('Archived') : vscode.l10n.t('Active');
    item.accessibilityInformation = {
      label: item.description === undefined ? vscode.l10n.t('{0} section', name) : vscode.l10n.t('{0} section, {1} sessions', name, String(item.description)),
    };
    return item;
  }

  private lists() {
    const folders = this.folders();
    const cwds = folders.length === 0 ? [undefined] : folders.map((f) => f.path);
    return cwds.map((cwd) => this.ctx.model.list(this.agent, this.section, cwd));
  }

  override getChildren(): TreeNode[] {
    const folders = this.folders();
    if (folders.length > 1) return folders.map((f) => new FolderNode(this.ctx, this, this.agent, this.section, f));
    return listChildren(this.ctx, this, this.ctx.model.list(this.agent, this.section, folders[0]?.path));
  }
}
