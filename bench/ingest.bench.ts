// Figure 1, ingest: a replaying agent's stdout -> client -> timeline reducer, until the last
// entity is updated. Floor: the same bytes through a pipe with only line splitting and
// JSON.parse. Peer: the SDK's own client, feeding the same reducer, in the same run.
import { Readable, Writable } from 'node:stream';
import { join } from 'node:path';
import { client as sdkClient, ndJsonStream } from '@agentclientprotocol/sdk/unstable';
import { replayFilesAtScale } from './generate';
import { DATA_DIR, ROOT, args, gc, ingestFloor, log, report, scale, spawnNode, stop, type Measurement } from './lib';
import { ourIngest, ourReducedIngest, createTimeline, threadCpuMs } from './ours';

const REPLAY_AGENT = join(ROOT, 'bench/replayAgent.mjs');

/** Floor: raw request, then split lines and JSON.parse each until the response arrives. */
async function floor(file: string, sessionId: string, lines: number, keepText = false): Promise<number> {
  const child = spawnNode(REPLAY_AGENT, ['--file', file]);
  try {
    const { ms, notifications } = await ingestFloor(child, { sessionId, cwd: ROOT }, 600_000, keepText);
    if (notifications !== lines) throw new Error(`floor: read ${notifications} of ${lines} notifications`);
    return ms;
  } finally {
    await stop(child);
  }
}

/** Peer: `client().connect(ndJsonStream(...))` from @agentclientprotocol/sdk, into our reducer. */
async function sdkPeer(file: string, sessionId: string, lines: number): Promise<number> {
  const child = spawnNode(REPLAY_AGENT, ['--file', file]);
  const timeline = createTimeline();
  let count = 0;
  let allApplied!: () => void;
  const applied = new Promise<void>((r) => (allApplied = r));
  const app = sdkClient({ name: 'bench-sdk-peer' }).onNotification('session/update', (ctx) => {
    timeline.apply(ctx.params.update);
    if (++count === lines) allApplied();
  });
  const connection = app.connect(
    ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>),
  );
  await connection.agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { session: { compaction: {} } } as never,
    clientInfo: { name: 'bench-sdk-peer', version: '1.0.0' },
  });
  const t0 = performance.now();
  await connection.agent.request('session/load', { sessionId, cwd: ROOT, mcpServers: [] });
  await applied;
  const elapsed = performance.now() - t0;
  connection.close();
  await stop(child);
  timeline.check(lines);
  return elapsed;
}

async function main() {
  const files = replayFilesAtScale(DATA_DIR, scale());
  log(`ingest: ${files.lines} lines, ${(files.bytes / 1e6).toFixed(1)} MB`);

  // `--variant=ours` (or `floor`) runs only that side, for profiling it (node --cpu-prof).
  const variant = args().get('variant');
  if (variant === 'ours') {
    const ours = await ourReducedIngest(REPLAY_AGENT, files.ndjson, files.sessionId, files.lines);
    log(`ingest: ours ${ours.ms.toFixed(0)} ms, host thread CPU ${ours.hostCpuMs?.toFixed(0)} ms`);
    return;
  }
  if (variant === 'host') {
    const cpu0 = threadCpuMs();
    const ms = await ourIngest(REPLAY_AGENT, files.ndjson, files.sessionId, files.lines);
    log(`ingest: reduced on the host thread ${ms.toFixed(0)} ms, its CPU ${((threadCpuMs() ?? 0) - (cpu0 ?? 0)).toFixed(0)} ms`);
    return;
  }
  if (variant === 'floor') {
    log(`ingest: floor ${(await floor(files.ndjson, files.sessionId, files.lines)).toFixed(0)} ms`);
    return;
  }
  // A heap that has held a session already, as a running extension host's has: without this
  // round, whichever side ran first after the plain floor grew the heap and was 100-200 ms slower.
  await floor(files.ndjson, files.sessionId, files.lines, true);
  gc();
  const floorMs = await floor(files.ndjson, files.sessionId, files.lines);
  gc();
  // What keeping the text costs by itself: the floor, holding each update's text to the end.
  const keepingMs = await floor(files.ndjson, files.sessionId, files.lines, true);
  gc();
  const ours = await ourReducedIngest(REPLAY_AGENT, files.ndjson, files.sessionId, files.lines);
  const oursMs = ours.ms;
  gc();
  // The same replay reduced on this thread, as before issue 36 (and where the worker does not run).
  const hostCpu0 = threadCpuMs();
  const onHostMs = await ourIngest(REPLAY_AGENT, files.ndjson, files.sessionId, files.lines);
  const hostCpu1 = threadCpuMs();
  gc();
  const peerMs = await sdkPeer(files.ndjson, files.sessionId, files.lines);
  log(`ingest: floor ${floorMs.toFixed(0)} ms (keeping the text ${keepingMs.toFixed(0)} ms), ours ${oursMs.toFixed(0)} ms, SDK ${peerMs.toFixed(0)} ms`);

  const measurements: Measurement[] = [
    {
      figure: '1',
      name: `ingest ${files.lines.toLocaleString('en')} updates`,
      value: oursMs,
      unit: 'ms',
      floor: floorMs,
      peer: peerMs,
      peerName: 'SDK client',
      goal: 1.5,
      goalOn: 'ratio',
      detail: {
        lines: files.lines, MB: +(files.bytes / 1e6).toFixed(1),
        'floor keeping the text ms': Math.round(keepingMs), 'ratio to the floor keeping the text': +(oursMs / keepingMs).toFixed(2),
        ...(ours.hostCpuMs !== undefined ? { 'host thread CPU ms': Math.round(ours.hostCpuMs) } : {}),
        'reduced on the host thread ms': Math.round(onHostMs),
        ...(hostCpu0 !== undefined && hostCpu1 !== undefined ? { 'reduced on the host thread: its CPU ms': Math.round(hostCpu1 - hostCpu0) } : {}),
      },
    },
  ];
  report(measurements);
}

await main();
