// The ACP client: the session methods this extension uses, gated on what the agent advertised,
// over one agent's connection. The parts live beside it, each with the small interface it needs
// from the client declared on its side: the process and JSON-RPC with deadlines (connection.ts),
// where each session/update goes and the loads' turns (updateRouting.ts), the live session lists
// (listSubscriptions.ts).
import type { CancellationToken, Disposable, Event } from 'vscode-jsonrpc/node';
import { AcpError, type AgentDisconnectedError, AgentStartError, ErrorCodes, UnsupportedCapabilityError } from './errors';
import { addListFilter, archiveRequestMethod, withArchivedFlag } from './archive';
import { parseSessionStatus } from './sessionState';
import { AIR_METHODS, airForkMeta, withAirDetails, withAirState } from './jetbrainsAir';
import { CAPABILITY_NAMES, type GatedCapability, NO_CAPABILITIES } from './capabilities';
import { Problems, checkCursor, checkSessionInfo } from './validate';
import { AgentConnection } from './connection';
import { UpdateRouter } from './updateRouting';
import { ListSubscriptions } from './listSubscriptions';
import type {
  AcpClientOptions,
  AdvertisedCapabilities,
  AgentConfig,
  ForkPoint,
  Implementation,
  ListSessionsParams,
  ListSessionsResult,
  LoadSessionResult,
  SessionInfo,
  SessionListChange,
  SessionState,
  ReplayObserver,
  SessionUpdateListener,
} from './types';

export class AcpClient {
  /**
   * Starts the agent and initializes the connection. Throws one {@link AgentStartError}
   * (naming the agent, the cause and the last lines of its stderr) when the executable is
   * missing, the agent exits during start, or it does not answer `initialize` in time.
   * Aborting `signal` stops the agent (and its process group) at once and rejects the same way.
   */
  static async start(config: AgentConfig, options: AcpClientOptions, signal?: AbortSignal): Promise<AcpClient> {
    if (signal?.aborted) throw new AgentStartError(config.name, 'the start was cancelled.', []);
    const client = new AcpClient(config, options);
    const answer = await client.rpc.initialize(signal);
    client.version = answer.protocolVersion;
    client.info = answer.agentInfo;
    client.advertised = Object.freeze(answer.capabilities);
    return client;
  }

  readonly name: string;
  private info: Implementation | undefined;
  private version: 1 | 2 = 1;
  private advertised: Readonly<AdvertisedCapabilities> = NO_CAPABILITIES;

  private readonly rpc: AgentConnection;
  private readonly updates: UpdateRouter;
  private readonly lists: ListSubscriptions;

  /** Fires once when the connection ends without `dispose` (crash, exit, oversized message). */
  readonly onDidDisconnect: Event<AgentDisconnectedError>;

  /**
   * Changes of the live lists this client subscribed to ({@link subscribeSessionList}), in the
   * order the agent sent them; only for subscriptions it holds. Entries are checked as
   * `session/list` entries are (bad ones dropped with one warning per change).
   */
  readonly onDidChangeSessionList: Event<SessionListChange>;

  private constructor(
    readonly config: AgentConfig,
    private readonly options: AcpClientOptions,
  ) {
    this.name = config.name;
    this.rpc = new AgentConnection(config, options, {
      onAgentLines: (lines) => this.updates.dispatch(lines),
      notifications: { [AIR_METHODS.changes]: (params) => this.lists.onChanges(params) },
      onEnd: () => {
        this.updates.clear();
        this.lists.clear();
      },
      onDisposed: () => this.lists.dispose(),
    });
    this.updates = new UpdateRouter(this.rpc);
    this.lists = new ListSubscriptions({
      name: this.name,
      log: options.log,
      takesListChanges: () => !this.rpc.disconnected && this.advertised.listSubscribe,
      request: (method, params) => this.rpc.request(method, params),
      readEntries: (entries, filter, problems) => this.readEntries(entries, filter, problems),
      warnProblems: (what, problems) => this.rpc.warnProblems(what, problems),
    });
    this.onDidDisconnect = this.rpc.onDidDisconnect;
    this.onDidChangeSessionList = this.lists.onDidChange;
  }

