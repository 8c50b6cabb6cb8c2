// The ACP client: starts one agent process, speaks JSON-RPC to it over stdio through
// vscode-jsonrpc with our newline-delimited reader and writer, and exposes the session
// methods this extension uses, gated on what the agent advertised.
import {
  CancellationReceiverStrategy,
  type CancellationToken,
  CancellationTokenSource,
  type Disposable,
  Emitter,
  type Event,
  type Message,
  type MessageConnection,
  ResponseError,
  createMessageConnection,
} from 'vscode-jsonrpc/node';
import {
  AcpError,
  AgentDisconnectedError,
  AgentStartError,
  ErrorCodes,
  MessageTooLargeError,
  RequestCancelledError,
  RequestTimeoutError,
  UnsupportedCapabilityError,
  acpErrorFor,
} from './errors';
import { addListFilter, archiveRequestMethod, withArchivedFlag } from './archive';
import { parseSessionStatus } from './sessionState';
import { AIR_METHODS, isAirReplayEnd, readAirListChanges, readAirSubscriptionId, withAirDetails, withAirState } from './jetbrainsAir';
import { AgentProcess, delay } from './agentProcess';
import { CAPABILITY_NAMES, type GatedCapability, NO_CAPABILITIES, initializeParams, parseInitializeResult } from './capabilities';
import { Problems, checkCursor, checkErrorParts, checkSessionInfo, checkSessionUpdate, sessionNotificationOf } from './validate';
import {
  INTERNAL_METHOD_PREFIX,
  MessageTracer,
  NdjsonMessageReader,
  NdjsonMessageWriter,
  AGENT_LINES,
  type AgentLines,
} from './ndjson';
import type {
  AcpClientOptions,
  AdvertisedCapabilities,
  AgentConfig,
  Implementation,
  ListSessionsParams,
  ListSessionsResult,
  LoadSessionResult,
  Logger,
  SessionInfo,
  SessionListChange,
  SessionState,
  SessionUpdate,
  SessionUpdateListener,
} from './types';

const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_KILL_GRACE_MS = 2_000;
/**
 * Queued behind everything read from the agent, so that its last messages are handled before the
 * end; in the reserved namespace, which the reader drops from the wire, so the agent cannot send it.
 */
const DISCONNECTED = `${INTERNAL_METHOD_PREFIX}disconnected`;
/** How long an agent that closed its stdout may take to exit before it counts as half-dead. */
const OUTPUT_CLOSED_GRACE_MS = 1_000;
/** ACP's cancellation notification (not LSP's `$/cancelRequest`). */
const CANCEL_REQUEST = '$/cancel_request';

interface PendingRequest {
  readonly method: string;
  /** Date.now() when it was sent. */
  readonly sentAt: number;
  reject(error: Error): void;
}

/** Lets a request's caller push its deadline back while the agent shows progress (a replay's updates). */
interface Deadline {
  progress?: () => void;
}

