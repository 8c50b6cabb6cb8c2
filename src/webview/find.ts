// Find in the transcript: matched in the host's timeline (`find` / `found`), so rows not built
// are found too; the webview shows the bar, the count, and highlights the match once its row is
// built. FindSession is the DOM-free part (which answer is current, what to show); FindBar the bar.
// Opened at a match of Search Sessions for several words, the bar finds each word and "phrase" as
// that search reads them, until it closes; opened otherwise (Ctrl+F), it finds the text as typed.
import { occurrences } from '../transcript/find';
import type { HostToWebview, WebviewToHost } from '../transcript/protocol';
import { t } from './l10n';
import { codicon, element, type Row } from './rows';

type Found = Extract<HostToWebview, { type: 'found' }>;
type Find = Extract<WebviewToHost, { type: 'find' }>;

/** How long typing must pause before the query is sent. */
export const FIND_TYPING_MS = 120;
const FIND_HIGHLIGHT = 'transcript-find';

export class FindSession {
  /** The current search's number: answers to older ones are stale. */
  private seq = 0;
  private sent = '';
  /** The words of the current search (Search Sessions'), or undefined: the query as one string. */
  private words: string[] | undefined;
  /** The match shown last (`index:occurrence`): the same answer again moves nothing. */
  private shown = '';

  /**
   * The `find` to send for `query`: `step` 1 / -1 the next / previous match of the current
   * search (a changed query starts a new one, step 0, from row `from`). Undefined for an empty
   * query, which ends the search. With `words`, each of them is found instead of the query.
   */
  search(query: string, step: 0 | 1 | -1, from: number, words?: string[]): Find | undefined {
    const sent = JSON.stringify([query, words ?? null]);
    if (sent !== this.sent) step = 0;
    this.sent = sent;
    this.words = words;
    this.shown = '';
    if (!query) {
      this.seq++;
      return undefined;
    }
    return { type: 'find', seq: ++this.seq, query, step, from, ...(words ? { words } : {}) };
  }

  /** The bar closed: answers still coming are stale, and the next search starts over. */
  close(): void {
    this.seq++;
    this.sent = '';
    this.shown = '';
  }

  /**
   * What an answer shows: undefined when it is stale; else the count's text, whether there is
   * no result, and the match to bring into view (unless there is none or it is shown already).
   */
  found(message: Found): { count: string; noResults: boolean; match?: { index: number; occurrence: number; query: string; words?: string[] } } | undefined {
    if (message.seq !== this.seq) return undefined;
    const count = message.total === 0
      ? (message.done ? t('No results') : '')
      : message.done ? t('{0} of {1}', message.current, message.total) : t('{0} of {1}+', message.current, message.total);
    const result = { count, noResults: message.done && message.total === 0 };
    if (message.index < 0) return result;
    const shown = `${message.index}:${message.occurrence}`;
    if (shown === this.shown) return result;
    this.shown = shown;
    const words = this.words ? { words: this.words } : {};
    return { ...result, match: { index: message.index, occurrence: message.occurrence, query: message.query, ...words } };
  }
}

/**
 * Where the `occurrence`th match of `query` (or of any of several words) starts in `text`,
 * case-insensitive (the last match when there are fewer); -1 when none.
 */
export function matchAt(text: string, query: string | readonly string[], occurrence: number): number {
  return matchSpan(text, query, occurrence)?.[0] ?? -1;
}

/** [start, end) of the `occurrence`th match, as `matchAt` finds it; undefined when none. */
export function matchSpan(text: string, query: string | readonly string[], occurrence: number): [number, number] | undefined {
  const needles = (typeof query === 'string' ? [query] : query).map((q) => q.toLowerCase());
  let span: [number, number] | undefined;
  let n = 0;
  for (const found of occurrences(text.toLowerCase(), needles)) {
    span = found;
    if (n++ === occurrence) break;
  }
  return span;
}

/**
 * The words and "phrases" of a query as Search Sessions reads them (a trailing `*` of a prefix
 * dropped: the find matches inside words anyway), each once.
 */
export function queryWords(query: string): string[] {
  const words = new Map<string, string>();
  for (const m of query.matchAll(/"([^"]*)"\*?|(\S+)/g)) {
    const word = (m[1] ?? (m[2].length > 1 ? m[2].replace(/\*+$/, '') : m[2])).trim().replace(/\s+/g, ' ');
    if (word && !words.has(word.toLowerCase())) words.set(word.toLowerCase(), word);
  }
  return [...words.values()];
}

export interface FindBarOptions {
  post(message: Find): void;
  /** The row at the top of the view: a new search starts there. */
  topIndex(): number;
  /** Brings row `index` into view, then calls `then` with it. */
  reveal(index: number, then: (row: Row) => void): void;
  /** Opens a folded row (a match inside it shows, as find-in-page opens a closed <details>). */
  open(row: Row): void;
  /** Scrolls a match at [top, bottom) px of the viewport into view, unless it is in view. */
  scrollIntoView(top: number, bottom: number): void;
  /** The bar closed: the focus goes back to the transcript. */
  closed(): void;
}

export class FindBar {
  private readonly session = new FindSession();
  private readonly input = element('input', 'find-input');
  private readonly count = element('span', 'find-count');
  private readonly bar = element('div', 'find-bar');
  private typing: ReturnType<typeof setTimeout> | undefined;
  /** The match shown, to put back when its row's text is rendered anew (Markdown once quiet). */
  private shownHighlight: { row: Row; query: string | string[]; occurrence: number } | undefined;
  /**
   * Opened at a match of Search Sessions: the query is its words, each found on its own until
   * the bar closes; `also` (the match's texts as written) while the query is what it was.
   */
  private byWords: { query: string; also: string[] } | undefined;

