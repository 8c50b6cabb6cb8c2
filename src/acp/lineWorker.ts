// The line worker's service: decodes and parses the agent's output off the extension host's thread
// (one worker per agent connection, started by ndjson.ts). Each piece comes in with its id and its
// bytes, transferred (the read's own buffer while a replay is reduced, else a copy: ndjson.ts's
// post), and goes back, in order, parsed (lineParse.ts): where each entry's line is in the piece,
// which the host kept, so the connection hands on every update with its line as it does when it
// parses them itself, and no byte of the agent's output comes back. A session
// whose replay the connection asked to reduce here ({@link LineReducer}, made by the worker's
// entry: transcript/lineWorkerMain.ts) has its updates applied here, and goes back as their lines
// only (what the host keeps of a replay: a kept copy, an export's log), with the parsed update
// where the host needs it too (anything but a text chunk, or one the check fixed). Plain Node.
import type { MessagePort } from 'node:worker_threads';
import { isAirReplayEnd } from './jetbrainsAir';
import { parsePiece, type ParsedEntry, type ParsedPiece, type ParsedReduced } from './lineParse';
import type { SessionUpdate } from './types';
import { Problems, checkSessionUpdate, sessionNotificationOf } from './validate';

export type ToLineWorker =
  | { kind?: undefined; id: number; bytes: Uint8Array; merge: boolean }
  /** Reduce the updates of `sessionId` here from the next piece on, as `spec` says; with `sink`, write their lines there too. */
  | { kind: 'reduce'; sessionId: string; spec: unknown; sink?: { id: number; spec: unknown } }
  /** Hand the reduction of `sessionId` over (after every piece posted before this). */
  | { kind: 'finish'; sessionId: string }
  /** Forget the reduction of `sessionId` (its load failed or was cancelled), and what it wrote. */
  | { kind: 'drop'; sessionId: string };

export type FromLineWorker =
  | { kind: 'ready' }
  /** The piece's entries; their places are in the bytes the host posted (it kept them: nothing comes back but these). */
  | { kind: 'parsed'; id: number; entries: ParsedEntry[] }
  | { kind: 'error'; id: number; message: string }
  | { kind: 'reduced'; sessionId: string; result?: unknown; error?: string }
  /** Progress of reductions told when the agent's output paused (no piece to go with), in order with the pieces. */
  | { kind: 'progress'; entries: ParsedEntry[] }
  /** The sink `id` (of a reduction) ended, after its `reduced`: what it made, or why it failed. */
  | { kind: 'sunk'; id: number; result?: unknown; error?: string };

/** One session's replay, reduced in the worker. */
export interface LineReducer {
  /**
   * Applies one update; true where the host needs it whole too (the reduction's preview of its
   * first rows). `line`: the agent's line it was parsed from, where checking left it as it was (a
   * view, for the call only).
   */
  apply(update: SessionUpdate, count: number, line?: Uint8Array): boolean;
  /**
   * How far it is, where that is due (it goes to the host in order, after the piece's updates);
   * `now`: where anything came since it was last told, due or not (the output paused).
   */
  progress?(now?: boolean): { result: unknown; transfer: ArrayBuffer[] } | undefined;
  /** How long until an untold progress is due when the output pauses (undefined: nothing to tell). */
  progressDueIn?(): number | undefined;
  /** What goes to the host, and the buffers to transfer with it; the reducer is done. */
  finish(): { result: unknown; transfer: ArrayBuffer[] };
  dispose(): void;
}

/**
 * Where the worker writes the lines of a replay it reduces, as they come (a kept copy's body:
 * the host then never copies them), made by the worker's entry from the spec the host sent.
 */
export interface LineSink {
  /** One update's line, without its newline: the agent's bytes (a view, for the call only; `lines` of them, `\n`-separated) or a line encoded here. Never throws. */
  push(line: Uint8Array | string, lines: number): void;
  /** No more lines: what goes to the host (see `sunk`). */
  end(): Promise<unknown>;
  /** The replay failed or was dropped: what was written goes; resolves once it has. */
  abort(): Promise<void>;
}

