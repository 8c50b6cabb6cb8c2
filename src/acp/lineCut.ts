// Cutting the agent's stdout into whole lines, one read at a time, in the raw bytes (no string
// concatenation of the stream): ndjson.ts's reader hands each read here and queues what comes out.

import { LF } from './lineParse';

/** The line not complete yet: its pieces as read, and their bytes. */
export interface PartialLine {
  pieces: Buffer[];
  bytes: number;
}

/**
 * Cuts one read (`chunk`) into pieces of whole `\n`-separated lines, in order, through `push`:
 * the line that began in earlier reads (`partial`), then the lines wholly inside this read as one
 * piece (decoded in one call when drained: a `\n` byte never splits a UTF-8 character; one decode
 * per line costs more than the parse); what follows the last `\n` becomes `partial`. False once a
 * line is longer than `max` bytes (what came before it was pushed). With `give`, the read's own
 * buffer (as Node reads a pipe) may go with its whole lines as `own` (the receiver may transfer it
 * away): whatever else is kept of it is copied first.
 */
export function cutRead(chunk: Buffer, partial: PartialLine, max: number, give: boolean, push: (bytes: Uint8Array, own?: boolean) => void): boolean {
  const first = chunk.indexOf(LF);
  if (first === -1) {
    partial.bytes += chunk.length;
    if (partial.bytes > max) return false;
    partial.pieces.push(chunk);
    return true;
  }
  const firstLength = partial.bytes + first;
  if (firstLength > max) return false;
  const last = chunk.lastIndexOf(LF);
  const own = give && last > first && last - first - 1 <= max && chunk.byteOffset === 0 && chunk.buffer.byteLength === chunk.length;
  const rest = last + 1 < chunk.length ? chunk.subarray(last + 1) : undefined;
  const tail = rest && own ? Buffer.from(rest) : rest;
  if (partial.bytes > 0) {
    partial.pieces.push(chunk.subarray(0, first));
    push(Buffer.concat(partial.pieces, firstLength));
    partial.pieces = [];
    partial.bytes = 0;
  } else if (first > 0) {
    push(own ? Buffer.from(chunk.subarray(0, first)) : chunk.subarray(0, first));
  }
  if (last - first - 1 > max) {
    // Rare (this read's lines span more than the limit): each line is measured in the bytes it
    // has on the wire, as lines split across reads are (decoding turns a bad byte into three).
    for (let start = first + 1; start <= last; ) {
      const newline = chunk.indexOf(LF, start);
      if (newline - start > max) return false;
      if (newline > start) push(chunk.subarray(start, newline));
      start = newline + 1;
    }
  } else if (last > first) {
    push(chunk.subarray(first + 1, last), own);
  }
  if (tail) {
    partial.bytes = tail.length;
    if (partial.bytes > max) return false;
    partial.pieces.push(tail);
  }
  return true;
}
