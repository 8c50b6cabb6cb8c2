// A replay reduced where the agent's lines are parsed: in the line worker (lineWorkerMain.ts), off
// the extension host's thread. The worker applies each of the session's updates to a Timeline
// whose rows go to a spill file, as a transcript's do on the host; when the load has answered, it
// writes what it still holds and hands the file, the rows' index and the timeline's maps over
// ({@link ReducedReplay}: typed arrays transferred, not copied), and the host goes on from there
// ({@link adoptReduced}). The host never holds the replay's text: it reads rows from the file as
// they are shown, found, exported or indexed. Plain Node, no `vscode`.
import { rmSync } from 'node:fs';
import type { LineReducer } from '../acp/lineWorker';
import type { SessionUpdate } from '../acp/types';
import { EntityStore, type StoreImage } from './entityStore';
import { PromptTimes } from './prompts';
import { SpillFile } from './spillFile';
import { Timeline, type TimelineImage, type TimelineListener } from './timeline';
import { UpdateLog, type Unkept, type UpdateLogImage } from './updateLog';

/**
 * Where a reduction keeps its rows: a new spill file at `path` (none: the worker's heap), named by
 * the host ({@link reductionSpec}) so that it can remove the file when the worker cannot.
 */
export interface ReductionSpec {
  path?: string;
  /**
   * Where the reduction keeps the replay's updates as a tab's update log does (the agent's lines,
   * for Export Sessions…), handed over with the rows ({@link ReducedReplay.updates}): none of them
   * passes the host's log then. A file that cannot be made keeps them on the worker's heap.
   */
  updatesPath?: string;
  /**
   * The host applies the updates too while the reduction has fewer rows than this (a transcript's
   * first screen, shown as it comes); after that only the worker does. None: no preview.
   */
  previewRows?: number;
  /**
   * After the preview, at most this often (ms) the worker tells how far it is ({@link ReductionProgress}):
   * the host shows the rows from its file as they come. None: only at the end.
   */
  progressMs?: number;
}

/**
 * How far a reduction is, after the preview: its rows so far (in its file, read elsewhere), which
 * of them were written since the last, the session's state, and what the header lists (its
 * compactions and subagents so far, by key number).
 */
export interface ReductionProgress extends Pick<TimelineImage, 'compactions' | 'subagents'> {
  rows: StoreImage;
  changed: number[];
  state: TimelineImage['state'];
  updateCount: number;
  created: number;
}

/**
 * A reduction's spec with a new file in `dir` (none: the rows stay on the worker's heap); with
 * `keepUpdates`, a second one for its update log (see ReductionSpec.updatesPath).
 */
export function reductionSpec(dir: string | undefined, tag: string, keepUpdates = false): ReductionSpec {
  if (!dir) return {};
  return keepUpdates ? { path: SpillFile.newPath(dir, tag), updatesPath: SpillFile.newPath(dir, 'updates') } : { path: SpillFile.newPath(dir, tag) };
}

/** Removes a reduction's file after its load failed (the worker stopped, or dropped it): nothing is left behind. */
export function discardReduction(spec: ReductionSpec): void {
  for (const path of [spec.path, spec.updatesPath]) if (path) rmSync(path, { force: true });
}

/** A reduced replay as the worker hands it over. */
export interface ReducedReplay {
  timeline: TimelineImage;
  rows: StoreImage;
  /** The prompts' times the replay's updates told, by row key (PromptTimes). */
  times: [string, number][];
  /** Every update was in the preview: the host's preview is this very timeline (its file is not needed). */
  previewWhole: boolean;
  /** Why the rows were kept on the worker's heap, not in a file (it could not be made), for the log. */
  fileProblem?: string;
  /** The replay's update log, where the spec asked for one ({@link UpdateLog.adopt}). */
  updates?: UpdateLogImage;
}

/** The worker's side: one session's replay into a Timeline over a spill file. */
export class ReplayReduction implements LineReducer {
  private readonly timeline: Timeline;
  private readonly times = new PromptTimes();
  private fileProblem: string | undefined;
  /** Rows below which updates are in the preview, until the first that is not (0: none). */
  private previewRows: number;
  private previewWhole = true;
  private readonly progressMs: number | undefined;
  private lastProgress = 0;
  /** Updates applied since the progress was last told. */
  private sinceProgress = 0;
  /** The replay's updates, kept as a tab's log (see ReductionSpec.updatesPath). */
  private readonly log: UpdateLog | undefined;
  /** What the log could not keep, one entry per reason (see Unkept). */
  private readonly unkept = new Map<string, Unkept>();

