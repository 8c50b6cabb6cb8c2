// Two reference agent processes writing one store at the same time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { listStoredSessions, writeSession } from '../agent/store';
import { storedSession, tempStore } from '../agent/fixtures';
import { listAll, RawAgent } from '../agent/rawClient';

type T = Parameters<typeof tempStore>[0];
const N = 40;
const sessionIds = Array.from({ length: N }, (_, i) => `s${String(i).padStart(2, '0')}`);

async function seeded(t: T): Promise<string> {
  const store = await tempStore(t);
  for (const [i, sessionId] of sessionIds.entries()) await writeSession(store, storedSession(sessionId, { minutesAgo: i }));
  return store;
}

async function agentOn(t: T, store: string): Promise<RawAgent> {
  const agent = RawAgent.start(['--store', store, '--page-size', '7']);
  t.after(() => agent.close());
  await agent.initialize();
  return agent;
}

/** What a fresh agent lists under each archived filter value. */
async function listing(t: T, store: string) {
  const fresh = await agentOn(t, store);
  const ids = async (archived: string) => (await listAll(fresh, { archived })).map((s) => s.sessionId).sort();
  return { exclude: await ids('exclude'), only: await ids('only'), include: await ids('include') };
}

async function assertStoreIntact(store: string): Promise<void> {
  const names = await readdir(store);
  assert.deepEqual(names.filter((n) => n.includes('.tmp-')), [], 'no temp file is left');
  assert.equal((await listStoredSessions(store)).length, N, 'every session file still parses'); // throws on a torn file
}

test('an archive storm in one agent and a delete storm in another end with exactly the sessions the operations say', async (t) => {
  const store = await seeded(t);
  const [archiver, deleter] = await Promise.all([agentOn(t, store), agentOn(t, store)]);
  const deleted = sessionIds.filter((_, i) => i % 2 === 0);
  // Everything is sent at once, so the two processes interleave their reads and writes.
  const archives = sessionIds.map((sessionId) => archiver.request('session/archive', { sessionId }));
  const deletes = deleted.map((sessionId) => deleter.request('session/delete', { sessionId }));
  const [archiveResults, deleteResults] = await Promise.all([Promise.all(archives), Promise.all(deletes)]);

  assert.ok(deleteResults.every((r) => r.error === undefined), 'every delete succeeds');
  for (const [i, r] of archiveResults.entries()) {
    if (i % 2 === 1) assert.equal(r.error, undefined, `archive of ${sessionIds[i]} succeeds`);
    else assert.ok(r.error === undefined || r.error.code === -32002, `archive of deleted ${sessionIds[i]}: ok or -32002, got ${JSON.stringify(r.error)}`);
  }
  const survivors = sessionIds.filter((_, i) => i % 2 === 1);
  assert.deepEqual(await listing(t, store), { exclude: [], only: survivors, include: survivors });
  assert.deepEqual((await listAll(archiver, { archived: 'include' })).map((s) => s.sessionId).sort(), survivors, 'the archiving agent agrees');
  await assertStoreIntact(store);
});

test('a delete storm racing an unarchive storm never brings a deleted session back', async (t) => {
  const store = await tempStore(t);
  for (const [i, sessionId] of sessionIds.entries()) await writeSession(store, storedSession(sessionId, { minutesAgo: i, archived: true }));
  const [unarchiver, deleter] = await Promise.all([agentOn(t, store), agentOn(t, store)]);
  const deleted = sessionIds.filter((_, i) => i % 3 === 0);
  const unarchives = sessionIds.map((sessionId) => unarchiver.request('session/unarchive', { sessionId }));
  const deletes = [...deleted].reverse().map((sessionId) => deleter.request('session/delete', { sessionId }));
  await Promise.all([...unarchives, ...deletes]);
  const survivors = sessionIds.filter((_, i) => i % 3 !== 0);
  assert.deepEqual(await listing(t, store), { exclude: survivors, only: [], include: survivors });
  await assertStoreIntact(store);
});

test('concurrent archive and unarchive storms leave every session in exactly one of the two lists', async (t) => {
  const store = await seeded(t);
  const [a, b] = await Promise.all([agentOn(t, store), agentOn(t, store)]);
  const rounds = 3;
  const storm = async (agent: RawAgent, first: 'session/archive' | 'session/unarchive') => {
    const second = first === 'session/archive' ? 'session/unarchive' : 'session/archive';
    for (let round = 0; round < rounds; round++) {
      const results = await Promise.all(sessionIds.map((sessionId) => agent.request(round % 2 === 0 ? first : second, { sessionId })));
      assert.ok(results.every((r) => r.error === undefined), 'no archive or unarchive fails');
    }
  };
  await Promise.all([storm(a, 'session/archive'), storm(b, 'session/unarchive')]);
  const { exclude, only, include } = await listing(t, store);
  assert.deepEqual(include, sessionIds);
  assert.deepEqual([...exclude, ...only].sort(), sessionIds, 'each session is active or archived, never both or neither');
  const stored = await listStoredSessions(store);
  assert.deepEqual(stored.filter((s) => s.archived).map((s) => s.sessionId).sort(), only, 'the list says what the files say');
  await assertStoreIntact(store);
});
