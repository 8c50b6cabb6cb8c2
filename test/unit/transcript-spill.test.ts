// A transcript's rows spilled to a temporary file (src/transcript/entityStore.ts, spillFile.ts,
// updateLog.ts): real replays of the reference agent into a timeline that keeps a few entities on
// the heap read back exactly what the in-memory timeline holds; an entity changed after it was
// written is written again at the file's end; find, export and the search's batches cover every
// row; the file goes on dispose, and files of hosts no longer running go at start-up.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AcpClient } from '../../src/acp/client';
import { parsePiece, type ParsedUpdate } from '../../src/acp/lineParse';
import { piecesOf } from '../../src/acp/textPieces';
import type { SessionUpdate } from '../../src/acp/types';
import { EntityStore, type SpillLimits } from '../../src/transcript/entityStore';
import { timelineToMarkdown } from '../../src/transcript/export';
import { TranscriptFind } from '../../src/transcript/find';
import type { CompactionEntity, Entity, MessageEntity } from '../../src/transcript/model';
import type { HostToWebview } from '../../src/transcript/protocol';
import { writeReplay } from '../../src/transcript/replayFile';
import { adoptReduced, ReplayReduction, reductionSpec } from '../../src/transcript/replayReduction';
import { peekRow } from '../../src/transcript/rows';
import { promptsOf } from '../../src/transcript/prompts';
import { onSpillWriteError, SpillFile, type SpillWriteFailure } from '../../src/transcript/spillFile';
import { startTimeOf } from '../../src/transcript/spillOwner';
import { Timeline } from '../../src/transcript/timeline';
import { UpdateLog, type Unkept } from '../../src/transcript/updateLog';
import { seedStore, type SeedResult } from '../agent/seed';
import { CapturingLog, CLIENT_INFO, referenceAgent, tempDir } from './acp-helpers';
import { fullDisk } from './fullDisk';

/** Every entity of `batches`, in one array. */
async function entitiesOf(batches: AsyncIterable<readonly Entity[]>): Promise<Entity[]> {
  const entities: Entity[] = [];
  for await (const batch of batches) for (const entity of batch) entities.push(entity);
  return entities;
}

type Found = Extract<HostToWebview, { type: 'found' }>;
/** Small enough that almost every row of a seeded session lives in the file. */
const TINY: SpillLimits = { chars: 2000, entities: 3 };

interface Replayed {
  updates: SessionUpdate[];
  memory: Timeline;
  spilled: Timeline;
  log: UpdateLog;
}

async function seeded(t: { after(fn: () => void): void }): Promise<{ store: string; folder: string; seed: SeedResult; dir: string }> {
  const store = tempDir(t, 'spill-store-');
  const folder = tempDir(t, 'spill-folder-');
  const dir = tempDir(t, 'spill-files-');
  const seed = await seedStore({ store, folders: [folder], count: 10, seed: 7, now: new Date('2026-03-01T12:00:00Z') });
  return { store, folder, seed, dir };
}

/** One real replay into an in-memory timeline and a spilled one (and the update log), side by side. */
async function replayBoth(t: { after(fn: () => Promise<void> | void): void }, store: string, folder: string, dir: string, sessionId: string): Promise<Replayed> {
  const client = await AcpClient.start(referenceAgent(store), { clientInfo: CLIENT_INFO, log: new CapturingLog() });
  t.after(() => client.dispose());
  const updates: SessionUpdate[] = [];
  const memory = new Timeline();
  const spilled = new Timeline(undefined, new EntityStore(SpillFile.create(dir, 'entities'), TINY));
  const log = new UpdateLog(SpillFile.create(dir, 'updates'));
  t.after(() => {
    spilled.rows.dispose();
    log.dispose();
  });
  await client.loadSession(sessionId, folder, (u) => {
    updates.push(u);
    memory.apply(u);
    spilled.apply(u);
    log.push(u);
  });
  return { updates, memory, spilled, log };
}

