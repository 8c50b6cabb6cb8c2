// The extension host's own copies of the agent's output while the line worker parses it: slots of
// one buffer, used in turn. Why: Node reads a pipe into a new ArrayBuffer each time, and V8 (13, the
// Node 24 of current VS Code) counts every such buffer still alive towards starting a full
// collection of the extension host's heap: about one per 15 MB read. A 200,000-chunk replay (73 MB)
// started 8 to 11 of them, each marking every extension's heap (bench/README.md, "What is in the
// way"). A buffer handed to a worker (transferred) leaves the count at once. So the reader keeps its
// copy of a piece here and hands the read's own buffer to the worker, instead of the reverse.
// Plain code: no Node API but Buffer.

/** One piece's place in the ring, until it is released. */
interface Slot {
  start: number;
  end: number;
  released: boolean;
}

export class ByteRing {
  private readonly buffer: ArrayBuffer;
  /** Pieces copied in and not released yet, oldest first. */
  private readonly slots: Slot[] = [];
  /** Where the next copy goes. */
  private head = 0;

  constructor(readonly size: number) {
    this.buffer = new ArrayBuffer(size);
  }

  /** Whether nothing copied in is still held. */
  get empty(): boolean {
    return this.slots.length === 0;
  }

  /**
   * A copy of `bytes` in the ring, or undefined where it has no room for them in one run (the
   * caller keeps them elsewhere). The copy is the caller's until {@link release}d; views of it
   * handed on are for the call only (what keeps a line copies it: `SessionUpdateListener`).
   */
  copy(bytes: Uint8Array): Buffer | undefined {
    const n = bytes.length;
    if (n === 0 || n > this.size) return undefined;
    const oldest = this.slots[0];
    let at: number;
    if (!oldest) {
      at = 0;
    } else if (this.head > oldest.start) {
      // Held: from the oldest slot to the head. Free: from the head to the end, then from the start to the oldest slot.
      if (this.head + n <= this.size) at = this.head;
      else if (n <= oldest.start) at = 0;
      else return undefined;
    } else {
      // Held: from the oldest slot on, round to the head. Free: from the head to the oldest slot.
      if (this.head + n <= oldest.start) at = this.head;
      else return undefined;
    }
    const copy = Buffer.from(this.buffer, at, n);
    copy.set(bytes);
    this.slots.push({ start: at, end: at + n, released: false });
    this.head = at + n;
    return copy;
  }

  /**
   * Ends the hold on the piece a copy (or any view into it) came from; the room goes back in turn,
   * once every piece copied before it is released too. A view of anything else is ignored, and so
   * are an empty view (it names no piece) and a second release.
   */
  release(view: Uint8Array): void {
    if (view.buffer !== this.buffer || view.length === 0) return;
    const at = view.byteOffset;
    for (const slot of this.slots) {
      if (!slot.released && slot.start <= at && at < slot.end) {
        slot.released = true;
        break;
      }
    }
    while (this.slots.length > 0 && this.slots[0].released) this.slots.shift();
    if (this.slots.length === 0) this.head = 0;
  }
}
