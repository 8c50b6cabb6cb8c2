// The index's grams and the Bloom filters that hold them. A word gives the trigrams of itself
// padded with a space each side (" oauth " -> " oa", "oau", ..., "th "), so a whole word, a
// prefix (" refact", no end pad) and a phrase are all checked by trigrams, and a word of one or two
// letters still has one; a CJK run gives each character and each pair of neighbours, so text
// written without spaces is found by any two characters of it. A block's filter has about one bit
// per character of its text and two probes per gram: a query of several grams passes a block that
// lacks it rarely, and then only costs reading that block. Plain TS.
import { CJK, charClasses, foldTable, WORD } from './text';

const SPACE = 32;

/** A gram's hash: its two Bloom probes are the low and the high half. */
function hash(x: number, y: number): number {
  let h = Math.imul(x, 0x9e3779b1) ^ Math.imul(y, 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 12);
}

function trigram(a: number, b: number, c: number): number {
  return hash((a << 16) | b, c);
}

function cjkGram(a: number, b: number): number {
  return hash(a, (b << 16) | 0x5bd1);
}

/** Adds every gram of `text`, folded as it is read, to the Bloom filter (two probes each). */
export function addGrams(bloom: Uint8Array, text: string): void {
  const classes = charClasses();
  const table = foldTable();
  const mask = bloom.length * 8 - 1;
  let a = -1;
  let b = SPACE;
  let prev = -1;
  for (let i = 0, n = text.length; i <= n; i++) {
    // One past the end reads as a separator: the last word's end gram.
    const c = i < n ? table[text.charCodeAt(i)] : SPACE;
    const cls = i < n ? classes[c] : 0;
    if (cls === WORD) {
      if (a !== -1) bloomSet(bloom, mask, trigram(a, b, c));
      a = b;
      b = c;
      prev = -1;
      continue;
    }
    if (a !== -1) bloomSet(bloom, mask, trigram(a, b, SPACE));
    a = -1;
    b = SPACE;
    if (cls === CJK) {
      bloomSet(bloom, mask, cjkGram(c, 0));
      if (prev !== -1) bloomSet(bloom, mask, cjkGram(prev, c));
      prev = c;
    } else prev = -1;
  }
}

function bloomSet(bloom: Uint8Array, mask: number, h: number): void {
  const h1 = h & mask;
  const h2 = ((h >>> 16) | (h << 16)) & mask;
  bloom[h1 >>> 3] |= 1 << (h1 & 7);
  bloom[h2 >>> 3] |= 1 << (h2 & 7);
}

/**
 * The grams a block must hold to contain folded `term`: its words' trigrams, padded where the term
 * ends a word (`prefix` leaves the last word open), and its CJK runs' pairs (or the one character).
 */
export function termGrams(term: string, prefix: boolean): number[] {
  const grams = new Set<number>();
  const classes = charClasses();
  let a = -1;
  let b = SPACE;
  let runStart = -1;
  const endRun = (end: number) => {
    if (runStart < 0) return;
    if (end - runStart === 1) grams.add(cjkGram(term.charCodeAt(runStart), 0));
    for (let j = runStart + 1; j < end; j++) grams.add(cjkGram(term.charCodeAt(j - 1), term.charCodeAt(j)));
    runStart = -1;
  };
  for (let i = 0; i < term.length; i++) {
    const c = term.charCodeAt(i);
    const cls = classes[c];
    if (cls === WORD) {
      if (a !== -1) grams.add(trigram(a, b, c));
      a = b;
      b = c;
    } else {
      if (a !== -1) grams.add(trigram(a, b, SPACE));
      a = -1;
      b = SPACE;
    }
    if (cls === CJK) {
      if (runStart < 0) runStart = i;
    } else endRun(i);
  }
  endRun(term.length);
  if (a !== -1 && !prefix) grams.add(trigram(a, b, SPACE));
  return [...grams];
}

/** A Bloom filter's bytes for about `chars` characters of text: a power of two, at least 64 bytes. */
export function bloomBytes(chars: number): number {
  let bytes = 64;
  while (bytes * 8 < chars && bytes < 1 << 20) bytes *= 2;
  return bytes;
}

/** Whether the filter may hold every one of `hashes` (false: certainly not). */
export function bloomHasAll(bloom: Uint8Array, hashes: readonly number[]): boolean {
  const mask = bloom.length * 8 - 1;
  for (const h of hashes) {
    const h1 = h & mask;
    const h2 = ((h >>> 16) | (h << 16)) & mask;
    if (!(bloom[h1 >>> 3] & (1 << (h1 & 7))) || !(bloom[h2 >>> 3] & (1 << (h2 & 7)))) return false;
  }
  return true;
}
