// The reference agent's sidecar store: a session's updates in `<name>.<random>.updates.ndjson`,
// one a line, streamed to and from disk so a session of any length is never held whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listStoredSessions, markSessionDeleted, readSession, readSessionUpdates, updateSession, writeSession, type SessionUpdate } from '../agent/store';
import { storedSession, tempStore } from '../agent/fixtures';
import { RawAgent } from '../agent/rawClient';

type T = Parameters<typeof tempStore>[0];

/** Updates whose text needs JSON escaping and UTF-8 (newlines, quotes, emoji), with a compaction in the middle. */
function* updatesOf(count: number): Generator<SessionUpdate> {
  for (let i = 0; i < count; i++) {
    if (i === Math.floor(count / 2)) {
      yield { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'in_progress' } as SessionUpdate;
      yield { sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: { type: 'text', text: 'summary 🚀' } } as SessionUpdate;
      yield { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed' } as SessionUpdate;
    }
    yield { sessionUpdate: 'agent_message_chunk', messageId: `m${Math.floor(i / 20)}`, content: { type: 'text', text: `chunk ${i}: "quoted"\n\\ naïve 日本語 🚀` } } as SessionUpdate;
  }
}

async function collect(iterable: AsyncIterable<SessionUpdate>): Promise<SessionUpdate[]> {
  const out: SessionUpdate[] = [];
  for await (const u of iterable) out.push(u);
  return out;
}

async function sidecarStore(t: T, count = 5000) {
  const store = await tempStore(t);
  await writeSession(store, storedSession('s1', { updates: [] }), updatesOf(count));
  const record = (await readSession(store, 's1'))!;
  return { store, record, sidecar: join(store, record.updatesFile!) };
}

function start(t: T, store: string): RawAgent {
  const agent = RawAgent.start(['--store', store]);
  t.after(() => agent.close());
  return agent;
}

test('a session written as a stream reads back in order from its sidecar, one update a line, with metadata only in its JSON', async (t) => {
  const { store, record, sidecar } = await sidecarStore(t);
  const expected = [...updatesOf(5000)];
  assert.equal(record.updateCount, expected.length);
  assert.deepEqual(record.updates, []);
  assert.deepEqual(await collect(readSessionUpdates(store, record)), expected);
  const lines = (await readFile(sidecar, 'utf8')).split('\n');
  assert.equal(lines.pop(), '', 'the sidecar ends with a newline');
  assert.deepEqual(lines.map((l) => JSON.parse(l)), expected);
  assert.ok((await stat(join(store, 's1.json'))).size < 1024, 'the JSON holds no updates');
  assert.deepEqual((await listStoredSessions(store)).map((s) => [s.sessionId, s.updatesFile]), [['s1', record.updatesFile]]);
  // Rewriting the session replaces its sidecar and removes the old one.
  await writeSession(store, storedSession('s1', { updates: [] }), updatesOf(3));
  const again = (await readSession(store, 's1'))!;
  assert.notEqual(again.updatesFile, record.updatesFile);
  assert.deepEqual((await readdir(store)).sort(), [again.updatesFile, 's1.json'].sort());
  assert.deepEqual(await collect(readSessionUpdates(store, again)), [...updatesOf(3)]);
});

test('the reference agent replays a sidecar session in order, folding compactions for a client that did not advertise them', async (t) => {
  const { store } = await sidecarStore(t, 400);
  const inline = await tempStore(t);
  await writeSession(inline, storedSession('s1', { updates: [...updatesOf(400)] }));
  const replayed = async (dir: string, compaction: boolean) => {
    const agent = start(t, dir);
    await agent.initialize({ protocolVersion: 1, clientCapabilities: compaction ? { session: { compaction: {} } } : {} });
    await agent.call('session/load', { sessionId: 's1', cwd: '/work/project-a', mcpServers: [] });
    return agent.updates('s1');
  };
  assert.deepEqual(await replayed(store, true), [...updatesOf(400)]);
  const folded = await replayed(store, false);
  assert.ok(!folded.some((u) => u.sessionUpdate.startsWith('compaction')));
  assert.ok(folded.some((u) => u.messageId === 'compaction-c1' && u.content.text === 'summary 🚀'));
  assert.deepEqual(folded, await replayed(inline, false), 'the same replay as the session stored inline');
});

test('archive and rename rewrite only the JSON: the sidecar stays the same file, untouched', async (t) => {
  const { store, record, sidecar } = await sidecarStore(t);
  const before = await stat(sidecar);
  const agent = start(t, store);
  await agent.initialize();
  await agent.call('session/archive', { sessionId: 's1' });
  await agent.call('session/set_title', { sessionId: 's1', title: 'Renamed' });
  const after = (await readSession(store, 's1'))!;
  assert.equal(after.archived, true);
  assert.equal(after.title, 'Renamed');
  assert.equal(after.updatesFile, record.updatesFile);
  const still = await stat(sidecar);
  assert.deepEqual([still.ino, still.size, still.mtimeMs], [before.ino, before.size, before.mtimeMs], 'the sidecar was not rewritten');
  await agent.call('session/load', { sessionId: 's1', cwd: '/work/project-a', mcpServers: [] });
  assert.deepEqual(agent.updates('s1'), [...updatesOf(5000)]);
});

test('a delete wins over an archive of a sidecar session racing it, and keeps the sidecar', async (t) => {
  const { store, record, sidecar } = await sidecarStore(t, 50);
  await Promise.all([updateSession(store, 's1', (r) => ({ ...r, archived: true })), markSessionDeleted(store, 's1')]);
  assert.equal(await updateSession(store, 's1', (r) => ({ ...r, title: 'after the delete' })), undefined);
  const after = (await readSession(store, 's1'))!;
  assert.equal(after.deleted, true);
  assert.notEqual(after.title, 'after the delete');
  assert.equal(after.updatesFile, record.updatesFile);
  assert.equal((await readFile(sidecar, 'utf8')).split('\n').length, [...updatesOf(50)].length + 1);
  const agent = start(t, store);
  await agent.initialize();
  const load = await agent.request('session/load', { sessionId: 's1', cwd: '/work/project-a', mcpServers: [] });
  assert.equal(load.error?.code, -32002, 'a deleted session is not found');
});

test('a bad sidecar line is a clear error naming the file and line, after the updates before it', async (t) => {
  const { store, record, sidecar } = await sidecarStore(t, 10);
  const lines = (await readFile(sidecar, 'utf8')).split('\n');
  lines[2] = '{"sessionUpdate": "agent_message_chunk", oops';
  await writeFile(sidecar, lines.join('\n'));
  const read: SessionUpdate[] = [];
  await assert.rejects(async () => {
    for await (const u of readSessionUpdates(store, record)) read.push(u);
  }, (error: Error) => error.message.startsWith(`${sidecar}:3: not valid JSON`));
  assert.deepEqual(read, [...updatesOf(10)].slice(0, 2));

  const agent = start(t, store);
  await agent.initialize();
  const load = await agent.request('session/load', { sessionId: 's1', cwd: '/work/project-a', mcpServers: [] });
  assert.ok(load.error, 'the load fails');
  assert.match(JSON.stringify(load.error), /updates\.ndjson:3: not valid JSON/);
  assert.deepEqual(agent.updates('s1'), [...updatesOf(10)].slice(0, 2));

  lines[2] = '{"content": "no kind"}';
  await writeFile(sidecar, lines.join('\n'));
  await assert.rejects(collect(readSessionUpdates(store, record)), (error: Error) => error.message === `${sidecar}:3: has no string \`sessionUpdate\``);
  await writeFile(sidecar, lines.slice(0, 2).join('\n') + '\n');
  await assert.rejects(collect(readSessionUpdates(store, record)), /holds 2 updates, session "s1" says 13/);
});
