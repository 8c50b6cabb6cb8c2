// Lists and paging: one `session/list` cursor chain per agent, section and folder (`SessionList`),
// and listing every page of a section at once for clean-up (`listAllSessions`). A list asks its
// owner, the sessions model, for the little it needs (`SessionListOwner`): the client, where to
// say it changed, and what to start once it is loaded (live updates, status checks).
import type { AcpClient } from '../acp/client';
import { messageOf } from '../acp/errors';
import type { ArchivedFilter, SessionInfo } from '../acp/types';
import type { AgentRegistry } from './agentRegistry';
import { sameFolder } from './folders';
import { sortNewestFirst, updatedAtMs } from './format';
import {
  CapabilityMissingError,
  isAuthRequired,
  ListCancelledError,
  titleOf,
  withState,
  type ListAllProgress,
  type ListStatus,
  type ModelLog,
  type Section,
} from './modelTypes';

/** What a list needs from the model that owns it. */
export interface SessionListOwner {
  readonly registry: Pick<AgentRegistry, 'getClient' | 'reportAuthenticationRequired'>;
  /** How many sessions a list shows before "Load more". */
  readonly pageSize: number;
  readonly log: ModelLog;
  /** A session some loaded list holds, as the model knows it. */
  find(agent: string, sessionId: string): { session: SessionInfo } | undefined;
  /** Every session the loaded lists of `agent` hold, by id, as `find` gives each (one pass, for a whole page's lookups). */
  held(agent: string): ReadonlyMap<string, SessionInfo>;
  /** The list's content or status changed. */
  changed(list: SessionList): void;
  /** A re-list brought another title for a session the model held (already in the list). */
  titleChanged(agent: string, sessionId: string, title: string | undefined): void;
  /** The list was loaded from `client`: live updates for its sessions and folder, and their status. */
  loaded(list: SessionList, client: AcpClient, sessions: readonly SessionInfo[]): void;
}

/**
 * Lists known to stop at a fixed number of rows without a cursor to the rest, by the agent's
 * `agentInfo` name (lower case), as measured in the interop tests: OpenCode 1.18.33 lists at most
 * 100 sessions a folder and never a cursor (test/interop/opencode.test.ts).
 */
const KNOWN_LIST_CAPS: ReadonlyMap<string, number> = new Map([['opencode', 100]]);

/**
 * Whether a list that ended on a page of `rows` without a cursor, from an agent that sent no
 * cursor along the chain, may have been cut short: only where the agent is known to cap its list
 * at exactly that many rows. Nothing in the protocol tells a cap from the end (an agent that
 * answers every session on one page may hold exactly 100, or 200), so a count alone says nothing,
 * and an agent that pages correctly, the reference agent included, never shows a "+" for it.
 */
export function looksCapped(agentInfoName: string | undefined, rows: number): boolean {
  const cap = KNOWN_LIST_CAPS.get((agentInfoName ?? '').toLowerCase());
  return cap !== undefined && rows === cap;
}

/** An agent that pages forever must not hang a load: one load follows at most this many cursors. */
const maxPagesPerLoad = 200;
/** Listing everything (clean-up) follows more, and also stops at a page that brings nothing new. */
const maxPagesPerListAll = 10_000;

