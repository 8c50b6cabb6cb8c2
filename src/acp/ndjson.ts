// ACP's stdio framing for vscode-jsonrpc: one JSON object per `\n`-terminated line (not LSP's
// Content-Length headers), read and written by our own MessageReader and MessageWriter.
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { AbstractMessageReader, type DataCallback, type Disposable, type Message } from 'vscode-jsonrpc/node';
import type { Logger, Reduced } from './types';
import type { MessageTracer } from './messageTracer';
export { MessageTracer } from './messageTracer';
export { NdjsonMessageWriter } from './ndjsonWriter';
import { INTERNAL_METHOD_PREFIX, LF, parseLine, preview, type ParsedPiece } from './lineParse';
import type { FromLineWorker, ToLineWorker } from './lineWorker';
import { PendingSinks } from './lineSinks';
import { ByteRing } from './byteRing';
import { cutRead, type PartialLine } from './lineCut';

export { INTERNAL_METHOD_PREFIX };

/**
 * A notification that never goes over the wire: the reader hands vscode-jsonrpc the agent's
 * lines as they were read, unparsed, in one message with this method (see {@link AgentLines}),
 * and the client parses them when vscode-jsonrpc dispatches it ({@link NdjsonMessageReader.drain}).
 * vscode-jsonrpc dispatches one message per `setImmediate`, so one message per line (or per read
 * chunk, parsed at once) let a fast replay pile up parsed objects that lived long enough to be
 * copied by the garbage collector; raw text waits, and each object dies as soon as it is applied.
 */
export const AGENT_LINES = '$/acpSessions/agentLines';

/**
 * The params of an {@link AGENT_LINES} message. At most one is queued in vscode-jsonrpc at a
 * time: lines read before it is drained are added to it, so they keep their place relative to
 * the agent's responses and requests, which the drain hands on in order.
 */
export interface AgentLines {
  /**
   * Complete lines in wire order, several to a piece, separated by `\n` (none at the end). A piece
   * stays the agent's UTF-8 bytes until the drain reaches it: bytes live outside the JavaScript
   * heap, so a backlog read ahead of the drain costs the garbage collector nothing (decoded
   * early, it survived young-generation collections and was copied, then promoted). A piece the
   * line worker parsed comes as what it made of it ({@link ParsedPiece}).
   */
  texts: (string | Uint8Array | ParsedPiece)[];
  /** Messages the client queued behind these lines (the disconnect), handed on once they are read. */
  after: Message[];
}

/** By default a drain parses and applies for at most this long, then yields (the rest is queued again). */
const SLICE_MS = 8;

/**
 * Bytes read and not yet drained at which the reader stops reading (the agent then waits on a
 * full pipe), and below which it reads again: a replay faster than the client is held in the
 * pipe, not in the extension host.
 */
const BACKLOG_HIGH_BYTES = 4 * 1024 * 1024;
const BACKLOG_LOW_BYTES = 1024 * 1024;

/** The clock is read once per this many lines (a power of two). */
const LINES_PER_CLOCK = 64;
/** The room for this thread's copies of the pieces the worker has (byteRing.ts): twice the backlog at which reading pauses. */
const RING_BYTES = 2 * BACKLOG_HIGH_BYTES;

/** Decodes whole lines (a BOM is kept, as bytes that are not JSON); faster than Buffer#toString here. */
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

export interface NdjsonReaderOptions {
  agentName: string;
  log: Logger;
  tracer: MessageTracer;
  /** Longest line accepted, in bytes, counted while buffering. */
  maxMessageBytes: number;
  /** Called once when a line exceeds the limit; the reader reads nothing after that. */
  onMessageTooLarge: () => void;
  /** How long one {@link NdjsonMessageReader.drain} may run before it yields (0: after every line). */
  sliceMs?: number;
  /**
   * The line worker's script (lineWorker.ts): pieces are decoded and parsed there, off this
   * thread, once it runs. Unset, or where it cannot start or stops: here, as the log says once.
   */
  worker?: string;
}

/**
 * Splits the agent's stdout on `\n` in the raw Buffers (lineCut.ts: no string concatenation of the
 * stream) and queues each chunk's whole lines, as one piece of bytes, in vscode-jsonrpc
 * ({@link AGENT_LINES}); {@link drain} decodes each piece in one call and parses its lines,
 * `session/update` notifications straight to the client's handler, other messages to
 * vscode-jsonrpc in order.
 */
