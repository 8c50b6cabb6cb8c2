// ACP's stdio framing for vscode-jsonrpc: one JSON object per `\n`-terminated line (not LSP's
// Content-Length headers), read and written by our own MessageReader and MessageWriter.
import type { Readable, Writable } from 'node:stream';
import {
  AbstractMessageReader,
  AbstractMessageWriter,
  type DataCallback,
  type Disposable,
  type Message,
  type MessageWriter,
} from 'vscode-jsonrpc/node';
import type { Logger, TraceLevel } from './types';

/**
 * A notification that never goes over the wire: the reader hands vscode-jsonrpc the
 * consecutive `session/update` notifications of one read chunk as one message with this
 * method, because vscode-jsonrpc dispatches one message per `setImmediate` and a 100,000-update
 * replay would otherwise spend most of its time waiting for the event loop. Keeping the batch
 * in vscode-jsonrpc's queue keeps its place relative to responses: a `session/load` response
 * is handled after every update the agent sent before it.
 */
export const SESSION_UPDATE_BATCH = '$/acpSessions/sessionUpdateBatch';

/**
 * The namespace of the client's own messages ({@link SESSION_UPDATE_BATCH}, the disconnect):
 * the reader drops every line from the agent with a method in it, so only the client makes them.
 */
export const INTERNAL_METHOD_PREFIX = '$/acpSessions/';

/** The params of a {@link SESSION_UPDATE_BATCH} message: `session/update` params in wire order. */
export interface SessionUpdateBatch {
  notifications: unknown[];
}

/** The byte that ends a message; never part of a multi-byte UTF-8 sequence. */
const LF = 0x0a;

/** At most this much of a bad line is quoted in the log. */
const PREVIEW_CHARS = 200;

/** Logs each message sent and received, as language clients' `trace.server` does. */
export class MessageTracer {
  /** Method and start time of the requests we sent, to name their responses. */
  private readonly sentRequests = new Map<number | string, { method: string; start: number }>();
  /** Method and arrival time of the agent's requests, to name our responses. */
  private readonly receivedRequests = new Map<number | string, { method: string; start: number }>();

  constructor(
    private readonly log: Logger,
    private readonly level: () => TraceLevel,
    private readonly agentName: string,
  ) {}

  /** The level now; read once per chunk or message so that a setting change applies at once. */
  current(): TraceLevel {
    return this.level();
  }

  sent(message: Message, level: TraceLevel): void {
    if (level === 'off') return;
    const m = message as { id?: number | string | null; method?: string; params?: unknown; result?: unknown; error?: unknown };
    if (m.method !== undefined && m.id !== undefined && m.id !== null) {
      this.sentRequests.set(m.id, { method: m.method, start: Date.now() });
      this.write(level, `Sending request '${m.method} - (${m.id})'.`, 'Params', m.params);
    } else if (m.method !== undefined) {
      this.write(level, `Sending notification '${m.method}'.`, 'Params', m.params);
    } else {
      const request = m.id !== undefined && m.id !== null ? this.receivedRequests.get(m.id) : undefined;
      if (request) this.receivedRequests.delete(m.id!);
      const name = `${request?.method ?? 'unknown'} - (${m.id})`;
      const took = request ? ` Processing request took ${Date.now() - request.start}ms` : '';
      if (m.error !== undefined) this.write(level, `Sending response '${name}'.${took}`, 'Error', m.error);
      else this.write(level, `Sending response '${name}'.${took}`, 'Result', m.result);
    }
  }

  received(message: Message, level: TraceLevel): void {
    if (level === 'off') return;
    const m = message as { id?: number | string | null; method?: string; params?: unknown; result?: unknown; error?: unknown };
    if (m.method !== undefined && m.id !== undefined && m.id !== null) {
      this.receivedRequests.set(m.id, { method: m.method, start: Date.now() });
      this.write(level, `Received request '${m.method} - (${m.id})'.`, 'Params', m.params);
    } else if (m.method !== undefined) {
      this.write(level, `Received notification '${m.method}'.`, 'Params', m.params);
    } else {
      const request = m.id !== undefined && m.id !== null ? this.sentRequests.get(m.id) : undefined;
      if (request) this.sentRequests.delete(m.id!);
      const name = `${request?.method ?? 'unknown'} - (${m.id})`;
      const took = request ? ` in ${Date.now() - request.start}ms` : '';
      if (m.error !== undefined) {
        const e = m.error as { code?: unknown; message?: unknown };
        this.write(level, `Received response '${name}'${took}. Request failed: ${String(e?.message)} (${String(e?.code)}).`, 'Error', m.error);
      } else {
        this.write(level, `Received response '${name}'${took}.`, 'Result', m.result);
      }
    }
  }

