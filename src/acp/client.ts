// The ACP client: starts one agent process, speaks JSON-RPC to it over stdio through
// vscode-jsonrpc with our newline-delimited reader and writer, and exposes the session
// methods this extension uses, gated on what the agent advertised.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
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
import { JETBRAINS_AIR_CLIENT_META, addListFilter, answersAirSessionIndex, archiveMethodOf, archiveRequestMethod, withArchivedFlag } from './archive';
import { parseSessionStatus, withAirState } from './sessionState';
import { spawnCommand } from './command';
import {
  Problems,
  checkAuthMethods,
  checkCapability,
  checkCursor,
  checkErrorParts,
  checkImplementation,
  checkRecord,
  checkSessionInfo,
  checkSessionUpdate,
} from './validate';
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
  Logger,
  SessionInfo,
  SessionState,
  SessionUpdate,
  SessionUpdateListener,
} from './types';

const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_KILL_GRACE_MS = 2_000;
/** Lines of the agent's stderr kept for error messages. */
const STDERR_TAIL_LINES = 20;
/** Longest stderr line kept (and logged); a runaway line must not grow without bound. */
const STDERR_LINE_CHARS = 2_000;
/** Stderr lines logged per agent per second; more are counted and summed up in one line. */
const STDERR_LINES_PER_SECOND = 50;
/**
 * Queued behind everything read from the agent, so that its last messages are handled before the
 * end; in the reserved namespace, which the reader drops from the wire, so the agent cannot send it.
 */
const DISCONNECTED = `${INTERNAL_METHOD_PREFIX}disconnected`;
/** How long an agent that closed its stdout may take to exit before it counts as half-dead. */
const OUTPUT_CLOSED_GRACE_MS = 1_000;
/** How often the end of the agent's process group is checked while stopping it. */
const GROUP_POLL_MS = 20;
/** ACP's cancellation notification (not LSP's `$/cancelRequest`). */
const CANCEL_REQUEST = '$/cancel_request';

/** Which advertised capability each gated method needs, in the protocol's words per version. */
const CAPABILITY_NAMES: Record<GatedCapability, { 1: string; 2: string }> = {
  loadSession: { 1: 'agentCapabilities.loadSession', 2: 'capabilities.session' },
  list: { 1: 'sessionCapabilities.list', 2: 'capabilities.session' },
  archive: { 1: 'sessionCapabilities.archive', 2: 'capabilities.session.archive' },
  delete: { 1: 'sessionCapabilities.delete', 2: 'capabilities.session.delete' },
  resume: { 1: 'sessionCapabilities.resume', 2: 'capabilities.session' },
  close: { 1: 'sessionCapabilities.close', 2: 'capabilities.session' },
  title: { 1: 'sessionCapabilities.title', 2: 'capabilities.session.title' },
  status: { 1: 'sessionCapabilities.status', 2: 'capabilities.session.status' },
};