  /** True until the agent disconnects or the client is disposed. */
  get isConnected(): boolean {
    return this.rpc.disconnected === undefined;
  }

  /** The requests still waiting for an answer, with how long they have waited (the chaos suite checks them against the deadline). */
  get pendingRequests(): { method: string; ageMs: number }[] {
    return this.rpc.pendingRequests;
  }

  /** The agent's process id (undefined if it never started). */
  get pid(): number | undefined {
    return this.rpc.pid;
  }

  /** Where the agent's output is parsed now: its line worker (`lineWorker`), or the caller's thread. */
  get parsedOn(): 'worker' | 'starting' | 'host' {
    return this.rpc.parsedOn;
  }

  /** `agentInfo` (v2: `info`) from `initialize`, checked. */
  get agentInfo(): Implementation | undefined {
    return this.info;
  }

  /** The protocol version spoken: 1, or 2 where both sides speak the v2 draft. */
  get protocolVersion(): 1 | 2 {
    return this.version;
  }

  /** What the agent advertised, read once from `initialize` (capabilities.ts); frozen. */
  get capabilities(): Readonly<AdvertisedCapabilities> {
    return this.advertised;
  }

  /**
   * `session/list`. Sends the archive filter only when the agent can archive (by the standard
   * `archived`, or the vendor extension's `_meta`, see archive.ts); asking for `include` or
   * `only` without it throws {@link UnsupportedCapabilityError}. Entries carry a boolean
   * `archived` either way.
   */
  async listSessions(params: ListSessionsParams = {}, token?: CancellationToken): Promise<ListSessionsResult> {
    this.require('list', 'session/list');
    const request: Record<string, unknown> = {};
    if (params.cwd !== undefined) request.cwd = params.cwd;
    if (params.cursor !== undefined) request.cursor = params.cursor;
    const archiveMethod = this.capabilities.archiveMethod;
    if (params.archived !== undefined) {
      if (archiveMethod) addListFilter(request, archiveMethod, params.archived);
      else if (params.archived !== 'exclude') this.require('archive', `session/list with archived: "${params.archived}"`);
    }
    const result = await this.request<unknown>('session/list', request, token);
    const answer = result as { sessions?: unknown; nextCursor?: unknown } | null;
    if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.sessions)) {
      throw new AcpError(ErrorCodes.InternalError, 'session/list', 'the agent answered without a sessions array');
    }
    const problems = new Problems();
    const sessions = this.readEntries(answer.sessions, params.archived, problems);
    const nextCursor = checkCursor(answer.nextCursor, problems);
    this.warnProblems('session/list', problems);
    return nextCursor === undefined ? { sessions } : { sessions, nextCursor };
  }

  /** `session/archive`, or the vendor extension's `_session/archive` (idempotent; -32002 for unknown or deleted sessions). */
  async archiveSession(sessionId: string): Promise<void> {
    this.require('archive', 'session/archive');
    await this.request(archiveRequestMethod(this.capabilities.archiveMethod ?? 'standard', true), { sessionId });
  }

  /** `session/unarchive`, or the vendor extension's `_session/unarchive` (idempotent; -32002 for unknown or deleted sessions). */
  async unarchiveSession(sessionId: string): Promise<void> {
    this.require('archive', 'session/unarchive');
    await this.request(archiveRequestMethod(this.capabilities.archiveMethod ?? 'standard', false), { sessionId });
  }

  /**
   * `session/set_title` (no effect on the conversation; -32002 for unknown sessions, -32602 for
   * a title the agent rejects), or where only the vendor extension offers rename, its
   * `_session/rename` (answers `{}`). Resolves with the title the agent stored: the standard's
   * answer, else the title sent (a live list's next change says what the agent made of it).
   */
  async setSessionTitle(sessionId: string, title: string): Promise<string> {
    this.require('title', 'session/set_title');
    if (this.advertised.titleMethod === 'jetbrains-air') {
      await this.request(AIR_METHODS.rename, { sessionId, title });
      return title;
    }
    const result = await this.request<{ title?: unknown } | null>('session/set_title', { sessionId, title });
    return typeof result?.title === 'string' ? result.title : title;
  }

  /**
   * Subscribes to the live list of the sessions of `cwd` (an absolute path), in every archive
   * state: changes arrive on {@link onDidChangeSessionList} with the returned subscription id,
   * when this or any other process creates, retitles, archives or deletes a session there.
   * Subscriptions end with the agent's process: subscribe again on the client that replaces it.
   */
  async subscribeSessionList(cwd: string): Promise<string> {
    this.require('listSubscribe', 'a live session list');
    return this.lists.subscribe(cwd);
  }

  /** Ends a live list subscription (idempotent; nothing to do once the agent's process is gone). */
  async unsubscribeSessionList(subscriptionId: string): Promise<void> {
    await this.lists.unsubscribe(subscriptionId);
  }


  /**
   * The list entries of the given sessions, as `session/list` would give them, without listing
   * a folder; sessions the agent does not know are left out. Blank and repeated ids are not sent.
   */
  async getSessions(sessionIds: readonly string[]): Promise<SessionInfo[]> {
    this.require('batchGet', 'getting sessions by id');
    const asked = [...new Set(sessionIds.filter((id) => typeof id === 'string' && id.trim() !== ''))];
    if (asked.length === 0) return [];
    const result = await this.request<unknown>(AIR_METHODS.batchGet, { sessionIds: asked });
    const answer = result as { sessions?: unknown } | null;
    if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.sessions)) {
      throw new AcpError(ErrorCodes.InternalError, AIR_METHODS.batchGet, 'the agent answered without a sessions array');
    }
    const problems = new Problems();
    const wanted = new Set(asked);
    const sessions = this.readEntries(answer.sessions, 'include', problems).filter((session) => {
      if (wanted.has(session.sessionId)) return true;
      problems.add('an entry for a session not asked for skipped');
      return false;
    });
    this.warnProblems(AIR_METHODS.batchGet, problems);
    return sessions;
  }

  /**
   * `session/status` (unstable schema; no side effects: nothing is loaded or resumed): `open`, or
   * undefined for "saved" (also for a value this client does not know). -32002 for unknown sessions.
   */
  async sessionStatus(sessionId: string): Promise<SessionState | undefined> {
    this.require('status', 'session/status');
    const result = await this.request<unknown>('session/status', { sessionId });
    const problems = new Problems();
    const state = parseSessionStatus(result, problems);
    this.warnProblems('session/status', problems);
    return state;
  }


  /** `session/delete` (unknown sessions succeed silently). */
  async deleteSession(sessionId: string): Promise<void> {
    this.require('delete', 'session/delete');
    await this.request('session/delete', { sessionId });
  }

  /** `session/close`. */
  async closeSession(sessionId: string): Promise<void> {
    this.require('close', 'session/close');
    await this.request('session/close', { sessionId });
  }

  /**
   * Replays a session: `onUpdate` receives every replayed update in order; the promise resolves
   * after the agent's response, so after the last update. The listener is registered before
   * the request goes out (updates precede the response). v1 `session/load`; v2 `session/resume`
   * with `replayFrom: { type: "start" }`. Where the agent marks the end of its replay (JetBrains
   * AIR `loadReplayEnd`), `onReplayEnd` runs when the mark arrives and the result says `marker`;
   * the mark itself never reaches `onUpdate` or any other listener. With `reduce` (a spec the line
   * worker's reducer reads), the worker applies the replay itself where it runs: `onUpdate` gets
   * each update marked `reduced` (for its line; see {@link Reduced}), then `onAnswered` runs at the
   * answer, and the result's `reduced` is what the worker handed over (the load fails where that
   * cannot be whole); where the worker does not run, `onUpdate` gets every update as without it.
   */
  async loadSession(
    sessionId: string,
    cwd: string,
    onUpdate: SessionUpdateListener,
    token?: CancellationToken,
    options: { onReplayEnd?: () => void; reduce?: unknown; onAnswered?: () => void; onProgress?: (progress: unknown) => void } = {},
  ): Promise<LoadSessionResult> {
    this.require('loadSession', this.protocolVersion === 2 ? 'session/resume with replay' : 'session/load');
    const observer = this.observeReplay(sessionId, cwd);
    // Registered before the request, as the listener is: the worker reduces from the first piece
    // of the replay on and, where the observer lets it, writes the lines the observer would keep.
    const reduction = options.reduce !== undefined ? this.rpc.reduce(sessionId, options.reduce, observer?.sink) : false;
    const reducing = reduction !== false;
    if (reduction && reduction.sunk) {
      // Ended by the worker or dropped with the load: the outcome is the observer's to read.
      reduction.sunk.catch(() => undefined);
      observer?.sunk?.(reduction.sunk);
    }
    const onProgress = options.onProgress;
    if (reducing && onProgress) this.updates.progressListeners.set(sessionId, onProgress);
    const listener: SessionUpdateListener = (update, line, reduced, count) => {
      observer?.update(update, line);
      onUpdate(update, line, reduced, count);
    };
    let ok = false;
    try {
      const result = await this.updates.load(sessionId, listener, token, options.onReplayEnd, (deadline) =>
        this.protocolVersion === 2
          ? this.rpc.request('session/resume', { sessionId, cwd, mcpServers: [], replayFrom: { type: 'start' } }, token, deadline)
          : this.rpc.request('session/load', { sessionId, cwd, mcpServers: [] }, token, deadline),
      );
      if (reducing) {
        options.onAnswered?.();
        // What the worker reduced before the hand-over may reach this thread after the answer: it
        // goes where the replay went (the worker hands over once it has applied it).
        const trailing = this.updates.onSessionUpdate(sessionId, (update, line, reduced, count) => {
          if (reduced) listener(update, line, reduced, count);
        });
        try {
          result.reduced = await this.rpc.finishReduce(sessionId);
        } finally {
          trailing.dispose();
        }
      }
      ok = true;
      return result;
    } finally {
      if (reducing && !ok) this.rpc.dropReduce(sessionId);
      if (onProgress && this.updates.progressListeners.get(sessionId) === onProgress) this.updates.progressListeners.delete(sessionId);
      if (observer) this.safely(() => observer.end(ok));
    }
  }

  /** The observer of this replay, if the options ask for one; its failure costs only itself. */
  private observeReplay(sessionId: string, cwd: string): ReplayObserver | undefined {
    const make = this.options.replays;
    if (!make) return undefined;
    let observer: ReplayObserver | undefined;
    this.safely(() => (observer = make(this.name, sessionId, cwd)));
    if (!observer) return undefined;
    const inner = observer;
    let failed = false;
    return {
      update: (update, line) => {
        if (!failed) this.safely(() => inner.update(update, line), () => (failed = true));
      },
      end: (ok) => inner.end(ok && !failed),
      sink: inner.sink,
      sunk: (written) => this.safely(() => inner.sunk?.(written), () => (failed = true)),
    };
  }

  private safely(run: () => void, onError?: () => void): void {
    try {
      run();
    } catch (error) {
      onError?.();
      this.options.log.error(`[${this.name}] A replay observer failed: ${(error as Error)?.stack ?? error}`);
    }
  }

  /**
   * `session/fork` (unstable schema): a new session from `sessionId`, in `cwd`, ending at `point`
   * where given (sent as the JetBrains AIR fork point, the only way to name one today; an agent
   * that does not read it forks the whole session). Resolves with the new session's id. -32002
   * for an unknown session; -32602 where the agent cannot find the point. With `onUpdate`, it
   * receives the new session's updates, those the agent sent before its answer named the id
   * (OpenCode replays the copy first) and every later one, in order, until the returned
   * subscription is disposed; without it, those are not kept (a load replays the fork anyway).
   */
  async forkSession(
    sessionId: string,
    cwd: string,
    options: { point?: ForkPoint; onUpdate?: SessionUpdateListener; token?: CancellationToken } = {},
  ): Promise<{ sessionId: string; subscription: Disposable }> {
    this.require('fork', 'session/fork');
    const params: Record<string, unknown> = { sessionId, cwd, mcpServers: [] };
    if (options.point) params._meta = airForkMeta(options.point);
    const forked = await this.updates.fork(options.onUpdate ?? (() => undefined), async () => {
      const result = await this.request<{ sessionId?: unknown } | null>('session/fork', params, options.token);
      const id = result?.sessionId;
      if (typeof id !== 'string' || id.trim() === '') throw new AcpError(ErrorCodes.InternalError, 'session/fork', 'the agent answered without the new session\'s id');
      return id;
    });
    if (!options.onUpdate) forked.subscription.dispose();
    return forked;
  }

  /** `session/resume` without replay. */
  async resumeSession(sessionId: string, cwd: string, token?: CancellationToken): Promise<void> {
    this.require('resume', 'session/resume');
    await this.request('session/resume', { sessionId, cwd, mcpServers: [] }, token);
  }

  /**
   * Live `session/update` payloads of one session, in order, until disposed. A load's replay goes
   * to that load alone (a transcript that is already open must not take in another load's
   * replay as news), unless `replays` asks for it too (the Sessions tree's info updates).
   */
  onSessionUpdate(sessionId: string, listener: SessionUpdateListener, options: { replays?: boolean } = {}): Disposable {
    return this.updates.onSessionUpdate(sessionId, listener, options);
  }

  /**
   * Ends the connection and the agent: pending requests fail with an
   * {@link AgentDisconnectedError}, then SIGTERM, then SIGKILL after a grace period.
   * Resolves once the process has exited. Does not fire {@link onDidDisconnect}.
   */
  dispose(): Promise<void> {
    return this.rpc.dispose();
  }

  private require(capability: GatedCapability, method: string): void {
    const disconnected = this.rpc.disconnected;
    if (disconnected) throw disconnected;
    if (!this.advertised[capability]) {
      throw new UnsupportedCapabilityError(this.name, method, CAPABILITY_NAMES[capability][this.protocolVersion]);
    }
  }

  private request<R>(method: string, params: object, token?: CancellationToken): Promise<R> {
    return this.rpc.request<R>(method, params, token);
  }

  private warnProblems(what: string, problems: Problems): void {
    this.rpc.warnProblems(what, problems);
  }

  /**
   * List entries as every answer's are read: checked (validate.ts), then the archive flag, live
   * state and details however the agent tells them. `filter` is what the list asked for.
   */
  private readEntries(entries: readonly unknown[], filter: ListSessionsParams['archived'], problems: Problems): SessionInfo[] {
    const { archiveMethod, sessionState } = this.advertised;
    const sessions: SessionInfo[] = [];
    for (const entry of entries) {
      let session = checkSessionInfo(entry, problems);
      if (!session) continue;
      if (archiveMethod) session = withArchivedFlag(session, archiveMethod, filter);
      if (sessionState === 'jetbrains-air') session = withAirState(session, problems);
      // Only an agent that answered the AIR index sends its row metadata; any other has none to read.
      session = withAirDetails(session, problems);
      sessions.push(session);
    }
    return sessions;
  }
}
