// Where a timeline keeps its entities. Without a spill file, all on the heap (tests, the
// benchmarks' reducer, a short-lived timeline). With one, the heap holds a bounded cache: the
// entities changed last (in progress: streamed text, a compaction whose summary is coming) and
// those read last, up to SpillLimits; every other entity is in the file (spillCodec.ts: a message
// or compaction of text as its strings, UTF-16 as they are; anything else V8's serialization), found
// by its offset and length, and read back when a row is shown, found, exported or indexed. An entity
// changed after it was written is changed in memory and written again at the file's end when it
// leaves the cache (the old bytes are left behind: the file is only ever appended to).
// Per row the heap keeps its key, kind and place in the file: 17 bytes. An entity that cannot be
// written (V8 cannot serialize it) stays on the heap; one refused by a file on a full disk that
// keeps all it may in memory is lost, and reads back as a row that says so, never as an error.
import { entityChars, type Entity, type EntityKind } from './model';
import type { EntityRows } from './rows';
import { decodeRecord, encodeRecord } from './spillCodec';
import { SpillFileFullError, type SpillFile } from './spillFile';

export type { EntityRows };

/** How much of a spilled timeline stays on the heap. */
export interface SpillLimits {
  /** Characters of the entities held (their text and the JSON they keep). */
  chars: number;
  entities: number;
}

/** About 8 MB of text (UTF-16) and the objects around it: a few screens of any session, and the rows being streamed. */
export const DEFAULT_SPILL_LIMITS: SpillLimits = { chars: 4 * 1024 * 1024, entities: 4096 };

const KINDS: readonly EntityKind[] = ['user_message', 'agent_message', 'thought', 'session_message', 'tool_call', 'plan', 'compaction', 'subagent', 'unknown'];
const KIND_CODES = new Map<EntityKind, number>(KINDS.map((kind, code) => [kind, code]));
/** Never written to the file (or changed since): `offsets` holds this. */
const UNWRITTEN = -1;
/** Could not be written, so held for good (in `unwritable`). */
const PINNED = -2;
/** Refused by a full disk's file: reads back as a row that says so. */
const LOST = -3;

interface Slot {
  entity: Entity;
  /** Characters counted for it in `heldChars`. */
  chars: number;
  /** Changed since it was written (or never written). */
  dirty: boolean;
}

/**
 * A store handed from one thread to another (the line worker's reduction of a replay to the
 * extension host): its rows' keys, kinds and places in the file (arrays to transfer, not copy),
 * the file, and the rows the file does not hold.
 */
export interface StoreImage {
  count: number;
  keyNumbers: Uint32Array;
  kinds: Uint8Array;
  offsets: Float64Array;
  lengths: Uint32Array;
  /** The file, every row's bytes in it; none where the store had none or its writes failed. */
  file?: { path: string; size: number };
  /** Rows the file does not hold (all of them without one), by key number. */
  held: [number, Entity][];
  lostKinds: [number, number][];
  lost?: { count: number; reason: string };
}

export class EntityStore implements EntityRows {
  private count = 0;
  private keyNumbers = new Uint32Array(256);
  private kinds = new Uint8Array(256);
  private offsets = new Float64Array(256);
  private lengths = new Uint32Array(256);
  /** By key number; with a file, in the order used (least recently first). */
  private readonly held = new Map<number, Slot>();
  private heldChars = 0;
  /** The key number used last: using it again needs no reordering. */
  private lastUsed = -1;
  /** Entities the file cannot hold (V8 could not serialize them), by key number: never evicted. */
  private readonly unwritable = new Map<number, Entity>();
  /** The kinds lost rows were, by key number (their stand-ins say it). */
  private readonly lostKinds = new Map<number, number>();
  /** Why rows were lost (the full disk's refusal), and how many. */
  private lost: { count: number; reason: string } | undefined;
  /** Key numbers written since the last {@link snapshot} (new or changed rows), while snapshots are taken. */
  private writtenSinceSnapshot: Set<number> | undefined;
  /** The file is another store's too (a snapshot's reader): dispose leaves it. */
  private sharedFile = false;

  constructor(
    private readonly file?: SpillFile,
    private readonly limits: SpillLimits = DEFAULT_SPILL_LIMITS,
  ) {}

  /** Whether rows go to a file (written out as they leave the cache). */
  get spills(): boolean {
    return this.file !== undefined;
  }

  get length(): number {
    return this.count;
  }

