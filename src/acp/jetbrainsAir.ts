// Every detail of JetBrains AIR's vendor extension of ACP, the one place that knows its wire
// form. claude-agent-acp and codex-acp serve it to a client that offers it in `initialize`;
// the client translates it here into the one vocabulary sessions/ and ui/ speak (archive,
// live state, ...), and the standard wins wherever an agent offers both.
//
// The extension as measured offline (see the README's compatibility table), with
// @agentclientprotocol/claude-agent-acp 0.101.0 and @agentclientprotocol/codex-acp 2.6.0:
// - offered by the client in `initialize` as `clientCapabilities._meta.jetbrains.air`
//   `{ version: 1, capabilities: ["sessionIndex"] }`; the agent answers `_meta.jetbrains.air`
//   `{ version: 1, capabilities: [..., "sessionIndex", "sessionArchive", "sessionRename", ...] }`
//   at the top of its initialize result (not in agentCapabilities);
// - `session/list` leaves archived sessions out unless `_meta.jetbrains.air.list.archived` is
//   `"archived"` (only those) or `"all"` (`"unarchived"` is the default; others -32602); each
//   entry carries `_meta.jetbrains.air.archived` (claude also `state`, `model`, `lastPromptAt`);
// - the standard `archived` filter is ignored without a word (`"only"` lists active sessions),
//   so it must never be sent to an agent that did not advertise the standard;
// - `_session/archive` and `_session/unarchive` `{ sessionId }` answer `{}` (idempotent), or
//   -32002 with `data.sessionId` for an unknown session; `session/archive` answers -32601;
// - codex's unarchive sets the session's `updatedAt` to now;
// - list entries' `_meta.jetbrains.air.state`: claude sends "idle", "running", "requires_action"
//   or "error" for every entry (its session/index/activity.js); codex sends "idle" for a session
//   it holds (after a load). Neither serves `session/status` (-32601);
// - with the index both also answer `sessionRename`, `sessionListSubscribe` and `sessionBatchGet`
//   (claude's air-extension.js and session-index/connection.js; codex's SessionIndex.ts):
//   `_session/rename { sessionId, title }` -> `{}`; `_session/list/subscribe { cwd }` (absolute,
//   else -32602) -> `{ subscriptionId }`, then `_session/list/changes { subscriptionId,
//   sessions: SessionInfo[], removed: sessionId[] }` notifications for the cwd's sessions in any
//   archive state; `_session/list/unsubscribe { subscriptionId }` -> `{}` (idempotent);
//   `_session/batch_get { sessionIds }` (distinct, non-blank) -> `{ sessions }` (unknown ids left out);
// - row metadata in `_meta.jetbrains.air` (claude's session-info.js, codex's
//   sessionIndexSessionInfo): `model` (string), `lastPromptAt` and `lastTurnEndedAt` (ISO
//   strings), `forkedFrom` (a session id), `agentWorktree` (true), claude's `cost`
//   (`{ amount, currency: "USD" }`, for a session it runs); `createdAt` and `gitBranch` are named
//   by the issue that asked for them but sent by neither version;
// - a client that declares `loadReplayEnd` gets, after a load's last replayed update, one
//   `session_info_update` with `_meta.jetbrains.air.loadReplayEnd: true` (claude's acp-agent.js;
//   codex-acp 2.6.0 does not send it).
// - `session/fork`'s point: `_meta.jetbrains.air.fork { version: 1, messageId, messageFingerprint?,
//   messageOccurrence? }` (claude's fork-session.js, codex's SessionFork.ts; read whether or not the
//   index was offered). claude forks up to that message, found by its id (a user message's uuid, an
//   assistant message's API id) or, for an agent message, by the fingerprint `sha256:<hex of its
//   text>` and its 1-based occurrence among messages with that text; codex forks up to the end of
//   the turn holding the item with that id (or the occurrence-th agent message with that
//   fingerprint). Without it both fork the whole session; a point not found is -32602.
import type { ArchivedFilter, ForkPoint, SessionDetails, SessionInfo, SessionState } from './types';
import type { Problems } from './validate';

/** What the client offers in `initialize` (`clientCapabilities._meta`) to be answered with the extension. */
export const JETBRAINS_AIR_CLIENT_META = { jetbrains: { air: { version: 1, capabilities: ['sessionIndex', 'loadReplayEnd'] } } } as const;

