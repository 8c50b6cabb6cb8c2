// A replay reduced in the line worker (issue 36: src/transcript/replayReduction.ts, the `reduce`
// option of AcpClient.loadSession): the worker applies the session's updates to a timeline over a
// spill file and hands the file and the timeline's index to the client's thread, which never
// applies them itself. Real replays from the reference agent over its pipes, against the same
// replays applied on the client's thread: the rows, their keys, the state and what comes after
// must be the same; what keeps lines (a kept copy) must get every line; a worker that stops must
// fail the load and leave no file behind.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { linesIn } from '../../src/acp/lineParse';
import type { ReplayObserver, SessionUpdate } from '../../src/acp/types';
import { adoptReduced, discardReduction, reductionSpec, type ReducedReplay, type ReductionProgress } from '../../src/transcript/replayReduction';
import { EntityStore } from '../../src/transcript/entityStore';
import { SpillFile } from '../../src/transcript/spillFile';
import { Timeline } from '../../src/transcript/timeline';
import { UpdateLog } from '../../src/transcript/updateLog';
import { seedStore } from '../agent/seed';
import { writeSession } from '../agent/store';
import { DEEP_AGENT_NODE_FLAGS, writeDeepSession } from '../hostile/deep';
import { CapturingLog, LINE_WORKER, referenceAgent, startClient, tempDir } from './acp-helpers';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

async function seeded(t: { after(fn: () => void): void }) {
  const store = tempDir(t, 'reduction-store-');
  const folder = tempDir(t, 'reduction-folder-');
  const seed = await seedStore({ store, folders: [folder], count: 10, seed: 11, now: new Date('2026-03-01T12:00:00Z') });
  return { store, folder, seed };
}

/** Every line an observer of the replay was handed (what a kept copy writes), one string each. */
function lineCollector(into: string[]): (agent: string, sessionId: string) => ReplayObserver {
  return () => ({
    update: (update: SessionUpdate, line: Uint8Array | undefined) => {
      into.push(...(line ? new TextDecoder().decode(line).split('\n') : [JSON.stringify(update)]));
    },
    end: () => undefined,
  });
}

/** The session replayed on the client's thread, into a timeline, with the lines its observer saw. */
async function onThread(t: Parameters<typeof tempDir>[0] & { after(fn: () => Promise<void> | void): void }, store: string, folder: string, sessionId: string, nodeFlags: string[] = []) {
  const lines: string[] = [];
  const agent = referenceAgent(store);
  const { client, log } = await startClient(t, { ...agent, args: [...nodeFlags, ...(agent.args ?? [])] }, { lineWorker: undefined, replays: lineCollector(lines) });
  const timeline = new Timeline();
  const result = await client.loadSession(sessionId, folder, (update, line) => timeline.apply(update, line ? linesIn(line) : 1), undefined, { reduce: {} });
  assert.equal(result.reduced, undefined, 'without a worker nothing is reduced: the listener got the replay');
  return { timeline, lines, log };
}