  /** How many entities are on the heap now (tests, the benchmark's notes). */
  get heldCount(): number {
    return this.held.size;
  }

  /** How many rows a full disk cost (each reads back as a row that says so), and why. */
  get lostRows(): { count: number; reason: string } | undefined {
    return this.lost;
  }

  /** Whether the entity with this key number is on the heap now (tests). */
  isHeld(keyNumber: number): boolean {
    return this.held.has(keyNumber);
  }

  kindAt(index: number): EntityKind {
    return KINDS[this.kinds[index]];
  }

  keyAt(index: number): string {
    return `e${this.keyNumbers[index]}`;
  }

  keyNumberAt(index: number): number {
    return this.keyNumbers[index];
  }

  /** Where the entity with key number `n` stands, or -1 (keys grow along the rows: a bisection). */
  indexOfKeyNumber(n: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.keyNumbers[mid] < n) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.count && this.keyNumbers[lo] === n ? lo : -1;
  }

  /** Adds a new entity after the last row; it is held (in progress) until the cache needs room. */
  push(entity: Entity, keyNumber: number): void {
    if (this.count === this.keyNumbers.length) this.grow();
    const i = this.count++;
    this.keyNumbers[i] = keyNumber;
    this.kinds[i] = KIND_CODES.get(entity.kind)!;
    this.offsets[i] = UNWRITTEN;
    this.lengths[i] = 0;
    this.hold(keyNumber, { entity, chars: this.file ? entityChars(entity) : 0, dirty: true });
  }

  /** Row `index` (cached: a row read is likely read again soon, as when it is shown). */
  at(index: number): Entity | undefined {
    if (index < 0 || index >= this.count) return undefined;
    const n = this.keyNumbers[index];
    const slot = this.held.get(n);
    if (slot) {
      this.use(n, slot);
      return slot.entity;
    }
    if (this.offsets[index] < UNWRITTEN) return this.readRow(index);
    const entity = this.readRow(index);
    this.hold(n, { entity, chars: entityChars(entity), dirty: false });
    return entity;
  }

  /** Row `index`, read without caching it when it is not held (a scan over every row). */
  peek(index: number): Entity | undefined {
    if (index < 0 || index >= this.count) return undefined;
    return this.held.get(this.keyNumbers[index])?.entity ?? this.readRow(index);
  }

  /** The entity with key number `n`, to read. */
  get(n: number): Entity | undefined {
    const index = this.indexOfKeyNumber(n);
    return index < 0 ? undefined : this.at(index);
  }

  /** The entity with key number `n`, to change: held, and written again when it leaves the cache. */
  change(n: number): Entity | undefined {
    const pinned = this.unwritable.get(n);
    if (pinned) return pinned;
    let slot = this.held.get(n);
    if (!slot) {
      const index = this.indexOfKeyNumber(n);
      if (index < 0) return undefined;
      // A lost row's stand-in is not changed: the rest of its updates are lost with it.
      if (this.offsets[index] === LOST) return undefined;
      const entity = this.readRow(index);
      slot = { entity, chars: entityChars(entity), dirty: true };
      this.hold(n, slot);
      return entity;
    }
    slot.dirty = true;
    if (this.file) {
      // Counted as it is before this change: the next change or its eviction counts the rest.
      const chars = entityChars(slot.entity);
      this.heldChars += chars - slot.chars;
      slot.chars = chars;
      this.use(n, slot);
      this.evict();
    }
    return slot.entity;
  }

  /** Removes row `index` (a removed plan: rare, so the rows after it are moved). */
  removeAt(index: number): void {
    if (index < 0 || index >= this.count) return;
    const n = this.keyNumbers[index];
    const slot = this.held.get(n);
    if (slot) {
      this.heldChars -= slot.chars;
      this.held.delete(n);
    }
    this.unwritable.delete(n);
    this.lostKinds.delete(n);
    for (const array of [this.keyNumbers, this.kinds, this.offsets, this.lengths]) array.copyWithin(index, index + 1, this.count);
    this.count--;
    if (this.lastUsed === n) this.lastUsed = -1;
  }

  /**
   * The rows as they are now, `size` at a time, read from the file between turns of the event
   * loop (the search index's input). Throws when the store is disposed before the end.
   */
  async *batches(size = 512): AsyncGenerator<Entity[]> {
    const end = this.count;
    for (let start = 0; start < end; start += size) {
      if (this.file?.disposed) throw new Error('the transcript was closed');
      const batch: Entity[] = [];
      for (let i = start; i < Math.min(end, start + size, this.count); i++) batch.push(this.peek(i)!);
      yield batch;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Hands the store over (see {@link StoreImage}): every row changed since it was written is
   * written now, and the file released to its next owner. The store is empty afterwards.
   */
  image(): StoreImage {
    const file = this.file;
    if (file && !file.disposed) {
      for (const [n, slot] of this.held) if (slot.dirty) this.writeOut(n, slot);
      file.flush();
    }
    const held: [number, Entity][] = [...this.unwritable];
    // Where the file cannot go with the image (none, or a write failed), the rows travel themselves.
    const travel = !file || file.disposed || file.writeError !== undefined;
    if (travel) {
      for (let i = 0; i < this.count; i++) {
        const offset = this.offsets[i];
        if (offset === PINNED || offset === LOST) continue;
        const entity = this.peek(i);
        if (entity) held.push([this.keyNumbers[i], entity]);
      }
    }
    const released = travel ? (file?.dispose(), undefined) : file!.release();
    const image = this.imageOf(held, released);
    this.held.clear();
    this.unwritable.clear();
    this.heldChars = 0;
    this.count = 0;
    return image;
  }

  /**
   * The store as it is now, to read elsewhere while it goes on (the line worker's progress of a
   * reduction): every row changed since written is written, the file's bytes are on the disk, and
   * the rows' places are copied. `changed`: the key numbers written since the last snapshot (new
   * rows and changed ones). Undefined without a file, or once a write failed (rows then travel only at the end).
   */
  snapshot(): { image: StoreImage; changed: number[] } | undefined {
    const file = this.file;
    if (!file || file.disposed || file.writeError) return undefined;
    for (const [n, slot] of this.held) if (slot.dirty) this.writeOut(n, slot);
    file.flush();
    if (file.writeError) return undefined;
    const changed = this.writtenSinceSnapshot ? [...this.writtenSinceSnapshot] : [];
    this.writtenSinceSnapshot = new Set();
    return { image: this.imageOf([...this.unwritable], { path: file.path, size: file.size }), changed };
  }

  /** The rows' index as it is now (copied), with the rows that travel themselves and the file that holds the rest. */
  private imageOf(held: [number, Entity][], file: StoreImage['file']): StoreImage {
    const image: StoreImage = {
      count: this.count,
      keyNumbers: this.keyNumbers.slice(0, this.count),
      kinds: this.kinds.slice(0, this.count),
      offsets: this.offsets.slice(0, this.count),
      lengths: this.lengths.slice(0, this.count),
      held,
      lostKinds: [...this.lostKinds],
    };
    if (file) image.file = file;
    if (this.lost) image.lost = this.lost;
    return image;
  }

  /** From now on, {@link snapshot} says which rows were written since the one before. */
  trackChanges(): void {
    this.writtenSinceSnapshot ??= new Set();
  }

  /** A store that reads a {@link snapshot} from `file`, which stays another's (dispose leaves it). */
  static reading(image: StoreImage, file: SpillFile): EntityStore {
    const store = EntityStore.fromImage(image, file);
    store.sharedFile = true;
    return store;
  }

  /** The store an {@link image} describes, with `file` (adopted from it) holding its rows' bytes. */
  static fromImage(image: StoreImage, file: SpillFile | undefined, limits: SpillLimits = DEFAULT_SPILL_LIMITS): EntityStore {
    const store = new EntityStore(file, limits);
    const size = Math.max(256, image.count);
    store.keyNumbers = new Uint32Array(size);
    store.kinds = new Uint8Array(size);
    store.offsets = new Float64Array(size);
    store.lengths = new Uint32Array(size);
    store.keyNumbers.set(image.keyNumbers);
    store.kinds.set(image.kinds);
    store.offsets.set(image.offsets);
    store.lengths.set(image.lengths);
    store.count = image.count;
    for (const [n, kind] of image.lostKinds) store.lostKinds.set(n, kind);
    if (image.lost) store.lost = image.lost;
    const heldBy = new Map(image.held);
    for (let i = 0; i < store.count; i++) {
      const n = store.keyNumbers[i];
      const entity = heldBy.get(n);
      if (entity === undefined) {
        // A row the file holds; one neither holds cannot be read: it reads as lost.
        if (store.offsets[i] >= 0 && file) continue;
        if (store.offsets[i] === LOST) continue;
        store.lostKinds.set(n, store.kinds[i]);
        store.kinds[i] = KIND_CODES.get('unknown')!;
        store.offsets[i] = LOST;
        store.lost ??= { count: 0, reason: 'it did not come back from the line worker' };
        store.lost.count++;
      } else if (file) {
        store.offsets[i] = PINNED;
        store.unwritable.set(n, entity);
      } else {
        store.offsets[i] = UNWRITTEN;
        store.held.set(n, { entity, chars: 0, dirty: true });
      }
    }
    return store;
  }

  /** Forgets the entities (no rows from now on: a reader finds none rather than a closed file) and removes the file. */
  dispose(): void {
    this.held.clear();
    this.unwritable.clear();
    this.lostKinds.clear();
    this.heldChars = 0;
    this.count = 0;
    this.lastUsed = -1;
    if (!this.sharedFile) this.file?.dispose();
  }

  private readRow(index: number): Entity {
    const offset = this.offsets[index];
    if (offset === PINNED) return this.unwritable.get(this.keyNumbers[index])!;
    if (offset === LOST) {
      const n = this.keyNumbers[index];
      return lostRow(`e${n}`, KINDS[this.lostKinds.get(n) ?? KIND_CODES.get('unknown')!], this.lost?.reason ?? '');
    }
    if (!this.file || offset === UNWRITTEN) throw new Error(`row ${index} is neither held nor written`);
    return decodeRecord(this.file.read(offset, this.lengths[index]), 0) as Entity;
  }

  private hold(n: number, slot: Slot): void {
    this.held.set(n, slot);
    this.lastUsed = n;
    if (!this.file) return;
    this.heldChars += slot.chars;
    this.evict();
  }

  /** Marks `n` used last (with a file: the cache is least recently used first). */
  private use(n: number, slot: Slot): void {
    if (!this.file || this.lastUsed === n) return;
    this.held.delete(n);
    this.held.set(n, slot);
    this.lastUsed = n;
  }

  /** Writes the least recently used entities out (those changed since written) until the cache fits; the last used stays. */
  private evict(): void {
    const file = this.file;
    if (!file) return;
    while (this.held.size > 1 && (this.held.size > this.limits.entities || this.heldChars > this.limits.chars)) {
      const [n, slot] = this.held.entries().next().value as [number, Slot];
      this.held.delete(n);
      this.heldChars -= slot.chars;
      // A disposed store writes nothing (an update that comes after its tab closed).
      if (!slot.dirty || file.disposed) continue;
      this.writeOut(n, slot);
    }
  }

  /** Writes the entity with key number `n` at the file's end (or keeps it on the heap, or loses it to a full disk). */
  private writeOut(n: number, slot: Slot): void {
    const file = this.file!;
    const index = this.indexOfKeyNumber(n);
    if (index < 0) return;
    const offset = file.size;
    try {
      this.lengths[index] = encodeRecord(slot.entity, file);
      this.offsets[index] = offset;
      slot.dirty = false;
      this.writtenSinceSnapshot?.add(n);
    } catch (error) {
      if (error instanceof SpillFileFullError) {
        // Its stand-in is of no kind that prompts or the export read as the conversation; its own kind names it.
        this.lostKinds.set(n, this.kinds[index]);
        this.kinds[index] = KIND_CODES.get('unknown')!;
        this.offsets[index] = LOST;
        this.lost = { count: (this.lost?.count ?? 0) + 1, reason: error.message };
      } else {
        // Nothing was appended (the serializer threw before): kept on the heap instead.
        this.offsets[index] = PINNED;
        this.unwritable.set(n, slot.entity);
      }
    }
  }

  private grow(): void {
    const size = this.keyNumbers.length * 2;
    const grown = <T extends Uint32Array | Uint8Array | Float64Array>(array: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(array);
      return next;
    };
    this.keyNumbers = grown(this.keyNumbers, (n) => new Uint32Array(n));
    this.kinds = grown(this.kinds, (n) => new Uint8Array(n));
    this.offsets = grown(this.offsets, (n) => new Float64Array(n));
    this.lengths = grown(this.lengths, (n) => new Uint32Array(n));
  }
}

/** What a row lost to a full disk reads back as: a row that says so, of the kind that cannot mislead (no prompt, no text of the conversation). */
function lostRow(key: string, kind: EntityKind, reason: string): Entity {
  return { kind: 'unknown', key, sessionUpdate: kind, problem: `this row could not be kept: ${reason}`, json: '' };
}