  constructor(spec: ReductionSpec) {
    this.previewRows = spec.previewRows ?? 0;
    if (this.previewRows <= 0) this.previewWhole = false;
    this.progressMs = spec.progressMs;
    let file: SpillFile | undefined;
    if (spec.path) {
      try {
        file = SpillFile.createAt(spec.path);
      } catch (error) {
        this.fileProblem = `no file at ${spec.path} (${(error as Error)?.message ?? error})`;
      }
    }
    this.timeline = new Timeline(undefined, new EntityStore(file));
    if (this.progressMs !== undefined) this.timeline.rows.trackChanges();
    if (spec.updatesPath) {
      let logFile: SpillFile | undefined;
      try {
        logFile = SpillFile.createAt(spec.updatesPath);
      } catch {
        // Kept on this heap, and handed over so.
      }
      this.log = new UpdateLog(logFile, (unkept) => {
        const seen = this.unkept.get(unkept.reason);
        if (seen) seen.count += unkept.count;
        else this.unkept.set(unkept.reason, { ...unkept });
      });
    }
  }

  apply(update: SessionUpdate, count: number, line?: Uint8Array): boolean {
    this.log?.push(update, line, count);
    // The preview ends for good at its first update past the bound (a later row count below it, after a plan left, does not bring it back).
    const preview = this.previewWhole && this.timeline.rows.length < this.previewRows;
    if (!preview) this.previewWhole = false;
    this.timeline.apply(update, count);
    this.times.note(update, this.timeline.rows, false, 0);
    if (!preview) this.sinceProgress++;
    return preview;
  }

  /** How far it is, when that is due to be told (after the preview, once per `progressMs`, if anything came). */
  progress(now = false): { result: ReductionProgress; transfer: ArrayBuffer[] } | undefined {
    if (this.progressMs === undefined || this.previewWhole || this.sinceProgress === 0) return undefined;
    if (!now && performance.now() - this.lastProgress < this.progressMs) return undefined;
    const snapshot = this.timeline.rows.snapshot();
    if (!snapshot) return undefined;
    this.lastProgress = performance.now();
    this.sinceProgress = 0;
    const { image: rows, changed } = snapshot;
    const result: ReductionProgress = { rows, changed, state: this.timeline.state, updateCount: this.timeline.updateCount, created: this.timeline.created, ...this.timeline.listed() };
    return { result, transfer: [rows.keyNumbers.buffer, rows.kinds.buffer, rows.offsets.buffer, rows.lengths.buffer] as ArrayBuffer[] };
  }

  progressDueIn(): number | undefined {
    if (this.progressMs === undefined || this.previewWhole || this.sinceProgress === 0) return undefined;
    return Math.max(0, this.progressMs - (performance.now() - this.lastProgress));
  }

  finish(): { result: ReducedReplay; transfer: ArrayBuffer[] } {
    const times = [...this.times.times];
    const timeline = this.timeline.image();
    const rows = this.timeline.rows.image();
    const result: ReducedReplay = { timeline, rows, times, previewWhole: this.previewWhole };
    if (this.fileProblem) result.fileProblem = this.fileProblem;
    if (this.log) result.updates = this.log.release([...this.unkept.values()]);
    return { result, transfer: [rows.keyNumbers.buffer, rows.kinds.buffer, rows.offsets.buffer, rows.lengths.buffer] as ArrayBuffer[] };
  }

  dispose(): void {
    this.timeline.rows.dispose();
    this.log?.dispose();
  }
}

/**
 * The host's side: the timeline a reduction handed over, its rows read from the worker's file
 * (adopted: appended to by live updates, removed on dispose). A file that cannot be opened fails
 * here, with the file removed; the caller says so.
 */
export function adoptReduced(reduced: ReducedReplay, listener?: TimelineListener): Timeline {
  const image = reduced.rows;
  let file: SpillFile | undefined;
  if (image.file) file = SpillFile.adopt(image.file.path, image.file.size);
  return Timeline.fromImage(reduced.timeline, listener, EntityStore.fromImage(image, file));
}