/** Runs a find to its final answer (deadline 30 s); the answers come through `post`, no polling. */
function findAll(rows: () => Timeline['rows'] | readonly unknown[], query: string): Promise<Found[]> {
  const answers: Found[] = [];
  return new Promise<Found[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the search for ${query} did not end within 30 s`)), 30_000);
    const finder = new TranscriptFind(rows as () => Timeline['rows'], (m) => {
      answers.push(m as Found);
      if ((m as Found).done) {
        clearTimeout(timer);
        resolve(answers);
      }
    });
    finder.find(1, query, 0, 0);
  });
}

test('a spilled replay reads back, row by row, exactly what the in-memory timeline holds, with a few rows on the heap', async (t) => {
  const { store, folder, seed, dir } = await seeded(t);
  for (const sessionId of [seed.special.long, seed.special.compactions, seed.special.hostile]) {
    const { memory, spilled } = await replayBoth(t, store, folder, dir, sessionId);
    assert.ok(spilled.rows.length > 5, `${sessionId}: ${spilled.rows.length} rows`);
    assert.ok(spilled.rows.heldCount <= TINY.entities, `${spilled.rows.heldCount} rows held`);
    // Read back one by one (peek: no cache), then through the cache, in both orders.
    assert.deepEqual(spilled.entities, memory.entities, sessionId);
    for (let i = spilled.rows.length - 1; i >= 0; i--) assert.deepEqual(spilled.rows.at(i), memory.entities[i], `${sessionId} row ${i}`);
    assert.deepEqual([...spilled.compactionsInOrder()], [...memory.compactionsInOrder()]);
    for (let i = 0; i < memory.entities.length; i++) assert.equal(spilled.indexOf(memory.entities[i].key), i);
  }
});

test('an entity changed after it was written is written again at the end of the file, and reads back changed', (t) => {
  const dir = tempDir(t, 'spill-files-');
  const file = SpillFile.create(dir, 'entities');
  const store = new EntityStore(file, TINY);
  const spilled = new Timeline(undefined, store);
  const memory = new Timeline();
  t.after(() => store.dispose());
  const apply = (u: Record<string, unknown>) => {
    memory.apply(u);
    spilled.apply(u);
  };
  apply({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'in_progress' });
  apply({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: 'first words' } });
  for (let i = 0; i < 20; i++) apply({ sessionUpdate: 'agent_message_chunk', messageId: `n${i}`, content: { type: 'text', text: `row ${i} `.repeat(40) } });
  const compactionKey = Number(memory.compaction('c1')!.key.slice(1));
  const messageKey = Number(memory.entities[1].key.slice(1));
  assert.ok(!store.isHeld(compactionKey) && !store.isHeld(messageKey), 'both left the heap for the file');
  const before = file.size;
  // Updated by id later: the summary streams in, the status completes, the message goes on.
  apply({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: { type: 'text', text: 'the summary' } });
  apply({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed' });
  apply({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: ', and more' } });
  for (let i = 20; i < 40; i++) apply({ sessionUpdate: 'agent_message_chunk', messageId: `n${i}`, content: { type: 'text', text: `row ${i} `.repeat(40) } });
  assert.ok(!store.isHeld(compactionKey) && !store.isHeld(messageKey), 'written out again');
  assert.ok(file.size > before, 'the file only grows: the changed rows were appended');
  const compaction = spilled.compaction('c1') as CompactionEntity;
  assert.equal(compaction.status, 'completed');
  assert.deepEqual(compaction.summary, [{ type: 'text', text: 'the summary' }]);
  assert.equal((spilled.get(`e${messageKey}`) as MessageEntity).parts[0].type === 'text' && ((spilled.get(`e${messageKey}`) as MessageEntity).parts[0] as { text: string }).text, 'first words, and more');
  assert.deepEqual(spilled.entities, memory.entities);
  assert.deepEqual(spilled.entities.map((e) => e.key), memory.entities.map((e) => e.key), 'each row stays where it was first seen');
});

test('find covers the spilled rows: the same matches, rows and count as over the rows in memory', async (t) => {
  const { store, folder, seed, dir } = await seeded(t);
  const { memory, spilled } = await replayBoth(t, store, folder, dir, seed.special.long);
  const entities = memory.entities;
  // A word of the first row (long since written to the file) and one that is everywhere.
  const first = entities.find((e) => e.kind === 'user_message') as MessageEntity;
  const word = ((first.parts[0] as { text: string }).text.match(/[A-Za-z]{6,}/) ?? ['the'])[0];
  assert.ok(!spilled.rows.isHeld(Number(first.key.slice(1))), 'the first prompt is in the file');
  for (const query of [word, 'e']) {
    const inMemory = await findAll(() => entities, query);
    const fromFile = await findAll(() => spilled.rows, query);
    assert.ok(inMemory.at(-1)!.total > 0, `${query} is found`);
    assert.deepEqual(fromFile.at(-1), inMemory.at(-1), query);
  }
});

test('the export of a spilled session is the export of the session in memory: its Markdown and its replay file', async (t) => {
  const { store, folder, seed, dir } = await seeded(t);
  for (const sessionId of [seed.special.compactions, seed.special.hostile, seed.special.long]) {
    const { updates, memory, spilled, log } = await replayBoth(t, store, folder, dir, sessionId);
    const header = { title: 'T', agentName: 'Reference', sessionId, cwd: folder };
    assert.equal(timelineToMarkdown(header, spilled.rows, spilled.state), timelineToMarkdown(header, memory.entities, memory.state), sessionId);
    assert.equal(log.length, updates.length);
    assert.deepEqual([...log], updates, 'the log reads back every update, in order');
    const replayHeader = { agentName: 'Reference', sessionId, cwd: folder, exportedAt: '2026-03-02T00:00:00Z' };
    assert.equal(writeReplay(replayHeader, [...log]), writeReplay(replayHeader, updates));
  }
});

test('the search gets every row in batches read from the file; a batch after the tab closed fails', async (t) => {
  const { store, folder, seed, dir } = await seeded(t);
  const { memory, spilled } = await replayBoth(t, store, folder, dir, seed.special.long);
  assert.deepEqual(await entitiesOf(spilled.rows.batches(7)), memory.entities);
  const batches = spilled.rows.batches(2);
  await batches.next();
  spilled.rows.dispose();
  await assert.rejects(batches.next(), /closed/);
});

test('the files are removed on dispose; at start-up those of hosts no longer running are removed, no others', async (t) => {
  const dir = tempDir(t, 'spill-files-');
  const entityFile = SpillFile.create(dir, 'entities');
  const updateFile = SpillFile.create(dir, 'updates');
  const store = new EntityStore(entityFile, TINY);
  const log = new UpdateLog(updateFile);
  const timeline = new Timeline(undefined, store);
  for (let i = 0; i < 50; i++) {
    const update: SessionUpdate = { sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: 'x'.repeat(500) } } as SessionUpdate;
    timeline.apply(update);
    log.push(update);
  }
  [...log];
  entityFile.flush();
  updateFile.flush();
  const files = readdirSync(dir);
  assert.equal(files.length, 2);
  assert.ok(files.every((name) => statSync(join(dir, name)).size > 0), 'both files hold data');
  store.dispose();
  log.dispose();
  assert.deepEqual(readdirSync(dir), [], 'disposing removes both files');
  // Updates that come after the tab closed change nothing and write nothing.
  for (let i = 0; i < 10; i++) {
    const late = { sessionUpdate: 'agent_message_chunk', messageId: `late${i}`, content: { type: 'text', text: 'y'.repeat(5000) } } as SessionUpdate;
    timeline.apply(late);
    log.push(late);
  }
  assert.deepEqual(readdirSync(dir), [], 'nothing written after dispose');

  // A process that has exited: its pid names no running host.
  const child = spawn(process.execPath, ['-e', '']);
  const deadPid = child.pid!;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the child did not exit within 10 s')), 10_000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const stale = join(dir, `${deadPid}-0123456789abcdef-entities.spill`);
  const running = join(dir, `${process.ppid}-0123456789abcdef-updates.spill`);
  const notOurs = join(dir, 'notes.txt');
  for (const path of [stale, running, notOurs]) writeFileSync(path, 'x');
  const own = SpillFile.create(dir, 'entities');
  t.after(() => own.dispose());
  assert.equal(await SpillFile.removeStale(dir), 1);
  assert.ok(!existsSync(stale), 'the crashed host’s file is gone');
  assert.ok(existsSync(running) && existsSync(own.path) && existsSync(notOurs), 'running hosts’ files and other files stay');
});

test('rows written by the thread pool read back while their writes are under way, and after; disposing meanwhile removes the file', async (t) => {
  const dir = tempDir(t, 'spill-files-');
  const file = SpillFile.create(dir, 'entities');
  const spilled = new Timeline(undefined, new EntityStore(file, TINY));
  const memory = new Timeline();
  // About 6 MB: several megabyte writes handed to the thread pool, none ended yet.
  for (let i = 0; i < 3000; i++) {
    const u = { sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: `row ${i} ${'é'.repeat(1000)}` } };
    spilled.apply(u);
    memory.apply(u);
  }
  assert.deepEqual(spilled.entities, memory.entities, 'read back before the writes ended');
  await new Promise<void>((resolve) => setImmediate(resolve));
  file.flush();
  assert.deepEqual(spilled.entities, memory.entities, 'read back from the disk');
  spilled.apply({ sessionUpdate: 'agent_message_chunk', messageId: 'last', content: { type: 'text', text: 'x'.repeat(2_000_000) } });
  spilled.apply({ sessionUpdate: 'agent_message_chunk', messageId: 'after', content: { type: 'text', text: 'y' } });
  spilled.rows.dispose();
  assert.deepEqual(readdirSync(dir), [], 'removed while a write was under way');
});

/** Bytes this process has read through system calls so far (Linux's /proc/self/io), or undefined elsewhere. */
function bytesRead(): number | undefined {
  try {
    return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
  } catch {
    return undefined;
  }
}

test('a row read on its own brings little of the file with it; a scan in order reads the file about once', (t) => {
  const dir = tempDir(t, 'spill-files-');
  // Reduced as a transcript's replay is in the line worker, and taken over as its tab does.
  const reduction = new ReplayReduction(reductionSpec(dir, 'entities'));
  // About 24 MB of rows (as figure 9's 200,000-chunk session), with 50 compactions among them.
  const text = 'é'.repeat(1200);
  for (let i = 0; i < 10_000; i++) {
    if (i % 200 === 100) {
      reduction.apply({ sessionUpdate: 'compaction_update', compactionId: `c${i}`, status: 'completed' } as SessionUpdate, 1);
      reduction.apply({ sessionUpdate: 'compaction_summary_chunk', compactionId: `c${i}`, content: { type: 'text', text: `summary ${i}` } } as SessionUpdate, 1);
    }
    reduction.apply({ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: `${i} ${text}` } } as SessionUpdate, 1);
  }
  const timeline = adoptReduced(reduction.finish().result);
  t.after(() => timeline.rows.dispose());
  const before = bytesRead();
  if (before === undefined) return t.diagnostic('no /proc/self/io here: the bytes read are not counted');
  // What the header reads once a replay ends: the compactions, each far from the one before.
  const summaries = [...timeline.compactionsInOrder()].map((c) => c.summary.map((part) => (part as { text?: string }).text ?? '').join(''));
  const alone = bytesRead()! - before;
  assert.equal(summaries.length, 50);
  assert.equal(summaries[49], 'summary 9900');
  assert.ok(alone < 50 * 100_000, `50 compactions read ${alone} bytes of the file, at most 100 KB each`);
  // A scan in order (find, export, indexing): the file about once, not a window per row.
  const [name] = readdirSync(dir);
  const size = statSync(join(dir, name)).size;
  assert.ok(size > 20_000_000, `the rows' file holds ${size} bytes`);
  const scanFrom = bytesRead()!;
  let rows = 0;
  for (let i = 0; i < timeline.rows.length; i++) if (peekRow(timeline.rows, i)) rows++;
  const scanned = bytesRead()! - scanFrom;
  assert.equal(rows, 10_050);
  assert.ok(scanned >= size * 0.9 && scanned < size * 1.2, `a scan of ${size} bytes read ${scanned}`);
  t.diagnostic(`50 compactions read ${alone} bytes; a scan of ${size} bytes read ${scanned}`);
});

