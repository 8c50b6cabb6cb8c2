// A session's text as the index stores it: records packed into blocks of about BLOCK_CHARS, each
// with the Bloom filter of its grams and its bytes (the record table and the text as UTF-8,
// deflated). A record longer than a block continues in the next one, which starts by repeating
// the last OVERLAP_CHARS of it, so a phrase across the split is whole in one block; a match that
// lies inside that repeat is left to the block before. Pure (no I/O): it runs on the extension
// host's thread in slices or in the index's worker. Plain Node (no `vscode`).
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { addGrams, bloomBytes } from './grams';
import type { Where } from './query';

/** Characters of text per block. */
export const BLOCK_CHARS = 16 * 1024;
/** Characters of a split record repeated at the start of the next block: phrases up to this long are found across the split. */
export const OVERLAP_CHARS = 1024;
/** Between two records in a block: not whitespace, so a phrase's `\s+` never joins two entities. */
const RECORD_SEPARATOR = '\u0000';

/** One entity's text, and where it was said. `index` is the entity's place in the timeline. */
export interface IndexRecord {
  where: Where;
  index: number;
  text: string;
}

export const WHERE_CODE: Where[] = ['you', 'agent', 'thoughts', 'tools', 'compactions'];

/** [where code, entity index, start, end) of a record's piece in a block's text. */
export type RecordRow = [number, number, number, number];

export interface EncodedBlock {
  bloom: Uint8Array;
  /** The block, deflated. */
  data: Uint8Array;
  /** Characters of the session's text it adds (the repeat not counted). */
  chars: number;
}

export interface DecodedBlock {
  records: RecordRow[];
  /** Characters at the start that repeat the end of the block before. */
  overlap: number;
  text: string;
}

export interface Block {
  text: string;
  records: RecordRow[];
  overlap: number;
}

/** How far a split looks for a space (a longer word, or text without spaces, is split inside). */
const SPLIT_LOOK = 256;

/** Where to end a piece of `text` that does not fit: after a space near `from + take` if one is close, never inside a surrogate pair. */
function splitAt(text: string, from: number, take: number): number {
  const end = from + take;
  for (let i = end - 1; i > from && i >= end - SPLIT_LOOK; i--) if (text.charCodeAt(i) === SPACE) return i + 1 - from;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? take - 1 : take;
}

/** Where the repeat of a split record starts: OVERLAP_CHARS before `at`, moved on to the next word. */
function overlapStart(text: string, min: number, at: number): number {
  const start = Math.max(min, at - OVERLAP_CHARS);
  if (start === min) return start;
  for (let i = start; i < start + 64 && i + 1 < at; i++) if (text.charCodeAt(i) === SPACE) return i + 1;
  const code = text.charCodeAt(start);
  // Never start inside a surrogate pair.
  return code >= 0xdc00 && code <= 0xdfff ? start + 1 : start;
}

const SPACE = 32;

/** Packs records, as they come, into blocks of about BLOCK_CHARS. */
export class BlockPacker {
  private parts: string[] = [];
  private length = 0;
  private rows: RecordRow[] = [];
  private overlap = 0;

  /** Adds a record; yields each block it fills (a long record fills many: the caller can pause between them). */
  *add(record: IndexRecord): Generator<Block> {
    const code = WHERE_CODE.indexOf(record.where);
    const { text } = record;
    let from = 0;
    while (from < text.length) {
      const room = BLOCK_CHARS - this.length;
      let take = Math.min(room, text.length - from);
      const continues = take < text.length - from;
      if (continues) take = splitAt(text, from, take);
      if (take > 0) {
        this.rows.push([code, record.index, this.length, this.length + take]);
        this.parts.push(text.slice(from, from + take), RECORD_SEPARATOR);
        this.length += take + 1;
      }
      const pieceStart = from;
      from += take;
      if (continues || this.length >= BLOCK_CHARS) {
        yield this.take();
        if (continues && take > 0) {
          // The next block starts with the end of this piece again.
          const start = overlapStart(text, pieceStart, from);
          this.overlap = from - start;
          from = start;
        }
      }
    }
  }

  /** The last block, if any text is left. */
  finish(): Block[] {
    return this.length > 0 ? [this.take()] : [];
  }

  private take(): Block {
    const block = { text: this.parts.join(''), records: this.rows, overlap: this.overlap };
    this.parts = [];
    this.length = 0;
    this.rows = [];
    this.overlap = 0;
    return block;
  }
}

/** A block as stored before deflate: u32 length of the header's JSON, the JSON ({ o: overlap, r: rows }), the text as UTF-8. */
function blockBytes(block: Block): Uint8Array {
  const header = Buffer.from(JSON.stringify({ o: block.overlap, r: block.records }), 'utf8');
  const textBytes = Buffer.byteLength(block.text, 'utf8');
  const out = Buffer.allocUnsafe(4 + header.length + textBytes);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  out.write(block.text, 4 + header.length, 'utf8');
  // Huffman codes only: half the cost of level 1 (a sixth of the default), and still well under
  // the text's size on disk (bench/README.md).
  return deflateRawSync(out, { strategy: constants.Z_HUFFMAN_ONLY });
}

/** A packed block's filter and bytes. */
export function encodeBlock(block: Block): EncodedBlock {
  const bloom = new Uint8Array(bloomBytes(block.text.length));
  addGrams(bloom, block.text);
  return { bloom, data: blockBytes(block), chars: block.text.length - block.overlap };
}

/** A block's bytes read back; throws when they are not a block as written (a damaged file). */
export function decodeBlock(data: Uint8Array): DecodedBlock {
  const plain = inflateRawSync(data);
  if (plain.length < 4) throw new Error('a block shorter than its header');
  const headerLength = plain.readUInt32LE(0);
  if (4 + headerLength > plain.length) throw new Error('a block shorter than its header');
  const header = JSON.parse(plain.toString('utf8', 4, 4 + headerLength)) as { o?: unknown; r?: unknown };
  const text = plain.toString('utf8', 4 + headerLength);
  const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  const rowOk = (r: unknown) => Array.isArray(r) && r.length === 4 && r.every(isCount) && r[0] < WHERE_CODE.length && r[2] <= r[3] && r[3] <= text.length;
  if (!isCount(header.o) || header.o > text.length || !Array.isArray(header.r) || !header.r.every(rowOk)) throw new Error('a block whose header is not one the index writes');
  return { records: header.r as RecordRow[], overlap: header.o, text };
}
