// Text as search sees it: folded for case and accents without changing its length (so an offset
// in the folded text is the same offset in the original, for snippets and highlights), and split
// into words (letters and digits) and CJK runs (scripts written without spaces). Plain TS.

let foldTable_: Uint16Array | undefined;

/** The folded UTF-16 unit of every UTF-16 unit: lower case, accents dropped; itself when that would change the length. */
export function foldTable(): Uint16Array {
  if (foldTable_) return foldTable_;
  const table = new Uint16Array(65536);
  for (let code = 0; code < 65536; code++) {
    if (code < 128) {
      table[code] = code >= 65 && code <= 90 ? code + 32 : code;
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      table[code] = code;
      continue;
    }
    const c = String.fromCharCode(code);
    const lower = c.toLowerCase();
    const base = (lower.length === 1 ? lower : c).normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
    table[code] = (base.length === 1 ? base : lower.length === 1 ? lower : c).charCodeAt(0);
  }
  foldTable_ = table;
  return table;
}

let unfolds_: Map<number, number[]> | undefined;

/**
 * Every UTF-16 unit that folds to `unit` ("e" -> e, E, é, É, è, ...), so a search matches the
 * text as written without folding it first.
 */
export function unitsFoldingTo(unit: number): readonly number[] {
  if (!unfolds_) {
    const table = foldTable();
    unfolds_ = new Map();
    for (let code = 0; code < 65536; code++) {
      const to = table[code];
      if (to === code) continue;
      const list = unfolds_.get(to);
      if (list) list.push(code);
      else unfolds_.set(to, table[to] === to ? [to, code] : [code]);
    }
  }
  return unfolds_.get(unit) ?? (foldTable()[unit] === unit ? [unit] : []);
}

/**
 * `text` in lower case without accents ("Résumé" -> "resume"), of the same length: offset i of
 * the result is offset i of `text`.
 */
export function fold(text: string): string {
  const table = foldTable();
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) units[i] = table[text.charCodeAt(i)];
  return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le');
}

/** Character classes, per UTF-16 unit: not part of a word, a word's letter or digit, CJK. */
export const SEPARATOR = 0;
export const WORD = 1;
export const CJK = 2;

let classes: Uint8Array | undefined;

/** The class of every UTF-16 unit, computed once (about 10 ms). Surrogates count as separators. */
export function charClasses(): Uint8Array {
  if (classes) return classes;
  classes = new Uint8Array(65536);
  const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]/u;
  const word = /[\p{L}\p{N}\p{M}_]/u;
  for (let code = 0; code < 65536; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    if (code < 128) {
      if ((code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95) classes[code] = WORD;
      continue;
    }
    const c = String.fromCharCode(code);
    if (cjk.test(c)) classes[code] = CJK;
    else if (word.test(c)) classes[code] = WORD;
  }
  return classes;
}
