// What a transcript's replay (transcriptReplay.ts) and those around it give each other: what the
// panels' owner lets it ask (its options), what it needs of its tab, the exported file it may
// show instead of an agent's session, and what it tells: the facts the tree learns, and an open
// tab's updates and rows for an export.
import type * as vscode from 'vscode';
import type { ForkPoint, SessionInfo } from '../../acp/types';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import type { WebviewFeed } from '../../transcript/feed';
import type { FileReductionRequest } from '../../transcript/fileReduction';
import type { Entity, Usage } from '../../transcript/model';
import type { OpenedReplay } from '../../transcript/replayReader';
import type { Timeline } from '../../transcript/timeline';
import type { UpdateLog } from '../../transcript/updateLog';
import type { HostParts } from './hostParts';
import type { PageWait } from './transcriptHeader';

/** What an opened transcript learned about its session, for the tree: only what the agent said. */
export interface SessionFacts {
  /** The last `usage_update`. */
  usage?: Usage;
  /** The child sessions its `subagent_update`s announced, in order. */
  subagents: string[];
}

/** An exported replay being read, for its tab: the file, its updates as read, and how a subagent row opens its child. */
export interface ExportedSource extends Pick<OpenedReplay, 'header' | 'slices' | 'counts' | 'close'> {
  file: string;
  /**
   * How a worker reads the file again by itself (the host's `slices` then stay unread, for the
   * case it cannot); `counts` then come from its read.
   */
  reading?: Omit<FileReductionRequest, 'spec'>;
  /** A kept copy of a session its agent no longer has (Kept Here): when the copy was made (ISO). */
  keptAt?: string;
  /** Opens a child the file's subagent row names from the same export, or says it is not there: never an agent. */
  openChild(sessionId: string): Promise<void>;
}

/** An open tab's updates and rows, for an export (see TranscriptReplay.exportSource). */
export interface OpenExportSource {
  updates: UpdateLog;
  /** How many updates there were when it was asked for. */
  count: number;
  timeline: Timeline;
  rowsFrom: 'worker' | 'host';
  /** False once the tab let go of them (closed, or loaded again): what was read of them since may be cut short. */
  current(): boolean;
}

/** What the panels' owner lets a replay tell it or ask of it (the panels' options). */
export interface ReplayOptions {
  /** Unarchives through the Sessions model, so the tree moves the session at once. */
  unarchive?(agentName: string, sessionId: string): Promise<void>;
  /**
   * After a successful load: what the load did, as the agent lists the session now (no side
   * effects). `resumed`: the load made it newer (claude, codex resume what they load).
   */
  afterLoad?(agentName: string, before: SessionInfo): Promise<{ resumed: boolean; session?: SessionInfo }>;
  /** After the tab's `session/close`: the session's live state changed. */
  closed?(agentName: string, sessionId: string): void;
  /** Whether some list of the agent's holds the session (a link or a search may name one that none does). */
  listed?(agentName: string, sessionId: string): boolean;
  /** After each `session/load`: the error when the agent could not replay it (session health). */
  loaded?(agentName: string, sessionId: string, error?: unknown): void;
  /** A replay ended, or a live update changed the figures or the children. */
  learned?(agentName: string, sessionId: string, facts: SessionFacts): void;
  /**
   * After a successful replay: its entities, for the search index, in batches read from the
   * transcript's file (the iteration fails when the tab closes before it ends).
   */
  replayed?(agentName: string, session: SessionInfo & { archived: boolean }, entities: AsyncIterable<readonly Entity[]>): void;
  /**
   * Fork from Here: forks the session at `point` through the Sessions model, which lists the new
   * session under its origin; resolves with it, or rejects with the agent's refusal.
   */
  fork?(agentName: string, sessionId: string, point: ForkPoint): Promise<SessionInfo>;
  /**
   * Where open transcripts keep what the heap need not hold (a directory of ours; its files of
   * extension hosts no longer running are removed at activation). Unset: everything on the heap.
   */
  spillDir?: string;
  /**
   * The line worker's script (dist/lineWorker.js): an exported file or a kept copy is read and
   * reduced in a worker of its own, off this thread (with `spillDir`). Unset: on this thread.
   */
  lineWorker?: string;
}

/** What a replay needs of its tab. */
export interface ReplayOwner {
  readonly agents: Pick<AgentRegistry, 'agent' | 'getClient' | 'connectedClient'>;
  readonly log: vscode.LogOutputChannel;
  readonly host: Pick<HostParts, 'AgentDisconnectedError'>;
  readonly options: ReplayOptions;
  /** The page's feed: the timeline tells it its changes; a replay starts the page over and sends its end. */
  readonly feed: Pick<WebviewFeed, 'collector' | 'snapshot' | 'flush' | 'restart' | 'held'>;
  /** Settles with what had happened when the replay may begin: the page's `ready`, or why it is not waited for. */
  readonly pageStarted: Promise<PageWait>;
  /** Header-only changes (loading, archived, problems). */
  markChanged(): void;
  /** A live update was applied. */
  changed(): void;
}
