// "Load more" at the end of a list whose agent returned a nextCursor.
import * as vscode from 'vscode';
import { messageOf } from '../../../acp/errors';
import type { SessionList } from '../../../sessions/sessionsModel';
import { plainBlock } from '../../common/plainText';
import { ContextWord, contextValue } from './contextValues';
import { TreeNode } from './treeNode';

export class LoadMoreNode extends TreeNode {
  constructor(
    parent: TreeNode,
    private currentList: SessionList,
    /** Under a filter: how many of the loaded sessions it shows. */
    private filtered?: number,
  ) {
    super(parent);
  }

  /** The list whose next page this loads. */
  get list(): SessionList {
    return this.currentList;
  }

  protected override update(fresh: LoadMoreNode): void {
    this.currentList = fresh.currentList;
    this.filtered = fresh.filtered;
  }

  get id(): string {
    return `${this.parent!.id}/load-more`;
  }

  getTreeItem(): vscode.TreeItem {
    const failed = this.list.error !== undefined && !this.list.loadingMore;
    const label = this.list.loadingMore ? vscode.l10n.t('Loading more…') : failed ? vscode.l10n.t('Could not load more sessions. Try again') : vscode.l10n.t('Load more…');
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon(this.list.loadingMore ? 'loading~spin' : failed ? 'warning' : 'more');
    item.tooltip = failed ? plainBlock(messageOf(this.list.error)) : this.filtered === undefined
        ? vscode.l10n.t('Ask the agent for the next sessions ({0} shown).', this.list.sessions.length)
        : vscode.l10n.t('Ask the agent for the next sessions ({0} loaded, {1} of them shown by the filter).', this.list.sessions.length, this.filtered);
    item.contextValue = contextValue(ContextWord.loadMore);
    if (!this.list.loadingMore) item.command = { command: 'acpSessions.loadMore', title: vscode.l10n.t('Load More'), arguments: [this] };
    return item;
  }
}