/** One cursor chain of `session/list` with a fixed `cwd` and `archived` filter. */
export class SessionList {
  status: ListStatus = 'idle';
  sessions: SessionInfo[] = [];
  nextCursor: string | undefined;
  error: unknown;
  /** A further page is being fetched (the list shows what it has meanwhile). */
  loadingMore = false;
  /** How many `session/list` requests this list has sent (the log and tests read it). */
  listRequests = 0;
  /**
   * Set when the chain ended without a cursor on a page of as many rows as the agent is known to
   * cap its list at (the rows of that page, see `looksCapped`): the agent may hold more than it
   * lists, and no cursor reaches them.
   */
  mayHoldMore: number | undefined;
  /** Sessions whose entry left `archived` out, so that this list's section supplied it (see withSectionFlag). */
  flagFromSection: ReadonlySet<string> = new Set();
  /** The client this content came from: a new client after a restart means stale content. */
  loadedFrom: AcpClient | undefined;
  /**
   * The time each session is placed by, fixed when it first appeared here or at the last
   * explicit refresh: a session whose date changes (a load that resumed it, a live update, a
   * background re-list) keeps its place while the user reads, and moves on the next refresh.
   */
  private readonly placedAt = new Map<string, number | undefined>();
  private generation = 0;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly owner: SessionListOwner,
    readonly agent: string,
    readonly section: Section,
    readonly cwd: string | undefined,
  ) {}

  get id(): string {
    return listKey(this.agent, this.section, this.cwd);
  }

  get hasMore(): boolean {
    return this.nextCursor !== undefined;
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** Loads the first page(s) unless loaded or loading; resolves when done (see `status`). */
  load(): Promise<void> {
    if (this.pending) return this.pending;
    if (this.status === 'loaded') return Promise.resolve();
    this.status = 'loading';
    this.error = undefined;
    const done = this.run(true, this.owner.pageSize, true);
    this.owner.changed(this);
    return done;
  }

  /** Fetches the next page(s) along the same cursor chain. */
  loadMore(): Promise<void> {
    if (this.pending) return this.pending;
    if (this.status !== 'loaded' || !this.nextCursor) return this.load();
    this.loadingMore = true;
    this.error = undefined;
    const done = this.run(false, this.sessions.length + this.owner.pageSize);
    this.owner.changed(this);
    return done;
  }

  /**
   * Lists again from the start, as deep as already loaded, keeping the old content on screen
   * until the new one has arrived. Sessions already shown keep their places unless `resort`
   * (the user's explicit refresh).
   */
  reload(resort = false): Promise<void> {
    if (this.status === 'idle') return Promise.resolve();
    if (this.status !== 'loaded') {
      this.reset();
      return this.load();
    }
    const depth = Math.max(this.owner.pageSize, this.sessions.length);
    this.generation++;
    this.pending = undefined;
    return this.run(true, depth, resort);
  }

  /** Forgets everything; the next `load` starts a new chain. */
  reset(): void {
    this.generation++;
    this.pending = undefined;
    this.status = 'idle';
    this.sessions = [];
    this.nextCursor = undefined;
    this.error = undefined;
    this.loadingMore = false;
    this.loadedFrom = undefined;
    this.mayHoldMore = undefined;
    this.flagFromSection = new Set();
    this.placedAt.clear();
  }

  /** The `archived` filter this list sends: none at all when the agent lacks `archive`. */
  filterFor(client: AcpClient): ArchivedFilter | undefined {
    return archivedFilter(client, this.section);
  }

  /** Whether a session with this `cwd` belongs in this list (the folder however the agent spells it). */
  covers(session: Pick<SessionInfo, 'cwd'>): boolean {
    return this.cwd === undefined || (typeof session.cwd === 'string' && sameFolder(this.cwd, session.cwd));
  }

  /** The time the session is placed by in this list (see `placedAt`); grouping by date uses it too. */
  placeTime(session: SessionInfo): number | undefined {
    return this.placedAt.has(session.sessionId) ? this.placedAt.get(session.sessionId) : updatedAtMs(session);
  }

  /** @internal replaces the sessions, newest first by their places; `resort` places every one by its date anew. */
  setSessions(sessions: SessionInfo[], resort = false): void {
    if (resort) this.placedAt.clear();
    for (const session of sessions) if (!this.placedAt.has(session.sessionId)) this.placedAt.set(session.sessionId, updatedAtMs(session));
    this.sessions = sortNewestFirst(sessions, (session) => this.placedAt.get(session.sessionId));
  }

  private run(fromStart: boolean, want: number, resort = false): Promise<void> {
    const generation = fromStart ? ++this.generation : this.generation;
    const done = this.fetch(generation, fromStart, want, resort).finally(() => {
      if (this.generation === generation && this.pending === done) this.pending = undefined;
    });
    this.pending = done;
    return done;
  }

  private async fetch(generation: number, fromStart: boolean, want: number, resort: boolean): Promise<void> {
    const current = () => this.generation === generation;
    try {
      const client = await this.owner.registry.getClient(this.agent);
      if (!current()) return;
      if (!client.capabilities.list) throw new CapabilityMissingError(this.agent, 'list', 'list its sessions');
      if (this.section === 'archived' && !client.capabilities.archive) {
        throw new CapabilityMissingError(this.agent, 'archive', 'list archived sessions');
      }
      const archived = this.filterFor(client);
      const collected = fromStart ? [] : [...this.sessions];
      const seen = new Set(collected.map((s) => s.sessionId));
      let cursor = fromStart ? undefined : this.nextCursor;
      let pages = 0;
      let foreign = 0;
      let contradicted = 0;
      let lastPageRows = 0;
      // An agent that sent a cursor along this chain pages: its last page is the end.
      let paged = !fromStart;
      const inferred = new Set<string>(fromStart ? [] : this.flagFromSection);
      do {
        // The same `cwd` and `archived` along the whole chain: changing either restarts it.
        const params: { cwd?: string; archived?: ArchivedFilter; cursor?: string } = {};
        if (this.cwd !== undefined) params.cwd = this.cwd;
        if (archived !== undefined) params.archived = archived;
        if (cursor !== undefined) params.cursor = cursor;
        this.listRequests++;
        const page = await client.listSessions(params);
        if (!current()) return;
        lastPageRows = page.sessions.length;
        for (const listed of page.sessions) {
          // An agent that ignores `cwd` (or matches it as a prefix) must not put another
          // folder's session here too: it would show twice, once under each folder.
          if (!this.covers(listed)) {
            foreign++;
            continue;
          }
          // An agent that ignores the `archived` filter lists every state in both sections: a
          // session whose own flag names the other section is shown there only.
          if (archived !== undefined && typeof listed.archived === 'boolean' && listed.archived !== (this.section === 'archived')) {
            contradicted++;
            continue;
          }
          if (seen.has(listed.sessionId)) continue;
          seen.add(listed.sessionId);
          if (archived !== undefined && typeof listed.archived !== 'boolean') inferred.add(listed.sessionId);
          collected.push(withSectionFlag(listed, this.section, archived));
        }
        cursor = page.nextCursor ?? undefined;
        if (cursor !== undefined) paged = true;
        pages++;
      } while (cursor !== undefined && collected.length < want && pages < maxPagesPerLoad);
      if (foreign > 0) this.owner.log?.warn(`"${this.agent}" listed ${foreign} sessions of other folders for cwd ${this.cwd}; they are shown under their own folders only.`);
      if (contradicted > 0) this.owner.log?.warn(`"${this.agent}" listed ${contradicted} sessions of the other section for archived: "${archived}"; each is shown in the section its own archived flag names.`);
      const capped = cursor === undefined && !paged && looksCapped(client.agentInfo?.name, lastPageRows) ? lastPageRows : undefined;
      if (capped !== undefined && this.mayHoldMore === undefined) {
        this.owner.log?.warn(`"${this.agent}" ended its ${this.section} list${this.cwd === undefined ? '' : ` of ${this.cwd}`} on a page of ${capped} sessions without a cursor: it may hold more than it lists, and none of them can be reached from here.`);
      }
      // Titles the agent changed since the model last heard (another process, a rename elsewhere).
      const heldNow = this.owner.held(this.agent);
      const retitled = collected.filter((s) => {
        const held = heldNow.get(s.sessionId);
        return held !== undefined && titleOf(held) !== titleOf(s);
      });
      const byStatus = client.capabilities.sessionState === 'status';
      // session/status answers arrive after the list: until then a session shows what it showed.
      const shown = byStatus ? new Map(this.sessions.map((s) => [s.sessionId, s.state])) : undefined;
      this.setSessions(shown ? collected.map((s) => withState(s, shown.get(s.sessionId))) : collected, resort);
      this.nextCursor = cursor;
      this.mayHoldMore = capped;
      this.flagFromSection = inferred;
      this.status = 'loaded';
      this.error = undefined;
      this.loadingMore = false;
      this.loadedFrom = client;
      this.owner.loaded(this, client, collected);
      for (const session of retitled) this.owner.titleChanged(this.agent, session.sessionId, titleOf(session));
    } catch (error) {
      if (!current()) return;
      this.owner.log?.warn(`Listing ${this.section} sessions of "${this.agent}" failed: ${messageOf(error)}`);
      if (isAuthRequired(error)) this.owner.registry.reportAuthenticationRequired(this.agent, messageOf(error));
      if (this.loadingMore) {
        // A failed further page keeps what is already shown; the error shows at the Load more item.
        this.loadingMore = false;
        this.error = error;
      } else {
        this.status = 'error';
        this.error = error;
      }
      this.owner.changed(this);
    }
  }
}