type GatedCapability = keyof Omit<AdvertisedCapabilities, 'authMethods' | 'archiveMethod' | 'sessionState'>;

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
  agentInfo: Implementation | undefined;
  protocolVersion: 1 | 2 = 1;
  capabilities: AdvertisedCapabilities = {
    loadSession: false,
    list: false,
    archive: false,
    delete: false,
    resume: false,
    close: false,
    title: false,
    status: false,
    authMethods: [],
  };

  private readonly log: Logger;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly reader: NdjsonMessageReader;
  private readonly connection: MessageConnection;
  private readonly pending = new Set<PendingRequest>();
  /** Per session, its listeners; replaced (never mutated) so that dispatch can iterate safely. */
  private readonly listeners = new Map<string, readonly SessionUpdateListener[]>();
  private readonly disconnectEmitter = new Emitter<AgentDisconnectedError>();
  private readonly stderrTail: string[] = [];
  private stderrPartial = '';
  /** The stderr rate limit: when the current one-second window started, lines logged and dropped in it. */
  private stderrWindow = { start: 0, logged: 0, dropped: 0 };
  private spawnError: Error | undefined;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;
  private readonly closed: Promise<void>;
  private markClosed!: () => void;
  private closeHandled = false;
  private tooLarge = false;
  private disconnected: AgentDisconnectedError | undefined;
  private disposing: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  /** Set once initialize succeeded; before that a failure is reported as one AgentStartError. */
  private started = false;

  /** Fires once when the connection ends without `dispose` (crash, exit, oversized message). */
  readonly onDidDisconnect: Event<AgentDisconnectedError> = this.disconnectEmitter.event;

  private constructor(
    readonly config: AgentConfig,
    private readonly options: AcpClientOptions,
  ) {
    this.name = config.name;
    this.log = options.log;
    const cwd = config.cwd ?? options.defaultCwd ?? homedir();
    if (!isDirectory(cwd)) {
      throw new AgentStartError(this.name, `its working directory "${cwd}" does not exist.`, []);
    }
    this.log.info(`[${this.name}] Starting ${[config.command, ...(config.args ?? [])].join(' ')} in ${cwd}`);
    const env = { ...process.env, ...config.env };
    const command = spawnCommand(config.command, config.args ?? [], env, cwd);
    if (!command) throw new AgentStartError(this.name, commandNotFound(config.command), []);
    this.child = spawn(command.file, command.args, {
      cwd,
      env,
      windowsVerbatimArguments: command.windowsVerbatimArguments,
      stdio: 'pipe',
      // Its own process group, so that dispose also stops what the agent started (npx, a CLI).
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
    this.child.on('error', (error) => {
      this.spawnError ??= error;
      this.log.error(`[${this.name}] ${error.message}`);
    });
    // Without these a write to a dead agent (EPIPE) would be an uncaught exception.
    this.child.stdin.on('error', (error) => this.log.debug(`[${this.name}] stdin: ${error.message}`));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text: string) => this.onStderr(text));
    this.child.stderr.on('error', () => undefined);
    this.child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      // 'close' waits for stdout and stderr too; if something the agent started holds them open, stop waiting.
      setTimeout(() => this.onClosed(), this.killGraceMs).unref();
    });
    this.child.on('close', (code, signal) => {
      this.exit ??= { code, signal };
      this.onClosed();
    });

    const tracer = new MessageTracer(this.log, options.trace ?? (() => 'off'), this.name);
    this.reader = new NdjsonMessageReader(this.child.stdout, {
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
    const writer = new NdjsonMessageWriter(this.child.stdin, tracer);
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
    return this.child.pid;
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
    const sessions: SessionInfo[] = [];
    const airState = this.capabilities.sessionState === 'jetbrains-air';
    for (const entry of answer.sessions) {
      let session = checkSessionInfo(entry, problems);
      if (!session) continue;
      if (archiveMethod) session = withArchivedFlag(session, archiveMethod, params.archived);
      if (airState) session = withAirState(session, problems);
      sessions.push(session);
    }
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
   * a title the agent rejects). Resolves with the title the agent stored (it may normalize it).
   */
  async setSessionTitle(sessionId: string, title: string): Promise<string> {
    this.require('title', 'session/set_title');
    const result = await this.request<{ title?: unknown } | null>('session/set_title', { sessionId, title });
    return typeof result?.title === 'string' ? result.title : title;
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
   * with `replayFrom: { type: "start" }`.
   */
  async loadSession(sessionId: string, cwd: string, onUpdate: SessionUpdateListener, token?: CancellationToken): Promise<void> {
    this.require('loadSession', this.protocolVersion === 2 ? 'session/resume with replay' : 'session/load');
    const deadline: Deadline = {};
    const subscription = this.onSessionUpdate(sessionId, (update) => {
      deadline.progress?.();
      onUpdate(update);
    });
    try {
      if (this.protocolVersion === 2) {
        await this.request('session/resume', { sessionId, cwd, mcpServers: [], replayFrom: { type: 'start' } }, token, deadline);
      } else {
        await this.request('session/load', { sessionId, cwd, mcpServers: [] }, token, deadline);
      }
    } finally {
      subscription.dispose();
    }
  }

  /** `session/resume` without replay. */
  async resumeSession(sessionId: string, cwd: string, token?: CancellationToken): Promise<void> {
    this.require('resume', 'session/resume');
    await this.request('session/resume', { sessionId, cwd, mcpServers: [] }, token);
  }

  /** Live `session/update` payloads of one session, in order, until disposed. */
  onSessionUpdate(sessionId: string, listener: SessionUpdateListener): Disposable {
    this.listeners.set(sessionId, [...(this.listeners.get(sessionId) ?? []), listener]);
    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        const rest = (this.listeners.get(sessionId) ?? []).filter((l) => l !== listener);
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
    this.connection.dispose();
    this.disposing = this.stopProcess().finally(() => this.disconnectEmitter.dispose());
    return this.disposing;
  }

  private get killGraceMs(): number {
    return this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  private async initialize(signal?: AbortSignal): Promise<void> {
    const requested = this.config.protocol === 2 ? 2 : 1;
    const clientInfo = { ...this.options.clientInfo };
    const params =
      requested === 2
        ? { protocolVersion: 2, info: clientInfo, capabilities: {} }
        : {
            protocolVersion: 1,
            clientInfo,
            // We read history: no file system or terminal for the agent; compaction rows are shown;
            // `subagents` lets a replay announce children (`subagent_update`), shown as rows.
            // `_meta` offers the JetBrains AIR session index, how today's agents archive (archive.ts).
            clientCapabilities: {
              fs: { readTextFile: false, writeTextFile: false },
              terminal: false,
              session: { compaction: {} },
              subagents: {},
              _meta: JETBRAINS_AIR_CLIENT_META,
            },
          };
    const timeoutMs = this.options.initializeTimeoutMs ?? this.requestTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new InitializeTimeout()), timeoutMs);
      onAbort = () => reject(new StartAborted());
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    let result: Record<string, unknown>;
    try {
      result = await Promise.race([this.request<Record<string, unknown>>('initialize', params, undefined, undefined, Infinity), timeout]);
    } catch (error) {
      throw await this.startFailed(this.startFailureReason(error, timeoutMs), error);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
    const problems = new Problems();
    result = checkRecord(result, 'the initialize result', problems);
    const version = result.protocolVersion;
    if (version === 2 && requested === 2) {
      const capabilities = checkRecord(result.capabilities, 'capabilities', problems);
      const hasSession = checkCapability(capabilities.session, 'capabilities.session', problems);
      const session = checkRecord(capabilities.session === true ? {} : capabilities.session, 'capabilities.session', problems);
      this.protocolVersion = 2;
      this.agentInfo = checkImplementation(result.info, problems);
      this.capabilities = {
        // v2 has no session/load: replay is session/resume with replayFrom, part of the baseline surface.
        loadSession: hasSession,
        list: hasSession,
        resume: hasSession,
        close: hasSession,
        archive: hasSession && checkCapability(session.archive, 'capabilities.session.archive', problems),
        delete: hasSession && checkCapability(session.delete, 'capabilities.session.delete', problems),
        title: false, // v2 has no set_title yet
        status: false, // nor session/status
        authMethods: checkAuthMethods(result.authMethods, problems),
      };
      if (this.capabilities.archive) this.capabilities.archiveMethod = 'standard';
    } else if (version === 1) {
      const agentCapabilities = checkRecord(result.agentCapabilities, 'agentCapabilities', problems);
      const session = checkRecord(agentCapabilities.sessionCapabilities, 'sessionCapabilities', problems);
      const has = (name: string) => checkCapability(session[name], `sessionCapabilities.${name}`, problems);
      if (agentCapabilities.loadSession !== undefined && typeof agentCapabilities.loadSession !== 'boolean') {
        problems.add('agentCapabilities.loadSession that is not a boolean');
      }
      this.protocolVersion = 1;
      this.agentInfo = checkImplementation(result.agentInfo, problems);
      const list = has('list');
      this.capabilities = {
        loadSession: agentCapabilities.loadSession === true,
        list,
        // The RFD requires list alongside archive; without list there is nowhere to show archived sessions.
        archive: has('archive') && list,
        delete: has('delete'),
        resume: has('resume'),
        close: has('close'),
        title: has('title'),
        status: has('status'),
        authMethods: checkAuthMethods(result.authMethods, problems),
      };
      // The standard wins; where it is missing, the vendor extension the agent answered (archive.ts).
      const archiveMethod = archiveMethodOf(result, this.capabilities.archive, list);
      if (archiveMethod) Object.assign(this.capabilities, { archive: true, archiveMethod });
      // Live state the same way: session/status, else the AIR list entries' state (sessionState.ts).
      if (this.capabilities.status) this.capabilities.sessionState = 'status';
      else if (list && answersAirSessionIndex(result)) this.capabilities.sessionState = 'jetbrains-air';
      if (requested === 2) this.log.info(`[${this.name}] The agent answered protocol version 1; using v1.`);
    } else {
      throw await this.startFailed(
        `it answered protocol version ${JSON.stringify(version)}, which this client does not speak (it offered ${requested}).`,
        undefined,
      );
    }
    this.warnProblems('initialize', problems);
    this.started = true;
    const info = this.agentInfo ? ` (${this.agentInfo.name} ${this.agentInfo.version})` : '';
    this.log.info(`[${this.name}] Connected${info}, protocol v${this.protocolVersion}, capabilities ${JSON.stringify(this.capabilities)}`);
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
      await Promise.race([this.closed, delay(this.killGraceMs)]);
      reason = this.describeEnd('before answering initialize');
    }
    this.disconnected ??= new AgentDisconnectedError(this.name, reason, this.exit?.code ?? null, this.exit?.signal ?? null, []);
    this.rejectPending(this.disconnected);
    this.connection.dispose();
    this.disposing = this.stopProcess();
    await this.disposing;
    // Its exit can come before the last of its stderr is read: the tail is what explains a failed start.
    await Promise.race([this.closed, delay(this.killGraceMs)]);
    return new AgentStartError(this.name, reason, [...this.stderrTail], { cause });
  }

  /** Why the process ended, in one sentence. */
  private describeEnd(when: string): string {
    const spawnError = this.spawnError as NodeJS.ErrnoException | undefined;
    if (spawnError) {
      if (spawnError.code === 'ENOENT') return commandNotFound(this.config.command);
      if (spawnError.code === 'EACCES') return `the command "${this.config.command}" is not executable (EACCES).`;
      return `the command "${this.config.command}" could not be run: ${spawnError.message}.`;
    }
    if (this.tooLarge) return `it sent a message longer than the limit of ${this.maxMessageBytes} bytes.`;
    if (this.exit?.code != null) return `it exited with code ${this.exit.code} ${when}.`;
    if (this.exit?.signal) return `it was killed by ${this.exit.signal} ${when}.`;
    return `it closed its output ${when}.`;
  }

  private get maxMessageBytes(): number {
    return this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  private require(capability: GatedCapability, method: string): void {
    if (this.disconnected) throw this.disconnected;
    if (!this.capabilities[capability]) {
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
          reject(acpErrorFor(code, method, message, error.data));
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
      this.reader.drain(lines, (params) => this.dispatchUpdate(params, problems));
    } finally {
      this.warnProblems('session/update', problems);
    }
  }

  private dispatchUpdate(params: unknown, problems: Problems): void {
    const notification = params as { sessionId?: unknown; update?: { sessionUpdate?: unknown } } | null;
    const update = notification?.update;
    if (typeof notification?.sessionId !== 'string' || typeof update?.sessionUpdate !== 'string') {
      this.log.warn(`[${this.name}] Skipped a session/update without sessionId or update.sessionUpdate: ${JSON.stringify(notification)?.slice(0, 200)}`);
      return;
    }
    const listeners = this.listeners.get(notification.sessionId);
    if (listeners === undefined) return;
    const checked = checkSessionUpdate(update as SessionUpdate, problems);
    for (let j = 0; j < listeners.length; j++) {
      try {
        listeners[j](checked);
      } catch (error) {
        this.log.error(`[${this.name}] A session/update listener failed: ${(error as Error)?.stack ?? error}`);
      }
    }
  }

  private onStderr(text: string): void {
    const lines = (this.stderrPartial + text).split('\n');
    this.stderrPartial = lines.pop()!.slice(0, STDERR_LINE_CHARS);
    for (const line of lines) this.stderrLine(line);
  }

  private stderrLine(raw: string): void {
    const line = raw.replace(/\r$/, '').slice(0, STDERR_LINE_CHARS);
    if (line === '') return;
    const now = Date.now();
    const window = this.stderrWindow;
    if (now - window.start >= 1000) {
      this.flushDroppedStderr();
      this.stderrWindow = { start: now, logged: 0, dropped: 0 };
    }
    // A flooding agent must not flood the log: the tail for error messages still keeps every line.
    if (this.stderrWindow.logged < STDERR_LINES_PER_SECOND) {
      this.stderrWindow.logged++;
      this.log.info(`[${this.name}] ${line}`);
    } else {
      this.stderrWindow.dropped++;
    }
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
  }

  private flushDroppedStderr(): void {
    const dropped = this.stderrWindow.dropped;
    if (dropped === 0) return;
    this.stderrWindow.dropped = 0;
    this.log.warn(`[${this.name}] ${dropped} more stderr line${dropped === 1 ? '' : 's'} not logged (more than ${STDERR_LINES_PER_SECOND} a second).`);
  }

  /** The process is gone and its output read: queue the disconnect behind the agent's last messages. */
  private onClosed(): void {
    if (this.closeHandled) return;
    this.closeHandled = true;
    if (this.stderrPartial) {
      this.stderrLine(this.stderrPartial);
      this.stderrPartial = '';
    }
    this.flushDroppedStderr();
    this.markClosed();
    if (this.disconnected) return;
    this.reader.inject({ jsonrpc: '2.0', method: DISCONNECTED } as Message);
  }

  /**
   * The agent closed its stdout. Usually its exit follows at once and `onClosed` reports it
   * with the exit status; one that keeps running can answer nothing more: a disconnect.
   */
  private onOutputClosed(): void {
    setTimeout(() => {
      if (this.exit || this.disconnected) return;
      this.log.warn(`[${this.name}] Closed its output but is still running; stopping it.`);
      this.reader.inject({ jsonrpc: '2.0', method: DISCONNECTED } as Message);
    }, OUTPUT_CLOSED_GRACE_MS).unref();
  }

  private onDisconnected(): void {
    if (this.disconnected) return;
    const tail = [...this.stderrTail];
    const error = this.tooLarge
      ? new MessageTooLargeError(this.name, this.maxMessageBytes, tail)
      : new AgentDisconnectedError(this.name, this.describeEnd(this.started ? 'while connected' : 'during start'), this.exit?.code ?? null, this.exit?.signal ?? null, tail);
    this.disconnected = error;
    if (this.started) this.log.error(error.message);
    this.rejectPending(error);
    this.listeners.clear();
    this.disconnectEmitter.fire(error);
    this.connection.dispose();
    // A dead connection's process (or what it started) may still run: end the whole group.
    void this.stopProcess();
  }

  /**
   * Closes the agent's input, then SIGTERM to its process group, then SIGKILL after the grace
   * period; resolves once the agent exited and its group is gone (the group only after a bounded
   * wait: an orphan nobody reaps still counts as a member). Also when the agent itself already
   * exited: what it started lives on in its group.
   */
  private stopProcess(): Promise<void> {
    if (this.child.pid === undefined) return Promise.resolve();
    this.stopping ??= this.stopGroup(this.child.pid);
    return this.stopping;
  }

  private async stopGroup(pid: number): Promise<void> {
    if (!this.exit) this.child.stdin.end();
    this.signal('SIGTERM');
    const deadline = Date.now() + this.killGraceMs;
    await Promise.race([this.exited, delay(this.killGraceMs, true)]);
    while (groupAlive(pid) && Date.now() < deadline) await delay(GROUP_POLL_MS, true);
    if (!this.exit || groupAlive(pid)) {
      this.log.warn(`[${this.name}] Did not exit within ${this.killGraceMs} ms of SIGTERM; sending SIGKILL.`);
      this.signal('SIGKILL');
    }
    await this.exited;
    const killDeadline = Date.now() + this.killGraceMs;
    while (groupAlive(pid) && Date.now() < killDeadline) await delay(GROUP_POLL_MS, true);
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (process.platform !== 'win32') process.kill(-pid, signal);
      // A batch file's agent is a child of cmd.exe: the last resort ends the whole tree.
      else if (signal === 'SIGKILL') spawn('taskkill', ['/pid', String(pid), '/t', '/f'], { stdio: 'ignore', windowsHide: true }).on('error', () => this.child.kill(signal));
      else this.child.kill(signal);
    } catch {
      this.child.kill(signal);
    }
  }
}

function commandNotFound(command: string): string {
  return `the command "${command}" was not found (is it installed and on the PATH?).`;
}

function isDirectory(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * True while a process of the group led by `pid` runs (POSIX; on Windows the tree is not
 * visible). On Linux zombies do not count: in containers whose PID 1 never reaps orphans they
 * stay in the group for good, yet run nothing.
 */
function groupAlive(pid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // ended while we looked
      }
      // After the command name in parentheses: state, ppid, pgrp.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pid && state !== 'Z') return true;
    }
    return false;
  } catch {
    return true; // no /proc to read: trust kill(0)
  }
}

/** `keepAlive`: the wait holds the event loop (stopping processes must finish before an exit). */
function delay(ms: number, keepAlive = false): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (!keepAlive) timer.unref();
  });
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
