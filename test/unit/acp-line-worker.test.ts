// The line worker (src/acp/lineWorker.ts): the agent's output parsed off the client's thread, text
// chunks of one message merged. Real replays from the reference agent over its pipes, each on the
// worker and on the fallback path (no worker, a worker script that cannot start, a worker that
// stops mid-replay): the timeline, the update log read back and a kept copy must be the same.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { SessionUpdate } from '../../src/acp/types';
import { KeptWriter, readKeptMeta } from '../../src/keep/keptFile';
import { SpillFile } from '../../src/transcript/spillFile';
import { Timeline } from '../../src/transcript/timeline';
import { UpdateLog } from '../../src/transcript/updateLog';
import { seedStore, type SeedResult } from '../agent/seed';
import { DEEP_AGENT_NODE_FLAGS, writeDeepSession } from '../hostile/deep';
import { CapturingLog, LINE_WORKER, referenceAgent, scriptedAgent, startClient, tempDir } from './acp-helpers';

async function seeded(t: { after(fn: () => void): void }): Promise<{ store: string; folder: string; seed: SeedResult }> {
  const store = tempDir(t, 'line-worker-store-');
  const folder = tempDir(t, 'line-worker-folder-');
  const seed = await seedStore({ store, folders: [folder], count: 10, seed: 11, now: new Date('2026-03-01T12:00:00Z') });
  return { store, folder, seed };
}

interface Received {
  /** The updates as the client handed them on (merged ones included). */
  updates: SessionUpdate[];
  timeline: Timeline;
  /** The update log over a spill file, read back. */
  logged: SessionUpdate[];
  loggedCount: number;
  /** The kept copy's body and its trailer's count. */
  kept: string;
  keptUpdates: number;
  log: CapturingLog;
  /** How many updates had been handed on when the log first spoke of the line worker (-1: never). */
  beforeWorkerLog: number;
}

/** Replays `sessionId` through a client started with `lineWorker` (undefined: the fallback path). */
async function receive(
  t: { after(fn: () => Promise<void> | void): void },
  store: string,
  folder: string,
  sessionId: string,
  lineWorker: string | undefined,
  flags: string[] = [],
  nodeFlags: string[] = [],
): Promise<Received> {
  const dir = tempDir(t, 'line-worker-out-');
  const log = new CapturingLog();
  const agent = referenceAgent(store, flags);
  const { client } = await startClient(t, { ...agent, args: [...nodeFlags, ...(agent.args ?? [])] }, { log, lineWorker });
  let beforeWorkerLog = -1;
  const updates: SessionUpdate[] = [];
  const timeline = new Timeline();
  const updateLog = new UpdateLog(SpillFile.create(dir, 'updates'));
  t.after(() => updateLog.dispose());
  const writer = new KeptWriter(join(dir, 'kept.gz'));
  await client.loadSession(sessionId, folder, (update, line) => {
    if (beforeWorkerLog === -1 && log.entries.some((e) => e.message.includes('line worker'))) beforeWorkerLog = updates.length;
    updates.push(update);
    timeline.apply(update);
    updateLog.push(update, line);
    writer.push(line ?? JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } }));
  });
  const meta = await writer.finish({ agentName: 'reference', sessionId, cwd: folder }, async () => true);
  assert.ok(meta, 'the kept copy was written');
  const { meta: read } = await readKeptMeta(join(dir, 'kept.gz'));
  const kept = gunzipSync(readFileSync(join(dir, 'kept.gz')).subarray(0, read.bodyBytes)).toString('utf8');
  return { updates, timeline, logged: [...updateLog], loggedCount: updateLog.length, kept, keptUpdates: read.updates, log, beforeWorkerLog };
}

/** A worker script that hands `after` pieces to the real worker, then ends its thread (as a crash would). */
function stoppingWorker(t: { after(fn: () => void): void }, after: number): string {
  const path = join(tempDir(t, 'line-worker-script-'), 'stopping.mjs');
  writeFileSync(
    path,
    `import { parentPort } from 'node:worker_threads';
let pieces = 0;
parentPort.on('message', () => { if (++pieces > ${after}) process.exit(3); });
await import(${JSON.stringify(pathToFileURL(LINE_WORKER).href)});
`,
  );
  return path;
}

test('on the line worker, a long replay builds the timeline, update log and kept copy of the fallback path, with text chunks of one message merged', async (t) => {
  const { store, folder, seed } = await seeded(t);
  for (const sessionId of [seed.special.long, seed.special.compactions, seed.special.hostile]) {
    const inline = await receive(t, store, folder, sessionId, undefined);
    const worker = await receive(t, store, folder, sessionId, LINE_WORKER);
    assert.deepEqual(worker.timeline.entities, inline.timeline.entities, `${sessionId}: the timeline`);
    assert.deepEqual(worker.logged, inline.logged, `${sessionId}: the update log read back holds every update as sent`);
    assert.equal(worker.loggedCount, inline.updates.length, `${sessionId}: the update log counts each chunk`);
    assert.equal(worker.kept, inline.kept, `${sessionId}: the kept copy holds every line as sent`);
    assert.equal(worker.keptUpdates, inline.keptUpdates, `${sessionId}: the kept copy's trailer counts each line`);
    assert.equal(inline.keptUpdates, inline.updates.length);
    assert.ok(!worker.log.text().includes('line worker'), 'the worker ran: no fallback was logged');
    if (sessionId === seed.special.long) {
      assert.ok(worker.updates.length < inline.updates.length, `chunks were merged (${worker.updates.length} updates handed on for ${inline.updates.length} lines)`);
    }
  }
});

