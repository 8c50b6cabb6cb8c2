// The sessions model: per agent and folder, the Active and Archived lists as the agent's
// `session/list` returns them, with cursor paging, local moves after archive/unarchive/delete,
// and live `session_info_update`s. The agent stays the source of truth: a refresh replaces
// everything with what it lists.
import type { AcpClient } from '../acp/client';
import type { ArchivedFilter, ListSessionsParams, SessionInfo, SessionListChange, SessionState, SessionUpdate } from '../acp/types';
import { isResourceNotFound, messageOf } from '../acp/errors';
import type { AgentRegistry } from './agentRegistry';
import { Emitter, type Disposable, type Event } from './events';
import { forgetRealPaths, sameFolder } from './folders';
import { sortNewestFirst, updatedAtMs } from './format';

/** "Active" lists `archived: "exclude"` (or no filter without archive); "Archived" lists `only`. */
export type Section = 'active' | 'archived';

/** Which folders' sessions are listed: each open folder (`cwd` = folder), or all at once. */
export type SessionScope = { kind: 'all' } | { kind: 'folders'; folders: readonly string[] };

export type ListStatus = 'idle' | 'loading' | 'loaded' | 'error';

export interface SessionsChange {
  agent: string;
  /** The list that changed; undefined when the whole agent changed. */
  list?: SessionList;
}

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

export interface SessionsModelOptions {
  /** How many sessions a list shows before "Load more" (the agent pages as it likes). */
  pageSize?: number;
  scope?: SessionScope;
  log?: { warn(message: string): void; debug?(message: string): void };
}

/** An agent that pages forever must not hang a load: one load follows at most this many cursors. */
const maxPagesPerLoad = 200;
/** `session/status` requests in flight at once per agent. */
const statusConcurrency = 4;
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
    private readonly model: SessionsModel,
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
    const done = this.run(true, this.model.pageSize, true);
    this.model.changed(this);
    return done;
  }

  /** Fetches the next page(s) along the same cursor chain. */
  loadMore(): Promise<void> {
    if (this.pending) return this.pending;
    if (this.status !== 'loaded' || !this.nextCursor) return this.load();
    this.loadingMore = true;
    this.error = undefined;
    const done = this.run(false, this.sessions.length + this.model.pageSize);
    this.model.changed(this);
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
    const depth = Math.max(this.model.pageSize, this.sessions.length);
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
    this.placedAt.clear();
  }

  /** The `archived` filter this list sends: none at all when the agent lacks `archive`. */
  filterFor(client: AcpClient): ArchivedFilter | undefined {
    if (!client.capabilities.archive) return undefined;
    return this.section === 'archived' ? 'only' : 'exclude';
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
      const client = await this.model.registry.getClient(this.agent);
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
      do {
        // The same `cwd` and `archived` along the whole chain: changing either restarts it.
        const params: { cwd?: string; archived?: ArchivedFilter; cursor?: string } = {};
        if (this.cwd !== undefined) params.cwd = this.cwd;
        if (archived !== undefined) params.archived = archived;
        if (cursor !== undefined) params.cursor = cursor;
        this.listRequests++;
        const page = await client.listSessions(params);
        if (!current()) return;
        for (const listed of page.sessions) {
          // An agent that ignores `cwd` (or matches it as a prefix) must not put another
          // folder's session here too: it would show twice, once under each folder.
          if (!this.covers(listed)) {
            foreign++;
            continue;
          }
          if (seen.has(listed.sessionId)) continue;
          seen.add(listed.sessionId);
          collected.push(withSectionFlag(listed, this.section, archived));
        }
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor !== undefined && collected.length < want && pages < maxPagesPerLoad);
      if (foreign > 0) this.model.log?.warn(`"${this.agent}" listed ${foreign} sessions of other folders for cwd ${this.cwd}; they are shown under their own folders only.`);
      const byStatus = client.capabilities.sessionState === 'status';
      // session/status answers arrive after the list: until then a session shows what it showed.
      const shown = byStatus ? new Map(this.sessions.map((s) => [s.sessionId, s.state])) : undefined;
      this.setSessions(shown ? collected.map((s) => withState(s, shown.get(s.sessionId))) : collected, resort);
      this.nextCursor = cursor;
      this.status = 'loaded';
      this.error = undefined;
      this.loadingMore = false;
      this.loadedFrom = client;
      this.model.track(this.agent, client, collected);
      this.model.subscribeLive(this.agent, client, this.cwd);
      this.model.changed(this);
      if (byStatus) this.model.lastStatusCheck = this.model.checkStatus(this.agent, client, collected.map((s) => s.sessionId));
    } catch (error) {
      if (!current()) return;
      this.model.log?.warn(`Listing ${this.section} sessions of "${this.agent}" failed: ${messageOf(error)}`);
      if (isAuthRequired(error)) this.model.registry.reportAuthenticationRequired(this.agent, messageOf(error));
      if (this.loadingMore) {
        // A failed further page keeps what is already shown; the error shows at the Load more item.
        this.loadingMore = false;
        this.error = error;
      } else {
        this.status = 'error';
        this.error = error;
      }
      this.model.changed(this);
    }
  }
}

