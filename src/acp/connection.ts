// The connection to one agent: its process (agentProcess.ts), JSON-RPC over its stdio through
// vscode-jsonrpc with our newline-delimited reader and writer, every request's deadline, the
// `initialize` handshake and the end of it all (a crash, an exit, an oversized message or
// `dispose`). Knows no session method: the client (client.ts) asks through `request`, and the
// connection hands the agent's updates and extension notifications to the hooks it was given.
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
  acpErrorFor,
} from './errors';
import { AgentProcess, delay } from './agentProcess';
import { type InitializeAnswer, initializeParams, parseInitializeResult } from './capabilities';
import { Problems, checkErrorParts } from './validate';
import {
  INTERNAL_METHOD_PREFIX,
  MessageTracer,
  NdjsonMessageReader,
  NdjsonMessageWriter,
  AGENT_LINES,
  type AgentLines,
} from './ndjson';
import type { AcpClientOptions, AgentConfig, Logger, Reduced } from './types';

const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/**
 * How long `initialize` may take unless told: an agent's start has its own deadline, longer than a
 * request's (OpenCode 1.18.33 answers after about 15 s offline, once its models fetch gives up).
 */
const DEFAULT_INITIALIZE_TIMEOUT_MS = 120_000;
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
export interface Deadline {
  progress?: () => void;
}

/** What the connection hands its owner. */
export interface ConnectionHooks {
  /** A batch of the agent's lines to parse ({@link AgentConnection.drain}), in wire order. */
  onAgentLines(lines: AgentLines): void;
  /** Notifications the owner handles, by method (vendor extensions). */
  readonly notifications: Readonly<Record<string, (params: unknown) => void>>;
  /** The connection ended (a disconnect or `dispose`): pending requests have failed; drop what lived with it. */
  onEnd(): void;
  /** `dispose` is over: the process exited; emitters can be disposed. */
  onDisposed(): void;
}

/** Raised by the start timer; turned into an AgentStartError. */
class InitializeTimeout extends Error {}
/** Raised when the start is aborted (the agent was removed or the extension deactivated). */
class StartAborted extends Error {}

/** One agent's process and the JSON-RPC connection over its stdio. */
export class AgentConnection {
  readonly name: string;
  readonly log: Logger;
  private readonly process: AgentProcess;
  private readonly reader: NdjsonMessageReader;
  private readonly connection: MessageConnection;
  private readonly pending = new Set<PendingRequest>();
  private readonly disconnectEmitter = new Emitter<AgentDisconnectedError>();
  private tooLarge = false;
  private ended: AgentDisconnectedError | undefined;
  private disposing: Promise<void> | undefined;
  /** Set once initialize succeeded; before that a failure is reported as one AgentStartError. */
  private started = false;

  /** Fires once when the connection ends without `dispose` (crash, exit, oversized message). */
  readonly onDidDisconnect: Event<AgentDisconnectedError> = this.disconnectEmitter.event;