export class NdjsonMessageReader extends AbstractMessageReader {
  private callback: DataCallback | undefined;
  /** Pieces of the line that is not complete yet. */
  private partial: PartialLine = { pieces: [], bytes: 0 };
  private stopped = false;
  /** The lines queued in vscode-jsonrpc and not drained yet: new lines join them. */
  private pending: AgentLines | undefined;
  /** Bytes of lines read and not decoded by a drain yet ({@link BACKLOG_HIGH_BYTES}). */
  private backlogBytes = 0;
  /** Reading is paused until the drains bring the backlog under {@link BACKLOG_LOW_BYTES}. */
  private paused = false;
  /** The line worker, once it said it runs; undefined before, without one, and after it failed. */
  private worker: Worker | undefined;
  /** A worker was started and has not said it runs, nor failed. */
  private workerStarting = false;
  /** Pieces posted to the worker and not back yet, in order, each as read (parsed here if the worker fails). */
  private inFlight: { id: number; bytes: Uint8Array }[] = [];
  /** This thread's copies of the pieces in flight and queued while a replay is reduced (see {@link post}). */
  private ring: ByteRing | undefined;
  private nextPieceId = 1;
  /** Messages queued ({@link inject}) and the end of the output, held until the pieces in flight are back. */
  private heldAfterFlight: Message[] = [];
  private closeAfterFlight = false;
  private disposed = false;
  /**
   * Sessions whose replay the worker reduces ({@link reduce}), until handed over or dropped:
   * `broken` once something of it may have been parsed here instead (the worker stopped, or a
   * piece came back unparsed), `waiter` while the hand-over is asked for.
   */
  private readonly reductions = new Map<string, { broken?: string; sinkId?: number; waiter?: { resolve(result: unknown): void; reject(error: Error): void } }>();
  /** The sinks of reductions (see {@link reduce}); the worker ends once they have, where it was asked to. */
  private readonly sinks = new PendingSinks(() => {
    if (!this.endWhenSunk) return;
    this.endWhenSunk = false;
    this.terminateWorker();
  });
  private readonly onData = (chunk: Buffer) => this.read(chunk);
  private readonly pushLines = (bytes: Uint8Array, own?: boolean) => this.push(bytes, own);
  private readonly onEnd = () => this.end();
  private readonly onStreamError = (error: Error) => {
    if (!this.stopped) this.fireError(error);
  };

  constructor(
    private readonly readable: Readable,
    private readonly options: NdjsonReaderOptions,
  ) {
    super();
    if (options.worker) this.startWorker(options.worker);
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
    if (this.inFlight.length > 0) this.heldAfterFlight.push(message);
    else if (this.pending) this.pending.after.push(message);
    else this.callback?.(message);
  }