test('a message streamed in many chunks is written from the pieces it came in, and reads back exactly: a surrogate pair split between chunks, the line worker\'s merges, a text set anew since', (t) => {
  const dir = tempDir(t, 'spill-pieces-');
  const texts = ['Hello ', '\ud83d', '\ude80', ' wörld 中文 ', ...Array.from({ length: 400 }, (_, i) => `chunk ${i}, `)];
  const line = (sessionUpdate: string, text: string) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate, content: { type: 'text', text } } } });
  // As the line worker parses them: two reads, each merging its run of chunks into one update.
  const encoder = new TextEncoder();
  const halves = [texts.slice(0, 150), texts.slice(150)];
  const updates = halves.flatMap((half) => parsePiece(encoder.encode(half.map((text) => line('agent_message_chunk', text)).join('\n')), true).entries.map((e) => (e as ParsedUpdate).params as { update: SessionUpdate }).map((p) => p.update));
  assert.equal(updates.length, 2, 'each read merged into one update');
  const more: SessionUpdate[] = [
    { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'next' } },
    { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } },
    { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'b' } },
    { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'c' } },
  ];
  const part = (timeline: Timeline) => (timeline.rows.at(0) as MessageEntity).parts[0] as { text: string };
  for (const replace of [false, true]) {
    const memory = new Timeline();
    const spilled = new Timeline(undefined, new EntityStore(SpillFile.create(dir, 'entities'), TINY));
    t.after(() => spilled.rows.dispose());
    for (const u of updates) {
      memory.apply(u);
      spilled.apply(u);
    }
    assert.equal(part(memory).text, texts.join(''));
    assert.equal(piecesOf(part(spilled))?.join(''), texts.join(''), 'the spilled message knows the pieces its text came in');
    assert.equal(piecesOf(part(memory)), undefined, 'a timeline on the heap keeps no pieces (they would be held twice once the text is read)');
    // A text set anew after its appends is written as it is, not from the pieces it had.
    if (replace) for (const timeline of [memory, spilled]) part(timeline).text = 'replaced';
    // Written out (more rows than the cache holds), read back.
    for (const u of more) {
      memory.apply(u);
      spilled.apply(u);
    }
    assert.ok(!spilled.rows.isHeld(spilled.rows.keyNumberAt(0)), 'the message was written out');
    assert.deepEqual(spilled.entities, memory.entities);
    assert.equal(((spilled.rows.peek(0) as MessageEntity).parts[0] as { text: string }).text, replace ? 'replaced' : texts.join(''));
  }
});