  constructor(
    private readonly config: AgentConfig,
    private readonly options: AcpClientOptions,
    private readonly hooks: ConnectionHooks,
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
      maxMessageBytes: this.maxMessageBytes,
      worker: options.lineWorker,
      onMessageTooLarge: () => {
        this.tooLarge = true;
        void this.stop();
      },
    });
    // The end of its output ends the connection even if the process lives on (half-dead).
    this.reader.onClose(() => this.onOutputClosed());
    const writer = new NdjsonMessageWriter(this.process.stdin, tracer);
    writer.onError(() => {
      // Our input to the agent is broken: nothing more can be asked of it, so end the process.
      if (!this.disposing) void this.stop();
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
    this.connection.onNotification(AGENT_LINES, (lines: AgentLines) => hooks.onAgentLines(lines));
    this.connection.onNotification(DISCONNECTED, () => this.onDisconnected());
    for (const [method, handler] of Object.entries(hooks.notifications)) this.connection.onNotification(method, (params: unknown) => handler(params));
    this.connection.onNotification((method: string) => {
      // `$/` notifications (e.g. the agent cancelling its own request) and `_` extensions may be ignored.
      if (!method.startsWith('$/') && !method.startsWith('_')) this.log.debug(`[${this.name}] Ignored notification ${method}.`);
    });
    // Agent-to-client requests (fs, terminal, permission, `_` extensions) have no handler, so
    // vscode-jsonrpc answers them with -32601 (method not found): we only read history.
    this.connection.listen();
  }

  /** Why the connection ended, once it did (a disconnect, a failed start or `dispose`). */
  get disconnected(): AgentDisconnectedError | undefined {
    return this.ended;
  }

  /** The requests still waiting for an answer, with how long they have waited. */
  get pendingRequests(): { method: string; ageMs: number }[] {
    const now = Date.now();
    return [...this.pending].map((p) => ({ method: p.method, ageMs: now - p.sentAt }));
  }

  /** The agent's process id (undefined if it never started). */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Where the agent's output is parsed now: its line worker, or this thread. */
  get parsedOn(): 'worker' | 'starting' | 'host' {
    return this.reader.parsedOn;
  }

  /**
   * The `initialize` handshake, within `initializeTimeoutMs`. Throws one {@link AgentStartError}
   * (and stops the agent) when the agent exits, answers an error or a protocol version this
   * client does not speak, does not answer in time, or `signal` aborts the start.
   */
  async initialize(signal?: AbortSignal): Promise<InitializeAnswer> {
    const requested = this.config.protocol === 2 ? 2 : 1;
    const params = initializeParams(requested, this.options.clientInfo);
    const timeoutMs = this.options.initializeTimeoutMs ?? Math.max(this.requestTimeoutMs, DEFAULT_INITIALIZE_TIMEOUT_MS);
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
    if (requested === 2 && answer.protocolVersion === 1) this.log.info(`[${this.name}] The agent answered protocol version 1; using v1.`);
    this.warnProblems('initialize', problems);
    this.started = true;
    const info = answer.agentInfo ? ` (${answer.agentInfo.name} ${answer.agentInfo.version})` : '';
    this.log.info(`[${this.name}] Connected${info}, protocol v${answer.protocolVersion}, capabilities ${JSON.stringify(answer.capabilities)}`);
    return answer;
  }

  /**
   * Sends a request; its promise settles with the result, a typed error, the disconnect, or a
   * {@link RequestTimeoutError} once `timeoutMs` passed without an answer (or progress).
   */
  request<R>(method: string, params: object, token?: CancellationToken, deadline?: Deadline, timeoutMs = this.requestTimeoutMs): Promise<R> {
    if (this.ended) return Promise.reject(this.ended);
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

  /**
   * Parses a batch of the agent's lines ({@link ConnectionHooks.onAgentLines}): each
   * `session/update`'s params go to `onUpdate` with the line's bytes (ndjson.ts).
   */
  drain(lines: AgentLines, onUpdate: (params: unknown, line: Uint8Array | undefined, reduced?: Reduced, count?: number) => void, onProgress?: (sessionId: string, progress: unknown) => void): void {
    this.reader.drain(lines, onUpdate, onProgress);
  }

  /** The line worker reduces the replay of `sessionId`, and with `sink` writes its lines (see NdjsonMessageReader.reduce); false where it cannot. */
  reduce(sessionId: string, spec: unknown, sink?: unknown): false | { sunk?: Promise<unknown> } {
    return this.reader.reduce(sessionId, spec, sink);
  }

  /** The reduction of `sessionId`, handed over; rejects where it cannot be whole. */
  finishReduce(sessionId: string): Promise<unknown> {
    return this.reader.finishReduce(sessionId);
  }

  dropReduce(sessionId: string): void {
    this.reader.dropReduce(sessionId);
  }

  /** One warning for everything wrong in one message (types, never values: they may be hostile). */
  warnProblems(what: string, problems: Problems): void {
    if (problems.size > 0) this.log.warn(`[${this.name}] Fixed what the agent sent in ${what}: ${problems}.`);
  }

  /**
   * Ends the connection and the agent: pending requests fail with an
   * {@link AgentDisconnectedError}, then SIGTERM, then SIGKILL after a grace period.
   * Resolves once the process has exited. Does not fire {@link onDidDisconnect}.
   */
  dispose(): Promise<void> {
    if (this.disposing) return this.disposing;
    const error = new AgentDisconnectedError(this.name, 'the client was disposed.', null, null, []);
    this.ended ??= error;
    this.rejectPending(this.ended);
    this.hooks.onEnd();
    this.connection.dispose();
    this.disposing = this.stop().finally(() => {
      this.disconnectEmitter.dispose();
      this.hooks.onDisposed();
    });
    return this.disposing;
  }

  private get killGraceMs(): number {
    return this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  private get maxMessageBytes(): number {
    return this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  private get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  private startFailureReason(error: unknown, timeoutMs: number): string | undefined {
    if (error instanceof InitializeTimeout) return `it did not answer initialize within ${timeoutMs} ms (setting acpSessions.startTimeout).`;
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
    this.ended ??= new AgentDisconnectedError(this.name, reason, exit?.code ?? null, exit?.signal ?? null, []);
    this.rejectPending(this.ended);
    this.connection.dispose();
    this.disposing = this.stop();
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

  private rejectPending(error: Error): void {
    const all = [...this.pending];
    this.pending.clear();
    for (const pending of all) pending.reject(error);
  }

  /** The process is gone and its output read: queue the disconnect behind the agent's last messages. */
  private onClosed(): void {
    if (this.ended) return;
    this.reader.inject({ jsonrpc: '2.0', method: DISCONNECTED } as Message);
  }

  /**
   * The agent closed its stdout. Usually its exit follows at once and `onClosed` reports it
   * with the exit status; one that keeps running can answer nothing more: a disconnect.
   */
  private onOutputClosed(): void {
    setTimeout(() => {
      if (this.process.exit || this.ended) return;
      this.log.warn(`[${this.name}] Closed its output but is still running; stopping it.`);
      this.reader.inject({ jsonrpc: '2.0', method: DISCONNECTED } as Message);
    }, OUTPUT_CLOSED_GRACE_MS).unref();
  }

  private onDisconnected(): void {
    if (this.ended) return;
    const tail = this.process.stderrTail;
    const exit = this.process.exit;
    const error = this.tooLarge
      ? new MessageTooLargeError(this.name, this.maxMessageBytes, tail)
      : new AgentDisconnectedError(this.name, this.describeEnd(this.started ? 'while connected' : 'during start'), exit?.code ?? null, exit?.signal ?? null, tail);
    this.ended = error;
    if (this.started) this.log.error(error.message);
    this.rejectPending(error);
    this.hooks.onEnd();
    this.disconnectEmitter.fire(error);
    this.connection.dispose();
    // A dead connection's process (or what it started) may still run: end the whole group.
    void this.stop();
  }

  /** Ends the agent's whole process group (agentProcess.ts). */
  private stop(): Promise<void> {
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
