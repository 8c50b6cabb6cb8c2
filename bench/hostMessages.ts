// What the transcript panel posts to its webview for a replay, outside VS Code: our client
// replays the session from a real agent process into the real Timeline, and the panel's own
// WebviewFeed (src/transcript/feed.ts) batches and posts. Messages are serialized at post
// time, as VS Code's postMessage does, since the entities keep changing afterwards.
import { AcpClient } from '../src/acp/client';
import { WebviewFeed } from '../src/transcript/feed';
import type { TranscriptHeader } from '../src/transcript/protocol';
import { Timeline } from '../src/transcript/timeline';
import { ROOT, silentLogger } from './lib';

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
  const messages: string[] = [];
  let bytes = 0;
  let loading = true;
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
  const feed: WebviewFeed = new WebviewFeed({
    post: (message) => {
      const json = JSON.stringify(message);
      messages.push(json);
      bytes += Buffer.byteLength(json);
    },
    header,
    timeline: () => timeline,
    loading: () => loading,
  });
  const timeline: Timeline = new Timeline(feed.collector);
  try {
    // The webview's `ready` arrives before the replay starts: it gets an empty snapshot.
    feed.setReady();
    const t0 = performance.now();
    await client.loadSession(sessionId, ROOT, (update) => timeline.apply(update));
    loading = false;
    feed.collector.markState();
    feed.flush();
    const ms = performance.now() - t0;
    return { messages, bytes, updates: timeline.updateCount, entities: timeline.entities.length, ms, timeline };
  } finally {
    feed.dispose();
    await client.dispose();
  }
}
