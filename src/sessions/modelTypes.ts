// The sessions model's vocabulary: sections and scopes, what happened to a session after a write,
// the progress of bulk work, the model's two errors. Below the model and its parts (the lists, the
// live updates, the status checks, the writes), so each part imports these without importing the
// model; `sessionsModel.ts` re-exports them, and the rest of the code imports them from there.
import type { SessionInfo, SessionState } from '../acp/types';

/** "Active" lists `archived: "exclude"` (or no filter without archive); "Archived" lists `only`. */
export type Section = 'active' | 'archived';

/** Which folders' sessions are listed: each open folder (`cwd` = folder), or all at once. */
export type SessionScope = { kind: 'all' } | { kind: 'folders'; folders: readonly string[] };

export type ListStatus = 'idle' | 'loading' | 'loaded' | 'error';

/** Where the model and its parts write their warnings. */
export type ModelLog = { warn(message: string): void; debug?(message: string): void } | undefined;

/** What happened to one session of an archive, unarchive or delete. */
export interface SessionOutcome {
  /** The agent the session belongs to: two agents may hold sessions with one id. */
  agent: string;
  sessionId: string;
  /** What was known about it before the operation (undefined when not loaded). */
  session: SessionInfo | undefined;
  /** `gone`: the agent answered -32002 (unknown, deleted or expired). */
  status: 'done' | 'gone' | 'failed';
  error?: unknown;
  /** After a rename: the title the agent stored (it may normalize what was sent). */
  title?: string;
  /** After a fork: the new session, as the agent lists it (or, where it lists nothing yet, in the origin's folder, forked from it). */
  forked?: SessionInfo;
}

/** The agent does not advertise what an operation needs; nothing was sent. */
export class CapabilityMissingError extends Error {
  constructor(
    readonly agent: string,
    readonly capability: string,
    what: string,
  ) {
    super(`Agent "${agent}" cannot ${what}: it does not advertise sessionCapabilities.${capability}.`);
    this.name = 'CapabilityMissingError';
  }
}

/** Listing everything was cancelled by the user; nothing changed. */
export class ListCancelledError extends Error {
  constructor() {
    super('Listing the sessions was cancelled.');
    this.name = 'ListCancelledError';
  }
}

/** Progress and cancellation of a bulk operation (clean-up): checked before each session. */
export interface BulkProgress {
  isCancelled?(): boolean;
  /** After each session the agent answered (done, gone or failed). */
  onOutcome?(outcome: SessionOutcome): void;
}

/** Progress and cancellation of listing every page (clean-up needs the whole list, never loads). */
export interface ListAllProgress {
  isCancelled?(): boolean;
  onPage?(listedSoFar: number): void;
}

/** -32000: the agent wants the user to sign in first. */
export function isAuthRequired(error: unknown): boolean {
  return (error as { code?: unknown })?.code === -32000;
}

/** The session with `state` set, or without one when undefined. */
export function withState(session: SessionInfo, state: SessionState | undefined): SessionInfo {
  if (session.state === state) return session;
  const { state: _old, ...rest } = session;
  return state === undefined ? rest : { ...rest, state };
}

/** A session's title as the model's events carry it: the protocol's `null` (cleared) is undefined. */
export function titleOf(session: Pick<SessionInfo, 'title'>): string | undefined {
  return session.title ?? undefined;
}