/** Update kinds whose parsed form the host does not need of a reduced replay: the text chunks (most of any replay). */
const TEXT_KINDS: ReadonlySet<string> = new Set(['agent_message_chunk', 'user_message_chunk', 'agent_thought_chunk', 'compaction_summary_chunk']);

/**
 * Serves the connection on `port`; `makeReducer` makes the reductions it asks for (none: it asks
 * for none), `makeSink` the sinks of their lines (none, or one it cannot make: the host is told
 * at once, and keeps the lines itself).
 */
export function serveLines(port: MessagePort, makeReducer?: (spec: unknown) => LineReducer, makeSink?: (spec: unknown) => LineSink): void {
  const reductions = new Map<string, LineReducer>();
  const sinks = new Map<string, { id: number; sink: LineSink }>();
  /** Drops the sink of `sessionId`, if any, and says so once what it wrote is gone. */
  const dropSink = (sessionId: string): void => {
    const held = sinks.get(sessionId);
    if (!held) return;
    sinks.delete(sessionId);
    const told = () => port.postMessage({ kind: 'sunk', id: held.id, error: 'dropped' } satisfies FromLineWorker);
    held.sink.abort().then(told, told);
  };
  // Progress not told with a piece (it was not due yet) is told when it is due, if no piece came meanwhile.
  let pause: ReturnType<typeof setTimeout> | undefined;
  const tellLater = (): void => {
    if (pause !== undefined) clearTimeout(pause);
    pause = undefined;
    let due: number | undefined;
    for (const reducer of reductions.values()) {
      const ms = reducer.progressDueIn?.();
      if (ms !== undefined) due = Math.min(due ?? ms, ms);
    }
    if (due === undefined) return;
    pause = setTimeout(() => {
      pause = undefined;
      const entries: ParsedEntry[] = [];
      const transfer: ArrayBuffer[] = [];
      for (const [sessionId, reducer] of reductions) {
        const progress = reducer.progress?.(true);
        if (!progress) continue;
        entries.push({ t: 4, sessionId, progress: progress.result });
        transfer.push(...progress.transfer);
      }
      if (entries.length > 0) port.postMessage({ kind: 'progress', entries } satisfies FromLineWorker, transfer);
    }, due);
  };
  port.on('message', (message: ToLineWorker) => {
    switch (message.kind) {
      case 'reduce': {
        reductions.get(message.sessionId)?.dispose();
        reductions.delete(message.sessionId);
        dropSink(message.sessionId);
        const sink = message.sink;
        try {
          if (!makeReducer) throw new Error('this worker reduces no replay');
          reductions.set(message.sessionId, makeReducer(message.spec));
        } catch (error) {
          // The reduction is told when it is asked for (finish answers that there is none); its sink at once.
          if (sink) port.postMessage({ kind: 'sunk', id: sink.id, error: (error as Error)?.message ?? String(error) } satisfies FromLineWorker);
          return;
        }
        if (sink === undefined) return;
        try {
          if (!makeSink) throw new Error('this worker keeps no lines');
          sinks.set(message.sessionId, { id: sink.id, sink: makeSink(sink.spec) });
        } catch (error) {
          port.postMessage({ kind: 'sunk', id: sink.id, error: (error as Error)?.message ?? String(error) } satisfies FromLineWorker);
        }
        return;
      }
      case 'finish': {
        finish(port, reductions, message.sessionId);
        const held = sinks.get(message.sessionId);
        sinks.delete(message.sessionId);
        held?.sink.end().then(
          (result) => port.postMessage({ kind: 'sunk', id: held.id, result } satisfies FromLineWorker),
          (error: Error) => port.postMessage({ kind: 'sunk', id: held.id, error: error?.message ?? String(error) } satisfies FromLineWorker),
        );
        return;
      }
      case 'drop':
        reductions.get(message.sessionId)?.dispose();
        reductions.delete(message.sessionId);
        dropSink(message.sessionId);
        return;
    }
    try {
      const piece = parsePiece(message.bytes, message.merge);
      const transfer: ArrayBuffer[] = [];
      if (reductions.size > 0) {
        reduce(piece, reductions, sinks);
        for (const [sessionId, reducer] of reductions) {
          const progress = reducer.progress?.();
          if (!progress) continue;
          piece.entries.push({ t: 4, sessionId, progress: progress.result });
          transfer.push(...progress.transfer);
        }
      }
      if (reductions.size > 0) tellLater();
      port.postMessage({ kind: 'parsed', id: message.id, entries: piece.entries } satisfies FromLineWorker, transfer);
    } catch (error) {
      port.postMessage({ kind: 'error', id: message.id, message: (error as Error)?.message ?? String(error) } satisfies FromLineWorker);
    }
  });
  port.postMessage({ kind: 'ready' } satisfies FromLineWorker);
}

