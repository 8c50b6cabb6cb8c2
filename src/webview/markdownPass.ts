// Markdown once quiet: streamed rows show plain text while text arrives, and are rendered as
// Markdown once the stream has been quiet for QUIET_MS, the rows on screen only, a bounded
// amount per frame. `document.body.dataset.markdown` says whether a pass is still to come
// (rows change height then): what a UI test waits for.
import { bodyOf } from '../transcript/model';
import { isOpen, renderBodyMarkdown, type Row } from './rows';

/** How long the stream must be quiet before streamed text is re-rendered as Markdown. */
export const QUIET_MS = 200;
/**
 * Bodies longer than this stay plain text: Markdown is rendered in one task, and a body of
 * hundreds of thousands of characters would hold the frame for longer than a reader notices.
 */
export const MARKDOWN_MAX_CHARS = 64 * 1024;
/** Script time per frame for rendering streamed rows as Markdown once quiet. */
const MARKDOWN_FRAME_MS = 8;

export interface MarkdownPassOptions {
  /** Rows whose text is not Markdown yet (StreamedText's). */
  dirty: Set<Row>;
  /** When text last went in. */
  lastAppendAt(): number;
  /** Messages or streamed text are waiting to go in: the stream is not quiet, whatever `lastAppendAt` says. */
  waiting(): boolean;
  now(): number;
  requestFrame(callback: () => void): void;
  /** The built rows, in order. */
  rows(): Iterable<Row>;
  /** Characters a frame may lay out anew (the text the layout shapes again). */
  frameChars: number;
  /** A row's text nodes were replaced (a find highlight in them collapsed). */
  rendered(row: Row): void;
  /** Runs `change` keeping the row at the top of the view where it stands; relayout when it returns true. */
  keepingPlace(change: () => boolean): void;
  /** Whether a pass is still to come: 'pending' or 'done'. */
  signal(state: 'pending' | 'done'): void;
  /** Whether the Markdown renderer has loaded (markdownLoader.ts). */
  ready(): boolean;
  /** Loads it (once); false if it cannot be loaded, and the rows stay plain text. */
  load(): Promise<boolean>;
}

export class MarkdownPass {
  private quietTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: MarkdownPassOptions) {}

  /** Renders the dirty rows once the stream has been quiet for `delay` ms (and QUIET_MS since the last text). */
  schedule(delay = QUIET_MS): void {
    if (!this.options.dirty.size) return;
    this.options.signal('pending');
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      const wait = this.untilQuiet();
      if (wait > 0) return this.schedule(wait);
      if (this.options.ready()) return this.options.requestFrame(() => this.renderDirty());
      // The first pass loads the renderer: the first screen did without it.
      void this.options.load().then((loaded) => {
        if (!loaded) return this.quietTimer === undefined && this.options.signal('done');
        this.options.requestFrame(() => this.renderDirty());
      });
    }, delay);
  }

  /** How long the stream must still be quiet before a pass (0: now). */
  private untilQuiet(): number {
    if (this.options.waiting()) return QUIET_MS;
    return Math.max(0, QUIET_MS - (this.options.now() - this.options.lastAppendAt()));
  }

  private renderDirty(): void {
    const { dirty, now } = this.options;
    // Checked again in the frame, and in each frame a pass goes on in: text that came since
    // would have the pass render the rows it streams into as Markdown, frame after frame, each
    // time laying out all their text again (traces: 100-330 ms frames while a summary streams).
    const wait = this.untilQuiet();
    if (wait > 0) return this.schedule(wait);
    const started = now();
    let more = false;
    this.options.keepingPlace(() => {
      let any = false;
      let room = this.options.frameChars;
      for (const row of this.options.rows()) {
        if (!dirty.has(row) || !isOpen(row)) continue;
        let chars = 0;
        for (const part of bodyOf(row.entity) ?? []) if (part.type === 'text') chars += part.text.length;
        if (chars > MARKDOWN_MAX_CHARS) {
          dirty.delete(row);
          continue;
        }
        renderBodyMarkdown(row);
        dirty.delete(row);
        this.options.rendered(row);
        any = true;
        room -= chars;
        // Keep frames short (script, and the text the layout shapes again): continue in the next frame.
        if (now() - started > MARKDOWN_FRAME_MS || room <= 0) {
          this.options.requestFrame(() => this.renderDirty());
          more = true;
          break;
        }
      }
      // Rendered rows changed height: measure them, keeping the view where it was.
      return any;
    });
    if (!more && this.quietTimer === undefined) this.options.signal('done');
  }
}
