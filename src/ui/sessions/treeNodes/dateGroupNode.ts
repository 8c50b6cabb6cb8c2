// Today / Yesterday / This Week / Older, when sessions are grouped by date.
import * as vscode from 'vscode';
import type { SessionInfo } from '../../../acp/types';
import { type DateGroup } from '../../../sessions/format';
import { dateGroupLabel } from '../../common/l10n';
import { ContextWord, contextValue } from './contextValues';
import type { SessionList } from '../../../sessions/sessionsModel';
import { SessionNode } from './sessionNode';
import { TreeNode, type TreeContext } from './treeNode';

export class DateGroupNode extends TreeNode {
  constructor(
    private readonly ctx: TreeContext,
    parent: TreeNode,
    private list: SessionList,
    readonly group: DateGroup,
    private sessions: readonly SessionInfo[],
    private subagents: ReadonlyMap<string, readonly SessionInfo[]> = new Map(),
  ) {
    super(parent);
  }

  protected override update(fresh: DateGroupNode): void {
    this.list = fresh.list;
    this.sessions = fresh.sessions;
    this.subagents = fresh.subagents;
  }

  get id(): string {
    return `${this.parent!.id}/date:${this.group}`;
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(dateGroupLabel(this.group), vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    item.description = String(this.sessions.length);
    item.contextValue = contextValue(ContextWord.dateGroup);
    return item;
  }

  override getChildren(): TreeNode[] {
    return this.sessions.map((s) => new SessionNode(this.ctx, this, this.list, s, this.subagents));
  }
}