function finish(port: MessagePort, reductions: Map<string, LineReducer>, sessionId: string): void {
  const reducer = reductions.get(sessionId);
  reductions.delete(sessionId);
  if (!reducer) {
    port.postMessage({ kind: 'reduced', sessionId, error: 'the line worker holds no reduction of it' } satisfies FromLineWorker);
    return;
  }
  try {
    const { result, transfer } = reducer.finish();
    port.postMessage({ kind: 'reduced', sessionId, result } satisfies FromLineWorker, transfer);
  } catch (error) {
    reducer.dispose();
    port.postMessage({ kind: 'reduced', sessionId, error: (error as Error)?.message ?? String(error) } satisfies FromLineWorker);
  }
}

/**
 * Applies the piece's updates of sessions being reduced, in order, and leaves each as a
 * {@link ParsedReduced} entry: its line, and its parsed form only where the host needs that.
 * Consecutive text chunks of one session become one entry (their lines, `\n`-separated).
 */
function reduce(piece: ParsedPiece, reductions: ReadonlyMap<string, LineReducer>, sinks: ReadonlyMap<string, { sink: LineSink }>): void {
  const entries: ParsedEntry[] = [];
  const bytes = piece.bytes;
  for (const entry of piece.entries) {
    if (entry.t !== 0) {
      entries.push(entry);
      continue;
    }
    const notification = sessionNotificationOf(entry.params);
    const reducer = notification ? reductions.get(notification.sessionId) : undefined;
    // The end mark of a replay is the router's to see; malformed ones are the router's to report.
    if (!notification || !reducer || isAirReplayEnd(notification.update)) {
      entries.push(entry);
      continue;
    }
    const problems = new Problems();
    const update = checkSessionUpdate(notification.update, problems);
    const line = bytes.subarray(entry.start, entry.end);
    const lines = entry.lines;
    const preview = reducer.apply(update, lines, problems.count === 0 ? line : undefined);
    // What the host's observer would keep of it: the line as read, or the update as the check fixed it.
    sinks.get(notification.sessionId)?.sink.push(problems.count === 0 ? line : JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: notification.sessionId, update } }), lines);
    const kind = update.sessionUpdate;
    const text = !preview && problems.count === 0 && TEXT_KINDS.has(kind);
    const last = entries[entries.length - 1];
    if (text && last?.t === 3 && last.params === undefined && last.sessionId === notification.sessionId && last.end + 1 === entry.start) {
      last.end = entry.end;
      last.lines += lines;
      continue;
    }
    const reduced: ParsedReduced = { t: 3, sessionId: notification.sessionId, kind, start: entry.start, end: entry.end, lines };
    // What the check fixed goes as fixed (the host logs what was fixed): nothing nested too deep to copy.
    if (!text) reduced.params = problems.count === 0 ? entry.params : { sessionId: notification.sessionId, update };
    if (problems.count > 0) reduced.problems = problems.toString();
    if (preview) reduced.preview = true;
    entries.push(reduced);
  }
  piece.entries = entries;
}