  private write(level: TraceLevel, text: string, label: string, data: unknown): void {
    // Tracing is something the user turned on on purpose, so it logs at info and shows by default.
    if (level === 'verbose' && data !== undefined) {
      this.log.info(`[${this.agentName}] ${text}\n${label}: ${JSON.stringify(data, null, 4)}`);
    } else {
      this.log.info(`[${this.agentName}] ${text}`);
    }
  }
}

export interface NdjsonReaderOptions {
  agentName: string;
  log: Logger;
  tracer: MessageTracer;
  /** Longest line accepted, in bytes, counted while buffering. */
  maxMessageBytes: number;
  /** Called once when a line exceeds the limit; the reader reads nothing after that. */
  onMessageTooLarge: () => void;
}

/**
 * Splits the agent's stdout on `\n` in the raw Buffers (no string concatenation of the
 * stream), parses each line once, and hands vscode-jsonrpc the parsed objects, batching
 * consecutive `session/update` notifications (see {@link SESSION_UPDATE_BATCH}).
 */
export class NdjsonMessageReader extends AbstractMessageReader {
  private callback: DataCallback | undefined;
  /** Pieces of the line that is not complete yet. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private stopped = false;
  /** `session/update` params of the chunk being read, not yet handed on. */
  private batch: unknown[] | undefined;
  /** The trace level for the chunk being read. */
  private level: TraceLevel = 'off';
  private readonly onData = (chunk: Buffer) => this.read(chunk);
  private readonly onEnd = () => this.end();
  private readonly onStreamError = (error: Error) => {
    if (!this.stopped) this.fireError(error);
  };

  constructor(
    private readonly readable: Readable,
    private readonly options: NdjsonReaderOptions,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    this.readable.on('data', this.onData);
    this.readable.on('end', this.onEnd);
    this.readable.on('error', this.onStreamError);
    return { dispose: () => this.stop() };
  }

  /** Queues a message behind everything read so far (used for the end of the connection). */
  inject(message: Message): void {
    this.callback?.(message);
  }

  override dispose(): void {
    this.stop();
    super.dispose();
  }

  private stop(): void {
    this.stopped = true;
    this.partial = [];
    this.partialBytes = 0;
    this.readable.off('data', this.onData);
    this.readable.off('end', this.onEnd);
    // The error listener stays: an 'error' without a listener would be an uncaught exception.
    // Keep draining what the agent still writes, so that it never blocks on a full pipe.
    this.readable.resume();
  }

  private read(chunk: Buffer): void {
    if (this.stopped) return;
    const max = this.options.maxMessageBytes;
    const first = chunk.indexOf(LF);
    if (first === -1) {
      this.partialBytes += chunk.length;
      if (this.partialBytes > max) return this.tooLarge();
      this.partial.push(chunk);
      return;
    }
    this.level = this.options.tracer.current();
    // The line that began in earlier chunks.
    const firstLength = this.partialBytes + first;
    if (firstLength > max) return this.tooLarge();
    if (this.partialBytes > 0) {
      this.partial.push(chunk.subarray(0, first));
      this.line(Buffer.concat(this.partial, firstLength).toString('utf8'));
      this.partial = [];
      this.partialBytes = 0;
    } else {
      this.line(chunk.toString('utf8', 0, first));
    }
    // The lines wholly inside this chunk: decoded in one call (a `\n` byte never splits a UTF-8
    // character), then split as a string; one decode per line costs more than the parse.
    const last = chunk.lastIndexOf(LF);
    if (last - first - 1 > max) {
      // Rare (this chunk's lines span more than the limit): each line is measured in the bytes it
      // has on the wire, as lines split across chunks are (decoding turns a bad byte into three).
      for (let start = first + 1; start <= last && !this.stopped; ) {
        const newline = chunk.indexOf(LF, start);
        if (newline - start > max) return this.tooLarge();
        this.line(chunk.toString('utf8', start, newline));
        start = newline + 1;
      }
    } else if (last > first) {
      const text = chunk.toString('utf8', first + 1, last);
      let start = 0;
      for (;;) {
        const newline = text.indexOf('\n', start);
        this.line(newline === -1 ? text.slice(start) : text.slice(start, newline));
        if (newline === -1 || this.stopped) break;
        start = newline + 1;
      }
    }
    this.flushBatch();
    if (last + 1 < chunk.length) {
      this.partialBytes = chunk.length - last - 1;
      if (this.partialBytes > max) return this.tooLarge();
      this.partial.push(chunk.subarray(last + 1));
    }
  }