/**
 * Every session of one section of an agent, all folders, following `session/list` cursors to
 * the end without touching the tree's lists (clean-up). Throws when cancelled or on failure.
 */
export async function listAllSessions(
  registry: Pick<AgentRegistry, 'getClient'>,
  agent: string,
  section: Section,
  progress: ListAllProgress = {},
): Promise<SessionInfo[]> {
  const client = await registry.getClient(agent);
  if (!client.capabilities.list) throw new CapabilityMissingError(agent, 'list', 'list its sessions');
  if (section === 'archived' && !client.capabilities.archive) throw new CapabilityMissingError(agent, 'archive', 'list archived sessions');
  const archived = archivedFilter(client, section);
  const collected = new Map<string, SessionInfo>();
  let cursor: string | undefined;
  for (let pages = 0; pages < maxPagesPerListAll; pages++) {
    if (progress.isCancelled?.()) throw new ListCancelledError();
    const page = await client.listSessions({ ...(archived ? { archived } : {}), ...(cursor !== undefined ? { cursor } : {}) });
    const before = collected.size;
    for (const session of page.sessions) if (!collected.has(session.sessionId)) collected.set(session.sessionId, session);
    progress.onPage?.(collected.size);
    cursor = page.nextCursor ?? undefined;
    // A cursor that brings nothing new would page forever.
    if (cursor === undefined || (collected.size === before && page.sessions.length > 0)) break;
  }
  return [...collected.values()];
}

/** The key of a list in its owner's map: one list per agent, section and folder. */
export function listKey(agent: string, section: Section, cwd: string | undefined): string {
  return JSON.stringify([agent, section, cwd ?? null]);
}

/** The `archived` filter of a section: none at all when the agent lacks `archive`. */
function archivedFilter(client: AcpClient, section: Section): ArchivedFilter | undefined {
  if (!client.capabilities.archive) return undefined;
  return section === 'archived' ? 'only' : 'exclude';
}

/**
 * A listed session with `archived` as the list's filter says, when the entry leaves it out (an
 * agent that archives by the standard need not repeat it): a later move then knows its section.
 */
function withSectionFlag(session: SessionInfo, section: Section, filter: ArchivedFilter | undefined): SessionInfo {
  if (filter === undefined || typeof session.archived === 'boolean') return session;
  return { ...session, archived: section === 'archived' };
}
