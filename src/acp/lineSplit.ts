// Cuts the agent's stdout into pieces of whole `\n`-terminated lines, in the raw Buffers (no
// string concatenation of the stream), measuring each line against the limit as it is buffered.
// Used where the output is read: the extension host's thread (ndjson.ts) or the line worker
// (outputReader.ts). Plain Node.

/** The byte that ends a message; never part of a multi-byte UTF-8 sequence. */
export const LF = 0x0a;

export class LineSplitter {
  /** Pieces of the line that is not complete yet. */
  private partial: Buffer[] = [];
  private partialBytes = 0;

  /**
   * `emit` gets complete lines, one or more to a piece (`\n`-separated, none at the end): a view
   * of the chunk read, valid for the call only.
   */
  constructor(
    private readonly maxLineBytes: number,
    private readonly emit: (piece: Uint8Array) => void,
  ) {}

  /**
   * Cuts `chunk`: false once a line exceeds the limit (what came before it was emitted; nothing
   * is after it).
   */
  push(chunk: Buffer): boolean {
    const max = this.maxLineBytes;
    const first = chunk.indexOf(LF);
    if (first === -1) {
      this.partialBytes += chunk.length;
      if (this.partialBytes > max) return false;
      this.partial.push(chunk);
      return true;
    }
    // The line that began in earlier chunks.
    const firstLength = this.partialBytes + first;
    if (firstLength > max) return false;
    if (this.partialBytes > 0) {
      this.partial.push(chunk.subarray(0, first));
      this.emit(Buffer.concat(this.partial, firstLength));
      this.partial = [];
      this.partialBytes = 0;
    } else if (first > 0) {
      this.emit(chunk.subarray(0, first));
    }
    // The lines wholly inside this chunk: one piece, decoded in one call where it is parsed (a `\n`
    // byte never splits a UTF-8 character), then split; one decode per line costs more than the parse.
    const last = chunk.lastIndexOf(LF);
    if (last - first - 1 > max) {
      // Rare (this chunk's lines span more than the limit): each line is measured in the bytes it
      // has on the wire, as lines split across chunks are (decoding turns a bad byte into three).
      for (let start = first + 1; start <= last; ) {
        const newline = chunk.indexOf(LF, start);
        if (newline - start > max) return false;
        if (newline > start) this.emit(chunk.subarray(start, newline));
        start = newline + 1;
      }
    } else if (last > first) {
      this.emit(chunk.subarray(first + 1, last));
    }
    if (last + 1 < chunk.length) {
      this.partialBytes = chunk.length - last - 1;
      if (this.partialBytes > max) return false;
      this.partial.push(chunk.subarray(last + 1));
    }
    return true;
  }

  /** The output ended: a last line without its `\n` is still a message (a writer may end without one). */
  end(): boolean {
    return this.partialBytes === 0 || this.push(Buffer.from([LF]));
  }

  /** Forgets the line not complete yet (the reader stopped). */
  clear(): void {
    this.partial = [];
    this.partialBytes = 0;
  }
}