export class SessionsModel implements Disposable {
  private readonly lists = new Map<string, SessionList>();
  /** Live `session/update` subscriptions per agent, per listed session, tied to one client. */
  private readonly subscriptions = new Map<string, { client: AcpClient; bySession: Map<string, Disposable> }>();
  /** Live list subscriptions per agent (where it serves them): per folder, tied to one client. */
  private readonly live = new Map<string, LiveLists>();
  private readonly onDidChangeEmitter = new Emitter<SessionsChange>();
  readonly onDidChange: Event<SessionsChange> = this.onDidChangeEmitter.event;
  private readonly registrySubscriptions: Disposable[] = [];
  /** Each agent's slot in the registry when its lists were made (a new slot is a reconfigured agent). */
  private readonly slots = new Map<string, unknown>();
  pageSize: number;
  private currentScope: SessionScope;
  readonly log: SessionsModelOptions['log'];

  constructor(
    readonly registry: AgentRegistry,
    options: SessionsModelOptions = {},
  ) {
    this.pageSize = Math.max(1, options.pageSize ?? 50);
    this.currentScope = options.scope ?? { kind: 'all' };
    this.log = options.log;
    for (const agent of registry.agents) this.slots.set(agent.name, agent);
    this.registrySubscriptions.push(
      registry.onDidChangeState((agent) => this.agentStateChanged(agent.name)),
      registry.onDidChangeAgents(() => this.agentsChanged()),
    );
  }

  get scope(): SessionScope {
    return this.currentScope;
  }

  /** Changes the folders listed; lists of other folders are dropped. */
  setScope(scope: SessionScope): void {
    this.currentScope = scope;
    const cwds = new Set(this.cwds());
    for (const [key, list] of this.lists) {
      if (!cwds.has(list.cwd)) {
        list.reset();
        this.lists.delete(key);
      }
    }
    for (const [agent, entry] of [...this.live]) {
      for (const cwd of [...entry.byCwd.keys()]) if (!cwds.has(cwd)) this.unsubscribeLive(agent, cwd);
    }
    for (const agent of this.registry.agents) this.onDidChangeEmitter.fire({ agent: agent.name });
  }

  /** The `cwd` of each list per section under the current scope (undefined: every folder). */
  cwds(): (string | undefined)[] {
    return this.currentScope.kind === 'all' ? [undefined] : [...this.currentScope.folders];
  }

  /** The sections the agent has: Archived only with `sessionCapabilities.archive`. */
  sections(agent: string): Section[] {
    const capabilities = this.registry.agent(agent)?.capabilities;
    return capabilities?.archive ? ['active', 'archived'] : ['active'];
  }

  /** The list for one agent, section and folder (created idle on first use). */
  list(agent: string, section: Section, cwd: string | undefined): SessionList {
    const key = listKey(agent, section, cwd);
    let list = this.lists.get(key);
    if (!list) {
      list = new SessionList(this, agent, section, cwd);
      this.lists.set(key, list);
    }
    return list;
  }

