// Streamed text: what `append` patches add to built rows is joined per row and put in once per
// frame, at most what the last frame's rate says the browser shapes in TEXT_FRAME_MS (it shapes
// new text in the frame it arrives, at a cost per character that depends on the fonts and the
// machine: 3-4 µs with fallback fonts here). Rows whose text went in stay `dirty` (plain text,
// not Markdown yet) until the Markdown pass. No DOM: rows and the clock are passed in.

const TEXT_FRAME_MS = 32;
/**
 * The same while following the end of a replay: the text scrolls away with the next batch, and
 * what a frame does not put in stays in the model (traces: 50-110 ms frames at TEXT_FRAME_MS).
 */
const REPLAY_TEXT_FRAME_MS = 12;
export const MIN_FRAME_TEXT_CHARS = 2 * 1024;
export const MAX_FRAME_TEXT_CHARS = 96 * 1024;
const FIRST_FRAME_TEXT_CHARS = 8 * 1024;

export interface StreamedTextOptions<R> {
  /** Puts `text` at the end of the row's shown text. */
  appendText(row: R, text: string): void;
  /** The clock (`performance.now()`). */
  now(): number;
}

export class StreamedText<R> {
  /** Text appended to built rows, not put in yet: joined and put in once per frame. */
  private readonly pending = new Map<R, string[]>();
  /** Built rows whose body text is not yet Markdown; rendered when quiet. */
  readonly dirty = new Set<R>();
  /** Characters a frame may put in: set by the last frame's rate. */
  private frameChars = FIRST_FRAME_TEXT_CHARS;
  /** The appended text this frame put in, and when (its rate sets the next frame's `frameChars`). */
  private putThisFrame = { chars: 0, at: 0 };
  /** When text last went in: the Markdown pass waits for the stream to be quiet. */
  lastAppendAt = 0;

  constructor(private readonly options: StreamedTextOptions<R>) {}

  /** Text is waiting to go in. */
  get waiting(): boolean {
    return this.pending.size > 0;
  }

  /** The characters a frame may put in now (while not following a replay). */
  get frameBudget(): number {
    return this.frameChars;
  }

  add(row: R, text: string): void {
    const texts = this.pending.get(row);
    if (texts) texts.push(text);
    else this.pending.set(row, [text]);
  }

  /** The row was replaced by an entity that already holds the text appended before it. */
  replaced(row: R): void {
    this.pending.delete(row);
  }

  /** The row is no longer built: the text not put in yet, which stays in the model. */
  forget(row: R): string | undefined {
    this.dirty.delete(row);
    const texts = this.pending.get(row);
    this.pending.delete(row);
    return texts?.join('');
  }

  clear(): void {
    this.pending.clear();
    this.dirty.clear();
  }

  beginFrame(): void {
    this.putThisFrame = { chars: 0, at: 0 };
  }

  /**
   * Puts the waiting text into its rows, one append per row, at most the frame's budget (less
   * while following a replay); returns how many characters went in.
   */
  put(followingReplay: boolean): number {
    const at = this.options.now();
    const budget = followingReplay ? Math.round((this.frameChars * REPLAY_TEXT_FRAME_MS) / TEXT_FRAME_MS) : this.frameChars;
    let room = budget;
    for (const [row, texts] of this.pending) {
      let text = texts.length === 1 ? texts[0] : texts.join('');
      if (text.length > room) {
        // The rest waits for the next frame, ahead of any text that arrives meanwhile.
        texts.length = 0;
        texts.push(text.slice(room));
        text = text.slice(0, room);
      } else {
        this.pending.delete(row);
      }
      room -= text.length;
      this.options.appendText(row, text);
      this.dirty.add(row);
      if (room <= 0) break;
    }
    this.lastAppendAt = this.options.now();
    this.putThisFrame = { chars: budget - room, at };
    return budget - room;
  }

  /** After the frame's layout, which shaped the text put in: the next frame's budget from its rate, at most double. */
  endFrame(): void {
    const { chars, at } = this.putThisFrame;
    if (chars < this.frameChars / 2) return;
    const rate = chars / Math.max(1, this.options.now() - at);
    this.frameChars = Math.round(Math.min(MAX_FRAME_TEXT_CHARS, 2 * this.frameChars, Math.max(MIN_FRAME_TEXT_CHARS, rate * TEXT_FRAME_MS)));
  }
}
