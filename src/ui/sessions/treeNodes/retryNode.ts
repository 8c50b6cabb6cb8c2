// "Retry" under an error: lists again, or restarts the agent.
import * as vscode from 'vscode';
import type { SessionList } from '../../../sessions/sessionsModel';
import { ContextWord, contextValue } from './contextValues';
import { TreeNode } from './treeNode';

export class RetryNode extends TreeNode {
  constructor(
    parent: TreeNode,
    /** A list to load again, or the name of an agent to restart. */
    private currentTarget: { list: SessionList } | { agent: string },
    private label = vscode.l10n.t('Retry'),
  ) {
    super(parent);
  }

  /** A list to load again, or the name of an agent to restart. */
  get target(): { list: SessionList } | { agent: string } {
    return this.currentTarget;
  }

  protected override update(fresh: RetryNode): void {
    this.currentTarget = fresh.currentTarget;
    this.label = fresh.label;
  }

  get id(): string {
    return `${this.parent!.id}/retry`;
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('refresh');
    item.contextValue = contextValue(ContextWord.retry);
    item.command = { command: 'acpSessions.retry', title: this.label, arguments: [this] };
    return item;
  }
}
