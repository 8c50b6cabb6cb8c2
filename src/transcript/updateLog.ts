// The `session/update` payloads a transcript received, in order, for an export that writes them
// as they came (Export Sessions…). With a spill file they are written there and read back in
// order; without one they stay in an array. An update that came with the agent's line it was
// parsed from (and that checking left as it was) is written as that line, its bytes as read
// copied into the file's write buffer: a replay pays a byte copy per update, not an encoding of
// what was just parsed (V8's serializer was two thirds of the spill files' share of the extension
// host's time at 200,000 chunks); the line is decoded, parsed and checked again only when read
// as an update; an export writes its bytes as they are (`lines`).
// Any other update (an exported file opened again, a line that needed fixing) is V8's
// serialization, a batch at a time. An update that cannot be kept (nested too deep to copy, or
// past what a file on a full disk keeps in memory) costs that update alone: it is counted and
// told (`onUnkept`), and every later push works. Plain Node, no `vscode`.
import { isUtf8 } from 'node:buffer';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { SessionUpdate } from '../acp/types';
import { linesIn } from '../acp/lineParse';
import { MAX_UPDATE_DEPTH, nestsDeeperThan, Problems, sessionUpdateOfLine } from '../acp/validate';
import { replayUpdateLine } from './replayFile';
import { SpillFile, SpillFileFullError, tellSpillWriteError } from './spillFile';

/**
 * Updates without a line wait in memory until this many are written at once: enough to make the
 * serializer's cost per call small, few enough that not many wait on the heap.
 */
const BATCH = 64;

/** A record is its kind (a byte), its length (4 bytes) and that many bytes. */
const HEADER_BYTES = 5;
/** V8's serialization of an array of updates. */
const BATCH_RECORD = 0;
/** The agent's line, its bytes as read. */
const LINE_RECORD = 1;

/** As the client decodes the agent's lines (a BOM is kept, bad bytes become U+FFFD): the line read back is the line parsed. */
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });
/** What `lines` hands out at a time. */
const LINES_PIECE_BYTES = 1 << 20;

/** Why updates were not kept, as `onUnkept` hears it: the first reason of a kind is enough to say. */
export interface Unkept {
  /** How many updates this time. */
  count: number;
  /** Why, in a sentence part for the log (`nested deeper than 64 levels`, the full disk's error). */
  reason: string;
  /** The file's disk is full: what was kept is not the whole transcript. */
  diskFull: boolean;
}

/**
 * A log handed from one thread to another (the line worker's reduction of a replay, to the tab
 * that shows it): see {@link UpdateLog.release} and {@link UpdateLog.adopt}.
 */
export interface UpdateLogImage {
  /** Its file, every record written (none: the updates travel in `memory`). */
  file?: { path: string; size: number };
  memory?: SessionUpdate[];
  /** The updates kept. */
  count: number;
  /** What could not be kept there, as `onUnkept` heard it. */
  unkept: Unkept[];
  /** Updates lost to the disk there: iterating the adopted log names it, as it would have there. */
  lost?: { count: number; message: string };
  /** Its file's first failed write there (its updates then travel in `memory`): told here as this thread's own. */
  writeFailure?: { path: string; code?: string; message: string };
}

export class UpdateLog implements Iterable<SessionUpdate> {
  private readonly memory: SessionUpdate[] = [];
  private pending: SessionUpdate[] = [];
  private count = 0;
  private unkeptCount = 0;
  /** The refusal of the full disk's file, when updates were lost to it: the iteration names it. */
  private lostToDisk: { count: number; error: Error } | undefined;

  constructor(
    private readonly file?: SpillFile,
    /** Told each time updates could not be kept (never throws into the push). */
    private readonly onUnkept?: (unkept: Unkept) => void,
  ) {}

  /**
   * A log another thread kept ({@link release}): its file is this one's now (appended to, removed
   * on dispose), and what it could not keep is told to `onUnkept` here. A file that cannot be
   * opened any more costs its updates: iterating says so.
   */
  static adopt(image: UpdateLogImage, onUnkept?: (unkept: Unkept) => void): UpdateLog {
    let file: SpillFile | undefined;
    let lost = image.lost;
    let count = image.count;
    if (image.file) {
      try {
        file = SpillFile.adopt(image.file.path, image.file.size);
      } catch (error) {
        rmSync(image.file.path, { force: true });
        lost = { count: count + (lost?.count ?? 0), message: `its file could not be opened again (${(error as Error)?.message ?? error})` };
        count = 0;
      }
    }
    if (image.writeFailure) {
      const { path, code, message } = image.writeFailure;
      tellSpillWriteError({ dir: dirname(path), path, error: Object.assign(new Error(message), code ? { code } : {}) });
    }
    const log = new UpdateLog(file, onUnkept);
    if (!image.file) for (const update of image.memory ?? []) log.memory.push(update);
    log.count = count;
    if (lost) log.lostToDisk = { count: lost.count, error: new Error(lost.message) };
    for (const unkept of image.unkept) log.lose(unkept.count, unkept.reason, unkept.diskFull);
    if (lost && !image.unkept.some((unkept) => unkept.diskFull)) log.lose(lost.count, lost.message, true);
    return log;
  }