  constructor(private readonly options: FindBarOptions) {
    const { input, count, bar } = this;
    input.type = 'text';
    input.placeholder = t('Find');
    input.setAttribute('aria-label', t('Find in transcript'));
    count.setAttribute('role', 'status');
    bar.setAttribute('role', 'search');
    bar.hidden = true;
    bar.append(input, count, findButton('arrow-up', t('Previous Match (Shift+Enter)'), 'previous'), findButton('arrow-down', t('Next Match (Enter)'), 'next'), findButton('close', t('Close (Escape)'), 'close'));
    document.body.append(bar);
    input.addEventListener('input', () => {
      if (this.typing !== undefined) clearTimeout(this.typing);
      this.typing = setTimeout(() => this.search(0), FIND_TYPING_MS);
    });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        this.step(event.shiftKey ? -1 : 1);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        this.close();
      }
    });
    bar.addEventListener('click', (event) => {
      const action = ((event.target as Element).closest('[data-find]') as HTMLElement | null)?.dataset.find;
      if (action === 'close') this.close();
      else if (action === 'next' || action === 'previous') this.step(action === 'next' ? 1 : -1);
    });
  }

  /** A query was typed (F3 steps through it from anywhere). */
  get hasQuery(): boolean {
    return this.input.value !== '';
  }

  /**
   * Opens the bar; with `query`, searches it from row `from` (a match chosen in Search Sessions),
   * with `words` each of its words and "phrases" and the texts in `also`. The bar takes the
   * keyboard focus unless `takeFocus` is false (the reader went elsewhere meanwhile).
   */
  open(query?: string, from?: number, words?: { also: string[] }, takeFocus = true): void {
    this.bar.hidden = false;
    if (takeFocus) this.input.focus();
    if (query !== undefined) {
      this.setWords(words && { query, also: words.also });
      this.input.value = query;
      this.search(0, from);
    }
    if (takeFocus) this.input.select();
  }

  close(): void {
    this.bar.hidden = true;
    this.setWords(undefined);
    this.session.close();
    this.clearHighlight();
    this.options.closed();
  }

  step(step: 1 | -1): void {
    this.search(step);
  }

  private setWords(words: { query: string; also: string[] } | undefined): void {
    this.byWords = words;
    this.input.title = words ? t('Finds each word and "phrase", as Search Sessions does') : '';
  }

  /** What the query finds: each of its words (opened from Search Sessions), else undefined (the query as typed). */
  private words(): string[] | undefined {
    const byWords = this.byWords;
    if (!byWords) return undefined;
    const query = this.input.value;
    return queryWords(query === byWords.query ? `${query} ${byWords.also.map((w) => `"${w.replace(/"/g, ' ')}"`).join(' ')}` : query);
  }

  private search(step: 0 | 1 | -1, from = this.options.topIndex()): void {
    if (this.typing !== undefined) clearTimeout(this.typing);
    this.typing = undefined;
    const message = this.session.search(this.input.value, step, from, this.words());
    if (message) {
      this.options.post(message);
      return;
    }
    this.count.textContent = '';
    this.clearHighlight();
  }

  /** The host's answer to a `find`. */
  found(message: Found): void {
    if (this.bar.hidden) return;
    const shown = this.session.found(message);
    if (!shown) return;
    this.count.textContent = shown.count;
    this.bar.classList.toggle('no-results', shown.noResults);
    const match = shown.match;
    if (!match) return;
    this.options.reveal(match.index, (row) => {
      this.options.open(row);
      this.highlight(row, match.words ?? match.query, match.occurrence);
    });
  }

  /** A row's text was rendered anew, which collapses a highlight in it: put it back. */
  rendered(row: Row): void {
    const shown = this.shownHighlight;
    if (shown?.row === row) this.highlight(row, shown.query, shown.occurrence, false);
  }

  private clearHighlight(): void {
    this.shownHighlight = undefined;
    (CSS as unknown as { highlights?: Map<string, unknown> }).highlights?.delete(FIND_HIGHLIGHT);
  }

  /** Highlights the `occurrence`th match of `query` (or its words) in the row's text and brings it into view (unless `scroll` is false). */
  private highlight(row: Row, query: string | string[], occurrence: number, scroll = true): void {
    this.shownHighlight = { row, query, occurrence };
    const walker = document.createTreeWalker(row.el, NodeFilter.SHOW_TEXT);
    const nodes: Text[] = [];
    let text = '';
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      nodes.push(node as Text);
      text += (node as Text).data;
    }
    const span = matchSpan(text, query, occurrence);
    if (!span) {
      this.clearHighlight();
      return;
    }
    const [at, end] = span;
    const length = end - at;
    const range = document.createRange();
    let pos = 0;
    for (const node of nodes) {
      const end = pos + node.data.length;
      if (at >= pos && at < end) range.setStart(node, at - pos);
      if (at + length > pos && at + length <= end) {
        range.setEnd(node, at + length - pos);
        break;
      }
      pos = end;
    }
    const Highlight = (window as unknown as { Highlight?: new (r: Range) => unknown }).Highlight;
    const registry = (CSS as unknown as { highlights?: Map<string, unknown> }).highlights;
    if (Highlight && registry) registry.set(FIND_HIGHLIGHT, new Highlight(range));
    if (!scroll) return;
    const rect = range.getBoundingClientRect();
    this.options.scrollIntoView(rect.top, rect.bottom);
  }
}

function findButton(icon: string, label: string, action: string): HTMLElement {
  const b = element('button', 'icon-button');
  b.dataset.find = action;
  b.title = label;
  b.setAttribute('aria-label', label);
  b.append(codicon(icon));
  return b;
}
