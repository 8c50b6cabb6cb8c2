// Turns a session's records, fed in batches as a replay comes, into the index's encoded blocks:
// in a worker thread when one runs (the extension host's thread then only hands the text over, in
// slices), else on this thread a block at a time with a yield to the event loop between blocks.
// Plain Node (no `vscode`).
import { Worker } from 'node:worker_threads';
import { BlockPacker, encodeBlock, type EncodedBlock, type IndexRecord } from './blocks';
import type { FromWorker, ToWorker } from './indexWorker';

export interface SessionEncoder {
  /** Takes records in timeline order (resolves once they are handed over). */
  add(records: readonly IndexRecord[]): Promise<void>;
  /** Every block of what was added. */
  end(): Promise<EncodedBlock[]>;
  /** Drops what was added. */
  abort(): void;
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Characters handed to the worker per message: about a millisecond of copying. */
const POST_CHARS = 256 * 1024;

/** On this thread, a block at a time. */
export class InlineEncoder implements SessionEncoder {
  private readonly packer = new BlockPacker();
  private readonly blocks: EncodedBlock[] = [];
  private aborted = false;

  async add(records: readonly IndexRecord[]): Promise<void> {
    for (const record of records) {
      for (const block of this.packer.add(record)) {
        if (this.aborted) return;
        this.blocks.push(encodeBlock(block));
        await yieldNow();
      }
    }
  }

  async end(): Promise<EncodedBlock[]> {
    for (const block of this.packer.finish()) this.blocks.push(encodeBlock(block));
    return this.blocks;
  }

  abort(): void {
    this.aborted = true;
  }
}

interface Pending {
  blocks: EncodedBlock[];
  done?: { resolve(blocks: EncodedBlock[]): void; reject(error: Error): void };
  error?: Error;
}

/** One worker thread shared by every session being indexed; started on first use. */
export class EncoderWorker {
  private started: Promise<Worker | undefined> | undefined;
  private worker: Worker | undefined;
  private broken: Error | undefined;
  private nextId = 1;
  private readonly sessions = new Map<number, Pending>();

  constructor(private readonly script: string, private readonly log?: { warn(message: string): void }) {}

  /** A session's encoder: on the worker once it runs, inline if it cannot start. */
  encoder(): SessionEncoder {
    let target: Promise<SessionEncoder> | undefined;
    const resolve = () => (target ??= this.start().then((worker) => (worker ? this.remote(worker) : new InlineEncoder())));
    let aborted = false;
    return {
      add: async (records) => (await resolve()).add(records),
      end: async () => (await resolve()).end(),
      abort: () => {
        if (aborted) return;
        aborted = true;
        void target?.then((e) => e.abort());
      },
    };
  }

  async dispose(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.broken ??= new Error('the search index was closed');
    this.failAll(this.broken);
    await worker?.terminate();
  }

  private remote(worker: Worker): SessionEncoder {
    const id = this.nextId++;
    const pending: Pending = { blocks: [] };
    this.sessions.set(id, pending);
    // Kept alive while it holds a session's work; idle, it keeps no process alive.
    worker.ref();
    const post = (message: ToWorker) => {
      if (pending.error) throw pending.error;
      worker.postMessage(message);
    };
    return {
      add: async (records) => {
        let batch: IndexRecord[] = [];
        let chars = 0;
        for (const record of records) {
          batch.push(record);
          chars += record.text.length;
          if (chars >= POST_CHARS) {
            post({ kind: 'add', id, records: batch });
            batch = [];
            chars = 0;
            await yieldNow();
          }
        }
        if (batch.length) post({ kind: 'add', id, records: batch });
      },
      end: () =>
        new Promise<EncodedBlock[]>((resolve, reject) => {
          pending.done = { resolve, reject };
          try {
            post({ kind: 'end', id });
          } catch (error) {
            reject(error as Error);
          }
        }),
      abort: () => {
        this.forget(id);
        if (!pending.error && this.worker === worker) worker.postMessage({ kind: 'abort', id } satisfies ToWorker);
      },
    };
  }

  /** The worker, once it runs; undefined if it cannot (then sessions are encoded inline). */
  private start(): Promise<Worker | undefined> {
    if (this.broken) return Promise.resolve(undefined);
    return (this.started ??= new Promise((resolve) => {
      try {
        const worker = new Worker(this.script);
        worker.unref();
        // Its first message says its code has loaded (`online` comes before that, even for a missing file).
        worker.on('message', (message: FromWorker) => (message.kind === 'ready' ? resolve(worker) : this.received(message)));
        worker.on('error', (error) => {
          this.fail(error);
          resolve(undefined);
        });
        worker.on('exit', (code) => {
          this.fail(new Error(`it exited with code ${code}`));
          resolve(undefined);
        });
        this.worker = worker;
      } catch (error) {
        this.fail(error as Error);
        resolve(undefined);
      }
    }));
  }

  private received(message: Exclude<FromWorker, { kind: 'ready' }>): void {
    const pending = this.sessions.get(message.id);
    if (!pending) return;
    if (message.kind === 'error') {
      this.forget(message.id);
      pending.error = new Error(message.message);
      pending.done?.reject(pending.error);
      return;
    }
    pending.blocks.push(...message.blocks);
    if (message.kind === 'done') {
      this.forget(message.id);
      pending.done?.resolve(pending.blocks);
    }
  }

  private forget(id: number): void {
    this.sessions.delete(id);
    if (this.sessions.size === 0) this.worker?.unref();
  }

  /** The worker is gone: the sessions it held fail (indexed again later), later ones are encoded inline. */
  private fail(error: Error): void {
    if (this.broken) return;
    this.broken = error;
    this.worker = undefined;
    this.log?.warn(`Search index: its worker stopped (${error.message}); indexing continues on the extension host's thread.`);
    this.failAll(error);
  }

  private failAll(error: Error): void {
    for (const pending of this.sessions.values()) {
      pending.error = error;
      pending.done?.reject(error);
    }
    this.sessions.clear();
  }
}
