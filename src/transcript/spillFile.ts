// A temporary file of ours that holds what a transcript need not keep on the heap: appended to,
// read back by range, removed when its tab closes. Named after its process (spillOwner.ts) in a
// directory of ours, so the files of an extension host that crashed are found and removed while
// those of another running window are left alone. A write that fails (a full disk) is never
// silent: the first error is kept and told once (onSpillWriteError), what was not written stays
// readable from memory up to a bound, and an append past that bound is refused with an error that
// names the cause. Plain Node, no `vscode`.
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, rmSync, write, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ownerTag, removeStaleSpillFiles } from './spillOwner';

/** Appends are written once this many bytes wait: one system call per megabyte, not per row. */
const WRITE_BYTES = 1 << 20;
/** A read that goes on from the one before brings this much of what follows too: a scan (find, export, indexing) reads the file in order. */
const READ_AHEAD_BYTES = 1 << 20;
/**
 * A read anywhere else brings this much (a row of its own: a compaction for the header, the
 * rows at the End key): a megabyte each time was most of what 50 compactions cost to read.
 */
const READ_ALONE_BYTES = 64 << 10;
/** Bytes handed to the thread pool and not written yet, at most: past this a write waits (the disk is behind). */
const MAX_IN_FLIGHT_BYTES = 16 << 20;
/** Written chunks kept to be begun again (see SpillFile.spare). */
const SPARE_CHUNKS = 2;
/**
 * What a file keeps in memory once a write failed, by default: the bytes whose write failed (or
 * that came after) stay readable up to this much, and appends past it are refused.
 */
export const DEFAULT_KEEP_BYTES = 64 << 20;

/** A file's first failed write, as told to `onSpillWriteError` listeners. */
export interface SpillWriteFailure {
  /** The folder the file is in: the disk that is full, for the user. */
  dir: string;
  path: string;
  error: NodeJS.ErrnoException;
}

const failureListeners = new Set<(failure: SpillWriteFailure) => void>();

/** Calls `listener` once for each file's first failed write (after the write, not inside it). */
export function onSpillWriteError(listener: (failure: SpillWriteFailure) => void): { dispose(): void } {
  failureListeners.add(listener);
  return { dispose: () => failureListeners.delete(listener) };
}

/**
 * Tells the listeners of a failed write another thread's file had (the line worker's, whose
 * listeners are not this thread's): the user hears of a full disk wherever the write was.
 */
export function tellSpillWriteError(failure: SpillWriteFailure): void {
  tell(failure);
}

/** Tells every listener of `failure`, after the current call returns. */
function tell(failure: SpillWriteFailure): void {
  queueMicrotask(() => {
    for (const listener of [...failureListeners]) {
      try {
        listener(failure);
      } catch {
        // A listener's trouble is its own: the others are told all the same.
      }
    }
  });
}

/** An append refused: a write of this file failed before and it keeps as much in memory as it may. */
export class SpillFileFullError extends Error {
  constructor(readonly path: string, readonly writeError: NodeJS.ErrnoException, keepBytes: number) {
    super(`${failureText(path, writeError)}; no more than ${sizeText(keepBytes)} of it are kept in memory`);
    this.name = 'SpillFileFullError';
  }
}

