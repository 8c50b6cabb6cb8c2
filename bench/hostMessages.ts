// What the transcript panel posts to its webview for a replay, outside VS Code: our client
// replays the session from a real agent process into the real Timeline and PatchCollector,
// flushed the way src/ui/transcriptPanel.ts flushes (a 16 ms timer armed by the first pending
// change; the header rides along while loading). Messages are serialized at post time, as
// VS Code's postMessage does, since the entities keep changing afterwards.
import { AcpClient } from '../src/acp/client';
import { PatchCollector } from '../src/transcript/patches';
import type { HostToWebview, TranscriptHeader } from '../src/transcript/protocol';
import { Timeline } from '../src/transcript/timeline';
import { ROOT, silentLogger } from './lib';

/** transcriptPanel.ts's FLUSH_MS (not exported: that module imports `vscode`). */
const FLUSH_MS = 16;

export interface HostMessages {
  /** The JSON of each postMessage, in order (the first is the snapshot answering `ready`). */
  messages: string[];
  bytes: number;
  updates: number;
  entities: number;
  ms: number;
  /** The final timeline, for checks and for the floor pages. */
  timeline: Timeline;
}

export async function hostMessages(agentScript: string, agentArgs: string[], sessionId: string): Promise<HostMessages> {
  const client = await AcpClient.start(
    { name: 'bench', command: process.execPath, args: [agentScript, ...agentArgs] },
    { clientInfo: { name: 'acp-sessions-bench', version: '1.0.0' }, log: silentLogger, defaultCwd: ROOT },
  );
  const collector = new PatchCollector();
  const timeline = new Timeline(collector);
  const messages: string[] = [];
  let bytes = 0;
  let loading = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const header = (): TranscriptHeader => ({
    agentName: 'bench',
    sessionId,
    cwd: ROOT,
    title: timeline.state.title ?? 'Benchmark session',
    archived: false,
    loading,
    updateCount: timeline.updateCount,
    live: !loading,
    notices: timeline.state.notices,
  });
  const post = (message: HostToWebview) => {
    const json = JSON.stringify(message);
    messages.push(json);
    bytes += Buffer.byteLength(json);
  };
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const { patches, stateChanged } = collector.drain();
    if (!patches.length && !stateChanged && !loading) return;
    post({ type: 'update', patches, header: stateChanged || loading ? header() : undefined });
  };
  collector.onPending = () => {
    if (timer === undefined) timer = setTimeout(flush, FLUSH_MS);
  };
  try {
    // The webview's `ready` arrives before the replay starts: it gets an empty snapshot.
    post({ type: 'snapshot', header: header(), entities: timeline.entities });
    collector.clear();
    const t0 = performance.now();
    await client.loadSession(sessionId, ROOT, (update) => timeline.apply(update));
    loading = false;
    collector.markState();
    flush();
    const ms = performance.now() - t0;
    return { messages, bytes, updates: timeline.updateCount, entities: timeline.entities.length, ms, timeline };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    await client.dispose();
  }
}
