// The webview's frame loop: messages from the host wait in a queue and are applied in animation
// frames, a bounded amount of script time per frame (a long `update` goes on in the next frame
// from where it stopped), and one frame at most is ever scheduled. No DOM: the frame request and
// the clock are passed in, so the loop is tested under Node.

export interface FrameLoopOptions {
  /** Runs `callback` before the next paint (`requestAnimationFrame` in the webview). */
  requestFrame(callback: () => void): void;
  /** The clock the budget is counted in (`performance.now()`). */
  now(): number;
  /** Script time per frame for applying messages; the rest waits for the next frame. */
  budgetMs: number;
}

export class FrameLoop<M> {
  /** Messages not yet applied; `queue[head]` may be partly applied (up to `cursor`). */
  private queue: M[] = [];
  private head = 0;
  private cursor = 0;
  private scheduled = false;

  constructor(private readonly options: FrameLoopOptions, private readonly frame: () => void) {}

  /** Queues a message for the next frame. */
  push(message: M): void {
    this.queue.push(message);
    this.schedule();
  }

  /** Asks for a frame, unless one is asked for already. */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.options.requestFrame(() => {
      this.scheduled = false;
      this.frame();
    });
  }

  /** Messages are waiting (the last frame's time ran out first). */
  get pending(): boolean {
    return this.head < this.queue.length;
  }

  /** The end of this frame's time for messages, from now. */
  deadline(): number {
    return this.options.now() + this.options.budgetMs;
  }

  /**
   * Applies queued messages in order until `deadline`. `apply` gets each message and where to
   * resume in it (0 the first time) and returns true when the message is done, or the position
   * to resume from in the next frame.
   */
  drain(deadline: number, apply: (message: M, from: number) => true | number): void {
    while (this.head < this.queue.length) {
      const result = apply(this.queue[this.head], this.cursor);
      if (result !== true) {
        this.cursor = result;
        break;
      }
      this.head++;
      this.cursor = 0;
      if (this.options.now() > deadline) break;
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
  }
}
