// A workspace folder inside a section, when several folders are open: its own cursor chain
// with `cwd` = the folder.
import * as vscode from 'vscode';
import type { Section } from '../../../sessions/sessionsModel';
import { ContextWord, contextValue } from './contextValues';
import { listChildren } from './listChildren';
import { TreeNode, type TreeContext } from './treeNode';

export class FolderNode extends TreeNode {
  constructor(
    private readonly ctx: TreeContext,
    parent: TreeNode,
    readonly agent: string,
    readonly section: Section,
    private currentFolder: { path: string; name: string },
  ) {
    super(parent);
  }

  get folder(): { path: string; name: string } {
    return this.currentFolder;
  }

  protected override update(fresh: FolderNode): void {
    this.currentFolder = fresh.currentFolder;
  }

  get id(): string {
    return `${this.parent!.id}/folder:${this.folder.path}`;
  }

  get list() {
    return this.ctx.model.list(this.agent, this.section, this.folder.path);
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.folder.name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    item.iconPath = vscode.ThemeIcon.Folder;
    item.resourceUri = vscode.Uri.file(this.folder.path);
    const list = this.list;
    item.description = list.status === 'loaded' ? `${list.sessions.length}${list.hasMore ? '+' : ''}` : undefined;
    item.tooltip = this.folder.path;
    item.contextValue = contextValue(ContextWord.folder);
    return item;
  }

  override getChildren(): TreeNode[] {
    return listChildren(this.ctx, this, this.list);
  }
}