/** How the extension is named to the user (the agent's tooltip). */
export const JETBRAINS_AIR_NAME = 'agent extension (JetBrains AIR)';

/** `session/fork`'s `_meta` naming where the fork ends. */
export function airForkMeta(point: ForkPoint): Record<string, unknown> {
  const fork: Record<string, unknown> = { version: 1, messageId: point.messageId };
  if (point.messageFingerprint !== undefined) fork.messageFingerprint = point.messageFingerprint;
  if (point.messageOccurrence !== undefined) fork.messageOccurrence = point.messageOccurrence;
  return { jetbrains: { air: { fork } } };
}

/** The extension's capability that brings the archive requests with it. */
const SESSION_INDEX = 'sessionIndex';
/** Named by later codex-acp versions beside `sessionIndex`; either one means the requests are served. */
const SESSION_ARCHIVE = 'sessionArchive';

const AIR_LIST_FILTER: Record<ArchivedFilter, string | undefined> = { exclude: undefined, include: 'all', only: 'archived' };

/** The extension's archive requests. */
export const AIR_ARCHIVE_METHODS = { archive: '_session/archive', unarchive: '_session/unarchive' } as const;

/** The extension's other requests and its one notification. */
export const AIR_METHODS = {
  rename: '_session/rename',
  subscribe: '_session/list/subscribe',
  unsubscribe: '_session/list/unsubscribe',
  changes: '_session/list/changes',
  batchGet: '_session/batch_get',
} as const;

/** What the agent serves of the session index beyond archive and row state. */
export interface AirIndexServes {
  rename: boolean;
  listSubscribe: boolean;
  batchGet: boolean;
}

const SERVES: Record<keyof AirIndexServes, string> = { rename: 'sessionRename', listSubscribe: 'sessionListSubscribe', batchGet: 'sessionBatchGet' };

/** The capability a method needs, in the extension's words (for "does not support" errors). */
export function airCapabilityName(what: keyof AirIndexServes): string {
  return `_meta.jetbrains.air capability "${SERVES[what]}"`;
}

/** The capability strings of a well-formed answer (`version` an integer >= 1, `capabilities` an array), else none. */
function answeredCapabilities(initializeResult: unknown): unknown[] {
  const air = airMeta(asRecord(initializeResult)._meta);
  const version = air.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) return [];
  return Array.isArray(air.capabilities) ? air.capabilities : [];
}

/** Which of the index's requests the agent answered it serves (each only beside `sessionIndex`, which brings them). */
export function airIndexServes(initializeResult: unknown): AirIndexServes {
  const answered = answeredCapabilities(initializeResult);
  const index = answered.includes(SESSION_INDEX);
  return {
    rename: index && answered.includes(SERVES.rename),
    listSubscribe: index && answered.includes(SERVES.listSubscribe),
    batchGet: index && answered.includes(SERVES.batchGet),
  };
}

/** Whether the agent's `initialize` result answered the AIR session index (list entries then carry its `_meta`). */
export function answersAirSessionIndex(initializeResult: unknown): boolean {
  const capabilities = answeredCapabilities(initializeResult);
  return capabilities.includes(SESSION_INDEX) || capabilities.includes(SESSION_ARCHIVE);
}

/** The `jetbrains.air` object of a `_meta` (empty when absent or not an object). */
export function airMeta(meta: unknown): Record<string, unknown> {
  return asRecord(asRecord(asRecord(meta).jetbrains).air);
}

/** Adds the extension's archive filter to a `session/list` request (`exclude` is its plain list). */
export function addAirListFilter(request: Record<string, unknown>, filter: ArchivedFilter): void {
  const value = AIR_LIST_FILTER[filter];
  if (value !== undefined) request._meta = { jetbrains: { air: { list: { archived: value } } } };
}

/**
 * A listed session with the standard's boolean `archived`: the extension's
 * `_meta.jetbrains.air.archived` when it is a boolean, else what the filter implies
 * (`exclude` lists only active, `only` only archived). The entry is otherwise unchanged.
 */
export function withAirArchivedFlag(session: SessionInfo, filter: ArchivedFilter | undefined): SessionInfo {
  const flag = airMeta(session._meta).archived;
  const archived = typeof flag === 'boolean' ? flag : filter === 'only' ? true : filter === 'include' ? undefined : false;
  return archived === undefined ? session : { ...session, archived };
}

const AIR_STATES: readonly SessionState[] = ['running', 'requires_action', 'idle', 'error'];