/** Raised by the start timer; turned into an AgentStartError. */
class InitializeTimeout extends Error {}
/** Raised when the start is aborted (the agent was removed or the extension deactivated). */
class StartAborted extends Error {}

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
    await client.initialize(signal);
    return client;
  }

  readonly name: string;
  private info: Implementation | undefined;
  private version: 1 | 2 = 1;
  private advertised: Readonly<AdvertisedCapabilities> = NO_CAPABILITIES;

  private readonly log: Logger;
  private readonly process: AgentProcess;
  private readonly reader: NdjsonMessageReader;
  private readonly connection: MessageConnection;
  private readonly pending = new Set<PendingRequest>();
  /** Per session, its listeners; replaced (never mutated) so that dispatch can iterate safely. */
  private readonly listeners = new Map<string, readonly { listener: SessionUpdateListener; replays: boolean }[]>();
  /** The load of a session under way: what arrives between its request and its answer is its replay. */
  private readonly loadsInFlight = new Map<string, SessionUpdateListener>();
  /** Loads of one session take turns (two replays at once could not be told apart): the last turn of each. */
  private readonly loadTurns = new Map<string, Promise<void>>();
  private readonly disconnectEmitter = new Emitter<AgentDisconnectedError>();
  private readonly listChangeEmitter = new Emitter<SessionListChange>();
  /** Live list subscriptions this connection holds (they end with the process). */
  private readonly subscriptions = new Set<string>();
  /** Subscribe requests not answered yet: a change for an id not known yet waits for them in `earlyChanges`. */
  private subscribing = 0;
  private earlyChanges: SessionListChange[] = [];
  /** Per session being loaded, what to call when the agent marks the end of its replay. */
  private readonly replayEndWaiters = new Map<string, () => void>();
  private tooLarge = false;
  private disconnected: AgentDisconnectedError | undefined;
  private disposing: Promise<void> | undefined;
  /** Set once initialize succeeded; before that a failure is reported as one AgentStartError. */
  private started = false;

  /** Fires once when the connection ends without `dispose` (crash, exit, oversized message). */
  readonly onDidDisconnect: Event<AgentDisconnectedError> = this.disconnectEmitter.event;

  /**
   * Changes of the live lists this client subscribed to ({@link subscribeSessionList}), in the
   * order the agent sent them; only for subscriptions it holds. Entries are checked as
   * `session/list` entries are (bad ones dropped with one warning per change).
   */
  readonly onDidChangeSessionList: Event<SessionListChange> = this.listChangeEmitter.event;

  private constructor(
    readonly config: AgentConfig,
    private readonly options: AcpClientOptions,
  ) {
    this.name = config.name;
    this.log = options.log;
    this.process = new AgentProcess(config, {
      log: this.log,
      killGraceMs: this.killGraceMs,
      defaultCwd: options.defaultCwd,
      onClosed: () => this.onClosed(),
    });

    const tracer = new MessageTracer(this.log, options.trace ?? (() => 'off'), this.name);
    this.reader = new NdjsonMessageReader(this.process.stdout, {
      agentName: this.name,
      log: this.log,
      tracer,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      onMessageTooLarge: () => {
        this.tooLarge = true;
        void this.stopProcess();
      },
    });
    // The end of its output ends the connection even if the process lives on (half-dead).
    this.reader.onClose(() => this.onOutputClosed());
    const writer = new NdjsonMessageWriter(this.process.stdin, tracer);
    writer.onError(() => {
      // Our input to the agent is broken: nothing more can be asked of it, so end the process.
      if (!this.disposing) void this.stopProcess();
    });
    this.connection = createMessageConnection(this.reader, writer, jsonrpcLogger(this.log, this.name), {
      cancellationStrategy: {
        receiver: CancellationReceiverStrategy.Message,
        sender: {
          sendCancellation: (connection, id) => connection.sendNotification(CANCEL_REQUEST, { requestId: id }),
          cleanup: () => undefined,
        },
      },
    });
    this.connection.onNotification(AGENT_LINES, (lines: AgentLines) => this.dispatch(lines));
    this.connection.onNotification(DISCONNECTED, () => this.onDisconnected());
    this.connection.onNotification(AIR_METHODS.changes, (params: unknown) => this.onListChanges(params));
    this.connection.onNotification((method: string) => {
      // `$/` notifications (e.g. the agent cancelling its own request) and `_` extensions may be ignored.
      if (!method.startsWith('$/') && !method.startsWith('_')) this.log.debug(`[${this.name}] Ignored notification ${method}.`);
    });
    // Agent-to-client requests (fs, terminal, permission, `_` extensions) have no handler, so
    // vscode-jsonrpc answers them with -32601 (method not found): we only read history.
    this.connection.listen();
  }

  /** True until the agent disconnects or the client is disposed. */
  get isConnected(): boolean {
    return this.disconnected === undefined;
  }

  /** The requests still waiting for an answer, with how long they have waited (the chaos suite checks them against the deadline). */
  get pendingRequests(): { method: string; ageMs: number }[] {
    const now = Date.now();
    return [...this.pending].map((p) => ({ method: p.method, ageMs: now - p.sentAt }));
  }

  /** The agent's process id (undefined if it never started). */
  get pid(): number | undefined {
    return this.process.pid;
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
    this.subscribing++;
    let subscriptionId: string | undefined;
    try {
      const result = await this.request<unknown>(AIR_METHODS.subscribe, { cwd });
      subscriptionId = readAirSubscriptionId(result);
      if (subscriptionId === undefined) {
        throw new AcpError(ErrorCodes.InternalError, AIR_METHODS.subscribe, 'the agent answered without a subscriptionId');
      }
      this.subscriptions.add(subscriptionId);
      return subscriptionId;
    } finally {
      this.subscribing--;
      this.releaseEarlyChanges();
    }
  }

  /** Ends a live list subscription (idempotent; nothing to do once the agent's process is gone). */
  async unsubscribeSessionList(subscriptionId: string): Promise<void> {
    if (!this.subscriptions.delete(subscriptionId)) return;
    await this.request(AIR_METHODS.unsubscribe, { subscriptionId });
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
   * the mark itself never reaches `onUpdate` or any other listener.
   */
  async loadSession(
    sessionId: string,
    cwd: string,
    onUpdate: SessionUpdateListener,
    token?: CancellationToken,
    options: { onReplayEnd?: () => void } = {},
  ): Promise<LoadSessionResult> {
    this.require('loadSession', this.protocolVersion === 2 ? 'session/resume with replay' : 'session/load');
    const deadline: Deadline = {};
    let replayEnd: LoadSessionResult['replayEnd'] = 'answer';
    const onMarker = () => {
      if (replayEnd === 'marker') return;
      replayEnd = 'marker';
      try {
        options.onReplayEnd?.();
      } catch (error) {
        this.log.error(`[${this.name}] A replay-end listener failed: ${(error as Error)?.stack ?? error}`);
      }
    };
    // One load of a session at a time; a later one waits for its turn (or its cancellation).
    const previous = this.loadTurns.get(sessionId);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const turn = (previous ?? Promise.resolve()).then(() => mine);
    this.loadTurns.set(sessionId, turn);
    const replay: SessionUpdateListener = (update, line) => {
      deadline.progress?.();
      onUpdate(update, line);
    };
    try {
      if (previous) await untilTurn(previous, token, 'session/load');
      this.replayEndWaiters.set(sessionId, onMarker);
      this.loadsInFlight.set(sessionId, replay);
      if (this.protocolVersion === 2) {
        await this.request('session/resume', { sessionId, cwd, mcpServers: [], replayFrom: { type: 'start' } }, token, deadline);
      } else {
        await this.request('session/load', { sessionId, cwd, mcpServers: [] }, token, deadline);
      }
    } finally {
      if (this.loadsInFlight.get(sessionId) === replay) this.loadsInFlight.delete(sessionId);
      if (this.replayEndWaiters.get(sessionId) === onMarker) this.replayEndWaiters.delete(sessionId);
      release();
      if (this.loadTurns.get(sessionId) === turn) this.loadTurns.delete(sessionId);
    }
    return { replayEnd };
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
    const entry = { listener, replays: options.replays === true };
    this.listeners.set(sessionId, [...(this.listeners.get(sessionId) ?? []), entry]);
    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        const rest = (this.listeners.get(sessionId) ?? []).filter((l) => l !== entry);
        if (rest.length > 0) this.listeners.set(sessionId, rest);
        else this.listeners.delete(sessionId);
      },
    };
  }

  /**
   * Ends the connection and the agent: pending requests fail with an
   * {@link AgentDisconnectedError}, then SIGTERM, then SIGKILL after a grace period.
   * Resolves once the process has exited. Does not fire {@link onDidDisconnect}.
   */
  dispose(): Promise<void> {
    if (this.disposing) return this.disposing;
    const error = new AgentDisconnectedError(this.name, 'the client was disposed.', null, null, []);
    this.disconnected ??= error;
    this.rejectPending(this.disconnected);
    this.listeners.clear();
    this.endSubscriptions();
    this.connection.dispose();
    this.disposing = this.stopProcess().finally(() => {
      this.disconnectEmitter.dispose();
      this.listChangeEmitter.dispose();
    });
    return this.disposing;
  }

  private get killGraceMs(): number {
    return this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  private async initialize(signal?: AbortSignal): Promise<void> {
    const requested = this.config.protocol === 2 ? 2 : 1;
    const params = initializeParams(requested, this.options.clientInfo);
    const timeoutMs = this.options.initializeTimeoutMs ?? this.requestTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new InitializeTimeout()), timeoutMs);
      onAbort = () => reject(new StartAborted());
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    let result: unknown;
    try {
      result = await Promise.race([this.request<unknown>('initialize', params, undefined, undefined, Infinity), timeout]);
    } catch (error) {
      throw await this.startFailed(this.startFailureReason(error, timeoutMs), error);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
    const problems = new Problems();
    const answer = parseInitializeResult(result, requested, problems);
    if (!answer) {
      const version = (result as { protocolVersion?: unknown } | null)?.protocolVersion;
      throw await this.startFailed(
        `it answered protocol version ${JSON.stringify(version)}, which this client does not speak (it offered ${requested}).`,
        undefined,
      );
    }
    this.version = answer.protocolVersion;
    this.info = answer.agentInfo;
    this.advertised = Object.freeze(answer.capabilities);
    if (requested === 2 && answer.protocolVersion === 1) this.log.info(`[${this.name}] The agent answered protocol version 1; using v1.`);
    this.warnProblems('initialize', problems);
    this.started = true;
    const info = this.info ? ` (${this.info.name} ${this.info.version})` : '';
    this.log.info(`[${this.name}] Connected${info}, protocol v${this.version}, capabilities ${JSON.stringify(this.advertised)}`);
  }

  private startFailureReason(error: unknown, timeoutMs: number): string | undefined {
    if (error instanceof InitializeTimeout) return `it did not answer initialize within ${timeoutMs} ms.`;
    if (error instanceof StartAborted) return 'the start was cancelled.';
    if (error instanceof AcpError) return `it answered initialize with an error: ${error.agentMessage} (${error.code}).`;
    return undefined; // decided once the process's end is known
  }

  /** Stops the process and describes why start failed, once stderr is complete. */
  private async startFailed(reason: string | undefined, cause: unknown): Promise<AgentStartError> {
    if (reason === undefined) {
      // The initialize request failed because the process is gone or going: wait for its exit status.
      await Promise.race([this.process.closed, delay(this.killGraceMs)]);
      reason = this.describeEnd('before answering initialize');
    }
    const exit = this.process.exit;
    this.disconnected ??= new AgentDisconnectedError(this.name, reason, exit?.code ?? null, exit?.signal ?? null, []);
    this.rejectPending(this.disconnected);
    this.connection.dispose();
    this.disposing = this.stopProcess();
    await this.disposing;
    // Its exit can come before the last of its stderr is read: the tail is what explains a failed start.
    await Promise.race([this.process.closed, delay(this.killGraceMs)]);
    return new AgentStartError(this.name, reason, this.process.stderrTail, { cause });
  }

  /** Why the connection ended, in one sentence. */
  private describeEnd(when: string): string {
    if (this.tooLarge) return `it sent a message longer than the limit of ${this.maxMessageBytes} bytes.`;
    return this.process.describeEnd(when);
  }

  private get maxMessageBytes(): number {
    return this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  private require(capability: GatedCapability, method: string): void {
    if (this.disconnected) throw this.disconnected;
    if (!this.advertised[capability]) {
      throw new UnsupportedCapabilityError(this.name, method, CAPABILITY_NAMES[capability][this.protocolVersion]);
    }
  }

  private get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /**
   * Sends a request; its promise settles with the result, a typed error, the disconnect, or a
   * {@link RequestTimeoutError} once `timeoutMs` passed without an answer (or progress).
   */
  private request<R>(method: string, params: object, token?: CancellationToken, deadline?: Deadline, timeoutMs = this.requestTimeoutMs): Promise<R> {
    if (this.disconnected) return Promise.reject(this.disconnected);
    if (token?.isCancellationRequested) {
      return Promise.reject(new RequestCancelledError(ErrorCodes.RequestCancelled, method, 'cancelled before it was sent'));
    }
    return new Promise<R>((resolve, reject) => {
      let cancellation: Disposable | undefined;
      let timer: NodeJS.Timeout | undefined;
      const source = new CancellationTokenSource();
      const pending: PendingRequest = {
        method,
        sentAt: Date.now(),
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      const settle = () => {
        this.pending.delete(pending);
        cancellation?.dispose();
        clearTimeout(timer);
        if (deadline) deadline.progress = undefined;
      };
      this.pending.add(pending);
      // vscode-jsonrpc sends `$/cancel_request` itself (our cancellation strategy); we stop waiting at once.
      cancellation = token?.onCancellationRequested(() => {
        pending.reject(new RequestCancelledError(ErrorCodes.RequestCancelled, method, 'cancelled by the client'));
        source.cancel();
      });
      if (Number.isFinite(timeoutMs)) {
        // Progress only records a time: re-arming a timer per update would cost more than the replay.
        let last = Date.now();
        if (deadline) deadline.progress = () => (last = Date.now());
        const check = () => {
          const left = last + timeoutMs - Date.now();
          if (left > 0) {
            timer = setTimeout(check, left);
            return;
          }
          this.log.warn(`[${this.name}] No answer to ${method} within ${timeoutMs} ms; cancelled it.`);
          pending.reject(new RequestTimeoutError(this.name, method, timeoutMs));
          source.cancel();
        };
        timer = setTimeout(check, timeoutMs);
      }
      let sent: Promise<R>;
      try {
        sent = this.connection.sendRequest<R>(method, params, source.token);
      } catch {
        // The connection already closed: the disconnect, queued behind the agent's last messages, rejects this.
        return;
      }
      sent.then(
        (result) => {
          settle();
          resolve(result);
        },
        (error: unknown) => {
          // Every error here is the agent's answer: write failures end the connection instead
          // (see NdjsonMessageWriter), and the connection is disposed only after pending requests failed.
          settle();
          if (!(error instanceof ResponseError)) {
            reject(new AcpError(ErrorCodes.InternalError, method, String((error as Error)?.message ?? error)));
            return;
          }
          const problems = new Problems();
          const { code, message } = checkErrorParts(error.code, error.message, problems);
          this.warnProblems(`the error answer to ${method}`, problems);
          // `data` stays unknown: nothing reads it without checking its shape first.
          reject(acpErrorFor(code, method, message, error.data, this.name));
        },
      );
    });
  }

  private rejectPending(error: Error): void {
    const all = [...this.pending];
    this.pending.clear();
    for (const pending of all) pending.reject(error);
  }

  /** One warning for everything wrong in one message (types, never values: they may be hostile). */
  private warnProblems(what: string, problems: Problems): void {
    if (problems.size > 0) this.log.warn(`[${this.name}] Fixed what the agent sent in ${what}: ${problems}.`);
  }

  /** Parses the agent's lines and delivers each `session/update`, in order, to its session's listeners. */
  private dispatch(lines: AgentLines): void {
    const problems = new Problems();
    try {
      this.reader.drain(lines, (params, line) => this.dispatchUpdate(params, line, problems));
    } finally {
      this.warnProblems('session/update', problems);
    }
  }

  /**
   * Delivers one update, with the agent's `line` it came from (its bytes) when checking it fixed
   * nothing: the listener that logs updates for an export copies those bytes instead of encoding
   * the parsed update again (an argument of the call, not state of the client that a later update
   * replaces, so no listener can take another update's line).
   */
  private dispatchUpdate(params: unknown, line: Uint8Array | undefined, problems: Problems): void {
    const notification = sessionNotificationOf(params);
    if (!notification) {
      this.log.warn(`[${this.name}] Skipped a session/update without sessionId or update.sessionUpdate: ${JSON.stringify(params)?.slice(0, 200)}`);
      return;
    }
    const { sessionId, update } = notification;
    if (isAirReplayEnd(update)) {
      // The end of a load's replay: told to the load, never delivered as an info update.
      this.replayEndWaiters.get(sessionId)?.();
      return;
    }
    const load = this.loadsInFlight.get(sessionId);
    const listeners = this.listeners.get(sessionId);
    if (load === undefined && listeners === undefined) return;
    const fixed = problems.count;
    const checked = checkSessionUpdate(update, problems);
    const raw = problems.count === fixed ? line : undefined;
    if (load) this.deliver(load, checked, raw);
    if (listeners) for (let j = 0; j < listeners.length; j++) if (!load || listeners[j].replays) this.deliver(listeners[j].listener, checked, raw);
  }

  private deliver(listener: SessionUpdateListener, update: SessionUpdate, line: Uint8Array | undefined): void {
    try {
      listener(update, line);
    } catch (error) {
      this.log.error(`[${this.name}] A session/update listener failed: ${(error as Error)?.stack ?? error}`);
    }
  }

  /** The process is gone and its output read: queue the disconnect behind the agent's last messages. */
  private onClosed(): void {
    if (this.disconnected) return;
    this.reader.inject({ jsonrpc: '2.0', method: DISCONNECTED } as Message);
  }

  /**
   * The agent closed its stdout. Usually its exit follows at once and `onClosed` reports it
   * with the exit status; one that keeps running can answer nothing more: a disconnect.
   */
  private onOutputClosed(): void {
    setTimeout(() => {
      if (this.process.exit || this.disconnected) return;
      this.log.warn(`[${this.name}] Closed its output but is still running; stopping it.`);
      this.reader.inject({ jsonrpc: '2.0', method: DISCONNECTED } as Message);
    }, OUTPUT_CLOSED_GRACE_MS).unref();
  }

  private onDisconnected(): void {
    if (this.disconnected) return;
    const tail = this.process.stderrTail;
    const exit = this.process.exit;
    const error = this.tooLarge
      ? new MessageTooLargeError(this.name, this.maxMessageBytes, tail)
      : new AgentDisconnectedError(this.name, this.describeEnd(this.started ? 'while connected' : 'during start'), exit?.code ?? null, exit?.signal ?? null, tail);
    this.disconnected = error;
    if (this.started) this.log.error(error.message);
    this.rejectPending(error);
    this.listeners.clear();
    this.endSubscriptions();
    this.disconnectEmitter.fire(error);
    this.connection.dispose();
    // A dead connection's process (or what it started) may still run: end the whole group.
    void this.stopProcess();
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

  /** A `_session/list/changes` notification: checked, and delivered when the subscription is ours. */
  private onListChanges(params: unknown): void {
    if (this.disconnected || !this.advertised.listSubscribe) return;
    const problems = new Problems();
    try {
      const changes = readAirListChanges(params, problems);
      if (!changes) return;
      const change: SessionListChange = {
        subscriptionId: changes.subscriptionId,
        // Any archive state: an entry's own `archived` says which.
        sessions: this.readEntries(changes.sessions, 'include', problems),
        removed: changes.removed,
      };
      if (this.subscriptions.has(change.subscriptionId)) this.fireListChange(change);
      else if (this.subscribing > 0) this.earlyChanges.push(change);
      else this.log.debug(`[${this.name}] Ignored a list change of a subscription this client does not hold.`);
    } finally {
      this.warnProblems(AIR_METHODS.changes, problems);
    }
  }

  /**
   * Changes that came before their subscription's answer: delivered once it is known (after the
   * subscriber's own continuation ran, so it knows the id), the rest dropped when no subscribe is left.
   */
  private releaseEarlyChanges(): void {
    if (this.earlyChanges.length === 0) return;
    const ready = this.earlyChanges.filter((c) => this.subscriptions.has(c.subscriptionId));
    this.earlyChanges = this.subscribing > 0 ? this.earlyChanges.filter((c) => !this.subscriptions.has(c.subscriptionId)) : [];
    if (ready.length > 0) setImmediate(() => ready.forEach((change) => this.subscriptions.has(change.subscriptionId) && this.fireListChange(change)));
  }

  private fireListChange(change: SessionListChange): void {
    try {
      this.listChangeEmitter.fire(change);
    } catch (error) {
      this.log.error(`[${this.name}] A session list listener failed: ${(error as Error)?.stack ?? error}`);
    }
  }

  /** Subscriptions and replay marks live as long as the agent's process. */
  private endSubscriptions(): void {
    this.subscriptions.clear();
    this.earlyChanges = [];
    this.replayEndWaiters.clear();
  }

  /** Ends the agent's whole process group (agentProcess.ts). */
  private stopProcess(): Promise<void> {
    return this.process.stop();
  }
}

/** Routes vscode-jsonrpc's own diagnostics into our log. */
function jsonrpcLogger(log: Logger, name: string) {
  return {
    error: (message: string) => log.error(`[${name}] ${message}`),
    warn: (message: string) => log.warn(`[${name}] ${message}`),
    info: (message: string) => log.debug(`[${name}] ${message}`),
    log: (message: string) => log.debug(`[${name}] ${message}`),
  };
}

/** Resolves when `previous` (an earlier load's turn) is over; rejects once `token` is cancelled. */
function untilTurn(previous: Promise<void>, token: CancellationToken | undefined, method: string): Promise<void> {
  if (token?.isCancellationRequested) return Promise.reject(new RequestCancelledError(ErrorCodes.RequestCancelled, method, 'cancelled before it was sent'));
  return new Promise<void>((resolve, reject) => {
    const cancelled = token?.onCancellationRequested(() => reject(new RequestCancelledError(ErrorCodes.RequestCancelled, method, 'cancelled before it was sent')));
    void previous.then(() => {
      cancelled?.dispose();
      resolve();
    });
  });
}
