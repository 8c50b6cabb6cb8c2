// The entry points of our own code that the figures drive, in one place: the ACP client
// (src/acp), the timeline reducer and patch batching (src/transcript), the sessions model.
import { ROOT, silentLogger } from './lib';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcpClient } from '../src/acp/client';
import { linesIn } from '../src/acp/lineParse';
import { Timeline } from '../src/transcript/timeline';
import { adoptReduced, reductionSpec, type ReducedReplay } from '../src/transcript/replayReduction';
import { UpdateLog } from '../src/transcript/updateLog';

/**
 * The line worker as the extension starts it (out/src/transcript/lineWorkerMain.mjs, built beside the
 * benchmarks); ACP_SESSIONS_LINE_WORKER=off measures the client parsing on its own thread.
 */
export function lineWorker(): string | undefined {
  return process.env.ACP_SESSIONS_LINE_WORKER === 'off' ? undefined : join(ROOT, 'out', 'src', 'transcript', 'lineWorkerMain.mjs');
}

/** Our reducer, with a check that it saw every update. */
export function createTimeline() {
  const timeline = new Timeline();
  return {
    timeline,
    apply: (update: unknown) => timeline.apply(update),
    check(lines: number) {
      if (timeline.updateCount !== lines) throw new Error(`timeline applied ${timeline.updateCount} of ${lines} updates`);
    },
  };
}

/** Figure 1, ours: AcpClient.loadSession into the Timeline until the last update is applied. */
export async function ourIngest(agentScript: string, file: string, sessionId: string, lines: number, keep?: (timeline: Timeline) => void): Promise<number> {
  const client = await AcpClient.start(
    { name: 'bench-replay', command: process.execPath, args: [agentScript, '--file', file] },
    { clientInfo: { name: 'acp-sessions-bench', version: '1.0.0' }, log: silentLogger, defaultCwd: ROOT, lineWorker: lineWorker() },
  );
  try {
    const timeline = new Timeline();
    let allApplied!: () => void;
    const applied = new Promise<void>((r) => (allApplied = r));
    const t0 = performance.now();
    await client.loadSession(sessionId, ROOT, (update, line) => {
      timeline.apply(update, line ? linesIn(line) : 1);
      if (timeline.updateCount === lines) allApplied();
    });
    await applied;
    const elapsed = performance.now() - t0;
    if (timeline.updateCount !== lines) throw new Error(`ours: applied ${timeline.updateCount} of ${lines} updates`);
    keep?.(timeline);
    return elapsed;
  } finally {
    await client.dispose();
  }
}

/** This thread's CPU time in ms (Linux's per-thread schedstat), or undefined elsewhere. */
export function threadCpuMs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * Figure 1, ours, as a transcript's replay runs (issue 36): AcpClient.loadSession with the replay
 * reduced in the line worker into a spill file, this thread applying the first 200 rows' updates
 * (the preview), until the worker's timeline is taken over here. Without the line worker
 * (ACP_SESSIONS_LINE_WORKER=off): {@link ourIngest}. `hostCpuMs`: this thread's CPU meanwhile.
 */
export async function ourReducedIngest(agentScript: string, file: string, sessionId: string, lines: number): Promise<{ ms: number; hostCpuMs: number | undefined }> {
  const worker = lineWorker();
  if (!worker) {
    const cpu0 = threadCpuMs();
    const ms = await ourIngest(agentScript, file, sessionId, lines);
    const cpu1 = threadCpuMs();
    return { ms, hostCpuMs: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0 };
  }
  const client = await AcpClient.start(
    { name: 'bench-replay', command: process.execPath, args: [agentScript, '--file', file] },
    { clientInfo: { name: 'acp-sessions-bench', version: '1.0.0' }, log: silentLogger, defaultCwd: ROOT, lineWorker: worker },
  );
  const dir = mkdtempSync(join(tmpdir(), 'acp-bench-reduce-'));
  try {
    while (client.parsedOn === 'starting') await new Promise((resolve) => setTimeout(resolve, 5));
    if (client.parsedOn !== 'worker') throw new Error('ours (reduced): the line worker did not start');
    const preview = new Timeline();
    const cpu0 = threadCpuMs();
    const t0 = performance.now();
    const result = await client.loadSession(
      sessionId,
      ROOT,
      (update, line, reduced, lines) => {
        const count = lines ?? (line ? linesIn(line) : 1);
        if (reduced === 'applied') preview.updateCount += count;
        else preview.apply(update, count);
      },
      undefined,
      { reduce: { ...reductionSpec(dir, 'bench', true), previewRows: 200 } },
    );
    if (!result.reduced) throw new Error('ours (reduced): the worker handed nothing over');
    const timeline = adoptReduced(result.reduced as ReducedReplay);
    // The update log the worker kept (a tab's, for Export Sessions…), taken over as a tab does.
    const log = UpdateLog.adopt((result.reduced as ReducedReplay).updates!);
    const ms = performance.now() - t0;
    const cpu1 = threadCpuMs();
    if (timeline.updateCount !== lines) throw new Error(`ours (reduced): applied ${timeline.updateCount} of ${lines} updates`);
    if (log.length !== lines) throw new Error(`ours (reduced): the update log kept ${log.length} of ${lines} updates`);
    timeline.rows.dispose();
    log.dispose();
    return { ms, hostCpuMs: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0 };
  } finally {
    await client.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