/** The session replayed with its reduction in the line worker (`worker`: the script), adopted here. */
async function reduced(
  t: Parameters<typeof tempDir>[0] & { after(fn: () => Promise<void> | void): void },
  store: string,
  folder: string,
  sessionId: string,
  { worker = LINE_WORKER, nodeFlags = [] as string[], keepUpdates = false } = {},
) {
  const lines: string[] = [];
  const dir = tempDir(t, 'reduction-spill-');
  const agent = referenceAgent(store);
  const { client, log } = await startClient(t, { ...agent, args: [...nodeFlags, ...(agent.args ?? [])] }, { lineWorker: worker, replays: lineCollector(lines) });
  await until('the line worker runs', () => client.parsedOn === 'worker');
  let handedOn = 0;
  // What a tab's header counts while the worker reduces: the lines each reduced update stands for.
  let counted = 0;
  const spec = reductionSpec(dir, 'test', keepUpdates);
  const result = await client.loadSession(sessionId, folder, (_update, line, reduced, count) => {
    if (!reduced) return handedOn++;
    if (count !== undefined) assert.equal(count, line ? linesIn(line) : 1, 'the count handed on is the lines the update stands for');
    counted += count ?? (line ? linesIn(line) : 1);
  }, undefined, { reduce: spec });
  assert.ok(result.reduced, 'the worker handed its reduction over');
  assert.equal(handedOn, 0, 'no update of the replay reached the listener: the worker applied them all');
  const timeline = adoptReduced(result.reduced as ReducedReplay);
  t.after(() => timeline.rows.dispose());
  return { timeline, lines, log, dir, spec, handed: result.reduced as ReducedReplay, counted };
}

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('a replay reduced in the line worker is the timeline the client builds itself: the same rows, keys, state and count; observers get every line', async (t) => {
  const { store, folder, seed } = await seeded(t);
  for (const sessionId of [seed.special.long, seed.special.compactions, seed.special.hostile, seed.special.untitled]) {
    const here = await onThread(t, store, folder, sessionId);
    const there = await reduced(t, store, folder, sessionId);
    assert.ok(here.timeline.rows.length > 0, `${sessionId} has rows`);
    assert.deepEqual(there.timeline.entities, here.timeline.entities, `${sessionId}: the rows, read back from the worker's file`);
    assert.deepEqual(there.timeline.state, here.timeline.state, `${sessionId}: the session's state`);
    assert.equal(there.timeline.updateCount, here.timeline.updateCount, `${sessionId}: every update counted`);
    assert.equal(there.counted, here.timeline.updateCount, `${sessionId}: the reduced updates handed on stand for every line, as the header counts while it loads`);
    assert.equal(there.timeline.created, here.timeline.created, `${sessionId}: the keys go on from the same number`);
    assert.deepEqual(there.lines, here.lines, `${sessionId}: the observer (a kept copy) got every line as sent`);
    assert.equal(readdirSync(there.dir).length, 1, 'the rows are in one file, adopted by this thread');
    assert.ok(!there.log.entries.some((e) => e.level === 'warn' || e.level === 'error'), there.log.entries.map((e) => e.message).join('\n'));
  }
});

test('a tab\'s update log kept in the worker reads back, once taken over, as the updates the client delivers on its own thread (what the check fixed included), and live updates append to it', async (t) => {
  const { store, folder, seed } = await seeded(t);
  await writeDeepSession(store, 'deep', folder, { info: true });
  const cases: [string, string[]][] = [[seed.special.hostile, []], [seed.special.long, []], ['deep', DEEP_AGENT_NODE_FLAGS]];
  for (const [sessionId, nodeFlags] of cases) {
    const agent = referenceAgent(store);
    const { client } = await startClient(t, { ...agent, args: [...nodeFlags, ...(agent.args ?? [])] }, { lineWorker: undefined });
    const delivered: SessionUpdate[] = [];
    await client.loadSession(sessionId, folder, (update) => delivered.push(update), undefined, { reduce: {} });
    const there = await reduced(t, store, folder, sessionId, { nodeFlags, keepUpdates: true });
    const image = there.handed.updates;
    assert.ok(image?.file, `${sessionId}: the worker kept the log in a file`);
    assert.deepEqual(image.unkept, []);
    assert.equal(readdirSync(there.dir).length, 2, `${sessionId}: the rows and the update log, a file each`);
    const log = UpdateLog.adopt(image);
    t.after(() => log.dispose());
    assert.equal(log.length, delivered.length, `${sessionId}: every update kept`);
    assert.deepEqual([...log], delivered, `${sessionId}: read back as delivered`);
    const live = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'live, after the replay' } } as SessionUpdate;
    log.push(live);
    const after = [...log];
    assert.equal(after.length, delivered.length + 1);
    assert.deepEqual(after.at(-1), live, `${sessionId}: a live update follows the replay`);
  }
});

test('after the hand-over, updates go on from where the worker stopped: a chunk joins its message, a tool call update finds its call', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const sessionId = seed.special.long;
  const here = await onThread(t, store, folder, sessionId);
  const there = await reduced(t, store, folder, sessionId);
  const message = here.timeline.entities.find((e) => e.kind === 'agent_message' && e.messageId !== undefined);
  const call = here.timeline.entities.find((e) => e.kind === 'tool_call');
  assert.ok(message && message.kind === 'agent_message' && call && call.kind === 'tool_call', 'the session has a message with an id and a tool call');
  const later: SessionUpdate[] = [
    { sessionUpdate: 'agent_message_chunk', messageId: message.messageId, content: { type: 'text', text: ' and one more thing' } } as SessionUpdate,
    { sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status: 'failed' } as SessionUpdate,
    { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'next' } } as SessionUpdate,
  ];
  for (const update of later) {
    here.timeline.apply(update);
    there.timeline.apply(update);
  }
  assert.deepEqual(there.timeline.entities, here.timeline.entities, 'the same rows after the live updates');
  assert.equal(there.timeline.rows.length, here.timeline.rows.length);
});

