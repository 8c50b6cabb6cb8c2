// Text as search sees it: folded for case and accents without changing its length (so an offset
// in the folded text is the same offset in the original, for snippets and highlights), and split
// into words (letters and digits) and CJK runs (scripts written without spaces). Plain TS.

const foldedChars = new Map<string, string>();

/** One UTF-16 unit folded: lower case, accents dropped; itself when folding would change the length. */
function foldChar(c: string): string {
  let folded = foldedChars.get(c);
  if (folded === undefined) {
    const lower = c.toLowerCase();
    const base = (lower.length === 1 ? lower : c).normalize('NFD').replace(/\p{M}+/gu, '');
    folded = base.length === 1 ? base : lower.length === 1 ? lower : c;
    foldedChars.set(c, folded);
  }
  return folded;
}

/**
 * `text` in lower case without accents ("Résumé" -> "resume"), of the same length: offset i of
 * the result is offset i of `text`. ASCII takes the engine's own lower-casing only.
 */
export function fold(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length !== text.length) return text.replace(/[\s\S]/g, foldChar);
  // eslint-disable-next-line no-control-regex
  return /[^\u0000-\u007f]/.test(lower) ? lower.replace(/[^\u0000-\u007f]/g, foldChar) : lower;
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
