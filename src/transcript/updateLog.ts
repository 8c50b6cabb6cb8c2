// The `session/update` payloads a transcript received, in order, for an export that writes them
// as they came (Export Sessions…). With a spill file they are written there a batch at a time
// (V8's serialization of the batch after its length: strings copied as they are, a third of the
// cost of JSON and UTF-8 per update), and read back in order; without one they stay in an array.
// Plain Node, no `vscode`.
import { deserialize, serialize } from 'node:v8';
import type { SpillFile } from './spillFile';

/** Updates wait in memory until this many are written at once. */
const BATCH = 1024;

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
    for (let offset = 0; offset < end && yielded < count; ) {
      const length = file.read(offset, 4).readUInt32LE(0);
      const batch = deserialize(file.read(offset + 4, length)) as T[];
      offset += 4 + length;
      for (const update of batch) {
        if (yielded >= count) return;
        yielded++;
        yield update;
      }
    }
  }

  dispose(): void {
    this.memory.length = 0;
    this.pending = [];
    this.file?.dispose();
  }

  private write(): void {
    if (!this.file || this.pending.length === 0 || this.file.disposed) return;
    const data = serialize(this.pending);
    this.pending = [];
    const head = Buffer.allocUnsafe(4);
    head.writeUInt32LE(data.length, 0);
    this.file.append(head);
    this.file.append(data);
  }
}
