// The one seam between the two ways an agent can archive sessions: the standard (archive RFD:
// `sessionCapabilities.archive`, `session/archive`, `session/list` with `archived`) and the
// JetBrains AIR vendor extension that claude-agent-acp and codex-acp serve today. The client
// speaks one vocabulary (archive, unarchive, the `exclude` / `include` / `only` filter and a
// boolean `archived` per listed session) and translates here; sessions/ and ui/ never see `_meta`.
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
// - codex's unarchive sets the session's `updatedAt` to now.
import type { ArchivedFilter, SessionInfo } from './types';

/** How an agent archives: by the standard, or by the JetBrains AIR vendor extension. */
export type ArchiveMethod = 'standard' | 'jetbrains-air';

/** What the client offers in `initialize` (`clientCapabilities._meta`) to be answered with the extension. */
export const JETBRAINS_AIR_CLIENT_META = { jetbrains: { air: { version: 1, capabilities: ['sessionIndex'] } } } as const;

/** The extension's capability that brings the archive requests with it. */
const SESSION_INDEX = 'sessionIndex';
/** Named by later codex-acp versions beside `sessionIndex`; either one means the requests are served. */
const SESSION_ARCHIVE = 'sessionArchive';

/** Wire names and list filter values of each way. */
const METHODS: Record<ArchiveMethod, { archive: string; unarchive: string }> = {
  standard: { archive: 'session/archive', unarchive: 'session/unarchive' },
  'jetbrains-air': { archive: '_session/archive', unarchive: '_session/unarchive' },
};
const AIR_LIST_FILTER: Record<ArchivedFilter, string | undefined> = { exclude: undefined, include: 'all', only: 'archived' };

/** For the agent's tooltip: "archive: standard" or "archive: agent extension (JetBrains AIR)". */
export function describeArchiveMethod(method: ArchiveMethod): string {
  return method === 'standard' ? 'standard' : 'agent extension (JetBrains AIR)';
}

/**
 * How the agent archives, from its `initialize` result: the standard when advertised (it
 * always wins), else the extension when the agent answered it, else none. Both need `list`:
 * without it there is nowhere to show archived sessions.
 */
export function archiveMethodOf(initializeResult: unknown, standard: boolean, list: boolean): ArchiveMethod | undefined {
  if (!list) return undefined;
  if (standard) return 'standard';
  return answersAirSessionIndex(initializeResult) ? 'jetbrains-air' : undefined;
}

/** Whether the agent's `initialize` result answered the AIR session index (list entries then carry its `_meta`). */
export function answersAirSessionIndex(initializeResult: unknown): boolean {
  const air = airMeta(asRecord(initializeResult)._meta);
  const capabilities = Array.isArray(air.capabilities) ? air.capabilities : [];
  const version = air.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) return false;
  return capabilities.includes(SESSION_INDEX) || capabilities.includes(SESSION_ARCHIVE);
}

/** The `jetbrains.air` object of a `_meta` (empty when absent or not an object). */
export function airMeta(meta: unknown): Record<string, unknown> {
  return asRecord(asRecord(asRecord(meta).jetbrains).air);
}

/** The method that archives (or unarchives) a session the given way. */
export function archiveRequestMethod(method: ArchiveMethod, archived: boolean): string {
  return archived ? METHODS[method].archive : METHODS[method].unarchive;
}

/** Adds the archive filter to a `session/list` request the given way (`exclude` is the extension's plain list). */
export function addListFilter(request: Record<string, unknown>, method: ArchiveMethod, filter: ArchivedFilter): void {
  if (method === 'standard') {
    request.archived = filter;
    return;
  }
  const value = AIR_LIST_FILTER[filter];
  if (value !== undefined) request._meta = { jetbrains: { air: { list: { archived: value } } } };
}

/**
 * A listed session with the standard's boolean `archived`: the extension's
 * `_meta.jetbrains.air.archived` when it is a boolean, else what the filter implies
 * (`exclude` lists only active, `only` only archived). The entry is otherwise unchanged.
 */
export function withArchivedFlag(session: SessionInfo, method: ArchiveMethod, filter: ArchivedFilter | undefined): SessionInfo {
  if (method === 'standard') return session;
  const flag = airMeta(session._meta).archived;
  const archived = typeof flag === 'boolean' ? flag : filter === 'only' ? true : filter === 'include' ? undefined : false;
  return archived === undefined ? session : { ...session, archived };
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
