// Export Sessions…' writing of one session: its replay comes from an open tab's update log, or
// from a `session/load` whose updates go straight into a timeline and an update log kept on disk
// (as an open tab keeps them), or from a kept copy read in a worker of its own, so no session is
// ever whole on the heap; both files are written asynchronously a piece at a time, and a failure
// names its cause (a full disk, a read-only folder).
import { createReadStream, promises as fs, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import { messageOf } from '../../acp/errors';
import { linesIn } from '../../acp/lineParse';
import { openKept } from '../../keep/keptFile';
import type { KeptCopy } from '../../keep/keptStore';
import { sessionLabel } from '../../sessions/format';
import { EntityStore } from '../../transcript/entityStore';
import { FileReducer, FileWorkerStopped } from '../../transcript/fileReducer';
import { adoptReduced, discardReduction, reductionSpec, type ReducedReplay } from '../../transcript/replayReduction';
import { timelineMarkdownChunks } from '../../transcript/export';
import { exportFileStem, replayHeaderLine, type ReplayHeader } from '../../transcript/replayFile';
import { SpillFile } from '../../transcript/spillFile';
import { Timeline } from '../../transcript/timeline';
import { UpdateLog } from '../../transcript/updateLog';
import type { CommandContext } from '../sessions/commandContext';
import type { TranscriptPanels } from './transcriptPanel';

/** Bytes gathered before a write: the files are never one string. */
const WRITE_BYTES = 1 << 20;

/** A session's replay, applied to its timeline, ready to write; `dispose` removes what it kept. */
interface Replay {
  /** The updates kept as they came, or a file of their lines as an exported replay holds them (the line worker wrote it). */
  updates: UpdateLog | { linesFile: string };
  count: number;
  timeline: Timeline;
  dispose(): void;
  /** Where its rows were reduced: the line worker (a load), or this thread. */
  rowsFrom: 'worker' | 'host';
  /** An open tab's: false once the tab let go of them, when the files written may be cut short. */
  current?(): boolean;
}

/**
 * Writes `<stem>.md` and `<stem>.acp.ndjson` for one session into `folder` (never over a file),
 * from the tab's updates when it is open (loading it again would replay into that tab), else
 * from a `session/load`, closed after. A failure removes the two files of this session.
 */
export async function exportSession(deps: CommandContext, panels: TranscriptPanels | undefined, folder: string, agent: string, session: SessionInfo, token: vscode.CancellationToken, kept?: KeptSource): Promise<{ markdown: string; replay: string; rowsFrom: 'worker' | 'host' } | undefined> {
  const replay = kept ? await replayOfCopy(deps, panels, kept, token) : await replayOf(deps, panels, agent, session, token);
  try {
    if (token.isCancellationRequested) return undefined;
    return { ...(await writeFiles(folder, agent, session, replay)), rowsFrom: replay.rowsFrom };
  } finally {
    replay.dispose();
  }
}

/** A kept copy to export from (a session under Kept Here): read from its file, no agent asked. */
export interface KeptSource {
  copy: KeptCopy;
  maxLineBytes: number;
}

/**
 * The copy read in a worker of its own where the line worker runs: its rows and its updates'
 * lines come back as files, this thread reads none of the copy. Else (or where that worker cannot
 * start: the log says so) on this thread, a slice at a time, into a timeline and an update log.
 */
async function replayOfCopy(deps: CommandContext, panels: TranscriptPanels | undefined, kept: KeptSource, token: vscode.CancellationToken): Promise<Replay> {
  const spillDir = panels?.options.spillDir;
  const lineWorker = panels?.options.lineWorker;
  if (lineWorker && spillDir) {
    try {
      return await copyInWorker(lineWorker, spillDir, kept, token);
    } catch (error) {
      if (!(error instanceof FileWorkerStopped) || token.isCancellationRequested) throw error;
      deps.log.warn(`Export Sessions… reads the kept copy of ${kept.copy.meta.sessionId} on the extension host's thread: its worker could not read it (${error.message}).`);
    }
  }
  const spill = (tag: string) => (spillDir ? SpillFile.create(spillDir, tag) : undefined);
  const timeline = new Timeline(undefined, new EntityStore(spill('entities')));
  const log = new UpdateLog(spill('updates'));
  const dispose = () => {
    timeline.rows.dispose();
    log.dispose();
  };
  try {
    const opened = await openKept(kept.copy.path, kept.maxLineBytes);
    try {
      for await (const slice of opened.slices) {
        for (const update of slice) {
          timeline.apply(update);
          log.push(update);
        }
        if (token.isCancellationRequested) break;
      }
    } finally {
      await opened.close();
    }
  } catch (error) {
    dispose();
    throw error;
  }
  return { updates: log, count: log.length, timeline, dispose, rowsFrom: 'host' };
}

async function copyInWorker(lineWorker: string, spillDir: string, kept: KeptSource, token: vscode.CancellationToken): Promise<Replay> {
  const reducer = new FileReducer(lineWorker);
  const cancelled = token.onCancellationRequested(() => reducer.stop());
  const { meta, path } = kept.copy;
  const linesFile = SpillFile.newPath(spillDir, 'export');
  try {
    // A copy's size is checked against its trailer, not against the exported files' limit.
    const request = { kind: 'kept' as const, path, agentName: meta.agentName, sessionId: meta.sessionId, maxFileBytes: Number.MAX_SAFE_INTEGER, maxLineBytes: kept.maxLineBytes };
    const done = await reducer.read({ ...request, spec: reductionSpec(spillDir, 'entities'), updatesTo: linesFile }, () => undefined);
    let timeline: Timeline;
    try {
      timeline = adoptReduced(done.reduced);
    } catch (error) {
      // The rows' file went with the failure; the lines' file is this call's to remove.
      rmSync(linesFile, { force: true });
      throw error;
    }
    const dispose = () => {
      timeline.rows.dispose();
      rmSync(linesFile, { force: true });
    };
    return { updates: { linesFile }, count: done.counts.updates, timeline, dispose, rowsFrom: 'worker' };
  } finally {
    cancelled.dispose();
    reducer.stop();
  }
}

async function replayOf(deps: CommandContext, panels: TranscriptPanels | undefined, agent: string, session: SessionInfo, token: vscode.CancellationToken): Promise<Replay> {
  const spillDir = panels?.options.spillDir;
  const spill = (tag: string) => (spillDir ? SpillFile.create(spillDir, tag) : undefined);
  // Open: its tab's updates and rows, read from the tab's files as they are written (the session
  // is never whole on the heap, nor reduced again on this thread); the tab keeps them.
  const open = panels?.exportSourceOf(agent, session.sessionId);
  if (open) return { ...open, dispose: () => undefined };
  // Reduced in the line worker where it runs, its rows and its update log in files taken over at
  // the answer (as the survey's loads are); else here, as the updates come.
  let onHost: Timeline | undefined;
  let reduced: Timeline | undefined;
  let log = new UpdateLog(spill('updates'));
  const spec = reductionSpec(spillDir, 'entities', true);
  const dispose = () => {
    onHost?.rows.dispose();
    reduced?.rows.dispose();
    log.dispose();
  };
  try {
    const client = await deps.registry.getClient(agent);
    const result = await client.loadSession(session.sessionId, session.cwd, (update, line, applied) => {
      if (applied) return;
      (onHost ??= new Timeline(undefined, new EntityStore(spill('entities')))).apply(update, line ? linesIn(line) : 1);
      log.push(update, line);
    }, token, { reduce: spec });
    if (result.reduced) {
      const { updates } = result.reduced as ReducedReplay;
      reduced = adoptReduced(result.reduced as ReducedReplay);
      if (updates) {
        log.dispose();
        log = UpdateLog.adopt(updates);
      }
    }
    if (client.capabilities.close) await client.closeSession(session.sessionId).catch(() => undefined);
  } catch (error) {
    discardReduction(spec);
    dispose();
    throw error;
  }
  const rows = reduced ?? (onHost ??= new Timeline(undefined, new EntityStore()));
  return { updates: log, count: log.length, timeline: rows, dispose, rowsFrom: reduced ? 'worker' : 'host' };
}

async function writeFiles(folder: string, agent: string, session: SessionInfo, replay: Replay): Promise<{ markdown: string; replay: string }> {
  const { timeline } = replay;
  const title = timeline.state.title ?? session.title ?? undefined;
  const header: Omit<ReplayHeader, 'format' | 'version' | 'updates'> = {
    agentName: agent,
    sessionId: session.sessionId,
    cwd: session.cwd,
    ...(session.title ? { title: session.title } : {}),
    ...(session.updatedAt ? { updatedAt: session.updatedAt } : {}),
    ...(session.archived ? { archived: true } : {}),
    exportedAt: new Date().toISOString(),
  };
  const stem = exportFileStem(title ?? '', session.sessionId);
  for (let n = 1; n < 1000; n++) {
    const base = join(folder, n === 1 ? stem : `${stem} (${n})`);
    const paths = { markdown: `${base}.md`, replay: `${base}.acp.ndjson` };
    const md = await exclusive(paths.markdown);
    if (md === undefined) continue;
    const nd = await exclusive(paths.replay).catch(async (error: unknown) => {
      await md.close();
      await fs.rm(paths.markdown, { force: true });
      throw error;
    });
    if (nd === undefined) {
      // Taken by another file already: this stem is not free after all (the empty .md we made goes).
      await md.close();
      await fs.rm(paths.markdown, { force: true });
      continue;
    }
    try {
      const markdownHeader = { title: sessionLabel({ sessionId: session.sessionId, title }), agentName: agent, sessionId: session.sessionId, cwd: session.cwd, updatedAt: session.updatedAt ?? undefined, archived: session.archived === true };
      await writeAll(md, timelineMarkdownChunks(markdownHeader, timeline.rows, timeline.state));
      await nd.write(replayHeaderLine(header, replay.count));
      if ('linesFile' in replay.updates) {
        for await (const chunk of createReadStream(replay.updates.linesFile, { highWaterMark: WRITE_BYTES })) await nd.write(chunk as Buffer);
      } else {
        // The log hands its lines out a megabyte at a time; as many as the header says (an open
        // tab's live updates since are not in it).
        for (const piece of replay.updates.lines(session.sessionId, replay.count)) await nd.write(piece);
      }
      if (replay.current?.() === false) throw new Error(vscode.l10n.t('its tab was closed or opened again while it was written; export it again'));
    } catch (error) {
      // Half a file would pass for the session: this session's two files go.
      await Promise.all([md.close().catch(() => undefined), nd.close().catch(() => undefined)]);
      await Promise.all([fs.rm(paths.markdown, { force: true }), fs.rm(paths.replay, { force: true })]).catch(() => undefined);
      throw error;
    }
    await Promise.all([md.close(), nd.close()]);
    return paths;
  }
  throw new Error(vscode.l10n.t('no free file name for "{0}" in {1}', stem, folder));
}

/** A new file for writing, or undefined when the name exists (never overwritten). */
async function exclusive(path: string): Promise<fs.FileHandle | undefined> {
  try {
    return await fs.open(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
}

/** Writes the pieces a megabyte at a time, each write awaited: the event loop runs in between. */
async function writeAll(handle: fs.FileHandle, pieces: Iterable<string>): Promise<void> {
  let chunk = '';
  for (const piece of pieces) {
    chunk += piece;
    if (chunk.length >= WRITE_BYTES) {
      await handle.write(chunk);
      chunk = '';
    }
  }
  if (chunk) await handle.write(chunk);
}

/** Why an export failed, in words, with the system's message after: the cause is named, not only coded. */
export function exportFailureText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const cause =
    code === 'ENOSPC' ? vscode.l10n.t('the disk is full')
      : code === 'EDQUOT' ? vscode.l10n.t('the disk quota is used up')
        : code === 'EROFS' ? vscode.l10n.t('the folder is on a read-only disk')
          : code === 'EACCES' || code === 'EPERM' ? vscode.l10n.t('no permission to write in the folder')
            : code === 'ENOENT' ? vscode.l10n.t('the folder does not exist')
              : code === 'EIO' ? vscode.l10n.t('the disk reported an input/output error')
                : undefined;
  return cause ? vscode.l10n.t('{0} ({1})', cause, messageOf(error)) : messageOf(error);
}