  /** Removes the file of a log handed over that nobody adopts (its load was dropped). */
  static discard(image: UpdateLogImage): void {
    if (image.file) rmSync(image.file.path, { force: true });
  }

  /**
   * Hands this log to another thread ({@link adopt}): what waits is written and its file left
   * where it is (closed here); `unkept` is what `onUnkept` heard. Where a write of the file failed
   * (a full disk), what the file kept in memory travels as updates instead, and the failure is
   * told where the log is taken over; updates lost to the disk are lost there too, and said so.
   * This log holds nothing after.
   */
  release(unkept: Unkept[]): UpdateLogImage {
    this.write();
    const image: UpdateLogImage = { count: this.count, unkept };
    if (this.lostToDisk) image.lost = { count: this.lostToDisk.count, message: this.lostToDisk.error.message };
    if (!this.file) {
      image.memory = this.memory.slice(0, this.count);
    } else {
      this.file.flush();
      const failure = this.file.writeError;
      const released = failure ? undefined : this.file.release();
      if (released) {
        image.file = released;
      } else {
        image.writeFailure = { path: this.file.path, message: failure?.message ?? 'its file could not be written', ...(failure?.code ? { code: failure.code } : {}) };
        try {
          // What the file kept in memory, read back as the updates (the file goes). Throws where
          // updates were lost to the disk: not whole, as iterating the adopted log will say.
          image.memory = [...this];
        } catch (error) {
          image.lost ??= { count: this.count, message: (error as Error)?.message ?? String(error) };
          image.count = 0;
        }
        this.file.dispose();
      }
    }
    this.memory.length = 0;
    this.pending = [];
    this.count = 0;
    return image;
  }

  /** The updates kept: what iterating yields. */
  get length(): number {
    return this.count;
  }

  /** How many updates pushed were not kept. */
  get unkept(): number {
    return this.unkeptCount;
  }

  /**
   * Keeps `update`; `line`, when given, is the agent's line it was parsed from and parses to the
   * same update (see `SessionUpdateListener`): with a file, those bytes are what is written.
   * `lines`: how many lines `line` holds, where the caller counted them already.
   * Never throws: an update that cannot be kept is counted and told instead.
   */
  push(update: SessionUpdate, line?: Uint8Array, lines?: number): void {
    // What no export could write (JSON.stringify throws on it) and no file could hold; the
    // client cuts such updates where they enter, so only an update from elsewhere gets here.
    if (line === undefined && nestsDeeperThan(update, MAX_UPDATE_DEPTH)) {
      this.lose(1, `an update (${String(update.sessionUpdate).slice(0, 50)}) nested deeper than ${MAX_UPDATE_DEPTH} levels`);
      return;
    }
    if (!this.file) {
      this.count++;
      this.memory.push(update);
      return;
    }
    if (line === undefined) {
      this.count++;
      this.pending.push(update);
      if (this.pending.length >= BATCH) this.write();
      return;
    }
    // Those waiting came first. A merged update's line is its chunks' lines: each counts, and is read back, as one.
    const count = lines ?? linesIn(line);
    this.count += count;
    this.write();
    this.writeRecord(LINE_RECORD, line, count);
  }

  /**
   * The updates so far, in order; those received while iterating are not included. Throws, naming
   * the cause, when updates were lost to a full disk: what is left is not the transcript.
   */
  *[Symbol.iterator](): Iterator<SessionUpdate> {
    const path = this.file?.path;
    for (const record of this.records()) {
      if ('updates' in record) {
        yield* record.updates;
        continue;
      }
      // A read is a view until the next one: decoded at once.
      const text = UTF8.decode(record.line);
      for (let start = 0; ; ) {
        const newline = text.indexOf('\n', start);
        yield lineUpdate(newline === -1 ? text.slice(start) : text.slice(start, newline), path!);
        if (newline === -1) break;
        start = newline + 1;
      }
    }
  }

  /**
   * The updates so far as an exported replay's lines (replayFile.ts), each with its newline, in
   * pieces of about a megabyte: an agent's line as it was read (its bytes), any other update
   * encoded. No line is parsed again here (that was 0.54 s of the extension host's thread per
   * 200,000 chunks, 0.07 s now); whoever reads the export checks every line again, as an agent's. Each piece
   * is the caller's to keep. `count`: the first that many only (as many as a header written
   * before said, live updates pushed since left out). Throws as iterating does.
   */
  *lines(sessionId: string, count = this.count): Generator<Uint8Array> {
    let piece = Buffer.allocUnsafe(LINES_PIECE_BYTES);
    let used = 0;
    for (const record of this.records(Math.min(count, this.count))) {
      let bytes: Uint8Array;
      if ('updates' in record && record.updates.length === 0) continue;
      if ('updates' in record) bytes = Buffer.from(record.updates.map((update) => replayUpdateLine(sessionId, update)).join('').slice(0, -1));
      // Bytes that are not UTF-8 as the client read them (each bad one U+FFFD): an export is text.
      else bytes = isUtf8(record.line) ? record.line : Buffer.from(UTF8.decode(record.line));
      if (used + bytes.length + 1 > piece.length) {
        if (used > 0) yield piece.subarray(0, used);
        piece = Buffer.allocUnsafe(Math.max(LINES_PIECE_BYTES, bytes.length + 1));
        used = 0;
      }
      piece.set(bytes, used);
      used += bytes.length;
      piece[used++] = 0x0a;
    }
    if (used > 0) yield piece.subarray(0, used);
  }