  /**
   * Parses `lines` (the params of an {@link AGENT_LINES} message, when vscode-jsonrpc dispatches
   * it) in wire order: each `session/update` notification's params go to `onUpdate` at once, with
   * the line's bytes as read (a view of the read's buffer, for the call only; none for a piece
   * given as text); any other message is queued in vscode-jsonrpc and the lines after it are
   * queued behind it, as they are after `sliceMs` (so a long replay yields to the event loop in slices).
   */
  drain(lines: AgentLines, onUpdate: (params: unknown, line: Uint8Array | undefined, reduced?: Reduced, count?: number) => void, onProgress?: (sessionId: string, progress: unknown) => void): void {
    // Lines read from now on form the next message, queued behind whatever this one hands on.
    if (this.pending === lines) this.pending = undefined;
    const level = this.options.tracer.current();
    const sliceMs = this.options.sliceMs ?? SLICE_MS;
    const deadline = performance.now() + sliceMs;
    let count = 0;
    const texts = lines.texts;
    for (let i = 0; i < texts.length; i++) {
      const piece = texts[i];
      if (isParsed(piece)) {
        if (piece.at === 0) this.drained(piece.bytes.length);
        const entries = piece.entries;
        while (piece.at < entries.length) {
          const entry = entries[piece.at++];
          if (entry.t === 0) {
            if (level !== 'off') this.options.tracer.received({ jsonrpc: '2.0', method: 'session/update', params: entry.params } as Message, level);
            onUpdate(entry.params, piece.bytes.subarray(entry.start, entry.end));
          } else if (entry.t === 3) {
            // Applied by the worker's reduction already: its lines go on, and its parsed form where there is one.
            if (entry.problems) this.options.log.warn(`[${this.options.agentName}] Fixed what the agent sent in session/update: ${entry.problems}.`);
            // A fixed update goes on without its line, as one fixed here does (its line parses to what was fixed).
            const line = entry.problems ? undefined : piece.bytes.subarray(entry.start, entry.end);
            onUpdate(entry.params ?? { sessionId: entry.sessionId, update: { sessionUpdate: entry.kind } }, line, entry.preview ? 'preview' : 'applied', entry.lines);
          } else if (entry.t === 2) {
            this.options.log.warn(`[${this.options.agentName}] ${entry.text}`);
          } else if (entry.t === 4) {
            onProgress?.(entry.sessionId, entry.progress);
          } else {
            const message = this.parse(entry.text);
            if (message !== undefined) {
              if (level !== 'off') this.options.tracer.received(message, level);
              this.callback!(message);
              return this.requeueParsed(lines, i, piece);
            }
          }
          if ((sliceMs <= 0 || (++count & (LINES_PER_CLOCK - 1)) === 0) && performance.now() > deadline) return this.requeueParsed(lines, i, piece);
        }
        this.release(piece.bytes);
        continue;
      }
      const bytes = typeof piece === 'string' ? undefined : piece;
      let text: string;
      if (bytes === undefined) {
        text = piece as string;
      } else {
        text = UTF8.decode(bytes);
        this.drained(bytes.length);
      }
      let start = 0;
      // The line's place in `bytes`: decoding makes each `\n` byte a `\n` and no other byte one.
      let byteStart = 0;
      for (;;) {
        const newline = text.indexOf('\n', start);
        const message = this.parse(newline === -1 ? (start === 0 ? text : text.slice(start)) : text.slice(start, newline));
        const byteEnd = bytes === undefined ? 0 : newline === -1 ? bytes.length : bytes.indexOf(LF, byteStart);
        start = newline + 1;
        if (message !== undefined) {
          if (level !== 'off') this.options.tracer.received(message, level);
          const m = message as { method?: unknown; id?: unknown; params?: unknown };
          if (m.method === 'session/update' && m.id === undefined) {
            onUpdate(m.params, bytes?.subarray(byteStart, byteEnd));
          } else if (typeof m.method === 'string' && m.method.startsWith(INTERNAL_METHOD_PREFIX)) {
            this.options.log.warn(`[${this.options.agentName}] Ignored a message with the reserved method ${preview(m.method)}.`);
          } else {
            this.callback!(message);
            return this.requeue(lines, i, text, newline === -1 ? text.length : start, byteEnd + 1);
          }
        }
        if (newline === -1) break;
        byteStart = byteEnd + 1;
        if ((sliceMs <= 0 || (++count & (LINES_PER_CLOCK - 1)) === 0) && performance.now() > deadline) return this.requeue(lines, i, text, start, byteStart);
      }
      if (bytes) this.release(bytes);
    }
    for (const message of lines.after) this.callback!(message);
  }

  /**
   * Queues what `drain` left of `lines` as the next message: `texts[i]` from `start` in its
   * decoded `text` (`byteStart` in its bytes), and the pieces after it. A piece of bytes stays
   * bytes (outside the heap, and handed on as the agent's bytes), decoded again when drained.
   */
  private requeue(lines: AgentLines, i: number, text: string, start: number, byteStart: number): void {
    const texts = lines.texts;
    const piece = texts[i];
    const rest = texts.slice(i + 1);
    if (start < text.length) {
      if (typeof piece === 'string') {
        rest.unshift(text.slice(start));
      } else {
        const left = (piece as Uint8Array).subarray(byteStart);
        this.backlogBytes += left.length;
        rest.unshift(left);
      }
    } else if (typeof piece !== 'string') {
      this.release(piece as Uint8Array);
    }
    if (rest.length === 0) {
      for (const message of lines.after) this.callback!(message);
      return;
    }
    // Nothing was read during the drain (it is synchronous), so this is the one queued.
    this.queue(rest, lines.after);
  }

  /** As {@link requeue}, for a parsed piece: it goes on from the entry after the last one handed on. */
  private requeueParsed(lines: AgentLines, i: number, piece: ParsedPiece): void {
    const rest = lines.texts.slice(i + 1);
    if (piece.at < piece.entries.length) rest.unshift(piece);
    else this.release(piece.bytes);
    if (rest.length === 0) {
      for (const message of lines.after) this.callback!(message);
      return;
    }
    this.queue(rest, lines.after);
  }