test('an update nested 10,000 levels deep in a reduced replay is cut in the worker, and the client\'s log says what was fixed, as on its own thread', async (t) => {
  const { store, folder } = await seeded(t);
  await writeDeepSession(store, 'deep', folder, { info: true });
  const here = await onThread(t, store, folder, 'deep', DEEP_AGENT_NODE_FLAGS);
  const there = await reduced(t, store, folder, 'deep', { nodeFlags: DEEP_AGENT_NODE_FLAGS });
  assert.deepEqual(there.timeline.entities, here.timeline.entities, 'the rows');
  const fixed = (log: CapturingLog) => log.entries.filter((e) => e.message.includes('Fixed what the agent sent in session/update')).map((e) => e.message);
  assert.ok(fixed(there.log).length > 0, 'the fix is logged');
  assert.deepEqual(fixed(there.log), fixed(here.log), 'in the same words');
});

test('where the line worker stops mid-replay, the load fails saying so, and no file of the reduction is left', async (t) => {
  const { store, folder, seed } = await seeded(t);
  // Hands the first pieces to the real worker, then ends its thread, as a crash would.
  const script = join(tempDir(t, 'reduction-script-'), 'stopping.mjs');
  writeFileSync(
    script,
    `import { parentPort } from 'node:worker_threads';
let pieces = 0;
parentPort.on('message', (m) => { if (m.kind === undefined && ++pieces > 2) process.exit(3); });
await import(${JSON.stringify(pathToFileURL(LINE_WORKER).href)});
`,
  );
  const dir = tempDir(t, 'reduction-spill-');
  const agent = referenceAgent(store);
  const { client, log } = await startClient(t, agent, { lineWorker: script });
  await until('the line worker runs', () => client.parsedOn === 'worker');
  // With a tab's update log kept there too.
  const spec = reductionSpec(dir, 'test', true);
  await assert.rejects(client.loadSession(seed.special.long, folder, () => undefined, undefined, { reduce: spec }), /line worker stopped/);
  discardReduction(spec);
  assert.deepEqual(readdirSync(dir), [], 'the files the worker began (the rows, the update log) are removed');
  assert.ok(log.entries.some((e) => e.message.includes('parsed on the extension host\'s thread')), 'the fallback is logged');
  // The client goes on without the worker: the next load is applied here, whole.
  const timeline = new Timeline();
  const result = await client.loadSession(seed.special.long, folder, (update, line) => timeline.apply(update, line ? linesIn(line) : 1), undefined, { reduce: reductionSpec(dir, 'test') });
  assert.equal(result.reduced, undefined);
  const whole = await onThread(t, store, folder, seed.special.long);
  assert.deepEqual(timeline.entities, whole.timeline.entities, 'the replay after the fallback is whole');
});

test('a load that fails (-32002) drops its reduction: no file is left, the client goes on reducing the next', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const dir = tempDir(t, 'reduction-spill-');
  const { client } = await startClient(t, referenceAgent(store), { lineWorker: LINE_WORKER });
  await until('the line worker runs', () => client.parsedOn === 'worker');
  const spec = reductionSpec(dir, 'test', true);
  await assert.rejects(client.loadSession('no-such-session', folder, () => undefined, undefined, { reduce: spec }));
  discardReduction(spec);
  await until('the worker dropped the files (the rows, the update log)', () => readdirSync(dir).length === 0);
  const next = await client.loadSession(seed.special.long, folder, () => undefined, undefined, { reduce: reductionSpec(dir, 'test') });
  assert.ok(next.reduced, 'the next load is reduced');
  const timeline = adoptReduced(next.reduced as ReducedReplay);
  assert.ok(timeline.rows.length > 0);
  const file = (next.reduced as ReducedReplay).rows.file!.path;
  assert.ok(existsSync(file));
  timeline.rows.dispose();
  assert.ok(!existsSync(file), 'the adopted file goes with its timeline');
});

