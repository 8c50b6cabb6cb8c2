// A temporary file of ours that holds what a transcript need not keep on the heap: appended to,
// read back by range, removed when its tab closes. Named `<pid>-<random>-<tag>.spill` in a
// directory of ours, so the files of an extension host that crashed are found and removed at the
// next start-up while those of another running window are left alone. Plain Node, no `vscode`.
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, rmSync, write, writeSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Appends are written once this many bytes wait: one system call per megabyte, not per row. */
const WRITE_BYTES = 1 << 20;
/** A read brings this much of what follows too: a scan (find, export, indexing) reads the file in order. */
const READ_AHEAD_BYTES = 1 << 20;
/** Bytes handed to the thread pool and not written yet, at most: past this a write waits (the disk is behind). */
const MAX_IN_FLIGHT_BYTES = 16 << 20;
const NAME = /^(\d+)-[0-9a-f]+-[a-z]+\.spill$/;

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
  /** The last range read, with what followed it. */
  private window: { start: number; data: Buffer } | undefined;

  private constructor(readonly path: string, fd: number) {
    this.fd = fd;
  }

  /** A new, empty file in `dir` (created, with its parents, when missing), readable by this user only. */
  static create(dir: string, tag: string): SpillFile {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `${process.pid}-${randomBytes(8).toString('hex')}-${tag}.spill`);
    return new SpillFile(path, openSync(path, 'wx+', 0o600));
  }

  /**
   * Removes the files in `dir` left by extension hosts that are no longer running (a crash, a
   * kill): a file names its process. Returns how many were removed.
   */
  static async removeStale(dir: string): Promise<number> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      const match = NAME.exec(name);
      if (!match || isRunning(Number(match[1]))) continue;
      await rm(join(dir, name), { force: true }).then(() => removed++, () => undefined);
    }
    return removed;
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
   * returned, at the file's `size`; `commit` says how much was written.
   */
  reserve(bytes: number): Buffer {
    this.open();
    if (this.chunk && this.chunkBytes + bytes > this.chunk.length) this.writePending(false);
    if (!this.chunk) this.chunk = Buffer.allocUnsafe(Math.max(WRITE_BYTES, bytes));
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
      if (!this.chunk || offset + length > this.size) throw new Error(`${this.path}: ${length} bytes at ${offset} are not there`);
      return this.chunk.subarray(offset - this.written, offset - this.written + length);
    }
    // Everything before the first write under way is on disk.
    const durable = this.inFlight.length ? this.inFlight[0].offset : this.written;
    if (offset + length > durable) {
      for (const w of this.inFlight) {
        if (offset >= w.offset && offset + length <= w.offset + w.data.length) return w.data.subarray(offset - w.offset, offset - w.offset + length);
      }
      // Written at once (a flush) after a write still under way: on disk, but not what follows it.
      const exact = Buffer.allocUnsafe(length);
      if (readAll(this.open(), exact, offset) < length) throw new Error(`${this.path}: ${length} bytes at ${offset} are not there`);
      return exact;
    }
    const data = Buffer.allocUnsafe(Math.max(length, Math.min(READ_AHEAD_BYTES, durable - offset)));
    const got = readAll(this.open(), data, offset);
    if (got < length) throw new Error(`${this.path}: ${length} bytes at ${offset} asked, ${got} there`);
    this.window = { start: offset, data: data.subarray(0, got) };
    return data.subarray(0, length);
  }

  /** Writes what waits, now: on disk when this returns (writes under way are written again, the same bytes at the same place). */
  flush(): void {
    this.writePending(true);
    for (const w of this.inFlight) writeAll(this.open(), w.data, 0, w.offset);
  }

  /** Hands what waits to the thread pool (or writes it at once: `sync`, or the disk is behind). */
  private writePending(sync: boolean): void {
    if (!this.chunk || this.chunkBytes === 0) return;
    const fd = this.open();
    const data = this.chunk.subarray(0, this.chunkBytes);
    this.chunk = undefined;
    this.chunkBytes = 0;
    const offset = this.written;
    this.written += data.length;
    if (sync || this.inFlightBytes + data.length > MAX_IN_FLIGHT_BYTES) {
      writeAll(fd, data, 0, offset);
      return;
    }
    const entry = { offset, data };
    this.inFlight.push(entry);
    this.inFlightBytes += data.length;
    const done = (): void => {
      this.inFlight.splice(this.inFlight.indexOf(entry), 1);
      this.inFlightBytes -= data.length;
      if (this.closing !== undefined && this.inFlight.length === 0) this.closeNow(this.closing);
    };
    const step = (from: number): void => {
      write(fd, data, from, data.length - from, offset + from, (error, n) => {
        if (error || this.closing !== undefined) return done();
        if (from + n < data.length) return step(from + n);
        done();
      });
    };
    step(0);
  }

  /** Closes and removes the file. */
  dispose(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    this.chunk = undefined;
    this.chunkBytes = 0;
    this.window = undefined;
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
    rmSync(this.path, { force: true });
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

/** Whether a process with this id runs (one we may not signal runs too). */
function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