test('updates and entities read back with their keys in the order they came, whatever their shape (entities of text as their strings, the rest of JSON as their JSON, anything else as V8 serializes it)', (t) => {
  const dir = tempDir(t, 'spill-files-');
  const log = new UpdateLog(SpillFile.create(dir, 'updates'));
  t.after(() => log.dispose());
  const text = (s: string) => ({ type: 'text', text: s });
  const updates: Record<string, unknown>[] = [
    { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('plain') },
    { sessionUpdate: 'agent_message_chunk', content: text('no id'), messageId: 'm2' },
    { sessionUpdate: 'user_message_chunk', content: text('') },
    { sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: text('lone \ud800 surrogate, emoji 😀, CJK 漢字, NUL \u0000') },
    // Not the text shapes: a key more, another order, another block, a value of another type.
    { sessionUpdate: 'agent_message_chunk', messageId: 'm3', content: { type: 'text', text: 'annotated', annotations: { priority: 1 } } },
    { messageId: 'm4', sessionUpdate: 'agent_message_chunk', content: text('id first') },
    { sessionUpdate: 'agent_message_chunk', messageId: 'm5', content: { text: 'text first', type: 'text' } },
    { sessionUpdate: 'agent_message_chunk', messageId: 'm6', content: { type: 'image', mimeType: 'image/png', data: 'AAAA' } },
    { sessionUpdate: 'agent_message_chunk', messageId: 7, content: text('numeric id') },
    { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', status: 'pending', rawInput: { path: '/x' } },
    // Larger than the file's write buffer: a record of its own size.
    { sessionUpdate: 'agent_message_chunk', messageId: 'm8', content: text('é'.repeat(700_000)) },
    { sessionUpdate: 'agent_message_chunk', messageId: 'm9', content: text('after the large one') },
  ];
  for (const update of updates) log.push(update as unknown as SessionUpdate);
  const read: unknown[] = [...log];
  assert.equal(read.length, updates.length);
  for (let i = 0; i < updates.length; i++) assert.equal(JSON.stringify(read[i]), JSON.stringify(updates[i]), `update ${i}`);
  assert.deepEqual(read, updates);

  const file = SpillFile.create(dir, 'entities');
  const store = new EntityStore(file, { chars: 1, entities: 1 });
  t.after(() => store.dispose());
  const entities: Entity[] = [
    { kind: 'agent_message', key: 'e0', parts: [{ type: 'text', text: 'a' }, { type: 'text', text: '\udc00b' }], messageId: 'm1' },
    { kind: 'thought', key: 'e1', parts: [] },
    { kind: 'compaction', key: 'e2', compactionId: 'c1', status: 'completed', summary: [{ type: 'text', text: 'the summary' }] },
    { kind: 'compaction', key: 'e3', compactionId: 'c2', status: 'failed', summary: [], error: 'no room' },
    { kind: 'user_message', key: 'e4', parts: [{ type: 'text', text: 'see' }, { type: 'resource_link', uri: 'file:///a', name: 'a' }] },
    { kind: 'unknown', key: 'e5', sessionUpdate: 'future_update', json: '{}' },
  ];
  entities.forEach((entity, n) => store.push(structuredClone(entity), n));
  store.push({ kind: 'agent_message', key: 'e6', parts: [] }, 6);
  assert.ok(entities.every((_, n) => !store.isHeld(n)), 'every one was written to the file');
  for (let i = 0; i < entities.length; i++) assert.equal(JSON.stringify(store.peek(i)), JSON.stringify(entities[i]), `entity ${i}`);
  // Rows of JSON go as their JSON; what JSON would drop or change goes as V8 serializes it: each reads back equal, key for key.
  const odd: Entity[] = [
    { kind: 'tool_call', key: 'e7', toolCallId: 't1', title: 'Read', content: [], locations: [{ path: '/x', line: 3 }], rawInput: { path: '/x', deep: [1, 'two', null, true, { '': 0.5 }] } },
    { kind: 'tool_call', key: 'e8', toolCallId: 't2', title: 'undefined kept', content: [], locations: [], rawInput: undefined },
    { kind: 'tool_call', key: 'e9', toolCallId: 't3', title: 'numbers', content: [], locations: [], rawInput: { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, negativeZero: -0 } },
    { kind: 'tool_call', key: 'e10', toolCallId: 't4', title: 'a date', content: [], locations: [], rawOutput: { at: new Date(0) } },
  ] as Entity[];
  odd.forEach((entity, i) => store.push(entity, 7 + i));
  store.push({ kind: 'agent_message', key: 'e11', parts: [] }, 11);
  for (let i = 0; i < odd.length; i++) {
    assert.ok(!store.isHeld(7 + i), `odd entity ${i} was written`);
    assert.deepStrictEqual(store.peek(7 + i), odd[i], `odd entity ${i}`);
  }
});

/** 4,000 rows of prompts and answers (about 4 MB), as a long replay sends them. */
function longReplay(rows = 4000): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (let i = 0; i < rows; i++) {
    const role = i % 2 ? 'agent_message_chunk' : 'user_message_chunk';
    updates.push({ sessionUpdate: role, messageId: `m${i}`, content: { type: 'text', text: `row ${i} zebra${i} ${'é'.repeat(500)}` } } as SessionUpdate);
  }
  return updates;
}