  /** Every list that exists, optionally of one agent. */
  allLists(agent?: string): SessionList[] {
    return [...this.lists.values()].filter((l) => agent === undefined || l.agent === agent);
  }

  /** A loaded session and the list it is in. */
  find(agent: string, sessionId: string): { session: SessionInfo; list: SessionList } | undefined {
    for (const list of this.allLists(agent)) {
      const session = list.sessions.find((s) => s.sessionId === sessionId);
      if (session) return { session, list };
    }
    return undefined;
  }

  /**
   * Lists again from the agent. A failed, unsupported or signed-out agent is restarted at once
   * (no back-off: the user asked); for a running one every loaded list is re-listed.
   */
  async refresh(agentName?: string): Promise<void> {
    const agents = this.registry.agents.filter((a) => agentName === undefined || a.name === agentName);
    forgetRealPaths();
    await Promise.all(
      agents.map(async (agent) => {
        if (agent.state.kind === 'connected') {
          // The user asked: sessions whose dates changed since take their places now.
          await Promise.all(this.allLists(agent.name).map((l) => l.reload(true)));
          return;
        }
        if (agent.state.kind === 'starting') return;
        // Lists are kept: once the agent runs, they are listed again (see agentStateChanged),
        // and as the user asked, in the agent's order.
        await this.registry.restart(agent.name).catch(() => undefined);
        if (this.registry.connectedClient(agent.name)) await Promise.all(this.allLists(agent.name).map((l) => l.reload(true)));
      }),
    );
  }

