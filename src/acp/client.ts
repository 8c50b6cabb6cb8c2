// The ACP client: starts one agent process, speaks JSON-RPC to it over stdio through
// vscode-jsonrpc with our newline-delimited reader and writer, and exposes the session
// methods this extension uses, gated on what the agent advertised.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import {
  CancellationReceiverStrategy,
  type CancellationToken,
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
  UnsupportedCapabilityError,
  acpErrorFor,
} from './errors';
import { JETBRAINS_AIR_CLIENT_META, addListFilter, archiveMethodOf, archiveRequestMethod, withArchivedFlag } from './archive';
import { spawnCommand } from './command';
import { MessageTracer, NdjsonMessageReader, NdjsonMessageWriter, SESSION_UPDATE_BATCH, type SessionUpdateBatch } from './ndjson';
import type {
  AcpClientOptions,
  AdvertisedCapabilities,
  AgentConfig,
  Implementation,
  ListSessionsParams,
  ListSessionsResult,
  Logger,
  SessionInfo,
  SessionUpdate,
  SessionUpdateListener,
} from './types';

const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;
const DEFAULT_KILL_GRACE_MS = 2_000;
/** Lines of the agent's stderr kept for error messages. */
const STDERR_TAIL_LINES = 20;
/** Longest stderr line kept (and logged); a runaway line must not grow without bound. */
const STDERR_LINE_CHARS = 2_000;
/** Queued behind everything read from the agent, so that its last messages are handled before the end. */
const DISCONNECTED = '$/acpSessions/disconnected';
/** ACP's cancellation notification (not LSP's `$/cancelRequest`). */
const CANCEL_REQUEST = '$/cancel_request';

/** Which advertised capability each gated method needs, in the protocol's words per version. */
const CAPABILITY_NAMES: Record<keyof Omit<AdvertisedCapabilities, 'authMethods' | 'archiveMethod'>, { 1: string; 2: string }> = {
  loadSession: { 1: 'agentCapabilities.loadSession', 2: 'capabilities.session' },
  list: { 1: 'sessionCapabilities.list', 2: 'capabilities.session' },
  archive: { 1: 'sessionCapabilities.archive', 2: 'capabilities.session.archive' },
  delete: { 1: 'sessionCapabilities.delete', 2: 'capabilities.session.delete' },
  resume: { 1: 'sessionCapabilities.resume', 2: 'capabilities.session' },
  close: { 1: 'sessionCapabilities.close', 2: 'capabilities.session' },
  title: { 1: 'sessionCapabilities.title', 2: 'capabilities.session.title' },
};

interface PendingRequest {
  reject(error: Error): void;
}

/** Raised by the start timer; turned into an AgentStartError. */
class InitializeTimeout extends Error {}

