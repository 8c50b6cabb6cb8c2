// Base of the Sessions tree's nodes: one small class per kind of node. Nodes only render what
// the models hold; fetching and caching live in src/sessions.
import * as vscode from 'vscode';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import type { SessionList, SessionsModel } from '../../sessions/sessionsModel';

/** What every node may need, passed down from the view. */
export interface TreeContext {
  readonly registry: AgentRegistry;
  readonly model: SessionsModel;
  /** The open workspace folders (local paths), in order. */
  folders(): readonly { path: string; name: string }[];
  groupByDate(): boolean;
  /** Starts loading a list's first page, with progress in the view. */
  load(list: SessionList): void;
  /** Starts the agent, with progress in the view. */
  start(agent: string): void;
  now(): number;
}

export abstract class TreeNode {
  constructor(readonly parent: TreeNode | undefined) {}

  /** Stable across refreshes, so expansion and selection survive them. */
  abstract readonly id: string;
  abstract getTreeItem(): vscode.TreeItem;
  getChildren(): TreeNode[] {
    return [];
  }
}