/** Resolves with the first failed write told for one of `paths` (deadline 10 s). */
function toldFailure(paths: string[]): { failures: SpillWriteFailure[]; first: Promise<SpillWriteFailure> } {
  const failures: SpillWriteFailure[] = [];
  let timer: NodeJS.Timeout | undefined;
  const first = new Promise<SpillWriteFailure>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no failed write of ${paths.join(', ')} was told within 10 s`)), 10_000);
    const watch = onSpillWriteError((failure) => {
      if (!paths.includes(failure.path)) return;
      failures.push(failure);
      clearTimeout(timer);
      resolve(failure);
    });
    // Listening a while longer: a second telling for the same file would be counted.
    setTimeout(() => watch.dispose(), 10_000).unref();
  });
  return { failures, first };
}

test('on a full disk a spilled transcript keeps what it could not write in memory: every row, prompt, find and export reads as in memory, and the first error is told once per file, naming the folder', async (t) => {
  for (const kind of ['tmpfs', '/dev/full'] as const) await readsBackOnAFullDisk(t, kind);
});

async function readsBackOnAFullDisk(t: { after(fn: () => void): void }, kind: 'tmpfs' | '/dev/full'): Promise<void> {
  const disk = fullDisk(t, kind);
  const entityFile = disk.create('entities');
  const updateFile = disk.create('updates');
  const told = [toldFailure([entityFile.path]), toldFailure([updateFile.path])];
  const spilled = new Timeline(undefined, new EntityStore(entityFile, TINY));
  const memory = new Timeline();
  const unkept: Unkept[] = [];
  const log = new UpdateLog(updateFile, (u) => unkept.push(u));
  t.after(() => {
    spilled.rows.dispose();
    log.dispose();
  });
  const updates = longReplay();
  for (const u of updates) {
    spilled.apply(u);
    memory.apply(u);
    log.push(u);
  }
  // Read while writes are under way, failing, and after.
  assert.deepEqual(spilled.rows.peek(3999), memory.entities[3999]);
  await Promise.all(told.map((f) => f.first));
  assert.equal(entityFile.writeError?.code, 'ENOSPC', `${disk.kind}: the first error is kept`);
  assert.equal(spilled.rows.length, 4000);
  for (let i = 0; i < 4000; i++) assert.deepEqual(spilled.rows.peek(i), memory.entities[i], `${disk.kind}: row ${i}`);
  assert.deepEqual(promptsOf(spilled.rows).map((p) => p.index), promptsOf(memory.entities).map((p) => p.index), 'the prompt list');
  const fromFile = await findAll(() => spilled.rows, 'zebra3999');
  assert.equal(fromFile.at(-1)!.total, 1, 'find reaches the last row');
  const header = { title: 'T', agentName: 'Reference', sessionId: 's', cwd: '/w' };
  assert.equal(timelineToMarkdown(header, spilled.rows, spilled.state), timelineToMarkdown(header, memory.entities, memory.state), 'the Markdown export');
  assert.deepEqual([...log], updates, 'the update log, for Export Sessions');
  assert.deepEqual(unkept, [], 'nothing lost within the bound');
  assert.deepEqual(await entitiesOf(spilled.rows.batches()), memory.entities, 'the search index\'s batches');
  // Told once per file (not once per failed write), with the folder that is full.
  for (const { failures } of told) {
    assert.equal(failures.length, 1, `${disk.kind}: told once`);
    assert.equal(failures[0].dir, disk.dir);
    assert.equal(failures[0].error.code, 'ENOSPC');
  }
}

test('past what a file on a full disk keeps in memory, rows read back as rows that say why, and the update log\'s reading names the full disk instead of giving part of the transcript', async (t) => {
  for (const kind of ['tmpfs', '/dev/full'] as const) await losesPastTheBound(t, kind);
});

async function losesPastTheBound(t: { after(fn: () => void): void }, kind: 'tmpfs' | '/dev/full'): Promise<void> {
  const disk = fullDisk(t, kind);
  const keep = { keepBytes: 512 * 1024 };
  const entityFile = disk.create('entities', keep);
  const updateFile = disk.create('updates', keep);
  const entitiesFailed = toldFailure([entityFile.path]).first;
  const updatesFailed = toldFailure([updateFile.path]).first;
  const store = new EntityStore(entityFile, TINY);
  const spilled = new Timeline(undefined, store);
  const unkept: Unkept[] = [];
  const log = new UpdateLog(updateFile, (u) => unkept.push(u));
  t.after(() => {
    store.dispose();
    log.dispose();
  });
  const updates = longReplay();
  // A first part (more than a megabyte each: a write of each file), while the disk's refusal
  // comes back from the thread pool; then the rest, past the bound.
  for (const u of updates.slice(0, 2500)) {
    spilled.apply(u);
    log.push(u);
  }
  await Promise.all([entitiesFailed, updatesFailed]);
  for (const u of updates.slice(2500)) {
    spilled.apply(u);
    log.push(u);
  }
  assert.equal(spilled.rows.length, 4000, 'every update made its row');
  const rows = await entitiesOf(spilled.rows.batches());
  const lost = rows.filter((e) => e.kind === 'unknown');
  assert.ok(lost.length > 1000 && lost.length < 4000, `${lost.length} rows lost, the others kept`);
  assert.ok(store.lostRows && store.lostRows.count === lost.length);
  for (const row of lost) assert.match((row as { problem?: string }).problem ?? '', /could not be kept: writing .* failed: ENOSPC.*kept in memory/);
  assert.ok(promptsOf(spilled.rows).length < 2000, 'a lost prompt is not in the prompt list');
  assert.ok(unkept.length > 0, `the log told its losses (${log.unkept}; ${updateFile.writeError?.message})`);
  assert.ok(unkept.every((u) => u.diskFull && /ENOSPC/.test(u.reason)), 'the log told its losses');
  assert.ok(log.unkept > 0 && log.length + log.unkept === 4000);
  assert.throws(() => [...log], /updates could not be kept: writing .* failed: ENOSPC: no space left on device/);
}

test('a file whose pid another process has taken since is removed: a file names its process by pid and start time, and only a running process with both keeps it', async (t) => {
  const dir = tempDir(t, 'spill-files-');
  const own = SpillFile.create(dir, 'entities');
  t.after(() => own.dispose());
  // A process that runs (the test runner that started this one), with its start time from /proc.
  const pid = process.ppid;
  const start = startTimeOf(pid);
  assert.ok(start, `/proc/${pid}/stat gives a start time`);
  const child = spawn(process.execPath, ['-e', '']);
  const deadPid = child.pid!;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the child did not exit within 10 s')), 10_000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const name = (owner: string, tag: string) => join(dir, `${owner}-0123456789abcdef-${tag}.spill`);
  const running = name(`${pid}_${start}`, 'updates');
  const reused = name(`${pid}_${Number(start) + 1}`, 'entities');
  // An earlier process with this one's pid started before it (not at the runner's start plus a
  // few ticks: this process can start exactly then, and then that name is its own).
  const ownEarlier = name(`${process.pid}_${Number(startTimeOf(process.pid)) - 1}`, 'updates');
  const dead = name(`${deadPid}_${start}`, 'entities');
  const unknownStart = name(`${pid}_0`, 'entities');
  const legacyRunning = name(`${pid}`, 'updates');
  const legacyDead = name(`${deadPid}`, 'updates');
  for (const path of [running, reused, ownEarlier, dead, unknownStart, legacyRunning, legacyDead]) writeFileSync(path, 'x');
  assert.match(own.path, new RegExp(`/${process.pid}_${startTimeOf(process.pid)}-[0-9a-f]{16}-entities\\.spill$`), 'our own file names our pid and start time');
  assert.equal(await SpillFile.removeStale(dir), 4);
  for (const gone of [reused, ownEarlier, dead, legacyDead]) assert.ok(!existsSync(gone), `${gone} is removed`);
  for (const kept of [own.path, running, unknownStart, legacyRunning]) assert.ok(existsSync(kept), `${kept} stays`);
});

test('a spill file that cannot even be made is told as a failed write is, naming the folder, and the error still reaches the caller', async (t) => {
  // A folder path that is a file: the kernel refuses to make the folder (ENOTDIR / EEXIST).
  const notADir = join(tempDir(t, 'spill-create-'), 'taken');
  writeFileSync(notADir, 'a file, not a folder');
  const told = new Promise<SpillWriteFailure>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no failure was told within 10 s')), 10_000);
    const watch = onSpillWriteError((failure) => {
      if (failure.dir !== notADir) return;
      clearTimeout(timer);
      watch.dispose();
      resolve(failure);
    });
  });
  assert.throws(() => SpillFile.create(notADir, 'entities'), /ENOTDIR|EEXIST/);
  const failure = await told;
  assert.match(String(failure.error.code), /ENOTDIR|EEXIST/);
});
