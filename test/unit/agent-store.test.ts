// The reference agent's store: one JSON file per session, atomic writes, tombstones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listStoredSessions, markSessionDeleted, readSession, sessionFilePath, updateSession, writeSession } from '../agent/store';
import { storedSession, tempStore } from '../agent/fixtures';
import { RawAgent } from '../agent/rawClient';

test('a written session reads back unchanged, one JSON file per session', async (t) => {
  const store = await tempStore(t);
  const record = storedSession('sess_a', { additionalDirectories: ['/work/project-b'], archived: true });
  await writeSession(store, record);
  await writeSession(store, storedSession('sess_b'));
  assert.deepEqual(await readSession(store, 'sess_a'), record);
  assert.deepEqual((await readdir(store)).sort(), ['sess_a.json', 'sess_b.json']);
  assert.deepEqual(JSON.parse(await readFile(join(store, 'sess_a.json'), 'utf8')), record);
});

test('a session ID that is not a plain file name is stored safely and read back', async (t) => {
  const store = await tempStore(t);
  const sessionId = '../../etc/passwd\\ and spaces/ünïcode';
  await writeSession(store, storedSession(sessionId));
  assert.equal((await readSession(store, sessionId))?.sessionId, sessionId);
  assert.ok(sessionFilePath(store, sessionId).startsWith(store + '/'));
  assert.equal((await readdir(store)).length, 1);
  assert.deepEqual((await listStoredSessions(store)).map((s) => s.sessionId), [sessionId]);
});

test('readers never see a half-written session while it is rewritten', async (t) => {
  const store = await tempStore(t);
  const big = (n: number) =>
    storedSession('sess_big', {
      title: `version ${n}`,
      updates: Array.from({ length: 2000 }, (_, i) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `v${n} chunk ${i} `.repeat(5) } }) as never),
    });
  await writeSession(store, big(0));
  let writing = true;
  const writer = (async () => {
    for (let n = 1; n <= 30; n++) await writeSession(store, big(n));
    writing = false;
  })();
  let reads = 0;
  while (writing) {
    const text = await readFile(join(store, 'sess_big.json'), 'utf8');
    const parsed = JSON.parse(text); // throws on a torn file
    assert.match(parsed.title, /^version \d+$/);
    assert.equal(parsed.updates.length, 2000);
    reads++;
  }
  await writer;
  assert.ok(reads > 0);
  assert.deepEqual(await readdir(store), ['sess_big.json'], 'no temp file is left behind');
});

test('temp files of a crashed writer are not listed as sessions', async (t) => {
  const store = await tempStore(t);
  await writeSession(store, storedSession('sess_a'));
  await writeFile(join(store, 'sess_b.json.tmp-999-abcdef'), '{"sessionId":"sess_b","cwd":"/x","upd');
  assert.deepEqual((await listStoredSessions(store)).map((s) => s.sessionId), ['sess_a']);
});

test('a file that is not a valid session is an error naming the file and the problem', async (t) => {
  const store = await tempStore(t);
  await writeFile(join(store, 'sess_bad.json'), '{"sessionId":"sess_bad","cwd":42}');
  await writeFile(join(store, 'sess_torn.json'), '{"sessionId":');
  await assert.rejects(readSession(store, 'sess_bad'), /sess_bad\.json: not a stored session: `cwd` must be a non-empty string/);
  await assert.rejects(readSession(store, 'sess_torn'), /sess_torn\.json: not valid JSON/);
  const invalid: string[] = [];
  assert.deepEqual(await listStoredSessions(store, { onInvalid: (file) => invalid.push(file) }), []);
  assert.equal(invalid.length, 2);
});

test('writeSession refuses a record that is not a session, writing nothing', async (t) => {
  const store = await tempStore(t);
  await assert.rejects(writeSession(store, { ...storedSession('sess_a'), updatedAt: 'yesterday' }), /`updatedAt` must be an ISO 8601 date/);
  await assert.rejects(writeSession(store, { ...storedSession('sess_a'), updates: [{ text: 'no kind' }] as never }), /updates\[0\] has no string `sessionUpdate`/);
  assert.deepEqual(await readdir(store), []);
});

test('a delete is never undone by an archive write that read the session before it', async (t) => {
  const store = await tempStore(t);
  await writeSession(store, storedSession('sess_a'));
  // Another process deletes the session between this archive's read and its write.
  const written = await updateSession(store, 'sess_a', async (record) => {
    assert.equal(await markSessionDeleted(store, 'sess_a'), true);
    return { ...record, archived: true };
  });
  assert.equal(written?.archived, true, 'the archive write itself went through');
  assert.equal((await readSession(store, 'sess_a'))?.deleted, true);
  assert.deepEqual((await listStoredSessions(store)).map((s) => [s.sessionId, s.deleted]), [['sess_a', true]]);
  assert.equal(await updateSession(store, 'sess_a', (r) => ({ ...r, archived: false })), undefined, 'later writes see the tombstone');
});

test('deleting a session that was never stored reports that nothing was deleted', async (t) => {
  const store = await tempStore(t);
  assert.equal(await markSessionDeleted(store, 'sess_unknown'), false);
  assert.deepEqual(await readdir(store).catch(() => []), []);
});

test('the agent lists a store with an invalid file, skipping it and saying so on stderr', async (t) => {
  const store = await tempStore(t);
  await writeSession(store, storedSession('sess_good'));
  await writeFile(join(store, 'sess_bad.json'), 'not json');
  const agent = RawAgent.start(['--store', store]);
  t.after(() => agent.close());
  await agent.initialize();
  const result = await agent.call('session/list', {});
  assert.deepEqual(result.sessions.map((s: { sessionId: string }) => s.sessionId), ['sess_good']);
  assert.match(agent.stderr, /skipping .*sess_bad\.json: .*not valid JSON/);
});
