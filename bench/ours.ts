// The entry points of our own code that the figures drive, in one place: the ACP client
// (src/acp), the timeline reducer and patch batching (src/transcript), the sessions model.
import { ROOT, silentLogger } from './lib';
import { join } from 'node:path';
import { AcpClient } from '../src/acp/client';
import { linesIn } from '../src/acp/lineParse';
import { Timeline } from '../src/transcript/timeline';

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