function sizeText(bytes: number): string {
  return bytes >= 1 << 20 ? `${Math.round(bytes / (1 << 20))} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** `writing /dir/file failed: ENOSPC: no space left on device, write` */
function failureText(path: string, error: NodeJS.ErrnoException): string {
  return `writing ${path} failed: ${error.message}`;
}

export interface SpillFileOptions {
  /** What the file keeps in memory after a failed write (DEFAULT_KEEP_BYTES). */
  keepBytes?: number;
}

export class SpillFile {
  private fd: number | undefined;
  /** Bytes written or being written (`inFlight`); `chunk` holds what follows them. */
  private written = 0;
  /**
   * Writes under way in the thread pool, in file order, with their bytes: read from here until
   * done. The extension host's thread does not wait for the disk (1.4 s of 31 s at 2,000,000
   * chunks when it did). A record is appended whole, so it is in one write.
   */
  private inFlight: { offset: number; data: Buffer }[] = [];
  private inFlightBytes = 0;
  /** Disposed while writes were under way: closed when the last one ends. */
  private closing: number | undefined;
  /**
   * Where records are appended (encoded in place, not each in a buffer of its own and copied
   * again): written once it holds a megabyte, then a new one is begun (a read may still hold a
   * view of the last one).
   */
  private chunk: Buffer | undefined;
  private chunkBytes = 0;
  /**
   * Chunks whose write ended, to be begun again: a megabyte the process has touched already. A new
   * one is fresh memory, and its first writes fault every page in (writing a 200,000-chunk
   * session's records into new chunks took 5 to 15 times as long as into used ones).
   */
  private spare: Buffer[] = [];
  /** The last range read, with what followed it. */
  private window: { start: number; data: Buffer } | undefined;
  /** The first write that failed: nothing is written to the disk after it. */
  private failure: NodeJS.ErrnoException | undefined;
  /** Bytes not on the disk (their write failed, or came after one that did), by offset: read from here. */
  private readonly kept: { offset: number; data: Buffer }[] = [];
  private keptBytes = 0;
  private readonly keepBytes: number;
  /** Handed over ({@link release}): closing leaves the file where it is. */
  private released = false;

  private constructor(readonly path: string, fd: number, options: SpillFileOptions) {
    this.fd = fd;
    this.keepBytes = options.keepBytes ?? DEFAULT_KEEP_BYTES;
  }

  /** A new, empty file in `dir` (created, with its parents, when missing), readable by this user only. */
  static create(dir: string, tag: string, options: SpillFileOptions = {}): SpillFile {
    return SpillFile.createAt(SpillFile.newPath(dir, tag), options);
  }

  /** A name for a new file in `dir`, of this process (see spillOwner.ts): made by {@link createAt}, maybe in another thread. */
  static newPath(dir: string, tag: string): string {
    return join(dir, `${ownerTag()}-${randomBytes(8).toString('hex')}-${tag}.spill`);
  }

  /** A new, empty file at `path` (its folder created when missing), readable by this user only. */
  static createAt(path: string, options: SpillFileOptions = {}): SpillFile {
    const dir = dirname(path);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return new SpillFile(path, openSync(path, 'wx+', 0o600), options);
    } catch (error) {
      // A file that cannot even be made (no inode left, no right to write) is told as a failed write is.
      tell({ dir, path, error: error as NodeJS.ErrnoException });
      throw error;
    }
  }

  /**
   * A file at `path` that exists already, opened to read and write and removed on dispose (tests:
   * a link to /dev/full, whose every write fails with ENOSPC).
   */
  static open(path: string, options: SpillFileOptions = {}): SpillFile {
    return new SpillFile(path, openSync(path, 'r+'), options);
  }

  /**
   * A file another owner wrote and {@link release}d (the line worker's reduction of a replay),
   * `size` bytes long: read from here, appended to after them, removed on dispose.
   */
  static adopt(path: string, size: number, options: SpillFileOptions = {}): SpillFile {
    const file = new SpillFile(path, openSync(path, 'r+'), options);
    file.written = size;
    return file;
  }

  /** Another owner appended to the file (see {@link adopt}): it is `size` bytes long now. For a file only read here. */
  grownTo(size: number): void {
    if (size > this.written && this.chunkBytes === 0) this.written = size;
  }

  /** Removes the files in `dir` left by extension hosts that are no longer running (see spillOwner.ts). */
  static removeStale(dir: string): Promise<number> {
    return removeStaleSpillFiles(dir);
  }

  /** The first write of this file that failed, if one did. */
  get writeError(): NodeJS.ErrnoException | undefined {
    return this.failure;
  }

  get disposed(): boolean {
    return this.fd === undefined;
  }

  /** The file's length, appends not written yet included: where the next append starts. */
  get size(): number {
    return this.written + this.chunkBytes;
  }

  /** Appends `data`; returns where it starts. */
  append(data: Uint8Array): number {
    const offset = this.size;
    this.reserve(data.length).set(data, this.chunkBytes);
    this.commit(data.length);
    return offset;
  }

  /**
   * Room for an append of up to `bytes`, to encode in place from `reservedAt` of the buffer
   * returned, at the file's `size`; `commit` says how much was written. After a failed write,
   * throws SpillFileFullError (nothing appended) when the bytes kept in memory would pass the bound.
   */
  reserve(bytes: number): Buffer {
    this.open();
    if (this.failure && this.keptBytes + this.chunkBytes + bytes > this.keepBytes) throw new SpillFileFullError(this.path, this.failure, this.keepBytes);
    if (this.chunk && this.chunkBytes + bytes > this.chunk.length) this.writePending(false);
    if (!this.chunk) this.chunk = (bytes <= WRITE_BYTES ? this.spare.pop() : undefined) ?? Buffer.allocUnsafe(Math.max(WRITE_BYTES, bytes));
    return this.chunk;
  }

  get reservedAt(): number {
    return this.chunkBytes;
  }

  commit(bytes: number): void {
    this.chunkBytes += bytes;
    if (this.chunkBytes >= WRITE_BYTES) this.writePending(false);
  }

  /** The `length` bytes at `offset` (a view: decode it before the next read). */
  read(offset: number, length: number): Buffer {
    const window = this.window;
    if (window && offset >= window.start && offset + length <= window.start + window.data.length) {
      return window.data.subarray(offset - window.start, offset - window.start + length);
    }
    if (offset >= this.written) {
      if (!this.chunk || offset + length > this.size) throw new Error(this.missing(`${length} bytes at ${offset} are not there`));
      return this.chunk.subarray(offset - this.written, offset - this.written + length);
    }
    const kept = this.keptAt(offset, length);
    if (kept) return kept;
    // Everything before the first write under way is on disk.
    const durable = this.inFlight.length ? this.inFlight[0].offset : this.written;
    if (offset + length > durable) {
      for (const w of this.inFlight) {
        if (offset >= w.offset && offset + length <= w.offset + w.data.length) return w.data.subarray(offset - w.offset, offset - w.offset + length);
      }
      // Written at once (a flush) after a write still under way: on disk, but not what follows it.
      const exact = Buffer.allocUnsafe(length);
      if (readAll(this.open(), exact, offset) < length) throw new Error(this.missing(`${length} bytes at ${offset} are not there`));
      return exact;
    }
    // Not past what is on the disk: a range kept in memory starts later.
    const end = Math.min(durable, this.kept.find((k) => k.offset > offset)?.offset ?? durable);
    const ahead = window && offset >= window.start && offset < window.start + window.data.length + READ_ALONE_BYTES ? READ_AHEAD_BYTES : READ_ALONE_BYTES;
    const data = Buffer.allocUnsafe(Math.max(length, Math.min(ahead, end - offset)));
    const got = readAll(this.open(), data, offset);
    if (got < length) throw new Error(this.missing(`${length} bytes at ${offset} asked, ${got} there`));
    this.window = { start: offset, data: data.subarray(0, Math.min(got, end - offset)) };
    return data.subarray(0, length);
  }

  /**
   * Writes what waits, now: on disk when this returns (writes under way are written again, the
   * same bytes at the same place), unless a write failed: then it stays in memory.
   */
  flush(): void {
    this.writePending(true);
    if (this.failure) return;
    for (const w of this.inFlight) {
      try {
        writeAll(this.open(), w.data, 0, w.offset);
      } catch (error) {
        this.failed(error as NodeJS.ErrnoException);
        return;
      }
    }
  }

  /** Hands what waits to the thread pool (or writes it at once: `sync`, or the disk is behind). */
  private writePending(sync: boolean): void {
    if (!this.chunk || this.chunkBytes === 0) return;
    const fd = this.open();
    const chunk = this.chunk;
    const data = chunk.subarray(0, this.chunkBytes);
    this.chunk = undefined;
    this.chunkBytes = 0;
    const offset = this.written;
    this.written += data.length;
    // After a failed write, nothing more goes to the disk: a write that fails part way leaves a
    // file whose later records could not be trusted.
    if (this.failure) return this.keep(offset, data);
    if (sync || this.inFlightBytes + data.length > MAX_IN_FLIGHT_BYTES) {
      try {
        writeAll(fd, data, 0, offset);
      } catch (error) {
        this.failed(error as NodeJS.ErrnoException);
        this.keep(offset, data);
      }
      return;
    }
    const entry = { offset, data };
    this.inFlight.push(entry);
    this.inFlightBytes += data.length;
    const done = (error?: NodeJS.ErrnoException | null): void => {
      this.inFlight.splice(this.inFlight.indexOf(entry), 1);
      this.inFlightBytes -= data.length;
      // Its bytes were given out already: they stay readable, whatever the bound.
      if (error && this.closing === undefined && this.fd !== undefined) {
        this.failed(error);
        this.keep(offset, data);
      }
      if (this.closing !== undefined && this.inFlight.length === 0) this.closeNow(this.closing);
      // Begun again only when nothing can read it: written (not kept), and no read's view outlives its caller's turn.
      else if (!error && this.fd !== undefined && chunk.length === WRITE_BYTES && this.spare.length < SPARE_CHUNKS) this.spare.push(chunk);
    };
    const step = (from: number): void => {
      write(fd, data, from, data.length - from, offset + from, (error, n) => {
        if (error || this.closing !== undefined) return done(error);
        if (from + n < data.length) return step(from + n);
        done();
      });
    };
    step(0);
  }

  /** Keeps the first failed write and tells it (once per file, after this call returns). */
  private failed(error: NodeJS.ErrnoException): void {
    if (this.failure) return;
    this.failure = error;
    tell({ dir: dirname(this.path), path: this.path, error });
  }

  /** `data`, written at `offset`, stays in memory (in offset order: a failed write may end after a later one). */
  private keep(offset: number, data: Buffer): void {
    let i = this.kept.length;
    while (i > 0 && this.kept[i - 1].offset > offset) i--;
    this.kept.splice(i, 0, { offset, data });
    this.keptBytes += data.length;
    // A read ahead of the disk may hold what followed: those bytes were not written.
    this.window = undefined;
  }

  /** The range from memory when it is in a range kept there. */
  private keptAt(offset: number, length: number): Buffer | undefined {
    const kept = this.kept;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (kept[mid].offset <= offset) lo = mid + 1;
      else hi = mid;
    }
    const k = kept[lo - 1];
    if (!k || offset + length > k.offset + k.data.length) return undefined;
    return k.data.subarray(offset - k.offset, offset - k.offset + length);
  }

  /** An error for bytes that are not there, naming the failed write when there was one (it is the cause). */
  private missing(what: string): string {
    return `${this.path}: ${what}${this.failure ? ` (${failureText(this.path, this.failure)})` : ''}`;
  }

  /**
   * Hands the file to another owner ({@link adopt}): what waits is written now, this handle is
   * closed (once writes under way end) and the file stays. Undefined, and the file removed, where
   * a write failed: what only memory holds cannot go with it.
   */
  release(): { path: string; size: number } | undefined {
    if (this.fd === undefined) return undefined;
    this.flush();
    if (this.failure) {
      this.dispose();
      return undefined;
    }
    const size = this.size;
    const fd = this.fd;
    this.fd = undefined;
    this.released = true;
    this.chunk = undefined;
    this.spare = [];
    this.window = undefined;
    if (this.inFlight.length > 0) this.closing = fd;
    else this.closeNow(fd);
    return { path: this.path, size };
  }

  /** Closes and removes the file. */
  dispose(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    this.chunk = undefined;
    this.spare = [];
    this.chunkBytes = 0;
    this.window = undefined;
    this.kept.length = 0;
    this.keptBytes = 0;
    // A write under way still uses the descriptor: closing it now could let a file opened
    // meanwhile take its number and the write. Closed (and removed again) when the last ends.
    if (this.inFlight.length > 0) this.closing = fd;
    else this.closeNow(fd);
    rmSync(this.path, { force: true });
  }

  private closeNow(fd: number): void {
    this.closing = undefined;
    if (this.inFlight.length > 0) return;
    try {
      closeSync(fd);
    } catch {
      // Closed already: the file is removed all the same.
    }
    // Where a file that is open cannot be removed (Windows), it goes now.
    if (!this.released) rmSync(this.path, { force: true });
  }

  private open(): number {
    if (this.fd === undefined) throw new Error(`${this.path} was closed`);
    return this.fd;
  }
}

function writeAll(fd: number, data: Buffer, from: number, position: number): void {
  for (let done = from; done < data.length; ) done += writeSync(fd, data, done, data.length - done, position + done - from);
}

function readAll(fd: number, into: Buffer, position: number): number {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
