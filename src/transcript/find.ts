// Find in a transcript: matched in the host's timeline, so rows the webview does not hold are
// found too. A search runs in slices that yield, answering as soon as the match to show is
// known and again with the final count. It finds the query as one string, or each of the words
// of a match of Search Sessions. Plain TS (no `vscode`).
import { withoutCodeTicks } from './inlineCode';
import { keyOfRow, peekRow, type EntityRows } from './rows';
import { describePart, type Entity, type Part } from './model';
import type { HostToWebview } from './protocol';

/** Script time per slice of a search; the event loop runs between slices. */
const SLICE_MS = 8;

/** The text a reader can find in a row (what the row shows, heads included). */
export function searchText(entity: Entity): string {
  switch (entity.kind) {
    case 'user_message':
    case 'agent_message':
    case 'thought':
    case 'session_message':
      return partsSearchText(entity.parts);
    case 'compaction':
      return `${entity.status}\n${entity.error ?? ''}\n${partsSearchText(entity.summary)}`;
    case 'tool_call': {
      // The title as the row shows it: its code spans without their backticks.
      let text = `${withoutCodeTicks(entity.title)}\n${entity.status ?? ''}\n`;
      for (const l of entity.locations) text += `${l.path}\n`;
      for (const item of entity.content) {
        if (item.type === 'content') text += partsSearchText([item.part]) + '\n';
        else if (item.type === 'diff') text += `${item.path}\n${item.oldText ?? ''}\n${item.newText}\n`;
        else if (item.type === 'unknown') text += item.json + '\n';
      }
      return text + (entity.rawInput ?? '') + '\n' + (entity.rawOutput ?? '');
    }
    case 'plan':
      return entity.entries.map((e) => e.content).join('\n') + (entity.markdown ?? '') + (entity.file ?? '');
    case 'subagent':
      return `${entity.title ?? ''}\n${entity.description ?? ''}\n${entity.state ?? ''}\n${entity.sessionId}`;
    case 'unknown':
      return `${entity.sessionUpdate}\n${entity.problem ?? ''}\n${entity.json}`;
  }
}

function partsSearchText(parts: readonly Part[]): string {
  let text = '';
  for (const part of parts) text += part.type === 'text' ? part.text : describePart(part);
  return text;
}

