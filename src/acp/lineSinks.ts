// The sinks of the line worker's reductions (lineWorker.ts LineSink) as the connection's reader
// waits for them: each by an id of its own, since a sink outlives its reduction (it ends after the
// hand-over, and the next replay of the same session may begin meanwhile), until the worker tells
// its end or the reader fails it (dropped without a worker, the worker stopped). Plain Node.

export class PendingSinks {
  private readonly pending = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  private nextId = 1;

  /** Called each time the last pending sink settled. */
  constructor(private readonly onNone: () => void) {}

  get size(): number {
    return this.pending.size;
  }

  /** A new sink: its id for the worker, and what settles with its end. */
  add(): { id: number; sunk: Promise<unknown> } {
    const id = this.nextId++;
    const sunk = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    return { id, sunk };
  }

  /** Sink `id` ended: with what it made, or `error`. A sink not pending (settled already) is ignored. */
  ended(id: number, result: unknown, error?: string): void {
    const sink = this.pending.get(id);
    if (!sink) return;
    this.pending.delete(id);
    if (error !== undefined) sink.reject(new Error(error));
    else sink.resolve(result);
    if (this.pending.size === 0) this.onNone();
  }

  /** Every pending sink fails (`why`). */
  failAll(why: string): void {
    for (const id of [...this.pending.keys()]) this.ended(id, undefined, why);
  }
}