test('an update nested deeper than a thread can copy (10,000 levels): its piece is parsed by the client in its place, the worker goes on, nothing is lost', async (t) => {
  const { store, folder } = await seeded(t);
  const texts = await writeDeepSession(store, 'deep', folder, { info: true });
  const inline = await receive(t, store, folder, 'deep', undefined, [], DEEP_AGENT_NODE_FLAGS);
  const worker = await receive(t, store, folder, 'deep', LINE_WORKER, [], DEEP_AGENT_NODE_FLAGS);
  assert.deepEqual(worker.timeline.entities, inline.timeline.entities, 'the timeline');
  assert.deepEqual(worker.logged, inline.logged, 'the update log');
  assert.equal(worker.kept, inline.kept, 'the kept copy');
  const shown = worker.timeline.entities.filter((e) => e.kind === 'agent_message').length;
  assert.ok(shown > 0 && texts.length === inline.updates.length - 2, `${texts.length} ordinary updates and the two deep ones`);
  assert.ok(!worker.log.text().includes('line worker'), 'the worker went on: no fallback was logged');
});

test('a line worker that cannot start leaves the parsing to the client, with one line in the log and nothing lost', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const inline = await receive(t, store, folder, seed.special.long, undefined);
  const missing = await receive(t, store, folder, seed.special.long, join(tempDir(t, 'line-worker-none-'), 'absent.js'));
  assert.deepEqual(missing.timeline.entities, inline.timeline.entities);
  assert.deepEqual(missing.logged, inline.logged);
  const told = missing.log.entries.map((e) => e.message).filter((l) => l.includes('line worker'));
  assert.equal(told.length, 1, told.join('\n'));
  assert.match(told[0], /parsed on the extension host's thread: its line worker could not start/);
});

test('a line worker that stops mid-replay: the pieces it held are parsed by the client in their place, every update once, in order', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const inline = await receive(t, store, folder, seed.special.long, undefined);
  // The agent pauses between updates, so the replay comes in many pieces and the stop falls inside it.
  const stopped = await receive(t, store, folder, seed.special.long, stoppingWorker(t, 40), ['--replay-delay', '1']);
  assert.ok(
    stopped.beforeWorkerLog > 0 && stopped.beforeWorkerLog < inline.updates.length,
    `the worker stopped after ${stopped.beforeWorkerLog} of ${inline.updates.length} updates`,
  );
  assert.deepEqual(stopped.timeline.entities, inline.timeline.entities);
  assert.deepEqual(stopped.logged, inline.logged);
  assert.equal(stopped.kept, inline.kept);
  const told = stopped.log.entries.map((e) => e.message).filter((l) => l.includes('line worker'));
  assert.equal(told.length, 1, told.join('\n'));
  assert.match(told[0], /its line worker stopped/);
});

test('on the line worker, bad lines, responses and requests between updates keep their order and their warnings', async (t) => {
  // A scripted agent: a load whose replay mixes bad lines, an unknown method and a reserved one
  // between text chunks of one message, then answers.
  const agent = scriptedAgent(
    'mixed',
    `handlers.initialize = (m) => send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } });
    handlers['session/load'] = (m) => {
      const chunk = (text) => send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: m.params.sessionId, update: { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text } } } });
      chunk('one ');
      process.stdout.write('not json\\n');
      chunk('two ');
      chunk('three ');
      process.stdout.write('[1,2]\\n');
      send({ jsonrpc: '2.0', method: '$/acpSessions/agentLines', params: {} });
      chunk('four');
      send({ jsonrpc: '2.0', id: m.id, result: {} });
    };`,
  );
  const results: { texts: string[]; warnings: string[] }[] = [];
  for (const lineWorker of [undefined, LINE_WORKER]) {
    const log = new CapturingLog();
    const { client } = await startClient(t, agent, { log, lineWorker });
    const timeline = new Timeline();
    const texts: string[] = [];
    await client.loadSession('s1', '/work/project-a', (update) => {
      timeline.apply(update);
      const content = (update as { content?: { type?: string; text?: string } }).content;
      if (update.sessionUpdate === 'agent_message_chunk' && content?.type === 'text') texts.push(content.text ?? '');
    });
    results.push({ texts: [texts.join('')], warnings: log.entries.map((e) => e.message).filter((l) => /Skipped|reserved/.test(l)) });
    const message = timeline.entities.find((e) => e.kind === 'agent_message');
    assert.ok(message && 'parts' in message);
  }
  assert.deepEqual(results[1], results[0]);
  assert.deepEqual(results[0].texts, ['one two three four']);
  assert.equal(results[0].warnings.length, 3, results[0].warnings.join('\n'));
});
