// The host's side of a file read in a worker (fileReduction.ts): the worker is started at once, so
// that its start overlaps what the tab waits for (the page), and asked to read when the tab is
// ready for the rows. A worker that cannot start or stops is told apart from a file that cannot be
// read: the first is read on the host's thread instead, the second is the file's problem.
// Plain Node, no `vscode`.
import { rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { SessionUpdate } from '../acp/types';
import type { FileReductionRequest, FromFileWorker, ToFileWorker } from './fileReduction';
import type { ReplayReadCounts } from './replayReader';
import type { ReducedReplay, ReductionProgress } from './replayReduction';

/** The worker could not start, or stopped before it was done: nothing of the file is wrong. */
export class FileWorkerStopped extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileWorkerStopped';
  }
}

export interface FileReduced {
  reduced: ReducedReplay;
  counts: ReplayReadCounts;
  toolCalls: SessionUpdate[];
}

/** One file's read in its own worker (`script`: the line worker's bundle). */
export class FileReducer {
  private worker: Worker | undefined;
  private stoppedBy: Error | undefined;
  private waiter: { resolve(done: FileReduced): void; reject(error: Error): void; onProgress(progress: ReductionProgress, toolCalls: SessionUpdate[]): void } | undefined;
  private request: FileReductionRequest | undefined;
  private settled = false;
  /** The reduced replay, its files included, is the caller's. */
  private handedOver = false;

  constructor(script: string) {
    let worker: Worker;
    try {
      worker = new Worker(script, { workerData: 'file' });
    } catch (error) {
      this.stoppedBy = error as Error;
      return;
    }
    this.worker = worker;
    worker.on('message', (message: FromFileWorker) => this.received(message));
    worker.on('messageerror', (error) => this.stopped(error));
    worker.on('error', (error) => this.stopped(error));
    worker.on('exit', (code) => this.stopped(new Error(`it exited with code ${code}`)));
  }

  /**
   * Reads the file as `request` says; `onProgress` hears how far it is. Resolves with the reduced
   * replay (its file, and `updatesTo`, are the caller's now); rejects with
   * {@link FileWorkerStopped} where the worker could not do it, or with the file's problem. Either
   * way, what the worker wrote is gone then.
   */
  read(request: FileReductionRequest, onProgress: (progress: ReductionProgress, toolCalls: SessionUpdate[]) => void): Promise<FileReduced> {
    this.request = request;
    return new Promise<FileReduced>((resolve, reject) => {
      if (!this.worker || this.stoppedBy) {
        this.settled = true;
        reject(new FileWorkerStopped(this.stoppedBy?.message ?? 'it was stopped'));
        return;
      }
      this.waiter = { resolve, reject, onProgress };
      this.worker.postMessage({ kind: 'read', request } satisfies ToFileWorker);
    });
  }

  /** Ends the worker (the tab closed, or it is done); a read under way is dropped with what it wrote. */
  stop(): void {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    this.fail(new FileWorkerStopped('it was stopped'));
    const paths = this.handedOver ? [] : [this.request?.spec.path, this.request?.updatesTo];
    void worker.terminate().finally(() => {
      for (const path of paths) if (path) rmSync(path, { force: true });
    });
  }

  private received(message: FromFileWorker): void {
    const waiter = this.waiter;
    if (!waiter || this.settled) return;
    switch (message.kind) {
      case 'progress':
        waiter.onProgress(message.progress, message.toolCalls);
        return;
      case 'done':
        this.settled = true;
        this.handedOver = true;
        waiter.resolve({ reduced: message.reduced, counts: message.counts, toolCalls: message.toolCalls });
        this.stop();
        return;
      case 'failed':
        this.fail(Object.assign(new Error(message.message), message.code ? { code: message.code } : {}));
        this.stop();
        return;
    }
  }

  private stopped(error: Error): void {
    this.stoppedBy ??= error;
    if (this.settled || !this.worker) return;
    this.fail(new FileWorkerStopped(error?.message ?? String(error)));
    this.stop();
  }

  private fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.waiter?.reject(error);
  }
}
