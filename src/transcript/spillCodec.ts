// How a spill file encodes an entity: a record per entity. The shapes that make up almost all of a
// long session (a message, a thought or a compaction of text parts) are written as their strings
// alone, UTF-16 as the engine holds them, straight into the file's write buffer: no UTF-8, no
// property names, no serializer and no buffer per record (two thirds of the CPU of v8.serialize
// for figure 9's rows). Any other value made of JSON is its JSON; the rest is V8's serialization
// of it. Decoding gives an equal object with its keys in the same order. Plain Node, no `vscode`.
import { deserialize, serialize } from 'node:v8';
import { piecesOf } from '../acp/textPieces';

/**
 * Where a record is written: `reserve` gives a buffer with at least `bytes` free from
 * `reservedAt`; the encoder writes there and `commit`s what it wrote. (No object per record.)
 */
export interface RecordSink {
  reserve(bytes: number): Buffer;
  readonly reservedAt: number;
  commit(bytes: number): void;
}

/**
 * Node's own UTF-16 copy, without `Buffer#write`'s argument checks (a third of the encoding's
 * time for short chunks); the documented calls where a runtime lacks them.
 */
type Utf16Buffer = Buffer & { ucs2Write?(text: string, at: number, bytes: number): number; ucs2Slice?(start: number, end: number): string };
const FAST_UTF16 = typeof (Buffer.prototype as Utf16Buffer).ucs2Write === 'function' && typeof (Buffer.prototype as Utf16Buffer).ucs2Slice === 'function';

/** What a key of a shape holds: a string, or an array of `{ type: 'text', text }` blocks. */
type Slot = 's' | 'blocks';
interface Shape {
  keys: readonly string[];
  slots: readonly Slot[];
}

const shape = (fields: Record<string, Slot>): Shape => ({ keys: Object.keys(fields), slots: Object.values(fields) });

/**
 * The shapes written field by field (keys in this order, and no others); a record starts with its
 * shape's number (0: V8's serialization). A file lives as long as its tab: the numbers may change.
 */
const SHAPES: readonly Shape[] = [
  { keys: [], slots: [] },
  shape({ kind: 's', key: 's', parts: 'blocks', messageId: 's' }),
  shape({ kind: 's', key: 's', parts: 'blocks' }),
  shape({ kind: 's', key: 's', compactionId: 's', status: 's', summary: 'blocks' }),
];
const V8 = 0;
/** Any other plain object (a tool call, a plan, a message of other blocks) as its JSON, a string: a fifth of V8's serializer's time for figure 1's tool calls. */
const JSON_SHAPE = SHAPES.length;

/** Writes `value` to `sink`; returns the bytes written (always even: records stay 2-byte aligned). */
export function encodeRecord(value: unknown, sink: RecordSink): number {
  const keys = isPlainObject(value) ? Object.keys(value) : [];
  for (let s = 1; s < SHAPES.length && keys.length > 0; s++) {
    const bytes = shapedBytes(value as Record<string, unknown>, keys, SHAPES[s]);
    if (bytes < 0) continue;
    const buffer = sink.reserve(bytes);
    const at = sink.reservedAt;
    const end = writeShaped(value as Record<string, unknown>, SHAPES[s], s, buffer, at);
    sink.commit(end - at);
    return end - at;
  }
  // What JSON holds as it is: made of JSON (an agent's update, or a row made of one). Else V8's serialization.
  const json = keys.length > 0 ? jsonOf(value) : undefined;
  if (json !== undefined) {
    const buffer = sink.reserve(6 + 2 * json.length);
    const at = sink.reservedAt;
    buffer.writeUInt16LE(JSON_SHAPE, at);
    const end = writeString(json, buffer, at + 2);
    sink.commit(end - at);
    return end - at;
  }
  const data = serialize(value);
  const bytes = 6 + data.length + (data.length & 1);
  const buffer = sink.reserve(bytes);
  const at = sink.reservedAt;
  buffer.writeUInt16LE(V8, at);
  buffer.writeUInt32LE(data.length, at + 2);
  data.copy(buffer, at + 6);
  sink.commit(bytes);
  return bytes;
}

/** The value of the record at `at` (a copy: nothing refers to `buffer` afterwards). */
export function decodeRecord(buffer: Buffer, at: number): unknown {
  const s = buffer.readUInt16LE(at);
  if (s === V8) {
    const length = buffer.readUInt32LE(at + 2);
    return deserialize(buffer.subarray(at + 6, at + 6 + length));
  }
  if (s === JSON_SHAPE) return JSON.parse(readString({ buffer, at: at + 2 }));
  const found = SHAPES[s];
  if (!found) throw new Error(`a spilled record of unknown shape ${s}`);
  const reader = { buffer, at: at + 2 };
  const value: Record<string, unknown> = {};
  for (let i = 0; i < found.keys.length; i++) {
    const slot = found.slots[i];
    if (slot === 's') value[found.keys[i]] = readString(reader);
    else {
      const count = buffer.readUInt32LE(reader.at);
      reader.at += 4;
      const blocks: { type: 'text'; text: string }[] = new Array(count);
      for (let b = 0; b < count; b++) blocks[b] = { type: 'text', text: readString(reader) };
      value[found.keys[i]] = blocks;
    }
  }
  return value;
}