  /** A drain took `bytes` of the backlog: reading goes on once it is low again. */
  private drained(bytes: number): void {
    this.backlogBytes -= bytes;
    if (this.paused && this.backlogBytes < BACKLOG_LOW_BYTES && !this.stopped) {
      this.paused = false;
      this.readable.resume();
    }
  }

  private queue(texts: (string | Uint8Array | ParsedPiece)[], after: Message[]): AgentLines {
    const lines: AgentLines = { texts, after };
    this.pending = lines;
    this.callback!({ jsonrpc: '2.0', method: AGENT_LINES, params: lines } as Message);
    return lines;
  }

  /** Adds complete lines (one or more, `\n`-separated) to the queued message; `own`: see {@link post}. */
  private push(bytes: Uint8Array, own = false): void {
    if (this.worker) this.post(this.worker, bytes, own);
    else this.enqueue(bytes);
    this.backlogBytes += bytes.length;
    if (!this.paused && this.backlogBytes > BACKLOG_HIGH_BYTES) {
      this.paused = true;
      this.readable.pause();
    }
  }

  /** Adds a piece (bytes, or what the worker made of them) behind everything queued. */
  private enqueue(piece: Uint8Array | ParsedPiece): void {
    if (this.pending) this.pending.texts.push(piece);
    else this.queue([piece], []);
  }

  /**
   * Hands a piece to the worker, transferred, and keeps its bytes here: parsed, it comes back as its
   * entries only, which point into these bytes (nothing is sent back that is here). While a replay
   * is reduced, the bytes kept are a copy in the ring, and a piece that is the last use of the
   * read's own buffer (`own`) goes to the worker in it: a read's buffer left here counts towards a
   * full collection of the extension host's heap until it is collected (byteRing.ts). Otherwise
   * the worker gets a copy.
   */
  private post(worker: Worker, bytes: Uint8Array, own: boolean): void {
    const id = this.nextPieceId++;
    const ring = this.ring ?? (this.reductions.size > 0 ? (this.ring = new ByteRing(RING_BYTES)) : undefined);
    const kept = ring?.copy(bytes);
    this.inFlight.push({ id, bytes: kept ?? bytes });
    const sent = kept && own ? bytes : new Uint8Array(bytes);
    // Updates are merged only where nobody traces them one by one.
    worker.postMessage({ id, bytes: sent, merge: this.options.tracer.current() === 'off' } satisfies ToLineWorker, [sent.buffer as ArrayBuffer]);
  }

  /** A piece was drained to its end (or dropped): its copy's room in the ring goes back. */
  private release(bytes: Uint8Array): void {
    this.ring?.release(bytes);
    this.dropIdleRing();
  }

  /** The ring goes once it holds nothing and no replay is reduced. */
  private dropIdleRing(): void {
    if (this.ring?.empty && this.reductions.size === 0) this.ring = undefined;
  }

  /**
   * Asks the line worker to reduce the updates of `sessionId` from the next piece read on, as
   * `spec` says (its entry's reducer reads it): each then reaches `drain`'s callback marked
   * `reduced`, with its lines. False where the worker does not run, the session is reduced
   * already, or messages are traced (a trace shows each update as parsed). With `sink`, the
   * worker also writes their lines itself (lineWorker.ts LineSink): `sunk` settles with what it
   * made after the hand-over, or rejects (the reduction was dropped, the worker stopped).
   */
  reduce(sessionId: string, spec: unknown, sink?: unknown): false | { sunk?: Promise<unknown> } {
    const worker = this.worker;
    if (!worker || this.reductions.has(sessionId) || this.options.tracer.current() !== 'off') return false;
    if (sink === undefined) {
      this.reductions.set(sessionId, {});
      worker.postMessage({ kind: 'reduce', sessionId, spec } satisfies ToLineWorker);
      return {};
    }
    const { id, sunk } = this.sinks.add();
    this.reductions.set(sessionId, { sinkId: id });
    worker.postMessage({ kind: 'reduce', sessionId, spec, sink: { id, spec: sink } } satisfies ToLineWorker);
    return { sunk };
  }