  /**
   * The records so far, in order: a batch of updates, or an agent's lines (`\n`-separated; a view
   * until the next record is read). Those pushed while reading are not included.
   */
  private *records(count = this.count): Generator<{ updates: SessionUpdate[] } | { line: Uint8Array }> {
    this.write();
    // Lost here, or where this log was kept before it was handed over (see adopt).
    if (this.lostToDisk) throw new Error(`${this.lostToDisk.count} of this transcript's updates could not be kept: ${this.lostToDisk.error.message}`);
    if (!this.file) {
      yield { updates: this.memory.slice(0, count) };
      return;
    }
    const file = this.file;
    const end = file.size;
    let yielded = 0;
    for (let offset = 0; offset < end && yielded < count; ) {
      const header = file.read(offset, HEADER_BYTES);
      const kind = header[0];
      const length = header.readUInt32LE(1);
      const data = file.read(offset + HEADER_BYTES, length);
      offset += HEADER_BYTES + length;
      if (kind === LINE_RECORD) {
        const lines = linesIn(data);
        const left = count - yielded;
        yielded += Math.min(lines, left);
        yield { line: lines <= left ? data : data.subarray(0, nthNewline(data, left)) };
        continue;
      }
      if (kind !== BATCH_RECORD) throw new Error(`${file.path}: a record of unknown kind ${kind}`);
      const batch = deserialize(data) as SessionUpdate[];
      const updates = batch.length <= count - yielded ? batch : batch.slice(0, count - yielded);
      yielded += updates.length;
      yield { updates };
    }
  }

  dispose(): void {
    this.memory.length = 0;
    this.pending = [];
    this.file?.dispose();
  }

  private write(): void {
    if (!this.file || this.pending.length === 0 || this.file.disposed) return;
    const batch = this.pending;
    // Taken first: a batch that fails must not stay to fail every later push.
    this.pending = [];
    let data: Buffer;
    try {
      data = serialize(batch);
    } catch {
      // One update the serializer cannot copy: the others are written one by one, without it.
      for (const update of batch) {
        let one: Buffer;
        try {
          one = serialize([update]);
        } catch (error) {
          this.count--;
          this.lose(1, `an update (${String(update.sessionUpdate).slice(0, 50)}) V8 could not serialize: ${(error as Error)?.message ?? error}`);
          continue;
        }
        this.writeRecord(BATCH_RECORD, one, 1);
      }
      return;
    }
    this.writeRecord(BATCH_RECORD, data, batch.length);
  }

  /** A record of `kind` holding `data` (`updates` of them), copied straight into the file's write buffer. */
  private writeRecord(kind: number, data: Uint8Array, updates: number): void {
    if (!this.file || this.file.disposed) return;
    let buffer: Buffer;
    try {
      buffer = this.file.reserve(HEADER_BYTES + data.length);
    } catch (error) {
      if (!(error instanceof SpillFileFullError)) throw error;
      this.count -= updates;
      this.lostToDisk = { count: (this.lostToDisk?.count ?? 0) + updates, error };
      this.lose(updates, error.message, true);
      return;
    }
    const at = this.file.reservedAt;
    buffer[at] = kind;
    buffer.writeUInt32LE(data.length, at + 1);
    buffer.set(data, at + HEADER_BYTES);
    this.file.commit(HEADER_BYTES + data.length);
  }

  private lose(count: number, reason: string, diskFull = false): void {
    this.unkeptCount += count;
    try {
      this.onUnkept?.({ count, reason, diskFull });
    } catch {
      // The teller's trouble is not the log's: the next push works all the same.
    }
  }
}

/**
 * The update of a line read back, checked again as the client checked it (the file holds the
 * agent's text: never trusted). Only lines the client delivered are written, so any other is a
 * file that is not as written.
 */
function lineUpdate(line: string, path: string): SessionUpdate {
  const update = sessionUpdateOfLine(line, new Problems());
  if (update === undefined) throw new Error(`${path}: a logged line is not a session/update`);
  return update;
}

/** Where the `n`th newline of `bytes` is (`n` ≥ 1, and there are that many). */
function nthNewline(bytes: Uint8Array, n: number): number {
  let at = -1;
  for (let i = 0; i < n; i++) at = bytes.indexOf(0x0a, at + 1);
  return at;
}