/** The bytes `value` takes in `shape`, or -1 when it is not of that shape (its keys, in order, and their values). */
function shapedBytes(value: Record<string, unknown>, keys: readonly string[], shape: Shape): number {
  if (keys.length !== shape.keys.length) return -1;
  let bytes = 2;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== shape.keys[i]) return -1;
    const field = value[keys[i]];
    const slot = shape.slots[i];
    if (slot === 's') {
      if (typeof field !== 'string') return -1;
      bytes += 4 + 2 * field.length;
    } else {
      if (!Array.isArray(field)) return -1;
      bytes += 4;
      for (let b = 0; b < field.length; b++) {
        const n = blockChars(field[b]);
        if (n < 0) return -1;
        bytes += 4 + 2 * n;
      }
    }
  }
  return bytes;
}

/** The length of a `{ type: 'text', text }` block's text, or -1 when `block` is anything else. */
function blockChars(block: unknown): number {
  if (!isPlainObject(block)) return -1;
  const keys = Object.keys(block);
  if (keys.length !== 2 || keys[0] !== 'type' || keys[1] !== 'text') return -1;
  const { type, text } = block as { type?: unknown; text?: unknown };
  return type === 'text' && typeof text === 'string' ? text.length : -1;
}

/**
 * `value` as JSON where that is all of it: every value the replacer is handed is one JSON reads
 * back the same (a string, a boolean, a finite number but -0, null, an array, a plain object with
 * no `toJSON`); anything else (`undefined`, a function, NaN, a Date, a cycle, a BigInt) gives none.
 */
function jsonOf(value: unknown): string | undefined {
  let faithful = true;
  let json: string | undefined;
  try {
    json = JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
      // What the holder has, before any `toJSON` made it something else.
      if (faithful && !isJsonValue(this[key])) faithful = false;
      return faithful ? v : undefined;
    });
  } catch {
    return undefined;
  }
  return faithful ? json : undefined;
}

function isJsonValue(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object':
      return value === null || Array.isArray(value) || (isPlainObject(value) && typeof value.toJSON !== 'function');
    default:
      return false;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function writeShaped(value: Record<string, unknown>, shape: Shape, s: number, buffer: Buffer, at: number): number {
  buffer.writeUInt16LE(s, at);
  at += 2;
  for (let i = 0; i < shape.keys.length; i++) {
    const field = value[shape.keys[i]];
    const slot = shape.slots[i];
    if (slot === 's') at = writeString(field as string, buffer, at);
    else {
      const blocks = field as { text: string }[];
      buffer.writeUInt32LE(blocks.length, at);
      at += 4;
      for (const block of blocks) at = writeText(block, buffer, at);
    }
  }
  return at;
}

/** UTF-16 code units as they are (a lone surrogate too), after their count. */
function writeString(text: string, buffer: Buffer, at: number): number {
  buffer.writeUInt32LE(text.length, at);
  return writeUnits(text, buffer, at + 4);
}

/** A text part's text as {@link writeString} writes it, from the pieces it was appended from where they are known (no copy of the whole first). */
function writeText(block: { text: string }, buffer: Buffer, at: number): number {
  const pieces = piecesOf(block);
  if (pieces === undefined) return writeString(block.text, buffer, at);
  buffer.writeUInt32LE(block.text.length, at);
  at += 4;
  for (const piece of pieces) at = writeUnits(piece, buffer, at);
  return at;
}

/** `text`'s code units at `at`; returns where they end. */
function writeUnits(text: string, buffer: Buffer, at: number): number {
  if (text.length === 0) return at;
  if (FAST_UTF16) (buffer as Utf16Buffer).ucs2Write!(text, at, 2 * text.length);
  else buffer.write(text, at, 2 * text.length, 'utf16le');
  return at + 2 * text.length;
}

function readString(reader: { buffer: Buffer; at: number }): string {
  const length = reader.buffer.readUInt32LE(reader.at);
  const start = reader.at + 4;
  reader.at = start + 2 * length;
  if (length === 0) return '';
  return FAST_UTF16 ? (reader.buffer as Utf16Buffer).ucs2Slice!(start, reader.at) : reader.buffer.toString('utf16le', start, reader.at);
}
