// What a load that is only read (the search survey's) makes of a replay, in one place for every
// bundle: the timeline the line worker reduced, taken over, or one reduced here where the worker
// does not run. dist/search.js takes it from dist/transcripts.js (ui/transcripts/bundle.ts), so
// the reducer has one copy on the extension host's side, and one in the line worker.
import type { Entity } from './model';
import { EntityStore } from './entityStore';
import { adoptReduced, discardReduction, reductionSpec, type ReducedReplay, type ReductionSpec } from './replayReduction';
import { SpillFile } from './spillFile';
import { Timeline } from './timeline';

/** A replay's rows, read a batch at a time, then let go (the file goes with them). */
export interface ReplayRows {
  batches(): AsyncIterable<readonly Entity[]>;
  dispose(): void;
}

export interface ReplayTimelines {
  /** The spec of a reduction in the line worker, its file new in `dir` (see AcpClient.loadSession's `reduce`). */
  spec(dir: string | undefined, tag: string): ReductionSpec;
  /** Removes what a reduction of a failed load began. */
  discard(spec: ReductionSpec): void;
  /** The rows the worker handed over (`reduced`, the load's result), and why they are not in a file, if they are not. */
  adopt(reduced: unknown): { rows: ReplayRows; fileProblem?: string };
  /**
   * A timeline reduced here, its rows in a new file in `dir`, or on the heap where there is none
   * or it cannot be made (`fileProblem` says why).
   */
  onHost(dir: string | undefined, tag: string, fileProblem: (why: string) => void): { apply(update: unknown, count: number): void; rows: ReplayRows };
}

export const replayTimelines: ReplayTimelines = {
  spec: reductionSpec,
  discard: discardReduction,
  adopt(reduced) {
    const { fileProblem } = reduced as ReducedReplay;
    return { rows: adoptReduced(reduced as ReducedReplay).rows, ...(fileProblem ? { fileProblem } : {}) };
  },
  onHost(dir, tag, fileProblem) {
    let file: SpillFile | undefined;
    if (dir) {
      try {
        file = SpillFile.create(dir, tag);
      } catch (error) {
        fileProblem(`no file in ${dir} (${(error as Error)?.message ?? error})`);
      }
    }
    return new Timeline(undefined, new EntityStore(file));
  },
};
