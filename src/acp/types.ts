// Protocol types come from the SDK's schema (type-only: no run-time cost), plus the few
// fields the RFDs have that the 2.4.0 schema does not carry yet.
// Imports nothing of this folder: the vendor seam (jetbrainsAir.ts) and everything else import it.
import type * as schema from '@agentclientprotocol/sdk/unstable';

export type {
  AgentCapabilities,
  AuthMethod,
  ContentBlock,
  Implementation,
  InitializeResponse,
  ListSessionsResponse,
  SessionId,
} from '@agentclientprotocol/sdk/unstable';

/** How an agent archives: by the standard, or by the JetBrains AIR vendor extension (archive.ts). */
export type ArchiveMethod = 'standard' | 'jetbrains-air';

/** What a session is doing: `open` (in the agent's memory), `running` (a turn runs), `requires_action` (waits for the user), `idle`, `error` (its last turn failed). */
export type SessionState = 'open' | 'running' | 'requires_action' | 'idle' | 'error';

/** Where the client learns live state: the standard's `session/status`, or the AIR list entries (sessionState.ts). */
export type SessionStateSource = 'status' | 'jetbrains-air';

/** `session/list`'s archive filter (archive RFD). */
export type ArchivedFilter = 'exclude' | 'include' | 'only';

/**
 * What an agent tells of a listed session beyond the schema's fields, each optional and
 * type-checked where it enters (today from the JetBrains AIR row metadata, jetbrainsAir.ts).
 */
export interface SessionDetails {
  /** The model the session last used, as the agent names it. */
  model?: string;
  /** The git branch of its working directory. */
  gitBranch?: string;
  /** True when it runs in a git worktree the agent made for it. */
  worktree?: boolean;
  /** ISO 8601 dates: created, the last prompt, the end of the last turn. */
  createdAt?: string;
  lastPromptAt?: string;
  lastTurnEndedAt?: string;
  /** The session it was forked from. */
  forkedFrom?: string;
  /** What it cost so far (claude: of a session the agent runs). */
  cost?: { amount: number; currency: string };
}

/**
 * A listed session; `archived` is a boolean on every session when `archive` is advertised.
 * `state` is what the agent tells of it live (sessionState.ts), absent when it tells nothing;
 * `details` what else it tells (model, branch, dates, lineage, cost), absent when nothing.
 */
export type SessionInfo = schema.SessionInfo & { state?: SessionState; details?: SessionDetails };

/**
 * One `session/update` payload. Known kinds are the schema's union; `session_info_update`
 * also carries `archived` (archive RFD); anything else is passed on unchanged as an
 * {@link UnknownSessionUpdate}, never dropped.
 */
export type SessionUpdate =
  | Exclude<schema.SessionUpdate, { sessionUpdate: 'session_info_update' }>
  | SessionInfoUpdate
  | UnknownSessionUpdate;

export type SessionInfoUpdate = Extract<schema.SessionUpdate, { sessionUpdate: 'session_info_update' }> & {
  /** Omitted or null: unchanged (archive RFD). */
  archived?: boolean | null;
};

export interface UnknownSessionUpdate {
  sessionUpdate: string;
  [key: string]: unknown;
}

/**
 * How much of the context window is in use, and what the session cost, as the agent said last
 * (`usage_update`). Here, below both models: the tree (sessions/) shows it and the transcript
 * (transcript/) charts it, and neither imports the other.
 */
export interface Usage {
  used: number;
  size: number;
  cost?: { amount: number; currency: string };
}

/** The agent's configured launch, as in the `acpSessions.agents` setting. */
export interface AgentConfig {
  name: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Opt into the v2 draft; falls back to v1 when the agent answers 1. */
  protocol?: 1 | 2;
  /** Resume in Terminal: the program and its arguments, with `${sessionId}` and `${cwd}` (src/sessions/resume.ts). */
  resume?: string[];
}

/** Where the client writes its own and the agent's log lines; a `vscode.LogOutputChannel` fits. */
export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

/** JSON-RPC traffic tracing, as language clients' `trace.server`. */
export type TraceLevel = 'off' | 'messages' | 'verbose';

/** What the client tells the agent about itself in `initialize`. */
export interface ClientInfo {
  name: string;
  version: string;
  title?: string;
}

export interface AcpClientOptions {
  clientInfo: ClientInfo;
  log: Logger;
  /** Read before each message, so a settings change applies at once. */
  trace?: () => TraceLevel;
  /** Longest line accepted from the agent; a longer one closes the connection. Default 64 MiB. */
  maxMessageBytes?: number;
  /** How long the agent may take to answer `initialize` (its own deadline). Default: 120 s, or `requestTimeoutMs` when longer. */
  initializeTimeoutMs?: number;
  /**
   * How long the agent may take to answer any other request; a replay's deadline restarts with
   * each update it delivers. Default 30000.
   */
  requestTimeoutMs?: number;
  /** The agent's working directory when its config names none. */
  defaultCwd?: string;
  /** How long `dispose` waits after SIGTERM before SIGKILL. Default 2000. */
  killGraceMs?: number;
  /**
   * Told of every replay this client receives (a transcript, a survey's load, an export): what it
   * returns hears each replayed update, as the load's own listener does, then how the load ended.
   * Undefined: nothing is told of this one.
   */
  replays?: (agent: string, sessionId: string, cwd: string) => ReplayObserver | undefined;
  /**
   * The line worker's script (dist/lineWorker.js): the agent's output is decoded and parsed in a
   * worker thread of this connection's own, text chunks of one message merged, so a long replay
   * does not hold the caller's thread. Unset, or where the worker cannot start: on this thread.
   */
  lineWorker?: string;
}

