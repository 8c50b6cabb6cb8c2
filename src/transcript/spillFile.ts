// A temporary file of ours that holds what a transcript need not keep on the heap: appended to,
// read back by range, removed when its tab closes. Named `<pid>-<random>-<tag>.spill` in a
// directory of ours, so the files of an extension host that crashed are found and removed at the
// next start-up while those of another running window are left alone. Plain Node, no `vscode`.
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Appends are written once this many bytes wait: one system call per megabyte, not per row. */
const WRITE_BYTES = 1 << 20;
/** A read brings this much of what follows too: a scan (find, export, indexing) reads the file in order. */
const READ_AHEAD_BYTES = 1 << 20;
const NAME = /^(\d+)-[0-9a-f]+-[a-z]+\.spill$/;

export class SpillFile {
  private fd: number | undefined;
  /** Bytes on disk; `pending` follow them. */
  private written = 0;
  /** Appended since the last write: written a megabyte at a time, not a row at a time. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
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

  /** The file's length, pending appends included. */
  get size(): number {
    return this.written + this.pendingBytes;
  }

  /** Appends `data`; returns where it starts. */
  append(data: Uint8Array): number {
    const offset = this.size;
    this.pending.push(data as Buffer);
    this.pendingBytes += data.length;
    if (this.pendingBytes >= WRITE_BYTES) this.flush();
    return offset;
  }

  /** The `length` bytes at `offset` (a view: decode it before the next read). */
  read(offset: number, length: number): Buffer {
    const window = this.window;
    if (window && offset >= window.start && offset + length <= window.start + window.data.length) {
      return window.data.subarray(offset - window.start, offset - window.start + length);
    }
    if (offset + length > this.written) this.flush();
    const data = Buffer.allocUnsafe(Math.max(length, Math.min(READ_AHEAD_BYTES, this.written - offset)));
    const got = readAll(this.open(), data, offset);
    if (got < length) throw new Error(`${this.path}: ${length} bytes at ${offset} asked, ${got} there`);
    this.window = { start: offset, data: data.subarray(0, got) };
    return data.subarray(0, length);
  }

  /** Writes what waits. */
  flush(): void {
    if (this.pendingBytes === 0) return;
    const data = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    const fd = this.open();
    for (let done = 0; done < data.length; ) done += writeSync(fd, data, done, data.length - done, this.written + done);
    this.written += data.length;
  }

  /** Closes and removes the file. */
  dispose(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // Closed already: the file is removed all the same.
    }
    this.fd = undefined;
    this.pending = [];
    this.pendingBytes = 0;
    this.window = undefined;
    rmSync(this.path, { force: true });
  }

  private open(): number {
    if (this.fd === undefined) throw new Error(`${this.path} was closed`);
    return this.fd;
  }
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
