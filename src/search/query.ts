// A search query: words in any order, "exact phrases", prefixes (refact*), and filters written
// into the query (agent:, is:archived / is:active, folder:, in:, newer: / older:). Each term
// becomes the grams a block must hold and a regular expression over the text as written (each
// letter a class of every character that folds to it). Plain TS.
import { termGrams } from './grams';
import { CJK, charClasses, fold, unitsFoldingTo, WORD } from './text';

/** Where in a session text was said. */
export type Where = 'you' | 'agent' | 'thoughts' | 'tools' | 'compactions';
export const WHERE_VALUES: readonly Where[] = ['you', 'agent', 'thoughts', 'tools', 'compactions'];

export interface SearchFilters {
  /** Agent names (any of them), as configured. */
  agents?: string[];
  /** Only archived (true) or only active (false) sessions. */
  archived?: boolean;
  /** A piece of the session's folder path (case-insensitive). */
  folder?: string;
  /** Only text said in these places. */
  where?: Where[];
  /** Updated within the last `newerThanMs`, or longer ago than `olderThanMs`. */
  newerThanMs?: number;
  olderThanMs?: number;
}

export interface Term {
  /** As typed (without quotes or `*`). */
  text: string;
  /** Folded. */
  folded: string;
  phrase: boolean;
  prefix: boolean;
  /** The grams a block must hold to contain it (empty: any block may). */
  grams: number[];
  /** Matches the term in text as written (folded alike), at word boundaries where the term starts or ends a word. */
  pattern: RegExp;
}

export interface ParsedQuery {
  terms: Term[];
  filters: SearchFilters;
  /** Filter words the parser did not understand, to show the user. */
  unknown: string[];
}

const CJK_CLASS = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc]';
const DURATION = /^(\d+)([hdwmy])$/;
const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, m: 30 * 86_400_000, y: 365 * 86_400_000 };
/** A map: `in:constructor` finds nothing (an object's lookup would find a function). */
const WHERE_ALIASES: ReadonlyMap<string, Where> = new Map(Object.entries({
  you: 'you', user: 'you', me: 'you',
  agent: 'agent', assistant: 'agent',
  thought: 'thoughts', thoughts: 'thoughts', thinking: 'thoughts',
  tool: 'tools', tools: 'tools', output: 'tools',
  compaction: 'compactions', compactions: 'compactions', summary: 'compactions', summaries: 'compactions',
} satisfies Record<string, Where>));

/** Parses `query`; `filters` are merged in (the view's own filters). Never throws. */
export function parseQuery(query: string, filters: SearchFilters = {}): ParsedQuery {
  const parsed: ParsedQuery = { terms: [], filters: { ...filters }, unknown: [] };
  // "a phrase", "a phrase"*, or a run of non-space characters.
  const tokens = query.matchAll(/"([^"]*)"(\*?)|(\S+)/g);
  for (const m of tokens) {
    if (m[1] !== undefined) {
      addTerm(parsed, m[1], true, m[2] === '*');
      continue;
    }
    const word = m[3];
    const colon = word.indexOf(':');
    if (colon > 0 && colon < word.length - 1 && applyFilter(parsed, word.slice(0, colon).toLowerCase(), word.slice(colon + 1))) continue;
    const prefix = word.length > 1 && word.endsWith('*');
    addTerm(parsed, prefix ? word.replace(/\*+$/, '') : word, false, prefix);
  }
  return parsed;
}

function applyFilter(parsed: ParsedQuery, key: string, value: string): boolean {
  const f = parsed.filters;
  switch (key) {
    case 'agent':
      (f.agents ??= []).push(value);
      return true;
    case 'is':
      if (value === 'archived' || value === 'active') {
        f.archived = value === 'archived';
        return true;
      }
      parsed.unknown.push(`${key}:${value}`);
      return true;
    case 'folder':
      f.folder = value;
      return true;
    case 'in': {
      const where = WHERE_ALIASES.get(value.toLowerCase());
      if (where) (f.where ??= []).includes(where) || f.where.push(where);
      else parsed.unknown.push(`${key}:${value}`);
      return true;
    }
    case 'newer':
    case 'older': {
      const d = DURATION.exec(value.toLowerCase());
      if (!d) {
        parsed.unknown.push(`${key}:${value}`);
        return true;
      }
      const ms = Number(d[1]) * UNIT_MS[d[2]];
      if (key === 'newer') f.newerThanMs = ms;
      else f.olderThanMs = ms;
      return true;
    }
  }
  return false;
}

function addTerm(parsed: ParsedQuery, text: string, phrase: boolean, prefix: boolean): void {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  if (!trimmed) return;
  const folded = fold(trimmed);
  parsed.terms.push({ text: trimmed, folded, phrase, prefix, grams: termGrams(folded, prefix), pattern: termPattern(folded, prefix) });
}

function termPattern(folded: string, prefix: boolean): RegExp {
  const classes = charClasses();
  const first = classes[folded.charCodeAt(0)];
  const last = classes[folded.charCodeAt(folded.length - 1)];
  let body = '';
  for (const ch of folded) {
    if (ch === ' ') body += '\\s+';
    else if (ch.length > 1) body += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else {
      // Folding keeps the length: this unit stands for every unit that folds to it.
      const units = unitsFoldingTo(ch.charCodeAt(0));
      const escaped = units.map((u) => `\\u${u.toString(16).padStart(4, '0')}`);
      body += units.length === 1 ? escaped[0] : units.length === 0 ? '(?!)' : `[${escaped.join('')}]`;
    }
  }
  // A word's edge is a boundary against letters and digits of other scripts than CJK (which is
  // written without spaces: "OAuthの設定" holds the word "oauth"); punctuation needs none.
  const letter = `(?!${CJK_CLASS})[\\p{L}\\p{N}\\p{M}_]`;
  const start = first === WORD ? `(?<!${letter})` : '';
  const end = last === WORD && !prefix ? `(?!${letter})` : '';
  return new RegExp(start + body + end, 'gu');
}

/** Whether the parsed query searches for anything (filters alone list nothing). */
export function hasTerms(query: ParsedQuery): boolean {
  return query.terms.length > 0;
}

/** Whether `c` (a UTF-16 unit) is written without spaces around words (CJK). */
export function isCjk(c: number): boolean {
  return charClasses()[c] === CJK;
}
