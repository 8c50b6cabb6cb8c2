// The `session/update` payloads a transcript received, in order, for an export that writes them
// as they came (Export Sessions…). With a spill file they are written there a batch at a time
// (V8's serialization of the batch after its length: strings copied as they are, a third of the
// cost of JSON and UTF-8 per update; as cheap as the spill codec's text records once those are
// optimized, and without their warm-up, which a 20,000-chunk replay pays in full), and read back
// in order; without one they stay in an array. Plain Node, no `vscode`.
import { deserialize, serialize } from 'node:v8';
import type { SpillFile } from './spillFile';

/**
 * Updates wait in memory until this many are written at once: enough to make the serializer's
 * cost per call small, few enough that not many wait on the heap.
 */
const BATCH = 64;

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
    const buffer = this.file.reserve(4 + data.length);
    const at = this.file.reservedAt;
    buffer.writeUInt32LE(data.length, at);
    data.copy(buffer, at + 4);
    this.file.commit(4 + data.length);
  }
}
