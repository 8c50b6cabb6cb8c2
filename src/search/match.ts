// What a query does with one session once its entry is known: whether the filters let it through,
// which blocks may hold every term (their Bloom filters), the matches in those blocks and the line
// of context shown around each. Pure (no I/O). Plain Node (no `vscode`).
import { WHERE_CODE, type DecodedBlock, type RecordRow } from './blocks';
import { bloomHasAll } from './grams';
import type { IndexedSession } from './manifest';
import type { ParsedQuery, SearchFilters, Term, Where } from './query';
import { charClasses, fold, WORD } from './text';

/** One match: a line of context with the words highlighted, where it was said, and its entity. */
export interface SearchMatch {
  where: Where;
  /** The entity's place in the transcript's timeline. */
  index: number;
  /** One line of context (plain text, agent's words: untrusted). */
  line: string;
  /** [start, end) of each highlighted word in `line`. */
  highlights: [number, number][];
  /** The matched text as written, for the transcript's find. */
  text: string;
}

export interface SessionResult {
  session: IndexedSession;
  matches: SearchMatch[];
  /** More matches than `matches` holds. */
  more: boolean;
}

export interface SearchResult {
  sessions: SessionResult[];
  /** Every candidate session was checked (false: `limit` was reached first). */
  complete: boolean;
  /** Sessions of the index the filters let through. */
  searched: number;
}

export interface SearchOptions {
  /** Most sessions to return (a page). */
  limit?: number;
  /** Only sessions of these agents (the configured ones): an entry of another is never shown. */
  agents?: readonly string[];
  /** Only sessions of the folders this says yes to (the Sessions view's scope). */
  inScope?: (cwd: string) => boolean;
  /** Most matches listed per session. */
  matchesPerSession?: number;
  now?: number;
  isCancelled?: () => boolean;
}

export function passes(entry: IndexedSession, filters: SearchFilters, now: number): boolean {
  if (filters.agents?.length && !filters.agents.some((a) => a.toLowerCase() === entry.agent.toLowerCase())) return false;
  if (filters.archived !== undefined && entry.archived !== filters.archived) return false;
  if (filters.folder && !fold(entry.cwd).includes(fold(filters.folder))) return false;
  if (filters.newerThanMs !== undefined || filters.olderThanMs !== undefined) {
    const at = entry.updatedAt ? Date.parse(entry.updatedAt) : NaN;
    if (Number.isNaN(at)) return false;
    if (filters.newerThanMs !== undefined && now - at > filters.newerThanMs) return false;
    if (filters.olderThanMs !== undefined && now - at < filters.olderThanMs) return false;
  }
  return true;
}

/** The blocks that may hold some term, or undefined when some term is in none of them. */
export function candidateBlocks(blooms: readonly Uint8Array[], terms: readonly Term[]): number[] | undefined {
  const wanted = new Set<number>();
  for (const term of terms) {
    let any = false;
    for (let b = 0; b < blooms.length; b++) {
      if (bloomHasAll(blooms[b], term.grams)) {
        wanted.add(b);
        any = true;
      }
    }
    if (!any) return undefined;
  }
  return [...wanted].sort((a, b) => a - b);
}

export function recordAt(records: readonly RecordRow[], at: number): RecordRow | undefined {
  let lo = 0;
  let hi = records.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (records[mid][2] <= at) lo = mid;
    else hi = mid - 1;
  }
  const r = records[lo];
  return r && at >= r[2] && at < r[3] ? r : undefined;
}

/**
 * Context before a match: a few words, at most this many characters. A match row sits deep in a
 * narrow sidebar; with more, the words found fall past its edge (VS Code's Search view trims the
 * text before a match likewise).
 */
export const CONTEXT_BEFORE = 12;
/** Context after a match (the row's end is cut by VS Code where it has no room). */
const CONTEXT_AFTER = 120;

/**
 * The line around [at, end), within [min, max): a few words before (CONTEXT_BEFORE characters at
 * most, from a word's start: a word is not cut, spaces are dropped) and about 120 characters
 * after, on the match's own line of the text.
 */
export function lineAround(text: string, at: number, end: number, min: number, max: number): [number, number] {
  let start = Math.max(min, at - CONTEXT_BEFORE);
  const newlineBefore = text.lastIndexOf('\n', at - 1);
  if (newlineBefore >= start) start = newlineBefore + 1;
  const classes = charClasses();
  const inWord = (i: number) => classes[text.charCodeAt(i)] === WORD;
  // Cut inside a word: from the next word on (CJK, written without spaces, is cut anywhere).
  if (start > min && text[start - 1] !== '\n') while (start < at && inWord(start - 1) && inWord(start)) start++;
  while (start < at && /\s/.test(text[start])) start++;
  let stop = Math.min(max, Math.max(end, at + CONTEXT_AFTER));
  const newlineAfter = text.indexOf('\n', end);
  if (newlineAfter >= 0 && newlineAfter < stop) stop = newlineAfter;
  return [start, Math.max(stop, end)];
}

/**
 * The matches of `query` in a session's `blocks` (those its filters may hold), read by `read`;
 * undefined when some term is in none of them. Throws what `read` throws (a damaged block).
 */
export function matchSession(blocks: readonly number[], query: ParsedQuery, perSession: number, read: (block: number) => DecodedBlock): Omit<SessionResult, 'session'> | undefined {
  const where = query.filters.where?.length ? new Set(query.filters.where) : undefined;
  const seen = new Array<boolean>(query.terms.length).fill(false);
  const matches: SearchMatch[] = [];
  let more = false;
  for (const b of blocks) {
    const { records, overlap, text } = read(b);
      const hits: { at: number; end: number; record: RecordRow }[] = [];
      query.terms.forEach((term, t) => {
        term.pattern.lastIndex = 0;
        for (let m = term.pattern.exec(text); m; m = term.pattern.exec(text)) {
          if (m[0].length === 0) {
            term.pattern.lastIndex++;
            continue;
          }
          // Wholly inside the repeat of the block before: found there.
          if (m.index + m[0].length <= overlap) continue;
          const record = recordAt(records, m.index);
          if (!record || (where && !where.has(WHERE_CODE[record[0]]))) continue;
          seen[t] = true;
          hits.push({ at: m.index, end: m.index + m[0].length, record });
        }
      });
      hits.sort((a, b) => a.at - b.at);
      let last: SearchMatch | undefined;
      let lastEnd = -1;
      let lastStart = -1;
      for (const hit of hits) {
        // A hit inside the line shown last is highlighted there.
        if (last && hit.at >= lastStart && hit.end <= lastEnd && last.index === hit.record[1]) {
          last.highlights.push([hit.at - lastStart + (last.line.startsWith('…') ? 1 : 0), hit.end - lastStart + (last.line.startsWith('…') ? 1 : 0)]);
          continue;
        }
        if (matches.length >= perSession) {
          more = true;
          break;
        }
        const [start, end] = lineAround(text, hit.at, hit.end, hit.record[2], hit.record[3]);
        const prefix = start > hit.record[2] && text[start - 1] !== '\n' ? '…' : '';
        last = {
          where: WHERE_CODE[hit.record[0]],
          index: hit.record[1],
          line: prefix + text.slice(start, end).replace(/[\r\n\t\u2028\u2029]/g, ' '),
          highlights: [[hit.at - start + prefix.length, hit.end - start + prefix.length]],
          text: text.slice(hit.at, hit.end),
        };
        lastStart = start;
        lastEnd = end;
        matches.push(last);
      }
    if (more && seen.every(Boolean)) break;
  }
  return seen.every(Boolean) ? { matches, more } : undefined;
}