/**
 * A listed session with `state` from the extension's `_meta.jetbrains.air.state`, when the
 * agent tells it; an unknown value (including `_`-prefixed ones) is left out and reported.
 */
export function withAirState<T extends { state?: SessionState; _meta?: unknown }>(session: T, problems: Problems): T {
  const raw = airMeta(session._meta).state;
  if (raw === undefined || raw === null) return session;
  if (typeof raw === 'string' && (AIR_STATES as readonly string[]).includes(raw)) return { ...session, state: raw as SessionState };
  problems.add(typeof raw === 'string' ? 'a state this client does not know (ignored)' : `a state of type ${Array.isArray(raw) ? 'array' : typeof raw} (ignored)`);
  return session;
}

/**
 * A listed session with {@link SessionDetails} read from the extension's row metadata: each field
 * of the right type is kept (dates must parse), a field of another type is left out and reported.
 */
export function withAirDetails<T extends { details?: SessionDetails; _meta?: unknown }>(session: T, problems: Problems): T {
  const air = airMeta(session._meta);
  const details: SessionDetails = {};
  const text = (key: string, date: boolean): string | undefined => {
    const value = air[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' && (!date || !Number.isNaN(Date.parse(value)))) return value;
    problems.add(typeof value === 'string' ? `_meta.jetbrains.air.${key} that is not a date (ignored)` : `_meta.jetbrains.air.${key} of type ${typeName(value)} (ignored)`);
    return undefined;
  };
  const model = text('model', false);
  if (model !== undefined) details.model = model;
  const gitBranch = text('gitBranch', false);
  if (gitBranch !== undefined) details.gitBranch = gitBranch;
  const forkedFrom = text('forkedFrom', false);
  if (forkedFrom) details.forkedFrom = forkedFrom;
  for (const key of ['createdAt', 'lastPromptAt', 'lastTurnEndedAt'] as const) {
    const value = text(key, true);
    if (value !== undefined) details[key] = value;
  }
  const worktree = air.agentWorktree;
  if (typeof worktree === 'boolean') details.worktree = worktree;
  else if (worktree !== undefined && worktree !== null) problems.add(`_meta.jetbrains.air.agentWorktree of type ${typeName(worktree)} (ignored)`);
  const cost = air.cost;
  if (cost !== undefined && cost !== null) {
    const { amount, currency } = asRecord(cost);
    if (typeof amount === 'number' && Number.isFinite(amount) && typeof currency === 'string') details.cost = { amount, currency };
    else problems.add('_meta.jetbrains.air.cost without a number amount and a string currency (ignored)');
  }
  return Object.keys(details).length > 0 ? { ...session, details } : session;
}

/** Whether a `session/update` is the extension's end-of-replay marker (`session_info_update` with `loadReplayEnd: true`). */
export function isAirReplayEnd(update: { sessionUpdate: string; _meta?: unknown }): boolean {
  return update.sessionUpdate === 'session_info_update' && airMeta(update._meta).loadReplayEnd === true;
}

/** `_session/list/changes` params, checked: the subscription, its entries still unchecked, and the removed ids. */
export interface AirListChanges {
  subscriptionId: string;
  sessions: unknown[];
  removed: string[];
}

/** Reads a `_session/list/changes` notification; undefined (reported) without a string `subscriptionId`. */
export function readAirListChanges(params: unknown, problems: Problems): AirListChanges | undefined {
  const record = asRecord(params);
  if (typeof record.subscriptionId !== 'string') {
    problems.add('a change without a string subscriptionId skipped');
    return undefined;
  }
  let sessions: unknown[] = [];
  if (Array.isArray(record.sessions)) sessions = record.sessions;
  else if (record.sessions !== undefined && record.sessions !== null) problems.add(`sessions of type ${typeName(record.sessions)}`);
  const removed: string[] = [];
  if (Array.isArray(record.removed)) {
    for (const id of record.removed) {
      if (typeof id === 'string' && id !== '') removed.push(id);
      else problems.add('a removed id that is not a non-empty string skipped');
    }
  } else if (record.removed !== undefined && record.removed !== null) {
    problems.add(`removed of type ${typeName(record.removed)}`);
  }
  return { subscriptionId: record.subscriptionId, sessions, removed };
}

/** The `subscriptionId` of a `_session/list/subscribe` answer, or undefined. */
export function readAirSubscriptionId(result: unknown): string | undefined {
  const id = asRecord(result).subscriptionId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
