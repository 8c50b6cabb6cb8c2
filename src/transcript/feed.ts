// What the transcript panel posts to its webview, and when. The host keeps the timeline; the
// webview holds only the rows on screen plus a margin, and says which (`range`). After each
// `ready` it gets a snapshot: the number of rows and the rows where it starts (the top, a row
// it showed before, or the end). Then, one `update` per FLUSH_MS: the row count, the header,
// and the changes to the rows it holds. Kept apart from the panel (no `vscode`) so the
// benchmarks post exactly what the panel posts.
import type { Entity } from './model';
import { PatchCollector } from './patches';
import { WINDOW_ROWS, type HostToWebview, type Patch, type StartAt, type TranscriptHeader } from './protocol';

export { WINDOW_ROWS };

/** How long changes wait before they go to the webview: one message per frame at most. */
export const FLUSH_MS = 16;
/** The most rows one `range` may ask for: the webview holds a screen and a margin, never the session. */
export const MAX_RANGE_ROWS = 1000;

/** What the feed reads of the timeline. */
export interface FeedTimeline {
  readonly entities: readonly Entity[];
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
  /** The rows the webview holds: [start, end); `tail`: the last WINDOW_ROWS, whatever the count. */
  private held = { start: 0, end: 0, tail: false, size: WINDOW_ROWS };
  /** The row count the webview was last told. */
  private sentCount = 0;

  constructor(private readonly target: WebviewFeedTarget) {
    this.collector.onPending = () => {
      if (this.timer === undefined) this.timer = setTimeout(() => this.flush(), FLUSH_MS);
    };
  }

  /** Whether the webview has said `ready` since it was last discarded. */
  get ready(): boolean {
    return this.isReady;
  }

  /** The webview said `ready` (first load, shown again, reloaded): it starts over, where it asks. */
  setReady(start?: StartAt): void {
    this.isReady = true;
    this.startAt = start;
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
    const count = timeline.entities.length;
    let start = 0;
    const at = this.startAt;
    const tail = at?.end === true;
    if (tail) start = Math.max(0, count - WINDOW_ROWS);
    else if (at?.key) start = Math.max(0, timeline.indexOf(at.key) - (WINDOW_ROWS >> 1));
    this.held = { start, end: tail ? Infinity : start + WINDOW_ROWS, tail, size: WINDOW_ROWS };
    this.sentCount = count;
    this.target.post({ type: 'snapshot', header: this.target.header(), count, start, entities: timeline.entities.slice(start, Math.min(count, this.held.end)) });
  }

  /** The webview holds rows [start, end) from now on (or the last rows, following): it gets them. */
  range(start: number, end: number, tail: boolean): void {
    if (!this.isReady) return;
    // Changes so far go to the rows the webview held when they happened.
    this.flush();
    const entities = this.target.timeline().entities;
    const count = entities.length;
    const size = Math.min(MAX_RANGE_ROWS, Math.max(0, Math.floor(end) - Math.floor(start)) || WINDOW_ROWS);
    const from = tail ? Math.max(0, count - size) : Math.max(0, Math.min(Math.floor(start) || 0, count));
    this.held = { start: from, end: tail ? Infinity : from + size, tail, size };
    this.startAt = tail ? { end: true } : undefined;
    this.sentCount = count;
    this.target.post({ type: 'rows', count, start: from, entities: entities.slice(from, Math.min(count, this.held.end)) });
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
    if (changes.some((c) => c.op === 'remove')) {
      const { start, tail } = this.held;
      const key = this.target.timeline().entities[start]?.key;
      this.startAt = tail ? { end: true } : key ? { key } : undefined;
      this.snapshot();
      return;
    }
    const timeline = this.target.timeline();
    const count = timeline.entities.length;
    if (this.held.tail) this.held.start = Math.max(0, count - this.held.size);
    const { start, end } = this.held;
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