  /** Parses one line and queues it: `session/update` notifications into the current batch. */
  private line(text: string): void {
    const message = this.parse(text);
    if (message === undefined) return;
    if (this.level !== 'off') this.options.tracer.received(message, this.level);
    const m = message as { method?: unknown; id?: unknown; params?: unknown };
    if (m.method === 'session/update' && m.id === undefined) {
      (this.batch ??= []).push(m.params);
      return;
    }
    if (typeof m.method === 'string' && m.method.startsWith(INTERNAL_METHOD_PREFIX)) {
      this.options.log.warn(`[${this.options.agentName}] Ignored a message with the reserved method ${preview(m.method)}.`);
      return;
    }
    this.flushBatch();
    this.callback!(message);
  }

  private flushBatch(): void {
    if (this.batch === undefined) return;
    const notifications = this.batch;
    this.batch = undefined;
    this.deliverBatch(notifications);
  }

  private deliverBatch(notifications: unknown[]): void {
    const params: SessionUpdateBatch = { notifications };
    this.callback!({ jsonrpc: '2.0', method: SESSION_UPDATE_BATCH, params } as Message);
  }

  /** The parsed message, or undefined (logged) for a line that is not a JSON-RPC object. */
  private parse(text: string): Message | undefined {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (text.trim() === '') return undefined;
      this.options.log.warn(
        `[${this.options.agentName}] Skipped a line that is not JSON (${(error as Error).message}): ${preview(text)}`,
      );
      return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.options.log.warn(`[${this.options.agentName}] Skipped a line that is not a JSON-RPC message object: ${preview(text)}`);
      return undefined;
    }
    return value as Message;
  }

  private end(): void {
    // A last line without its `\n` is still a message (a writer may end without one).
    if (this.partialBytes > 0 && !this.stopped) this.read(Buffer.from([LF]));
    this.fireClose();
  }

  private tooLarge(): void {
    // What came before the long line is complete and still delivered.
    this.flushBatch();
    this.stop();
    this.options.onMessageTooLarge();
  }
}

function preview(text: string): string {
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}… (${text.length} characters)` : text;
}

/** Writes each message as one line of JSON (JSON.stringify escapes every newline inside it). */
export class NdjsonMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;

  constructor(
    private readonly writable: Writable,
    private readonly tracer: MessageTracer,
  ) {
    super();
  }

  write(message: Message): Promise<void> {
    const level = this.tracer.current();
    if (level !== 'off') this.tracer.sent(message, level);
    const line = `${JSON.stringify(message)}\n`;
    return new Promise((resolve) => {
      if (this.writable.destroyed || this.writable.writableEnded) {
        this.fireError(new Error('The agent\'s input is closed.'), message, ++this.errorCount);
        resolve();
        return;
      }
      this.writable.write(line, 'utf8', (error) => {
        // A failed write means the agent is gone or going: the owner ends the connection on the
        // error event and fails the request then, with the exit status. Resolving here keeps
        // vscode-jsonrpc from inventing an error code the agent could have sent itself.
        if (error) this.fireError(error, message, ++this.errorCount);
        resolve();
      });
    });
  }

  end(): void {
    this.writable.end();
  }
}
