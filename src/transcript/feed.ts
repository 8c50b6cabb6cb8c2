// What the transcript panel posts to its webview, and when: a snapshot after each `ready`,
// then the timeline's changes batched into one `update` per FLUSH_MS. Kept apart from the
// panel (no `vscode`) so the benchmarks post exactly what the panel posts.
import type { Entity } from './model';
import { PatchCollector } from './patches';
import type { HostToWebview, TranscriptHeader } from './protocol';

/** How long changes wait before they go to the webview: one message per frame at most. */
export const FLUSH_MS = 16;

export interface WebviewFeedTarget {
  post(message: HostToWebview): void;
  /** The header as it is now. */
  header(): TranscriptHeader;
  /** The timeline's entities as they are now (for snapshots). */
  entities(): Entity[];
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

  constructor(private readonly target: WebviewFeedTarget) {
    this.collector.onPending = () => {
      if (this.timer === undefined) this.timer = setTimeout(() => this.flush(), FLUSH_MS);
    };
  }

  /** Whether the webview has said `ready` since it was last discarded. */
  get ready(): boolean {
    return this.isReady;
  }

  /** The webview said `ready` (first load, shown again, reloaded): it gets everything. */
  setReady(): void {
    this.isReady = true;
    this.snapshot();
  }

  /** The webview was discarded (hidden): nothing is sent until the next `ready`. */
  setNotReady(): void {
    this.isReady = false;
  }

  /** Sends everything (when ready) and forgets pending changes, which it carries. */
  snapshot(): void {
    this.collector.clear();
    if (this.isReady) this.target.post({ type: 'snapshot', header: this.target.header(), entities: this.target.entities() });
  }

  /** Sends the pending changes now (when ready; otherwise forgets them: the next snapshot carries them). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.isReady) {
      this.collector.clear();
      return;
    }
    const { patches, stateChanged } = this.collector.drain();
    const loading = this.target.loading();
    if (!patches.length && !stateChanged && !loading) return;
    this.target.post({ type: 'update', patches, header: stateChanged || loading ? this.target.header() : undefined });
    this.target.flushed?.();
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