  /**
   * The reduction of `sessionId`, handed over once the worker has reduced every piece read
   * before this call. Rejects where it cannot be whole (the worker stopped, or something of it
   * was parsed on this thread): what it wrote is dropped.
   */
  finishReduce(sessionId: string): Promise<unknown> {
    const reduction = this.reductions.get(sessionId);
    if (!reduction) return Promise.reject(new Error('the line worker reduces no replay of it'));
    if (reduction.broken || !this.worker) {
      this.dropReduce(sessionId);
      return Promise.reject(new Error(reduction.broken ?? 'the line worker stopped'));
    }
    const worker = this.worker;
    return new Promise<unknown>((resolve, reject) => {
      reduction.waiter = { resolve, reject };
      worker.postMessage({ kind: 'finish', sessionId } satisfies ToLineWorker);
    });
  }

  /** Forgets the reduction of `sessionId` and what it wrote (its load failed or was cancelled). */
  dropReduce(sessionId: string): void {
    const reduction = this.reductions.get(sessionId);
    if (!reduction) return;
    // The worker tells its sink's end once it dropped what it wrote; without a worker, nothing will.
    if (!this.worker && reduction.sinkId !== undefined) this.sinks.ended(reduction.sinkId, undefined, 'dropped');
    this.reductions.delete(sessionId);
    this.dropIdleRing();
    reduction.waiter?.reject(new Error('dropped'));
    this.worker?.postMessage({ kind: 'drop', sessionId } satisfies ToLineWorker);
  }

  /** Every reduction under way can no longer be whole (`why`): each fails when asked for. */
  private breakReductions(why: string): void {
    for (const [sessionId, reduction] of this.reductions) {
      reduction.broken ??= why;
      if (reduction.waiter) {
        this.reductions.delete(sessionId);
        reduction.waiter.reject(new Error(why));
      }
    }
  }

  /**
   * Where the agent's output is parsed now: in the line worker once it said it runs, `starting`
   * until it does (on this thread meanwhile), else on this thread (none asked for, or it failed:
   * the log says so once).
   */
  get parsedOn(): 'worker' | 'starting' | 'host' {
    return this.worker ? 'worker' : this.workerStarting ? 'starting' : 'host';
  }

  private startWorker(script: string): void {
    this.workerStarting = true;
    let worker: Worker;
    try {
      worker = new Worker(script);
    } catch (error) {
      this.workerFailed(error as Error);
      return;
    }
    // It keeps no process alive: the agent's pipes do while there is anything to read.
    worker.unref();
    let running = false;
    worker.on('message', (message: FromLineWorker) => {
      if (message.kind === 'ready') {
        running = true;
        this.workerStarting = false;
        if (!this.disposed && !this.stopped) this.worker = worker;
        else void worker.terminate();
        return;
      }
      if (message.kind === 'reduced') return this.reducedBack(message);
      if (message.kind === 'sunk') return this.sinks.ended(message.id, message.result, message.error);
      // Told while the output paused: in order with the pieces around it.
      if (message.kind === 'progress') {
        if (!this.disposed) this.enqueue({ parsed: true, entries: message.entries, bytes: new Uint8Array(0), at: 0 });
        return;
      }
      this.received(message);
    });
    // A piece whose parsed form this thread cannot copy in (nested deeper than its stack copies)
    // never arrives as a message: it is the next one in flight, and is parsed here, in its place.
    worker.on('messageerror', (error) => {
      const first = this.inFlight[0];
      if (first) this.received({ kind: 'error', id: first.id, message: error.message });
    });
    worker.on('error', (error) => {
      if (this.worker === worker || !running) this.workerFailed(error);
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.workerFailed(new Error(`it exited with code ${code}`));
      // Ended after the connection (it waited for its sinks): what it did not end, it never will.
      else this.sinks.failAll(`the line worker exited with code ${code}`);
    });
    this.terminateWorker = () => void worker.terminate();
  }

  /** Ends the worker at once (see {@link endWorker}). */
  private terminateWorker: () => void = () => undefined;
  /** The worker ends once its sinks have (set by {@link endWorker}). */
  private endWhenSunk = false;

  /** Ends the worker once nothing it holds is wanted: a sink still writing (a kept copy's body) ends first. */
  private endWorker(): void {
    if (this.sinks.size > 0) this.endWhenSunk = true;
    else this.terminateWorker();
  }

  /** A reduction handed over (or refused) by the worker. */
  private reducedBack(message: Extract<FromLineWorker, { kind: 'reduced' }>): void {
    const reduction = this.reductions.get(message.sessionId);
    const waiter = reduction?.waiter;
    if (!waiter) return;
    this.reductions.delete(message.sessionId);
    this.dropIdleRing();
    if (message.error !== undefined || reduction.broken) waiter.reject(new Error(reduction.broken ?? message.error));
    else waiter.resolve(message.result);
  }