export class AcpClient {
  /**
   * Starts the agent and initializes the connection. Throws one {@link AgentStartError}
   * (naming the agent, the cause and the last lines of its stderr) when the executable is
   * missing, the agent exits during start, or it does not answer `initialize` in time.
   */
  static async start(config: AgentConfig, options: AcpClientOptions): Promise<AcpClient> {
    const client = new AcpClient(config, options);
    await client.initialize();
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
  private spawnError: Error | undefined;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;
  private readonly closed: Promise<void>;
  private markClosed!: () => void;
  private closeHandled = false;
  private tooLarge = false;
  private disconnected: AgentDisconnectedError | undefined;
  private disposing: Promise<void> | undefined;
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
    this.connection.onNotification(SESSION_UPDATE_BATCH, (batch: SessionUpdateBatch) => this.dispatch(batch));
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
    const result = await this.request<{ sessions?: unknown; nextCursor?: unknown }>('session/list', request, token);
    const sessions: SessionInfo[] = [];
    if (Array.isArray(result?.sessions)) {
      for (const session of result.sessions as SessionInfo[]) {
        if (session && typeof session.sessionId === 'string' && typeof session.cwd === 'string') {
          sessions.push(archiveMethod ? withArchivedFlag(session, archiveMethod, params.archived) : session);
        }
        else this.log.warn(`[${this.name}] session/list returned an entry without sessionId or cwd; skipped: ${JSON.stringify(session)}`);
      }
    } else {
      throw new AcpError(ErrorCodes.InternalError, 'session/list', 'the agent answered without a sessions array');
    }
    return typeof result.nextCursor === 'string' ? { sessions, nextCursor: result.nextCursor } : { sessions };
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
    const subscription = this.onSessionUpdate(sessionId, onUpdate);
    try {
      if (this.protocolVersion === 2) {
        await this.request('session/resume', { sessionId, cwd, mcpServers: [], replayFrom: { type: 'start' } }, token);
      } else {
        await this.request('session/load', { sessionId, cwd, mcpServers: [] }, token);
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

  private async initialize(): Promise<void> {
    const requested = this.config.protocol === 2 ? 2 : 1;
    const clientInfo = { ...this.options.clientInfo };
    const params =
      requested === 2
        ? { protocolVersion: 2, info: clientInfo, capabilities: {} }
        : {
            protocolVersion: 1,
            clientInfo,
            // We read history: no file system or terminal for the agent; compaction rows are shown.
            // `_meta` offers the JetBrains AIR session index, how today's agents archive (archive.ts).
            clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, session: { compaction: {} }, _meta: JETBRAINS_AIR_CLIENT_META },
          };
    const timeoutMs = this.options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new InitializeTimeout()), timeoutMs);
    });
    let result: Record<string, unknown>;
    try {
      result = await Promise.race([this.request<Record<string, unknown>>('initialize', params), timeout]);
    } catch (error) {
      throw await this.startFailed(this.startFailureReason(error, timeoutMs), error);
    } finally {
      clearTimeout(timer);
    }
    const version = result?.protocolVersion;
    if (version === 2 && requested === 2) {
      const capabilities = asRecord(result.capabilities);
      const session = asRecord(capabilities.session);
      const hasSession = capabilities.session != null;
      this.protocolVersion = 2;
      this.agentInfo = asImplementation(result.info);
      this.capabilities = {
        // v2 has no session/load: replay is session/resume with replayFrom, part of the baseline surface.
        loadSession: hasSession,
        list: hasSession,
        resume: hasSession,
        close: hasSession,
        archive: hasSession && session.archive != null,
        delete: hasSession && session.delete != null,
        title: false, // v2 has no set_title yet
        authMethods: Array.isArray(result.authMethods) ? result.authMethods : [],
      };
      if (this.capabilities.archive) this.capabilities.archiveMethod = 'standard';
    } else if (version === 1) {
      const agentCapabilities = asRecord(result.agentCapabilities);
      const session = asRecord(agentCapabilities.sessionCapabilities);
      this.protocolVersion = 1;
      this.agentInfo = asImplementation(result.agentInfo);
      this.capabilities = {
        loadSession: agentCapabilities.loadSession === true,
        list: session.list != null,
        // The RFD requires list alongside archive; without list there is nowhere to show archived sessions.
        archive: session.archive != null && session.list != null,
        delete: session.delete != null,
        resume: session.resume != null,
        close: session.close != null,
        title: session.title != null,
        authMethods: Array.isArray(result.authMethods) ? result.authMethods : [],
      };
      // The standard wins; where it is missing, the vendor extension the agent answered (archive.ts).
      const archiveMethod = archiveMethodOf(result, session.archive != null, session.list != null);
      if (archiveMethod) Object.assign(this.capabilities, { archive: true, archiveMethod });
      if (requested === 2) this.log.info(`[${this.name}] The agent answered protocol version 1; using v1.`);
    } else {
      throw await this.startFailed(
        `it answered protocol version ${JSON.stringify(version)}, which this client does not speak (it offered ${requested}).`,
        undefined,
      );
    }
    this.started = true;
    const info = this.agentInfo ? ` (${this.agentInfo.name} ${this.agentInfo.version})` : '';
    this.log.info(`[${this.name}] Connected${info}, protocol v${this.protocolVersion}, capabilities ${JSON.stringify(this.capabilities)}`);
  }

  private startFailureReason(error: unknown, timeoutMs: number): string | undefined {
    if (error instanceof InitializeTimeout) return `it did not answer initialize within ${timeoutMs} ms.`;
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
    return new AgentStartError(this.name, reason, [...this.stderrTail], { cause });
  }

  /** Why the process ended, in one sentence. */
  private describeEnd(when: string): string {
    const spawnError = this.spawnError as NodeJS.ErrnoException | undefined;
    if (spawnError) {
      if (spawnError.code === 'ENOENT') return `the command "${this.config.command}" was not found (is it installed and on the PATH?).`;
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

  private require(capability: keyof Omit<AdvertisedCapabilities, 'authMethods' | 'archiveMethod'>, method: string): void {
    if (this.disconnected) throw this.disconnected;
    if (!this.capabilities[capability]) {
      throw new UnsupportedCapabilityError(this.name, method, CAPABILITY_NAMES[capability][this.protocolVersion]);
    }
  }

  /** Sends a request; its promise settles with the result, a typed error, or the disconnect. */
  private request<R>(method: string, params: object, token?: CancellationToken): Promise<R> {
    if (this.disconnected) return Promise.reject(this.disconnected);
    if (token?.isCancellationRequested) {
      return Promise.reject(new RequestCancelledError(ErrorCodes.RequestCancelled, method, 'cancelled before it was sent'));
    }
    return new Promise<R>((resolve, reject) => {
      let cancellation: Disposable | undefined;
      const pending: PendingRequest = {
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      const settle = () => {
        this.pending.delete(pending);
        cancellation?.dispose();
      };
      this.pending.add(pending);
      // vscode-jsonrpc sends `$/cancel_request` itself (our cancellation strategy); we stop waiting at once.
      cancellation = token?.onCancellationRequested(() =>
        pending.reject(new RequestCancelledError(ErrorCodes.RequestCancelled, method, 'cancelled by the client')),
      );
      let sent: Promise<R>;
      try {
        sent = token ? this.connection.sendRequest<R>(method, params, token) : this.connection.sendRequest<R>(method, params);
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
          reject(
            error instanceof ResponseError
              ? acpErrorFor(error.code, method, error.message, error.data)
              : new AcpError(ErrorCodes.InternalError, method, String((error as Error)?.message ?? error)),
          );
        },
      );
    });
  }

  private rejectPending(error: Error): void {
    const all = [...this.pending];
    this.pending.clear();
    for (const pending of all) pending.reject(error);
  }

  /** Delivers a batch of `session/update` notifications, in order, to each session's listeners. */
  private dispatch(batch: SessionUpdateBatch): void {
    const notifications = batch.notifications;
    for (let i = 0; i < notifications.length; i++) {
      const notification = notifications[i] as { sessionId?: unknown; update?: { sessionUpdate?: unknown } } | null;
      const update = notification?.update;
      if (typeof notification?.sessionId !== 'string' || typeof update?.sessionUpdate !== 'string') {
        this.log.warn(`[${this.name}] Skipped a session/update without sessionId or update.sessionUpdate: ${JSON.stringify(notification)?.slice(0, 200)}`);
        continue;
      }
      const listeners = this.listeners.get(notification.sessionId);
      if (listeners === undefined) continue;
      for (let j = 0; j < listeners.length; j++) {
        try {
          listeners[j](update as SessionUpdate);
        } catch (error) {
          this.log.error(`[${this.name}] A session/update listener failed: ${(error as Error)?.stack ?? error}`);
        }
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
    this.log.info(`[${this.name}] ${line}`);
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
  }

  /** The process is gone and its output read: queue the disconnect behind the agent's last messages. */
  private onClosed(): void {
    if (this.closeHandled) return;
    this.closeHandled = true;
    if (this.stderrPartial) {
      this.stderrLine(this.stderrPartial);
      this.stderrPartial = '';
    }
    this.markClosed();
    if (this.disconnected) return;
    this.reader.inject({ jsonrpc: '2.0', method: DISCONNECTED } as Message);
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
  }

  /** Closes the agent's input, then SIGTERM, then SIGKILL after the grace period; resolves on exit. */
  private async stopProcess(): Promise<void> {
    if (this.exit || this.child.pid === undefined) return;
    this.child.stdin.end();
    this.signal('SIGTERM');
    await Promise.race([this.exited, delay(this.killGraceMs)]);
    if (this.exit) return;
    this.log.warn(`[${this.name}] Did not exit within ${this.killGraceMs} ms of SIGTERM; sending SIGKILL.`);
    this.signal('SIGKILL');
    await this.exited;
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

function isDirectory(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function asImplementation(value: unknown): Implementation | undefined {
  const record = asRecord(value);
  return typeof record.name === 'string' ? (record as unknown as Implementation) : undefined;
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