/** One replay, as {@link AcpClientOptions.replays} hears it. */
export interface ReplayObserver {
  /** One replayed update, with its line as {@link SessionUpdateListener} gets it (copy, never keep). */
  update(update: SessionUpdate, line: Uint8Array | undefined): void;
  /** The load answered (`ok`) or failed; after either no update comes. */
  end(ok: boolean): void;
  /**
   * Where the line worker may write the replay's lines itself as it reduces the replay (the spec
   * its sink reads, lineWorker.ts LineSink), for an observer that keeps them.
   */
  readonly sink?: unknown;
  /**
   * The line worker took {@link sink}: it writes the lines (`update` still hears every update;
   * the line need not be kept), and `written` settles with what its sink made once it ended, or
   * rejects (the replay failed, the worker stopped). Told before the first update.
   */
  sunk?(written: Promise<unknown>): void;
}

/** What the agent advertised, reduced to the methods this client uses. */
export interface AdvertisedCapabilities {
  /** v1 `loadSession`; v2: replay through `session/resume` (part of the baseline session surface). */
  loadSession: boolean;
  list: boolean;
  /** By the standard or by a vendor extension, see {@link archiveMethod}. */
  archive: boolean;
  /** Set exactly when `archive` is: which way the client archives (archive.ts). */
  archiveMethod?: ArchiveMethod;
  delete: boolean;
  resume: boolean;
  close: boolean;
  /** Rename: `session/set_title` (unstable schema), or a vendor extension's rename, see {@link titleMethod}. */
  title: boolean;
  /** Set exactly when `title` is: the standard's `session/set_title` (it wins), or the JetBrains AIR extension's. */
  titleMethod?: ArchiveMethod;
  /** `sessionCapabilities.status`: `session/status` (unstable schema; no side effects). */
  status: boolean;
  /** Set when the agent tells live state: by `session/status`, or in AIR list entries (sessionState.ts). */
  sessionState?: SessionStateSource;
  /** A live list: `subscribeSessionList`, then `onDidChangeSessionList` (JetBrains AIR extension; needs `list`). */
  listSubscribe: boolean;
  /** `getSessions`: the list entries of given sessions, without listing a folder (JetBrains AIR extension; needs `list`). */
  batchGet: boolean;
  /** `sessionCapabilities.fork`: `session/fork` (unstable schema), a new session from an existing one. */
  fork: boolean;
  authMethods: schema.AuthMethod[];
}

/**
 * Where a fork ends: at the message with `messageId` (a user prompt or an agent message as the
 * replay named it). For an agent message also its text's fingerprint (`sha256:` and the hex of its
 * text) and which message with that text it is, counted from the start (1-based), for an agent
 * that no longer knows the id. Sent as the JetBrains AIR extension's fork point (jetbrainsAir.ts).
 */
export interface ForkPoint {
  messageId: string;
  messageFingerprint?: string;
  messageOccurrence?: number;
}

/** `session/list` parameters; keep `cwd` and `archived` the same while following a cursor. */
export interface ListSessionsParams {
  cwd?: string;
  archived?: ArchivedFilter;
  cursor?: string;
}

export interface ListSessionsResult {
  sessions: SessionInfo[];
  /** Absent at the end of the list. Opaque: never parse or persist it. */
  nextCursor?: string;
}

/** One change of a live list (`subscribeSessionList`): entries new or changed, ids removed (deleted). */
export interface SessionListChange {
  subscriptionId: string;
  /** Checked as `session/list` entries are, in any archive state (each with its boolean `archived` where the agent tells it). */
  sessions: SessionInfo[];
  removed: string[];
}

/** How a replay (`loadSession`) was known to be whole. */
export interface LoadSessionResult {
  /**
   * `marker`: the agent said so after its last replayed update (JetBrains AIR `loadReplayEnd`),
   * so every update before the answer belongs to the replay; `answer`: only the `session/load`
   * answer came (an agent may answer before its replay ends, as Gemini CLI does).
   */
  replayEnd: 'marker' | 'answer';
  /** What the line worker's reduction handed over, where the load asked for one and got it (see `reduce`). */
  reduced?: unknown;
}

/**
 * Receives one session's `session/update` payloads in the order the agent sent them. `line`, when
 * given, is the agent's line the update was parsed from, as the bytes read, and the client's check
 * fixed nothing in it, so it decodes and parses to the same update (`sessionUpdateOfLine`): a log
 * that keeps updates as they came copies those bytes instead of encoding the update again. They
 * are the agent's (untrusted) and a view of a larger read: copy them during the call, never keep
 * the view. A listener that needs only the update ignores it. `reduced`: the line worker applied
 * it to a load's reduction already (AcpClient.loadSession's `reduce`), and it comes for its line (a text chunk
 * then comes as its kind alone); a listener that keeps its own timeline does not apply it again.
 * `count`: how many of the agent's lines `line` holds, where the line worker counted them already
 * (else, count them: a merged update's line is its chunks' lines).
 */
export type SessionUpdateListener = (update: SessionUpdate, line?: Uint8Array, reduced?: Reduced, count?: number) => void;

/**
 * How the line worker's reduction took an update: `applied` there (a text chunk comes as its kind
 * alone); `preview`: applied there, and whole here for the load's preview of the first rows.
 */
export type Reduced = 'applied' | 'preview';