test('past the preview, the worker tells how far it is, in order: the rows so far read from its file, with the keys and kinds of the timeline it hands over', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const dir = tempDir(t, 'reduction-spill-');
  const { client } = await startClient(t, referenceAgent(store), { lineWorker: LINE_WORKER });
  await until('the line worker runs', () => client.parsedOn === 'worker');
  const seen: { count: number; keys: string[]; kinds: string[]; previewBefore: number; compactions: string[] }[] = [];
  let preview = 0;
  const result = await client.loadSession(
    seed.special.long,
    folder,
    (_update, _line, reduced) => {
      if (reduced === 'preview') preview++;
    },
    undefined,
    {
      reduce: { ...reductionSpec(dir, 'test'), previewRows: 5, progressMs: 0 },
      onProgress: (progress) => {
        const p = progress as ReductionProgress;
        const file = SpillFile.adopt(p.rows.file!.path, p.rows.file!.size);
        const rows = EntityStore.reading(p.rows, file);
        const keys: string[] = [];
        const kinds: string[] = [];
        for (let i = 0; i < rows.length; i++) {
          keys.push(rows.at(i)!.key);
          kinds.push(rows.at(i)!.kind);
        }
        // What the header lists so far, read as the host's timeline of the progress reads it.
        const image = { state: p.state, updateCount: p.updateCount, nextKey: p.created, turnPlan: undefined, compactions: p.compactions, toolCalls: [], messages: [], plans: [], subagents: p.subagents };
        const compactions = [...Timeline.fromImage(image, undefined, rows).compactionsInOrder()].map((c) => c.key);
        file.release();
        seen.push({ count: rows.length, keys, kinds, previewBefore: preview, compactions });
      },
    },
  );
  const timeline = adoptReduced(result.reduced as ReducedReplay);
  t.after(() => timeline.rows.dispose());
  assert.ok(preview > 0, 'the first rows\' updates came whole, for the preview');
  assert.ok(seen.length > 0, 'progress was told');
  assert.ok(seen.every((s) => s.previewBefore === preview), 'every progress came after the preview\'s updates');
  const final = timeline.entities;
  for (const s of seen) {
    assert.ok(s.count >= 5 && s.count <= final.length);
    assert.deepEqual(s.keys, final.slice(0, s.count).map((e) => e.key), 'the rows so far are the first rows, with their keys');
    assert.deepEqual(s.kinds, final.slice(0, s.count).map((e) => e.kind));
  }
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].count >= seen[i - 1].count, 'rows only come');
  // The header's compactions while the replay runs: those among the rows so far, in order.
  const compactionKeys = [...timeline.compactionsInOrder()].map((c) => c.key);
  assert.equal(compactionKeys.length, 3, 'the long session has three compactions');
  for (const s of seen) assert.deepEqual(s.compactions, compactionKeys.filter((key) => s.keys.includes(key)), 'the header lists the compactions among the rows so far');
  assert.ok(seen.some((s) => s.compactions.length > 0), 'a progress listed a compaction before the end');
});

test('a replay many times the reader\'s ring (8 MB), drained slower than it is read, hands every line on as sent: a copy\'s room is reused only once drained', async (t) => {
  const { store, folder } = await seeded(t);
  const sessionId = 'ring-wrapping-replay';
  // About 26 MB of lines, each of them different, in messages and tool calls.
  function* updates(): Generator<SessionUpdate> {
    for (let i = 0; i < 40_000; i++) {
      const text = `${i} `.padEnd(560, String.fromCharCode(97 + (i % 26)));
      if (i % 10 === 9) yield { sessionUpdate: 'tool_call', toolCallId: `call-${i}`, title: `Tool ${i}`, status: 'completed', rawInput: { text } } as SessionUpdate;
      else yield { sessionUpdate: 'agent_message_chunk', messageId: `m${Math.floor(i / 50)}`, content: { type: 'text', text } } as SessionUpdate;
    }
  }
  await writeSession(store, { sessionId, cwd: folder, title: 'Larger than the ring', updatedAt: new Date().toISOString(), archived: false, deleted: false, updates: [] }, updates());
  const here = await onThread(t, store, folder, sessionId);
  const there = await reduced(t, store, folder, sessionId);
  assert.equal(here.lines.length, 40_000, 'every line, on the client\'s thread');
  assert.equal(there.lines.length, here.lines.length, 'every line, handed on from the reader\'s copies');
  for (let i = 0; i < here.lines.length; i++) if (there.lines[i] !== here.lines[i]) assert.fail(`line ${i} differs: ${there.lines[i].slice(0, 80)} against ${here.lines[i].slice(0, 80)}`);
  assert.deepEqual(there.timeline.entities, here.timeline.entities, 'the rows');
});