  /**
   * Every session of one section of an agent, all folders, following `session/list` cursors to
   * the end without touching the tree's lists (clean-up). Throws when cancelled or on failure.
   */
  async listAll(agent: string, section: Section, progress: ListAllProgress = {}): Promise<SessionInfo[]> {
    const client = await this.registry.getClient(agent);
    if (!client.capabilities.list) throw new CapabilityMissingError(agent, 'list', 'list its sessions');
    if (section === 'archived' && !client.capabilities.archive) throw new CapabilityMissingError(agent, 'archive', 'list archived sessions');
    const archived: ArchivedFilter | undefined = client.capabilities.archive ? (section === 'archived' ? 'only' : 'exclude') : undefined;
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

  /** Archives sessions; each that succeeds moves from Active to Archived at once. */
  archive(agent: string, sessionIds: readonly string[], progress?: BulkProgress): Promise<SessionOutcome[]> {
    return this.setArchivedOnAgent(agent, sessionIds, true, progress);
  }

  /** Unarchives sessions; each that succeeds moves from Archived to Active at once. */
  unarchive(agent: string, sessionIds: readonly string[], progress?: BulkProgress): Promise<SessionOutcome[]> {
    return this.setArchivedOnAgent(agent, sessionIds, false, progress);
  }

  /** Renames a session (`session/set_title`); on success every list shows the agent's stored title at once. */
  async rename(agent: string, sessionId: string, title: string): Promise<SessionOutcome> {
    const client = await this.registry.getClient(agent);
    if (!client.capabilities.title) throw new CapabilityMissingError(agent, 'title', 'rename sessions');
    const session = this.find(agent, sessionId)?.session;
    try {
      const stored = await client.setSessionTitle(sessionId, title);
      const current = this.find(agent, sessionId)?.session;
      if (current) this.move(agent, { ...current, title: stored });
      return { agent, sessionId, session, status: 'done', title: stored };
    } catch (error) {
      return this.failure(agent, sessionId, session, error);
    }
  }

  /**
   * Asks `session/status` of each session (no side effects; a few at a time) and shows the
   * answers in every list, in place. -32002 leaves a session as it is (the next list says whether
   * it is gone); another failure stops asking this round, with one warning.
   */
  async checkStatus(agent: string, client: AcpClient, sessionIds: readonly string[]): Promise<void> {
    if (client.capabilities.sessionState !== 'status') return;
    const states = new Map<string, SessionState | undefined>();
    const queue = [...new Set(sessionIds)];
    let failure: unknown;
    const ask = async () => {
      for (let sessionId = queue.shift(); sessionId !== undefined && failure === undefined; sessionId = queue.shift()) {
        try {
          states.set(sessionId, await client.sessionStatus(sessionId));
        } catch (error) {
          if (!isResourceNotFound(error)) failure ??= error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(statusConcurrency, queue.length) }, ask));
    if (failure !== undefined) this.log?.warn(`Asking "${agent}" for the status of its sessions failed: ${messageOf(failure)}`);
    // A restarted agent's answers describe another process.
    if (this.registry.connectedClient(agent) !== client) return;
    for (const list of this.allLists(agent)) {
      let changed = false;
      const next = list.sessions.map((session) => {
        if (!states.has(session.sessionId) || session.state === states.get(session.sessionId)) return session;
        changed = true;
        return withState(session, states.get(session.sessionId));
      });
      if (changed) {
        list.sessions = next;
        this.changed(list);
      }
    }
  }

  /** The last round of `session/status` requests (tests wait for it instead of sleeping). */
  lastStatusCheck: Promise<void> = Promise.resolve();

  /**
   * After a transcript's `session/load`: what did the load do? Lists the first page of the
   * session's folder and section again (no side effects; a session the load made newest is on
   * it) and, with `session/status`, asks for its status. Some agents resume a session they load
   * (claude-agent-acp without the AIR index, codex-acp): its `updatedAt` becomes now, reported
   * as `resumed`. The row shows the new date and state in place: the order holds until an
   * explicit refresh, so the session the user just opened does not move under the cursor.
   */
  async checkAfterLoad(agent: string, before: SessionInfo): Promise<{ resumed: boolean; session?: SessionInfo }> {
    const client = this.registry.connectedClient(agent);
    if (!client?.capabilities.list) return { resumed: false };
    const params: ListSessionsParams = { cwd: before.cwd };
    if (client.capabilities.archive) params.archived = before.archived ? 'only' : 'exclude';
    let listed: SessionInfo | undefined;
    try {
      // Where the agent serves it, that one session by id: no folder is listed for it.
      listed = client.capabilities.batchGet
        ? (await client.getSessions([before.sessionId])).find((s) => s.sessionId === before.sessionId)
        : (await client.listSessions(params)).sessions.find((s) => s.sessionId === before.sessionId);
    } catch (error) {
      this.log?.warn(`Listing "${agent}" after loading session ${before.sessionId} failed: ${messageOf(error)}`);
    }
    const was = updatedAtMs(before);
    const now = listed ? updatedAtMs(listed) : undefined;
    const resumed = was !== undefined && now !== undefined && now > was;
    // Only what the load changed: a live update during the replay may be newer than the list.
    const current = this.find(agent, before.sessionId)?.session;
    if (listed && current && this.registry.connectedClient(agent) === client) {
      let next = resumed ? { ...current, updatedAt: listed.updatedAt } : current;
      if (client.capabilities.sessionState === 'jetbrains-air') next = withState(next, listed.state);
      if (next !== current) this.move(agent, next);
    }
    await this.checkStatus(agent, client, [before.sessionId]);
    return { resumed, session: listed };
  }

  /** Deletes sessions; each that succeeds disappears from every list. Cancelled: the rest are not sent. */
  /**
   * The agent answered -32002 about a session outside this model's writes (a transcript's load):
   * it no longer has it, so every list drops it and whoever follows the model hears of it.
   */
  sessionNotFound(agent: string, sessionId: string): void {
    this.remove(agent, sessionId);
  }

  async delete(agent: string, sessionIds: readonly string[], progress?: BulkProgress): Promise<SessionOutcome[]> {
    const client = await this.registry.getClient(agent);
    if (!client.capabilities.delete) throw new CapabilityMissingError(agent, 'delete', 'delete sessions');
    return this.eachSession(agent, sessionIds, progress, async (sessionId) => {
      await client.deleteSession(sessionId);
      this.remove(agent, sessionId);
    });
  }

  dispose(): void {
    for (const d of this.registrySubscriptions) d.dispose();
    for (const agent of [...this.subscriptions.keys()]) this.untrack(agent);
    for (const agent of [...this.live.keys()]) this.unsubscribeLive(agent);
    for (const list of this.lists.values()) list.reset();
    this.lists.clear();
    this.onDidChangeEmitter.dispose();
    this.onDidLiveChangeEmitter.dispose();
    this.onDidDeleteEmitter.dispose();
    this.onDidArchiveEmitter.dispose();
  }

  /** @internal a list changed. */
  changed(list: SessionList): void {
    this.onDidChangeEmitter.fire({ agent: list.agent, list });
  }

  /** @internal subscribes to live updates of listed sessions (once per session and client). */
  track(agent: string, client: AcpClient, sessions: readonly SessionInfo[]): void {
    let entry = this.subscriptions.get(agent);
    if (entry && entry.client !== client) {
      this.untrack(agent);
      entry = undefined;
    }
    if (!entry) {
      entry = { client, bySession: new Map() };
      this.subscriptions.set(agent, entry);
    }
    for (const session of sessions) {
      if (entry.bySession.has(session.sessionId)) continue;
      const sessionId = session.sessionId;
      entry.bySession.set(
        sessionId,
        // Info updates of a replay count too (a load may bring a newer title).
        client.onSessionUpdate(sessionId, (update) => this.sessionUpdated(agent, sessionId, update), { replays: true }),
      );
    }
    // A session no list shows any more gets no updates (sessionUpdated ignores it): unsubscribe.
    const listed = new Set(this.allLists(agent).flatMap((l) => l.sessions.map((s) => s.sessionId)));
    for (const sessionId of [...entry.bySession.keys()]) if (!listed.has(sessionId)) this.untrack(agent, sessionId);
  }

  /**
   * @internal subscribes to the live list of the folder (once per folder and client), where the
   * agent serves it: sessions another process creates, retitles, archives or deletes there show
   * without a Refresh. The "all folders" scope has none (the agents need a folder).
   */
  subscribeLive(agent: string, client: AcpClient, cwd: string | undefined): void {
    if (cwd === undefined || !client.capabilities.listSubscribe || !client.isConnected) return;
    let entry = this.live.get(agent);
    if (entry && entry.client !== client) {
      this.unsubscribeLive(agent);
      entry = undefined;
    }
    if (!entry) {
      const created: LiveLists = { client, byCwd: new Map(), listener: client.onDidChangeSessionList((change) => this.liveChange(agent, created, change)) };
      entry = created;
      this.live.set(agent, entry);
    }
    if (entry.byCwd.has(cwd)) return;
    const subscribed = entry;
    const pending = client.subscribeSessionList(cwd).then(
      (id) => {
        // Unsubscribed (scope changed, agent stopped) while the answer was on its way.
        if (this.live.get(agent) !== subscribed || subscribed.byCwd.get(cwd) !== pending) void client.unsubscribeSessionList(id).catch(() => undefined);
        return id;
      },
      (error: unknown) => {
        this.log?.warn(`Subscribing to the live list of "${agent}" for ${cwd} failed: ${messageOf(error)}; Refresh shows what changed.`);
        if (subscribed.byCwd.get(cwd) === pending) subscribed.byCwd.delete(cwd);
        return undefined;
      },
    );
    subscribed.byCwd.set(cwd, pending);
    this.lastLiveSubscription = pending.then(() => undefined);
  }

  /** The last live list subscription asked for (tests wait for it instead of sleeping). */
  lastLiveSubscription: Promise<void> = Promise.resolve();

  /** @internal the folders of `agent` with a live list subscription (asked for or answered). */
  liveFolders(agent: string): string[] {
    return [...(this.live.get(agent)?.byCwd.keys() ?? [])];
  }

  /** Ends the live list subscriptions of an agent (of one folder, or all). Nothing is sent to a process that is gone. */
  private unsubscribeLive(agent: string, cwd?: string): void {
    const entry = this.live.get(agent);
    if (!entry) return;
    const folders = cwd === undefined ? [...entry.byCwd.keys()] : [cwd];
    for (const folder of folders) {
      const pending = entry.byCwd.get(folder);
      entry.byCwd.delete(folder);
      if (entry.client.isConnected) void pending?.then((id) => (id === undefined ? undefined : entry.client.unsubscribeSessionList(id))).catch(() => undefined);
    }
    if (cwd === undefined || entry.byCwd.size === 0) {
      entry.listener.dispose();
      this.live.delete(agent);
    }
  }

  /**
   * A live list change: each session named is updated in place, moved between the sections or,
   * new, put in the lists of its folder; each removed one leaves every list.
   */
  private liveChange(agent: string, entry: LiveLists, change: SessionListChange): void {
    if (this.live.get(agent) !== entry || this.registry.connectedClient(agent) !== entry.client) return;
    for (const session of change.sessions) this.move(agent, session);
    for (const sessionId of change.removed) this.remove(agent, sessionId);
    this.onDidLiveChangeEmitter.fire({ agent, sessions: change.sessions.map((s) => s.sessionId), removed: change.removed });
  }

  private readonly onDidArchiveEmitter = new Emitter<{ agent: string; sessionId: string; archived: boolean }>();
  /**
   * A session was archived or unarchived (here, by a live update or the live list), whether or not
   * a loaded list holds it: search changes its filter, not its text.
   */
  readonly onDidArchive = this.onDidArchiveEmitter.event;

  private readonly onDidDeleteEmitter = new Emitter<{ agent: string; sessionId: string }>();
  /**
   * A session the agent no longer has: deleted here (one or a clean-up run), answered -32002, or
   * removed by the agent's live list. Fires whether or not a list showed it (search drops its text).
   */
  readonly onDidDelete = this.onDidDeleteEmitter.event;

  private readonly onDidLiveChangeEmitter = new Emitter<{ agent: string; sessions: string[]; removed: string[] }>();
  /** Fires after a live list change was applied (tests wait for it instead of sleeping). */
  readonly onDidLiveChange = this.onDidLiveChangeEmitter.event;

  /** @internal how many sessions of `agent` have a live-update subscription. */
  trackedSessionCount(agent: string): number {
    return this.subscriptions.get(agent)?.bySession.size ?? 0;
  }

  private untrack(agent: string, sessionId?: string): void {
    const entry = this.subscriptions.get(agent);
    if (!entry) return;
    if (sessionId !== undefined) {
      entry.bySession.get(sessionId)?.dispose();
      entry.bySession.delete(sessionId);
      return;
    }
    for (const d of entry.bySession.values()) d.dispose();
    this.subscriptions.delete(agent);
  }

  private async setArchivedOnAgent(agent: string, sessionIds: readonly string[], archived: boolean, progress?: BulkProgress): Promise<SessionOutcome[]> {
    const client = await this.registry.getClient(agent);
    const what = archived ? 'archive sessions' : 'unarchive sessions';
    if (!client.capabilities.archive) throw new CapabilityMissingError(agent, 'archive', what);
    return this.eachSession(agent, sessionIds, progress, async (sessionId, session) => {
      if (archived) await client.archiveSession(sessionId);
      else await client.unarchiveSession(sessionId);
      if (session) this.move(agent, { ...session, archived });
      // Also for a session no loaded list holds (a collapsed Archived section is not listed).
      else this.onDidArchiveEmitter.fire({ agent, sessionId, archived });
    });
  }

  /**
   * Applies `change` to each session in turn (one request at a time, in the caller's order),
   * reporting each outcome as it is known; a cancel leaves the rest unsent.
   */
  private async eachSession(
    agent: string,
    sessionIds: readonly string[],
    progress: BulkProgress | undefined,
    change: (sessionId: string, session: SessionInfo | undefined) => Promise<void>,
  ): Promise<SessionOutcome[]> {
    const outcomes: SessionOutcome[] = [];
    for (const sessionId of sessionIds) {
      if (progress?.isCancelled?.()) break;
      const session = this.find(agent, sessionId)?.session;
      try {
        await change(sessionId, session);
        outcomes.push({ agent, sessionId, session, status: 'done' });
      } catch (error) {
        outcomes.push(this.failure(agent, sessionId, session, error));
      }
      progress?.onOutcome?.(outcomes[outcomes.length - 1]);
    }
    this.revalidate(agent, outcomes);
    return outcomes;
  }

  /**
   * After a change the local move is already on screen; listing again in the background keeps
   * the cursor chains right (an agent's cursor may count positions that just moved).
   */
  private revalidate(agent: string, outcomes: readonly SessionOutcome[]): void {
    if (!outcomes.some((o) => o.status !== 'failed')) return;
    this.lastRevalidation = Promise.all(this.allLists(agent).map((l) => l.reload())).then(() => undefined);
  }

  /** The background re-list after the last operation (tests wait for it instead of sleeping). */
  lastRevalidation: Promise<void> = Promise.resolve();

  private failure(agent: string, sessionId: string, session: SessionInfo | undefined, error: unknown): SessionOutcome {
    if (isResourceNotFound(error)) {
      // -32002: the agent no longer knows the session, so no list may keep showing it.
      this.remove(agent, sessionId);
      return { agent, sessionId, session, status: 'gone', error };
    }
    if (isAuthRequired(error)) this.registry.reportAuthenticationRequired(agent, messageOf(error));
    this.log?.warn(`Operation on session ${sessionId} of "${agent}" failed: ${messageOf(error)}`);
    return { agent, sessionId, session, status: 'failed', error };
  }

  /**
   * Puts the session into the lists of its (new) section and out of the others. A list that
   * holds it keeps it in place, however the agent spells its folder now; only a list that does
   * not hold it yet asks whether its folder is this one.
   */
  private move(agent: string, session: SessionInfo): void {
    if (typeof session.archived === 'boolean') this.onDidArchiveEmitter.fire({ agent, sessionId: session.sessionId, archived: session.archived });
    const lists = this.allLists(agent);
    // Without the flag, the section it is listed in says where it is (a rename keeps it there).
    const holder = lists.find((l) => l.sessions.some((s) => s.sessionId === session.sessionId));
    const section: Section = typeof session.archived === 'boolean' ? (session.archived ? 'archived' : 'active') : holder?.section ?? 'active';
    for (const list of lists) {
      const index = list.sessions.findIndex((s) => s.sessionId === session.sessionId);
      if (list.section !== section) {
        if (index >= 0) {
          list.sessions = list.sessions.filter((_, i) => i !== index);
          this.changed(list);
        }
        continue;
      }
      const next = [...list.sessions];
      if (index >= 0) next[index] = session;
      else if (list.status === 'loaded' && list.covers(session) && !belongsAfterLoadedPages(list, session)) next.push(session);
      else continue;
      list.setSessions(next);
      this.changed(list);
    }
    const client = this.registry.connectedClient(agent);
    if (client) this.track(agent, client, [session]);
  }

  private remove(agent: string, sessionId: string): void {
    this.onDidDeleteEmitter.fire({ agent, sessionId });
    for (const list of this.allLists(agent)) {
      const next = list.sessions.filter((s) => s.sessionId !== sessionId);
      if (next.length !== list.sessions.length) {
        list.sessions = next;
        this.changed(list);
      }
    }
    this.untrack(agent, sessionId);
  }

  private sessionUpdated(agent: string, sessionId: string, update: SessionUpdate): void {
    if (update.sessionUpdate !== 'session_info_update') return;
    const found = this.find(agent, sessionId);
    if (!found) return;
    const info = update as { title?: string | null; updatedAt?: string | null; archived?: boolean | null };
    const next: SessionInfo = { ...found.session };
    // Omitted: unchanged; null: cleared (title, updatedAt); `archived: null` changes nothing.
    if (info.title !== undefined) next.title = info.title;
    if (info.updatedAt !== undefined) next.updatedAt = info.updatedAt;
    if (typeof info.archived === 'boolean') next.archived = info.archived;
    this.move(agent, next);
  }

  private agentStateChanged(agent: string): void {
    const state = this.registry.agent(agent)?.state;
    if (!state) return;
    if (state.kind === 'starting' || state.kind === 'needsAuthentication') {
      this.onDidChangeEmitter.fire({ agent });
      return;
    }
    const client = this.registry.connectedClient(agent);
    if (this.subscriptions.get(agent)?.client !== client) this.untrack(agent);
    // A live list ends with its process; the lists listed again from the new one subscribe anew.
    if (this.live.get(agent) && this.live.get(agent)!.client !== client) this.unsubscribeLive(agent);
    // Content from another (dead) client is stale, but what the reader had (Load more pages, the
    // order seen) stays on screen: once connected again, each list is listed again as deep as it
    // was, in the background, and sessions keep their places.
    if (client) {
      for (const list of this.allLists(agent)) {
        if (list.busy || list.status === 'idle' || list.loadedFrom === client) continue;
        this.lastRevalidation = list.reload();
      }
    }
    this.onDidChangeEmitter.fire({ agent });
  }

  private agentsChanged(): void {
    for (const agent of new Set(this.allLists().map((l) => l.agent))) {
      // A removed or reconfigured agent (a new slot: another command, another store) lists
      // other sessions: its old lists go. A restart after a crash keeps its slot and its lists.
      const slot = this.registry.agent(agent);
      if (!slot || this.slots.get(agent) !== slot) this.dropAgent(agent);
    }
    this.slots.clear();
    for (const agent of this.registry.agents) this.slots.set(agent.name, agent);
  }

  private dropAgent(agent: string): void {
    for (const list of this.allLists(agent)) {
      list.reset();
      this.lists.delete(list.id);
    }
    this.untrack(agent);
    this.unsubscribeLive(agent);
  }
}

/**
 * A listed session with `archived` as the list's filter says, when the entry leaves it out (an
 * agent that archives by the standard need not repeat it): a later move then knows its section.
 */
function withSectionFlag(session: SessionInfo, section: Section, filter: ArchivedFilter | undefined): SessionInfo {
  if (filter === undefined || typeof session.archived === 'boolean') return session;
  return { ...session, archived: section === 'archived' };
}

/** An agent's live list subscriptions: per folder, the subscription id once the agent answered. */
interface LiveLists {
  client: AcpClient;
  byCwd: Map<string, Promise<string | undefined>>;
  listener: Disposable;
}

/** The session with `state` set, or without one when undefined. */
function withState(session: SessionInfo, state: SessionState | undefined): SessionInfo {
  if (session.state === state) return session;
  const { state: _old, ...rest } = session;
  return state === undefined ? rest : { ...rest, state };
}

function listKey(agent: string, section: Section, cwd: string | undefined): string {
  return JSON.stringify([agent, section, cwd ?? null]);
}

/**
 * A session older than everything loaded, while more pages remain, arrives with a later page;
 * inserting it now would duplicate it then.
 */
function belongsAfterLoadedPages(list: SessionList, session: SessionInfo): boolean {
  if (!list.hasMore || list.sessions.length === 0) return false;
  const last = list.placeTime(list.sessions[list.sessions.length - 1]);
  const ms = updatedAtMs(session);
  return last !== undefined && (ms === undefined || ms < last);
}

/** Listing everything was cancelled by the user; nothing changed. */
export class ListCancelledError extends Error {
  constructor() {
    super('Listing the sessions was cancelled.');
    this.name = 'ListCancelledError';
  }
}

// In src/acp/errors.ts, a module without state, so that the search bundle imports it from there.
export { isResourceNotFound };

export function isAuthRequired(error: unknown): boolean {
  return (error as { code?: unknown })?.code === -32000;
}
