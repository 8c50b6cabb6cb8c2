// The typed messages between the transcript panel (host) and its webview, declared once and
// imported by both sides. Everything here is structured-clone safe.
import type { Entity, Notice, Usage } from './model';
import type { UsageSeries } from './usage';

/** The transcript tabs' webview panel type (package.json: `onWebviewPanel:acpSessions.transcript`). */
export const TRANSCRIPT_VIEW_TYPE = 'acpSessions.transcript';

/**
 * One change to the rows the webview holds (the host sends only those: the webview holds what
 * is on screen plus a margin, see `range`). New keys are always added at the end.
 */
export type Patch =
  /** Create the row at `index` if the key is new to the webview, else replace it in place. */
  | { op: 'upsert'; entity: Entity; index: number }
  /** Append text to the last text part of the entity's body (message text or compaction summary). */
  | { op: 'append'; key: string; text: string };

/**
 * The webview's visible area in CSS pixels, sent with `ready` and `range`: the host sends the
 * rows that cover it and a margin (estimated from their text), not a fixed number of rows.
 */
export interface Viewport {
  width: number;
  height: number;
}

/** What the header shows; sent whole whenever it changes (it is small). */
export interface TranscriptHeader {
  agentName: string;
  sessionId: string;
  cwd: string;
  title: string;
  updatedAt?: string;
  archived: boolean;
  /** `session/load` is running: show progress. */
  loading: boolean;
  /** Updates applied so far (replay and live). */
  updateCount: number;
  /** Live updates are being applied after the replay. */
  live: boolean;
  usage?: Usage;
  /** Every figure of the agent's along the transcript, with the compactions (header sparkline). */
  usageSeries?: UsageSeries;
  notices: Notice[];
  currentModeId?: string;
  problem?: TranscriptProblem;
  /** The agent can rename the session (`sessionCapabilities.title`): the header offers Rename…. */
  canRename?: boolean;
  /** The agent's entry has a resume command: the header offers Resume in Terminal. */
  canResume?: boolean;
  /** The agent can fork (`sessionCapabilities.fork`) and the session is its, unarchived and replayed: messages offer Fork from Here. */
  canFork?: boolean;
  /** The transcript was read from an exported replay file: no agent, nothing to change. */
  exported?: { file: string; keptAt?: string };
  /** The agent resumed the session when it was loaded (its `updatedAt` became `updatedAt`, e.g. claude, codex). */
  resumed?: { updatedAt?: string };
  /** The agent no longer has the session (deleted here, elsewhere, or gone from its live list): what shows is what it replayed. */
  deleted?: boolean;
  /** The load found no session (the agent does not have it): nothing shows, and nothing that needs the session is offered. */
  notFound?: boolean;
  /**
   * How many updates of the conversation arrived after the agent answered `session/load`, when
   * it does not mark the end of its replay (Gemini answers before its replay ends).
   */
  lateUpdates?: number;
  /** The files the session's tool calls wrote, once the replay has ended (src/changes/changes.ts); absent when none. */
  changes?: HeaderChanges;
}

/** What the header lists of a session's changes: the first files, and the figures of all. */
export interface HeaderChanges {
  /** `shown` is the path as the header shows it (relative inside the session's folder); the agent's text, plain. */
  files: { shown: string; added: number; removed: number; linesKnown: boolean; diff: boolean }[];
  /** Every file written, listed or not. */
  total: number;
  added: number;
  removed: number;
}

/** Files the header lists at most. */
export const HEADER_CHANGES_MAX = 100;

export type ProblemKind = 'archived-refused' | 'no-load' | 'load-failed' | 'agent-unavailable';

/** Why the transcript is incomplete or empty, and what the user can do about it. */
export interface TranscriptProblem {
  kind: ProblemKind;
  message: string;
  actions: HostAction[];
}

export type HostAction = 'unarchiveAndOpen' | 'retry' | 'showLog' | 'exportMarkdown' | 'rename' | 'resume' | 'copyLink' | 'goToPrompt';

/**
 * Open the child session a subagent row shows, in its own tab. It names the row's key, never the
 * session id: the host takes the id from its own timeline, so the webview cannot name any other.
 */
export type OpenSubagentAction = `openSubagent:${string}`;

export function openSubagentAction(key: string): OpenSubagentAction {
  return `openSubagent:${key}`;
}

