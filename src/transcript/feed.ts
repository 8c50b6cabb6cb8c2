// What the transcript panel posts to its webview, and when. The host keeps the timeline; the
// webview holds only the rows on screen plus a margin, and says which (`range`). After each
// `ready` it gets a snapshot: the number of rows and the rows where it starts (the top, a row
// it showed before, or the end): as many as cover its viewport and a margin, by an estimate of
// their height, the margin bounded in characters. Then, one `update` per FLUSH_MS (LOADING_FLUSH_MS
// while replaying): the row count, the header, and the changes to the rows it holds. Kept apart
// from the panel (no `vscode`) so the benchmarks post exactly what the panel posts.
import { keyOfRow, type EntityRows } from './rows';
import { entityChars, type Entity } from './model';
import { PatchCollector } from './patches';
import { MARGIN_SCREENS, type HostToWebview, type Patch, type StartAt, type TranscriptHeader, type Viewport } from './protocol';

/** How long changes wait before they go to the webview: one message per frame at most. */
export const FLUSH_MS = 16;
/**
 * While the history is replayed, changes wait this long: the webview shows the replay's progress
 * ten times a second instead of laying out every row that scrolls past the end, and the CPU goes
 * to the replay itself, which is what the reader waits for.
 */
export const LOADING_FLUSH_MS = 100;
/** The most rows one reply carries: the webview holds a screen and a margin, never the session. */
export const MAX_RANGE_ROWS = 1000;
/** Characters of rows in each margin at most: a row can be a 200 KB message, sent when it is needed, not as a margin. */
export const MARGIN_MAX_CHARS = 32 * 1024;
/** The viewport assumed until the webview says its own. */
export const DEFAULT_VIEWPORT: Viewport = { width: 800, height: 1000 };
// A row's height, under-estimated on purpose (narrow characters, no blank lines): a reply then
// carries a few rows too many rather than too few to fill the screen.
const ROW_PX = 28;
const LINE_PX = 18;
const CHAR_PX = 6;
const ROW_PADDING_PX = 48;

/** The height a row will at least take in a view `width` pixels wide (its head; its text when shown open). */
export function estimatedRowPx(entity: Entity, width: number): number {
  const perLine = Math.max(20, Math.floor((width - ROW_PADDING_PX) / CHAR_PX));
  let lines = 0;
  if (entity.kind === 'user_message' || entity.kind === 'agent_message' || entity.kind === 'session_message') {
    for (const part of entity.parts) lines += part.type === 'text' ? Math.ceil(part.text.length / perLine) : 1;
  } else if (entity.kind === 'plan') {
    lines = entity.entries.length;
  }
  return ROW_PX + lines * LINE_PX;
}

/**
 * The rows to send around the rows [from, to) that the webview needs: those, then rows further
 * on each side (only above for `tail`) while they cover less than MARGIN_SCREENS screens and
 * MARGIN_MAX_CHARS characters. [from, to) is widened first until it covers a screen (a
 * snapshot, which has no rows from the webview's estimate: `to` = `from` + 1, or `from` =
 * `to` - 1 from the end).
 */
export function rowsAround(entities: EntityRows, from: number, to: number, viewport: Viewport, upward: boolean): { start: number; end: number } {
  const count = entities.length;
  let start = Math.max(0, Math.min(from, count));
  let end = Math.max(start, Math.min(to, count, start + MAX_RANGE_ROWS));
  const screen = Math.max(100, viewport.height);
  const width = Math.max(200, viewport.width);
  let px = 0;
  for (let i = start; i < end; i++) px += estimatedRowPx(entities.at(i)!, width);
  // A screen at least: downward from the first row, or upward from the last (following the end).
  while (px < screen && end - start < MAX_RANGE_ROWS && (upward ? start > 0 : end < count)) {
    px += estimatedRowPx(entities.at(upward ? --start : end++)!, width);
  }
  const margin = (step: -1 | 1): void => {
    let marginPx = 0;
    let chars = 0;
    while (marginPx < screen * MARGIN_SCREENS && end - start < MAX_RANGE_ROWS) {
      const i = step < 0 ? start - 1 : end;
      if (i < 0 || i >= count) return;
      const entity = entities.at(i)!;
      chars += entityChars(entity);
      if (chars > MARGIN_MAX_CHARS) return;
      marginPx += estimatedRowPx(entity, width);
      if (step < 0) start--;
      else end++;
    }
  };
  if (!upward) margin(1);
  margin(-1);
  return { start, end };
}

/** What the feed reads of the timeline: its rows (read as they are sent) and where a key stands. */
export interface FeedTimeline {
  readonly rows: EntityRows;
  indexOf(key: string): number;
}

export interface WebviewFeedTarget {
  post(message: HostToWebview): void;
  /** The header as it is now. */
  header(): TranscriptHeader;
  /** The timeline as it is now. */
  timeline(): FeedTimeline;
  /** While replaying, the header (its progress) goes with every batch. */
  loading(): boolean;
  /** Called after an `update` was posted. */
  flushed?(): void;
}

export class WebviewFeed {
  /** The timeline's listener: hand it to `new Timeline(feed.collector)`. */
  readonly collector = new PatchCollector();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private isReady = false;
  private startAt: StartAt | undefined;
  /** The rows the webview holds: [start, end); `tail`: the last `size`, whatever the count. */
  private heldRows = { start: 0, end: 0, tail: false, size: 0 };
  private viewport: Viewport = DEFAULT_VIEWPORT;
  /** The row count the webview was last told. */
  private sentCount = 0;

