// A one-line state in the tree: loading, empty, error, not connected, or an explanation.
import * as vscode from 'vscode';
import { plainBlock, plainLine } from '../../common/plainText';
import { ContextWord, contextValue } from './contextValues';
import { TreeNode } from './treeNode';

export type MessageKind = 'loading' | 'empty' | 'error' | 'warning' | 'info';

const icons: Record<MessageKind, vscode.ThemeIcon> = {
  loading: new vscode.ThemeIcon('loading~spin'),
  empty: new vscode.ThemeIcon('circle-slash'),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground')),
  warning: new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')),
  info: new vscode.ThemeIcon('info'),
};

export class MessageNode extends TreeNode {
  constructor(
    parent: TreeNode,
    private kind: MessageKind,
    private message: string,
    private options: { tooltip?: string; command?: vscode.Command; key?: string } = {},
  ) {
    super(parent);
  }

  protected override update(fresh: MessageNode): void {
    this.kind = fresh.kind;
    this.message = fresh.message;
    this.options = fresh.options;
  }

  get id(): string {
    return `${this.parent!.id}/message:${this.options.key ?? this.kind}`;
  }

  getTreeItem(): vscode.TreeItem {
    // The first line is the label; the full text (e.g. the agent's stderr) is in the tooltip.
    const [first] = this.message.split('\n');
    const item = new vscode.TreeItem(plainLine(first), vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = icons[this.kind];
    item.tooltip = plainBlock(this.options.tooltip ?? this.message);
    item.contextValue = contextValue(ContextWord.message, ContextWord[this.kind]);
    item.command = this.options.command;
    return item;
  }
}
