// The seam between the two ways an agent can archive sessions: the standard (archive RFD:
// `sessionCapabilities.archive`, `session/archive`, `session/list` with `archived`) and a vendor
// extension (today JetBrains AIR's, jetbrainsAir.ts). The client speaks one vocabulary
// (archive, unarchive, the `exclude` / `include` / `only` filter and a boolean `archived` per
// listed session) and picks the way here; sessions/ and ui/ never see `_meta`.
import { AIR_ARCHIVE_METHODS, JETBRAINS_AIR_NAME, addAirListFilter, answersAirSessionIndex, withAirArchivedFlag } from './jetbrainsAir';
import type { ArchiveMethod, ArchivedFilter, SessionInfo } from './types';

export type { ArchiveMethod } from './types';

/** Wire names of each way. */
const METHODS: Record<ArchiveMethod, { archive: string; unarchive: string }> = {
  standard: { archive: 'session/archive', unarchive: 'session/unarchive' },
  'jetbrains-air': AIR_ARCHIVE_METHODS,
};

/** For the agent's tooltip: "archive: standard" or "archive: agent extension (JetBrains AIR)". */
export function describeArchiveMethod(method: ArchiveMethod): string {
  return method === 'standard' ? 'standard' : JETBRAINS_AIR_NAME;
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

/** The method that archives (or unarchives) a session the given way. */
export function archiveRequestMethod(method: ArchiveMethod, archived: boolean): string {
  return archived ? METHODS[method].archive : METHODS[method].unarchive;
}

/** Adds the archive filter to a `session/list` request the given way. */
export function addListFilter(request: Record<string, unknown>, method: ArchiveMethod, filter: ArchivedFilter): void {
  if (method === 'standard') request.archived = filter;
  else addAirListFilter(request, filter);
}

/** A listed session with the standard's boolean `archived`, however the agent archives. */
export function withArchivedFlag(session: SessionInfo, method: ArchiveMethod, filter: ArchivedFilter | undefined): SessionInfo {
  return method === 'standard' ? session : withAirArchivedFlag(session, filter);
}
