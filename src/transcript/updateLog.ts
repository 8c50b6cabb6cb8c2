// The `session/update` payloads a transcript received, in order, for an export that writes them
// as they came (Export Sessions…). With a spill file they are written there as NDJSON, a batch at
// a time, and read back in order; without one they stay in an array. Plain Node, no `vscode`.
import type { SpillFile } from './spillFile';

/** Updates wait in memory until this many are written at once. */
const BATCH = 1024;
/** A read takes this much of the file at a time. */
const READ_BYTES = 1 << 20;

export class UpdateLog<T> implements Iterable<T> {
  private readonly memory: T[] = [];
  private pending: T[] = [];
  private count = 0;

  constructor(private readonly file?: SpillFile) {}

  get length(): number {
    return this.count;
  }

  push(update: T): void {
    this.count++;
    if (!this.file) {
      this.memory.push(update);
      return;
    }
    this.pending.push(update);
    if (this.pending.length >= BATCH) this.write();
  }

  /** The updates so far, in order; those received while iterating are not included. */
  *[Symbol.iterator](): Iterator<T> {
    const count = this.count;
    if (!this.file) {
      for (let i = 0; i < count; i++) yield this.memory[i];
      return;
    }
    this.write();
    const file = this.file;
    const end = file.size;
    let yielded = 0;
    // Lines are cut from raw bytes, so a character split between two reads is joined first.
    let carry: Buffer = Buffer.alloc(0);
    for (let offset = 0; offset < end && yielded < count; ) {
      const length = Math.min(READ_BYTES, end - offset);
      const bytes = file.read(offset, length);
      offset += length;
      const data = carry.length ? Buffer.concat([carry, bytes]) : bytes;
      let start = 0;
      for (let newline = data.indexOf(0x0a); newline >= 0 && yielded < count; newline = data.indexOf(0x0a, start)) {
        yielded++;
        yield JSON.parse(data.toString('utf8', start, newline)) as T;
        start = newline + 1;
      }
      carry = data.subarray(start);
    }
  }

  dispose(): void {
    this.memory.length = 0;
    this.pending = [];
    this.file?.dispose();
  }

  private write(): void {
    if (!this.file || this.pending.length === 0 || this.file.disposed) return;
    let text = '';
    for (const update of this.pending) text += JSON.stringify(update) + '\n';
    this.pending = [];
    this.file.append(Buffer.from(text, 'utf8'));
  }
}