  constructor(private readonly target: WebviewFeedTarget) {
    this.collector.onPending = () => {
      if (this.timer !== undefined) return;
      // Until the screen is filled (the rows held still reach the end), the first rows go at once.
      const filling = !this.heldRows.tail && this.heldRows.end >= this.sentCount;
      this.timer = setTimeout(() => this.flush(), this.target.loading() && !filling ? LOADING_FLUSH_MS : FLUSH_MS);
    };
  }

  /** The rows the webview holds (see `range`): [start, end), or with `tail` the last `size`. */
  get held(): { readonly start: number; readonly end: number; readonly tail: boolean; readonly size: number } {
    return this.heldRows;
  }

  /** Whether the webview has said `ready` since it was last discarded. */
  get ready(): boolean {
    return this.isReady;
  }

  /** The webview said `ready` (first load, shown again, reloaded): it starts over, where it asks. */
  setReady(start?: StartAt, viewport?: Viewport): void {
    this.isReady = true;
    this.startAt = start;
    this.setViewport(viewport);
    this.snapshot();
  }

  /** The webview was discarded (hidden): nothing is sent until the next `ready`. */
  setNotReady(): void {
    this.isReady = false;
  }

  /** Starts the webview over (when ready) and forgets pending changes, which it carries. */
  snapshot(): void {
    this.collector.clear();
    if (!this.isReady) return;
    const timeline = this.target.timeline();
    const count = timeline.rows.length;
    const at = this.startAt;
    const tail = at?.end === true;
    const index = tail ? count - 1 : at?.key ? Math.max(0, timeline.indexOf(at.key)) : 0;
    const rows = this.hold(timeline.rows, index, index + 1, tail);
    // Said, so that a webview following the end need not ask for the tail again; an empty tail
    // holds nothing to follow, and the webview asks for rows once there are some.
    const fromTail = tail && rows.entities.length > 0 ? { tail: true } : {};
    this.target.post({ type: 'snapshot', header: this.target.header(), count, ...rows, ...fromTail });
  }

  /**
   * Starts the webview over where it is: at the end when it follows the end, else at the first
   * row it held. After a row left the middle, or when the timeline was replaced by one with the
   * same keys (a replay the line worker reduced, handed over).
   */
  restart(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const { start, tail } = this.heldRows;
    const key = keyOfRow(this.target.timeline().rows, start);
    this.startAt = tail ? { end: true } : key ? { key } : undefined;
    this.snapshot();
  }

  /**
   * The webview needs rows [start, end) (or the last `end - start`, following new ones): it gets
   * them and a margin, and holds those from now on.
   */
  range(start: number, end: number, tail: boolean, viewport?: Viewport): void {
    if (!this.isReady) return;
    this.setViewport(viewport);
    // Changes so far go to the rows the webview held when they happened.
    this.flush();
    const entities = this.target.timeline().rows;
    const count = entities.length;
    const size = Math.min(MAX_RANGE_ROWS, Math.max(1, Math.floor(end) - Math.floor(start) || 1));
    const from = tail ? Math.max(0, count - size) : Math.max(0, Math.min(Math.floor(start) || 0, count));
    this.startAt = tail ? { end: true } : undefined;
    this.target.post({ type: 'rows', count, ...this.hold(entities, from, from + size, tail) });
  }

  /** Chooses the rows around [from, to) to send, and remembers them as held. */
  private hold(entities: EntityRows, from: number, to: number, tail: boolean): { start: number; entities: Entity[] } {
    const count = entities.length;
    const { start, end } = rowsAround(entities, from, to, this.viewport, tail);
    this.heldRows = { start, end: tail ? Infinity : end, tail, size: end - start };
    this.sentCount = count;
    const rows: Entity[] = [];
    for (let i = start; i < end; i++) rows.push(entities.at(i)!);
    return { start, entities: rows };
  }

  /** Untrusted (from the webview): kept only when both sides are positive numbers. */
  private setViewport(viewport: Viewport | undefined): void {
    const ok = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n > 0;
    if (viewport && ok(viewport.width) && ok(viewport.height)) this.viewport = { width: Math.min(viewport.width, 10000), height: Math.min(viewport.height, 10000) };
  }

  /** Sends the pending changes now (when ready; otherwise forgets them: the next snapshot carries them). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.isReady) {
      this.collector.clear();
      return;
    }
    const { patches: changes, stateChanged } = this.collector.drain();
    // A row left the middle (a removed plan): the rows after it moved up, so the webview
    // starts over where it was. Rare; everything else only ever adds rows at the end.
    if (changes.some((c) => c.op === 'remove')) return this.restart();
    const timeline = this.target.timeline();
    const count = timeline.rows.length;
    if (this.heldRows.tail) this.heldRows.start = Math.max(0, count - this.heldRows.size);
    else if (count > this.sentCount && this.heldRows.end >= this.sentCount) {
      // The rows held reached the end (a session shown while it is replayed or streamed): new
      // rows join them while they are on screen or in the margin.
      this.heldRows.end = rowsAround(timeline.rows, this.heldRows.start, this.heldRows.end, this.viewport, false).end;
    }
    const { start, end } = this.heldRows;
    const patches: Patch[] = [];
    for (const change of changes) {
      if (change.op === 'upsert') {
        const index = timeline.indexOf(change.entity.key);
        if (index >= start && index < end) patches.push({ op: 'upsert', entity: change.entity, index });
      } else if (change.op === 'append') {
        const index = timeline.indexOf(change.key);
        if (index >= start && index < end) patches.push(change);
      }
    }
    const loading = this.target.loading();
    if (!patches.length && !stateChanged && !loading && count === this.sentCount) return;
    this.sentCount = count;
    this.target.post({ type: 'update', count, patches, header: stateChanged || loading ? this.target.header() : undefined });
    this.target.flushed?.();
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
