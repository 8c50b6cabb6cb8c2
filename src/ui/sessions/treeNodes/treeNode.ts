// Base of the Sessions tree's nodes: one small class per kind of node. Nodes only render what
// the models hold; fetching and caching live in src/sessions.
import * as vscode from 'vscode';
import type { AgentRegistry } from '../../../sessions/agentRegistry';
import type { SessionHealth } from '../../../sessions/health';
import type { LearnedFacts } from '../../../sessions/lineage';
import type { Pins } from '../../../sessions/pins';
import type { SessionInfo } from '../../../acp/types';
import type { SessionList, SessionsModel } from '../../../sessions/sessionsModel';
import type { DamagedCopy, KeptCopy } from '../../../keep/keptStore';
import type { StoredChanges } from '../../../changes/changesStore';

/** What the Kept Here nodes read (src/keep/keptHere.ts and the store). */
export interface KeptView {
  /** The copies of sessions `agent` no longer has, in the view's scope. */
  sessions(agent: string): KeptCopy[];
  /** Files filed under `agent` that do not read as whole copies. */
  damaged(agent: string): DamagedCopy[];
  /** How many copies of `agent`'s sessions are kept, and their bytes on disk. */
  usage(agent: string): { count: number; bytes: number };
}

/** The Sessions view's filters: one at a time. */
export type SessionFilter = 'all' | 'problems' | 'unread' | 'waiting';

/** What every node may need, passed down from the view. */
export interface TreeContext {
  readonly registry: AgentRegistry;
  readonly model: SessionsModel;
  /** The open workspace folders (local paths), in order. */
  folders(): readonly { path: string; name: string }[];
  groupByDate(): boolean;
  /** Missing folders and failed loads, marked on the rows. */
  readonly health: SessionHealth;
  /** The view's filter: every session, or only those with a problem, unread, or waiting for the user. */
  filter(): SessionFilter;
  /** Read and unread (src/ui/sessions/readMarks.ts). */
  readonly read?: { isUnread(agent: string, session: SessionInfo): boolean };
  /** `acpSessions.showSubagents`: subagent sessions nested under their parent, or left out. */
  showSubagents(): boolean;
  /** `acpSessions.showBranch`: the git branch in a session's description. */
  showBranch(): boolean;
  /** Lineage and the last figures of opened transcripts. */
  readonly learned: LearnedFacts;
  /** Pinned sessions (shown first in Active; gone ones shown as gone). */
  readonly pins?: Pins;
  /** When the agent's own clean-up will remove a session soon (Claude's cleanupPeriodDays), and what says so. */
  retention?(agent: string, session: SessionInfo): { removal: number; days: number; settings: string } | undefined;
  /** Kept copies of sessions the agents no longer have (the Kept Here sections). */
  readonly kept?: KeptView;
  /** When the copy kept of a session was made, or undefined. */
  keptAt?(agent: string, session: SessionInfo): string | undefined;
  /** What a session's last replay seen here changed (src/changes/), or undefined when none was seen. */
  changes?(agent: string, sessionId: string): StoredChanges | undefined;
  /** `acpSessions.showChanges`: what a session changed, in its description too. */
  showChanges?(): boolean;
  /** The offer to keep the sessions `agent` will remove soon, once per window ("Keep N sessions … will remove…"). */
  keepOffer?(agent: string): { count: number } | undefined;
  /** Starts loading a list's first page, with progress in the view. */
  load(list: SessionList): void;
  /** Starts the agent, with progress in the view. */
  start(agent: string): void;
  now(): number;
}

/**
 * Nodes are made afresh by their parent's getChildren; the view keeps one object per id (VS Code
 * knows its nodes by object) and refreshes the one it kept from the fresh one (`refreshFrom`), so
 * a node describes what it shows now.
 */
export abstract class TreeNode {
  constructor(readonly parent: TreeNode | undefined) {}

  /**
   * Takes what a fresh node of the same id shows now; false when the fresh node is another kind
   * of node (the view then keeps the fresh one instead).
   */
  refreshFrom(fresh: TreeNode): boolean {
    if (fresh.constructor !== this.constructor || fresh.id !== this.id) return false;
    this.update(fresh as this);
    return true;
  }

  /** Copies the data a fresh node of the same class and id holds (what its parent knows now). */
  protected update(_fresh: this): void {}

  /** Stable across refreshes, so expansion and selection survive them. */
  abstract readonly id: string;
  abstract getTreeItem(): vscode.TreeItem;
  getChildren(): TreeNode[] {
    return [];
  }
}
