// An exported replay or a kept copy read and reduced in a worker (the line worker's bundle, started
// for the one file: lineWorkerMain.ts), off the extension host's thread: the file is opened again
// there by its path, checked line by line as the host checks it (replayReader.ts, keptFile.ts),
// and applied to a Timeline whose rows go to a spill file, as an agent's replay is
// (replayReduction.ts). The host gets how far it is, the tool calls its header's changes need, and
// at the end the reduced replay to take over (fileReducer.ts). Plain Node, no `vscode`.
import { promises as fs } from 'node:fs';
import type { MessagePort } from 'node:worker_threads';
import type { SessionUpdate } from '../acp/types';
import { openKept } from '../keep/keptFile';
import { replayUpdateLine } from './replayFile';
import { openReplay, type OpenedReplay, type ReplayReadCounts } from './replayReader';
import { ReplayReduction, type ReducedReplay, type ReductionProgress, type ReductionSpec } from './replayReduction';

/** What the host asks the worker to read: the file it opened (and checked the header of), by path. */
export interface FileReductionRequest {
  kind: 'export' | 'kept';
  path: string;
  /** The session the host read in the file's header: a file that holds another one now is refused. */
  agentName: string;
  sessionId: string;
  maxFileBytes: number;
  maxLineBytes: number;
  /** Where the rows go, and how often the worker tells how far it is (no preview: the host applies nothing). */
  spec: ReductionSpec;
  /**
   * A new file the worker writes each update it read into, as an exported replay's line (Export
   * Sessions… of a kept copy: the host copies its bytes after the header it writes). Handed over
   * with the rows at the end; removed where the read fails.
   */
  updatesTo?: string;
}

export type ToFileWorker = { kind: 'read'; request: FileReductionRequest };

export type FromFileWorker =
  /** How far it is, and the tool calls read since the last message (what the header's changes are made of). */
  | { kind: 'progress'; progress: ReductionProgress; toolCalls: SessionUpdate[] }
  | { kind: 'done'; reduced: ReducedReplay; counts: ReplayReadCounts; toolCalls: SessionUpdate[] }
  /** The file could not be read whole (the message says why, `code` the system's, as a full disk's ENOSPC); what was written is removed. */
  | { kind: 'failed'; message: string; code?: string };

/** The updates the host needs besides the rows: a session's changes are its tool calls' (changes.ts). */
const TOOL_CALLS: ReadonlySet<string> = new Set(['tool_call', 'tool_call_update']);

/** Serves one file read on `port`: it reads what it is asked for, then is done. */
export function serveFile(port: MessagePort): void {
  port.once('message', (message: ToFileWorker) => {
    if (message.kind === 'read') void reduceFile(port, message.request);
  });
}

async function reduceFile(port: MessagePort, request: FileReductionRequest): Promise<void> {
  let opened: OpenedReplay | undefined;
  let reduction: ReplayReduction | undefined;
  let updatesFile: fs.FileHandle | undefined;
  /** The updates' file is this read's (made here): removed where the read fails. */
  let madeUpdates = false;
  try {
    opened = request.kind === 'kept' ? await openKept(request.path, request.maxLineBytes) : await openReplay(request.path, request);
    const { header } = opened;
    if (header.sessionId !== request.sessionId || header.agentName !== request.agentName) throw new Error('the file changed since it was opened: it holds another session now');
    reduction = new ReplayReduction({ path: request.spec.path, progressMs: request.spec.progressMs });
    if (request.updatesTo) {
      updatesFile = await fs.open(request.updatesTo, 'wx', 0o600);
      madeUpdates = true;
    }
    let toolCalls: SessionUpdate[] = [];
    let first = true;
    for await (const slice of opened.slices) {
      let lines = '';
      for (const update of slice) {
        reduction.apply(update, 1);
        if (TOOL_CALLS.has(update.sessionUpdate)) toolCalls.push(update);
        if (updatesFile) lines += replayUpdateLine(request.sessionId, update);
      }
      // A slice's lines at once (a few megabytes at most), awaited: the read waits for a slow disk.
      if (lines) await updatesFile!.write(lines);
      // The first slice (a few updates) at once: the first screen waits for it alone.
      const progress = reduction.progress(first);
      first = false;
      if (!progress) continue;
      port.postMessage({ kind: 'progress', progress: progress.result, toolCalls } satisfies FromFileWorker, progress.transfer);
      toolCalls = [];
    }
    await updatesFile?.close();
    updatesFile = undefined;
    const { result, transfer } = reduction.finish();
    reduction = undefined;
    port.postMessage({ kind: 'done', reduced: result, counts: { ...opened.counts }, toolCalls } satisfies FromFileWorker, transfer);
  } catch (error) {
    reduction?.dispose();
    if (updatesFile) await updatesFile.close().catch(() => undefined);
    if (madeUpdates) await fs.rm(request.updatesTo!, { force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException)?.code;
    port.postMessage({ kind: 'failed', message: (error as Error)?.message ?? String(error), ...(typeof code === 'string' ? { code } : {}) } satisfies FromFileWorker);
  } finally {
    await opened?.close();
  }
}