  /** A piece back from the worker, in the order posted. */
  private received(message: Exclude<FromLineWorker, { kind: 'ready' | 'reduced' | 'progress' | 'sunk' }>): void {
    const first = this.inFlight[0];
    if (!first || first.id !== message.id || this.disposed) return;
    this.inFlight.shift();
    // Parsed here, its updates of a session the worker reduces would reach the load, not the reduction.
    if (message.kind === 'error') this.breakReductions(`a piece of the agent's output came back from the line worker unparsed (${message.message})`);
    // A piece it could not parse is parsed here, in its place.
    this.enqueue(message.kind === 'parsed' ? { parsed: true, entries: message.entries, bytes: first.bytes, at: 0 } : first.bytes);
    if (this.inFlight.length === 0) this.flightLanded();
  }

  /** The worker cannot start or stopped: the pieces it held are parsed here, in order, and so is everything after. */
  private workerFailed(error: Error): void {
    const had = this.worker !== undefined || this.inFlight.length > 0;
    this.worker = undefined;
    this.workerStarting = false;
    this.terminateWorker();
    this.terminateWorker = () => undefined;
    if (this.disposed) return;
    this.options.log.warn(`[${this.options.agentName}] The agent's output is parsed on the extension host's thread: its line worker ${had ? 'stopped' : 'could not start'} (${error?.message ?? error}).`);
    this.breakReductions(`the line worker stopped (${error?.message ?? error})`);
    this.sinks.failAll(`the line worker stopped (${error?.message ?? error})`);
    const held = this.inFlight;
    this.inFlight = [];
    for (const piece of held) this.enqueue(piece.bytes);
    if (held.length > 0) this.flightLanded();
  }

  /** Nothing is in flight: what waited for it follows (injected messages, the end), and a stopped reader's worker ends. */
  private flightLanded(): void {
    const held = this.heldAfterFlight;
    this.heldAfterFlight = [];
    for (const message of held) this.inject(message);
    if (this.stopped) {
      this.worker = undefined;
      this.endWorker();
    }
    if (this.closeAfterFlight) {
      this.closeAfterFlight = false;
      this.fireClose();
    }
  }

  override dispose(): void {
    this.disposed = true;
    this.breakReductions('the connection ended');
    this.inFlight = [];
    this.worker = undefined;
    this.endWorker();
    this.stop();
    super.dispose();
  }

  private stop(): void {
    this.stopped = true;
    // What is in flight still comes (it was read before the stop); then the worker ends.
    if (this.inFlight.length === 0) {
      this.worker = undefined;
      this.endWorker();
    }
    this.partial = { pieces: [], bytes: 0 };
    this.readable.off('data', this.onData);
    this.readable.off('end', this.onEnd);
    this.paused = false;
    // The error listener stays: an 'error' without a listener would be an uncaught exception.
    // Keep draining what the agent still writes, so that it never blocks on a full pipe.
    this.readable.resume();
  }

  private read(chunk: Buffer): void {
    if (this.stopped) return;
    if (!cutRead(chunk, this.partial, this.options.maxMessageBytes, this.worker !== undefined && this.reductions.size > 0, this.pushLines)) this.tooLarge();
  }

  /** The parsed message, or undefined (logged) for a line that is not a JSON-RPC object. */
  private parse(text: string): Message | undefined {
    const result = parseLine(text);
    if (result === undefined) return undefined;
    if ('problem' in result) {
      this.options.log.warn(`[${this.options.agentName}] ${result.problem}`);
      return undefined;
    }
    return result.message as unknown as Message;
  }

  private end(): void {
    // A last line without its `\n` is still a message (a writer may end without one).
    if (this.partial.bytes > 0 && !this.stopped) this.read(Buffer.from([LF]));
    if (this.inFlight.length > 0) this.closeAfterFlight = true;
    else this.fireClose();
  }

  private tooLarge(): void {
    // What came before the long line is complete and still delivered (it is queued).
    this.stop();
    this.options.onMessageTooLarge();
  }
}

function isParsed(piece: string | Uint8Array | ParsedPiece): piece is ParsedPiece {
  return typeof piece === 'object' && (piece as ParsedPiece).parsed === true;
}