/** Non-overlapping occurrences of `needle` (lower case; or of any of several) in `text`, ignoring case. */
export function countMatches(text: string, needle: string | readonly string[]): number {
  if (typeof needle !== 'string') {
    const found = occurrences(text.toLowerCase(), needle);
    let n = 0;
    while (!found.next().done) n++;
    return n;
  }
  if (!needle) return 0;
  const hay = text.toLowerCase();
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

/**
 * Where any of `needles` occurs in `hay` (both lower case), in order and without overlapping: at
 * each place the leftmost match, the longest of those starting there. The find of a match chosen
 * in Search Sessions steps through each of its words so (the webview highlights the same way).
 */
export function* occurrences(hay: string, needles: readonly string[]): Generator<[start: number, end: number]> {
  const words = needles.filter((w) => w.length > 0);
  // The next place of each word at or after `from`; -1 once it occurs no more.
  const next = words.map((w) => hay.indexOf(w));
  for (let from = 0; ; ) {
    let at = -1;
    let length = 0;
    for (let j = 0; j < words.length; j++) {
      if (next[j] >= 0 && next[j] < from) next[j] = hay.indexOf(words[j], from);
      const n = next[j];
      if (n >= 0 && (at < 0 || n < at || (n === at && words[j].length > length))) {
        at = n;
        length = words[j].length;
      }
    }
    if (at < 0) return;
    yield [at, at + length];
    from = at + length;
  }
}

/** The words a find was given (see `TranscriptFind.find`), kept when they are strings: lower case, each once, at most 32. */
export function keptWords(words: unknown): string[] | undefined {
  if (!Array.isArray(words)) return undefined;
  const kept = new Set<string>();
  for (const w of words) if (typeof w === 'string' && w.trim() && kept.size < 32) kept.add(w.slice(0, 1000).toLowerCase());
  return kept.size ? [...kept] : undefined;
}

interface Search {
  seq: number;
  query: string;
  /** What is found: the query as one string, or each of the words given with it. */
  needle: string | readonly string[];
  /** The query and its words, to tell a step of this search from a new one. */
  key: string;
  /** Rows with matches, in order, and the matches before each (prefix counts). */
  rows: number[];
  before: number[];
  total: number;
  /** The 0-based number of the match shown, or -1 before one is known. */
  current: number;
  from: number;
  done: boolean;
  cancelled: boolean;
}

export class TranscriptFind {
  private search: Search | undefined;

  constructor(
    /** The rows: an array, or a timeline's store (rows read back from its file as the search goes). */
    private readonly entities: () => EntityRows,
    private readonly post: (message: HostToWebview) => void,
  ) {}

  /**
   * A `find` from the webview: a new search (step 0) or the next / previous match. With `words`
   * (a match chosen in Search Sessions), each of them is found instead of `query` as one string.
   */
  find(seq: number, query: string, step: 0 | 1 | -1, from: number, words?: readonly string[]): void {
    const s = this.search;
    const needles = words ? keptWords(words) : undefined;
    const key = JSON.stringify([query, needles ?? null]);
    if (step !== 0 && s && s.key === key) {
      s.seq = seq;
      if (s.total > 0) s.current = (s.current + step + s.total) % s.total;
      this.answer(s);
      return;
    }
    if (s) s.cancelled = true;
    const search: Search = {
      seq, query, needle: needles ?? query.toLowerCase(), key, rows: [], before: [], total: 0, current: -1,
      from: Math.max(0, Math.floor(from) || 0), done: false, cancelled: false,
    };
    this.search = search;
    if (!search.needle.length) {
      search.done = true;
      this.answer(search);
      return;
    }
    this.scan(search, 0);
  }

  cancel(): void {
    if (this.search) this.search.cancelled = true;
    this.search = undefined;
  }

  private scan(s: Search, index: number): void {
    if (s.cancelled) return;
    const entities = this.entities();
    const until = performance.now() + SLICE_MS;
    let i = index;
    for (; i < entities.length; i++) {
      const n = countMatches(searchText(peekRow(entities, i)!), s.needle);
      if (n > 0) {
        s.rows.push(i);
        s.before.push(s.total);
        if (s.current < 0 && i >= s.from) {
          s.current = s.total;
          s.total += n;
          // The match to show is known: the webview scrolls to it while the count goes on.
          this.answer(s);
        } else {
          s.total += n;
        }
      }
      if ((i & 63) === 63 && performance.now() > until) {
        i++;
        break;
      }
    }
    if (i < entities.length) {
      setTimeout(() => this.scan(s, i), 0);
      return;
    }
    s.done = true;
    // Past the last match: wrap to the first, as find-in-page does.
    if (s.current < 0 && s.total > 0) s.current = 0;
    this.answer(s);
  }

  private answer(s: Search): void {
    let index = -1;
    let occurrence = 0;
    if (s.current >= 0 && s.total > 0) {
      // The row holding match number `current`: the last row whose first match is at or before it.
      let lo = 0;
      let hi = s.rows.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (s.before[mid] <= s.current) lo = mid;
        else hi = mid - 1;
      }
      index = s.rows[lo];
      occurrence = s.current - s.before[lo];
    }
    const key = index >= 0 ? keyOfRow(this.entities(), index) : undefined;
    this.post({
      type: 'found',
      seq: s.seq,
      query: s.query,
      total: s.total,
      current: s.current >= 0 && s.total > 0 ? s.current + 1 : 0,
      index,
      ...(key !== undefined ? { key } : {}),
      occurrence,
      done: s.done,
    });
  }
}