export type HostToWebview =
  /**
   * A fresh start: the transcript has `count` rows, and here are rows `start` to
   * `start + entities.length` (what is on screen plus a margin). Sent after each `ready`.
   * `tail`: these are the last rows, and new rows will follow them as after a `tail` range.
   */
  | { type: 'snapshot'; header: TranscriptHeader; count: number; start: number; entities: Entity[]; tail?: boolean }
  /** The rows a `range` asked for: they replace what the webview held. */
  | { type: 'rows'; count: number; start: number; entities: Entity[] }
  /** A batch of changes since the last message, to the rows the webview holds; `count` rows in all. */
  | { type: 'update'; header?: TranscriptHeader; count: number; patches: Patch[] }
  | { type: 'setCompactionsOpen'; open: boolean }
  /** Brings a row (a prompt) just below the header and focuses it. */
  | { type: 'revealRow'; index: number }
  /** Previous / Next Prompt: the prompt rows' indices; the webview steps from the row at its top. */
  | { type: 'stepPrompt'; step: 1 | -1; indices: number[]; keys: string[] }
  /**
   * Opens the find bar (the Find command, from outside the webview); with `query`, searches it
   * from row `from` (Search Sessions). `words`: the query is Search Sessions' words and "phrases",
   * each found on its own (as long as the bar is open), and `also` the texts the match had as
   * written (other accents or case), found too while the query stands.
   */
  | { type: 'openFind'; query?: string; from?: number; words?: boolean; also?: string[] }
  /** The answer to a `find`: the `current`th of `total` matches (1-based; 0 of 0 when none). */
  | { type: 'found'; seq: number; query: string; total: number; current: number; index: number; key?: string; occurrence: number; done: boolean };

/** Where a `ready` webview wants to start: at a row it showed before, or at the end. */
export interface StartAt {
  key?: string;
  end?: boolean;
}

export type WebviewToHost =
  | { type: 'ready'; start?: StartAt; viewport?: Viewport }
  /**
   * The webview needs rows `start` to `end` (to build them); the host sends them and a margin
   * around them, which the webview holds from now on. `tail`: the last `end - start` rows and a
   * margin above, following new ones.
   */
  | { type: 'range'; start: number; end: number; tail: boolean; viewport?: Viewport }
  /**
   * Find `query` in the whole transcript (case-insensitive), or, with `words`, each of them
   * (Search Sessions' words). `step` 0: a new search, from row `from`; 1 / -1: the next /
   * previous match of the current search.
   */
  | { type: 'find'; seq: number; query: string; step: 0 | 1 | -1; from: number; words?: string[] }
  /** The row at the top of the view changed (the reader scrolled): Go to Prompt… starts at the prompt at or above it. */
  | { type: 'top'; index: number }
  /** The user clicked a link; the host checks the scheme again before opening it. */
  | { type: 'openLink'; href: string }
  | { type: 'action'; action: HostAction | OpenSubagentAction }
  /** Open a tool call's location (`location:<i>`) or diff (`diff:<i>`): the row by key, the target from the host's timeline. */
  | { type: 'openTool'; key: string; target: string }
  /** Fork from Here on the message row `key` (a user prompt, or an agent message with a `messageId`): the host finds the message in its own timeline. */
  | { type: 'forkFromHere'; key: string }
  /** Open file `index` of the header's changes: its diff in this session (`diff`) or the file itself (`file`); the path from the host's own count. */
  | { type: 'openChange'; index: number; target: 'diff' | 'file' }
  /** The reader opened a compaction row (the walkthrough's last step). */
  | { type: 'compactionRead' };

/** What the webview keeps in `getState`/`setState`, so a reload can find its session again. */
export interface WebviewState {
  agentName: string;
  sessionId: string;
  cwd: string;
  title: string;
  updatedAt?: string;
  archived?: boolean;
  scrollTop?: number;
  /** The row at the top of the view and its offset: restores the place even when rows above are not laid out yet. */
  anchor?: { key: string; offset: number };
  /** The exported replay file this tab shows (no agent). */
  exportedFile?: string;
  /** Keys of rows whose open state the user chose (true open, false closed). */
  open?: Record<string, boolean>;
  /** "Expand / Collapse all compactions" as last chosen; a compaction's own choice in `open` after it wins. */
  compactionsOpen?: boolean;
}

/**
 * Screens of rows around the visible area: the host sends this many on each side of the rows the
 * webview asks for, and the webview builds this many above and below what is on screen. One
 * number, so the webview never builds further than the rows it holds.
 */
export const MARGIN_SCREENS = 1;

/** The only link schemes a transcript may open. */
export const ALLOWED_LINK_SCHEMES = ['http:', 'https:', 'mailto:'];

/**
 * The link to open for `href` when it is an absolute http(s) or mailto link, else undefined
 * (checked on both sides). What is shown as a link is exactly what opens: surrounding
 * whitespace is dropped and the scheme lower-cased, so ` https://a` and `HTTPS://A` open too.
 */
export function allowedLink(href: string): string | undefined {
  if (typeof href !== 'string' || href.length > 8192) return undefined;
  const trimmed = href.trim();
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(trimmed);
  if (!match) return undefined;
  const scheme = match[1].toLowerCase() + ':';
  if (!ALLOWED_LINK_SCHEMES.includes(scheme)) return undefined;
  // Control characters or whitespace inside a URL are how scheme checks get fooled.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\s]/.test(trimmed)) return undefined;
  if (scheme !== 'mailto:' && !/^https?:\/\/[^/?#]/i.test(trimmed)) return undefined;
  return scheme + trimmed.slice(scheme.length);
}

/** Whether `href` is an absolute http(s) or mailto link (checked on both sides). */
export function isAllowedLink(href: string): boolean {
  return allowedLink(href) !== undefined;
}
