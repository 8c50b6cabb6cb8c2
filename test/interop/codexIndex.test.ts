// What we rely on of codex-acp's JetBrains AIR session index, probed offline: its capabilities
// (the standard session/set_title wins over `_session/rename`), a live list that reports what
// ANOTHER codex-acp process does, row metadata, batch get, the replay's end (no mark: the answer
// ends it), what a load changes, and the error when another process holds a session. The
// measured figures are printed as `# ...` lines for the README.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { AcpClient } from '../../src/acp/client';
import type { SessionListChange } from '../../src/acp/types';
import { writeCodexAuth, writeCodexSession } from './stores.mjs';
import { RecordingLog, agentConfig, installed, startClient, stopAgent, tempHome } from './support';
import { changeWithin } from './indexSupport';

describe(`codex-acp ${installed.agents.codex.version}: the AIR session index`, () => {
  const { home, project, cleanup } = tempHome();
  const ids = {
    kept: '0196a1b2-1111-7000-8000-000000000001',
    retitled: '0196a1b2-1111-7000-8000-000000000002',
    archived: '0196a1b2-1111-7000-8000-000000000003',
    deleted: '0196a1b2-1111-7000-8000-000000000004',
    loaded: '0196a1b2-1111-7000-8000-000000000005',
    created: '0196a1b2-1111-7000-8000-000000000006',
    held: '0196a1b2-1111-7000-8000-000000000007',
  };
  const files: Record<string, string> = {};
  let client: AcpClient;
  let other: AcpClient;
  const log = new RecordingLog();

  before(async () => {
    writeCodexAuth(home);
    let day = 1;
    // The loaded session is the oldest, so a load that made it the newest would show in the order.
    for (const key of ['loaded', 'kept', 'retitled', 'archived', 'deleted', 'held'] as const) {
      const startedAt = `2025-05-0${day}T10:00:00.000Z`;
      files[key] = writeCodexSession(home, { sessionId: ids[key], cwd: project, startedAt, updatedAt: `2025-05-0${day++}T10:05:00.000Z`, turns: [[`Question of ${key}`, `Answer of ${key}`]] });
    }
    // One after the other: two first starts on a fresh home race for its state (codex-acp 2.6.0:
    // "failed to initialize sqlite state runtime" in one of them).
    client = await startClient(agentConfig('codex', home), log);
    other = await startClient(agentConfig('codex', home));
  });

  after(async () => {
    await Promise.all([stopAgent(client), stopAgent(other)]);
    cleanup();
  });

  test('advertises rename by the standard session/set_title (it wins over _session/rename), a live list and batch get', () => {
    const { title, titleMethod, listSubscribe, batchGet } = client.capabilities;
    assert.deepEqual({ title, titleMethod, listSubscribe, batchGet }, { title: true, titleMethod: 'standard', listSubscribe: true, batchGet: true });
  });

  test('list entries carry row metadata as details: lastPromptAt', async () => {
    const { sessions } = await client.listSessions({ cwd: project });
    assert.ok(sessions.length >= 5);
    for (const session of sessions) assert.equal(typeof session.details?.lastPromptAt, 'string', JSON.stringify(session._meta));
    console.log(`# codex row details seen: ${[...new Set(sessions.flatMap((s) => Object.keys(s.details ?? {})))].sort().join(', ')}; _meta.jetbrains.air keys: ${[...new Set(sessions.flatMap((s) => Object.keys(((s._meta as any)?.jetbrains?.air) ?? {})))].sort().join(', ')}`);
  });

  test('batch get (_session/batch_get) returns the entries of known sessions and leaves an unknown id out', async () => {
    const unknown = '0196a1b2-1111-7000-8000-00000000dead';
    const sessions = await client.getSessions([ids.kept, unknown]);
    assert.deepEqual(sessions.map((s) => [s.sessionId, s.archived]), [[ids.kept, false]]);
  });

  test('a live list reports a retitle and an archive by another codex-acp process', async () => {
    const subscriptionId = await client.subscribeSessionList(project);
    const timed = async (what: string, wanted: (c: SessionListChange) => boolean, act: () => Promise<unknown>) => {
      const change = changeWithin(client, subscriptionId, wanted, what);
      await act();
      const acted = Date.now();
      await change;
      console.log(`# codex live list: ${what}: ${Date.now() - acted} ms after the other process answered`);
    };
    await timed('a retitle by another process', (c) => c.sessions.some((s) => s.sessionId === ids.retitled && s.title === 'Retitled elsewhere'), () => other.setSessionTitle(ids.retitled, 'Retitled elsewhere'));
    await timed('an archive by another process', (c) => c.sessions.some((s) => s.sessionId === ids.archived && s.archived === true), () => other.archiveSession(ids.archived));
    await client.unsubscribeSessionList(subscriptionId);
  });

  test('a live list does not report a delete by another process, nor a rollout written into the store, before a later retitle\'s change', async () => {
    // Measured: codex-acp 2.6.0 learns retitles and archives of other processes, but neither of
    // these (claude reports both). A later retitle is the yardstick, so nothing waits on a clock.
    const subscriptionId = await client.subscribeSessionList(project);
    const seen: SessionListChange[] = [];
    const listener = client.onDidChangeSessionList((c) => seen.push(c));
    await other.deleteSession(ids.deleted);
    writeCodexSession(home, { sessionId: ids.created, cwd: project, startedAt: '2025-05-09T10:00:00.000Z', updatedAt: new Date().toISOString(), turns: [['Made elsewhere', 'Yes.']] });
    const yardstick = changeWithin(client, subscriptionId, (c) => c.sessions.some((s) => s.sessionId === ids.kept && s.title === 'Yardstick'), 'the yardstick retitle');
    await other.setSessionTitle(ids.kept, 'Yardstick');
    await yardstick;
    listener.dispose();
    assert.equal(seen.some((c) => c.removed.includes(ids.deleted)), false, 'codex now reports a delete by another process: update the README');
    assert.equal(seen.some((c) => c.sessions.some((s) => s.sessionId === ids.created)), false, 'codex now reports a rollout written elsewhere: update the README');
    // Our own list still shows both as they are: a refresh finds them.
    const listed = (await client.listSessions({ cwd: project })).sessions.map((s) => s.sessionId);
    console.log(`# codex live list: delete by another process reported: no; rollout written by another process reported: no; a list afterwards has the deleted one: ${listed.includes(ids.deleted)}, the written one: ${listed.includes(ids.created)}`);
    await client.unsubscribeSessionList(subscriptionId);
  });

  test('a session another codex-acp process has loaded is renamed here without thread_active_writer (two codex-acp processes do not hold each other off)', async () => {
    // codex-acp answers thread_active_writer when its app server says "thread ... already has an
    // active writer" (CodexThreadErrors); two codex-acp processes on one CODEX_HOME do not provoke
    // it offline, so the mapping rests on the reference agent's unit tests.
    await other.loadSession(ids.held, project, () => undefined);
    assert.equal(await client.setSessionTitle(ids.held, 'Renamed while held'), 'Renamed while held');
    console.log('# codex rename of a session another codex-acp process has loaded: stored, no error');
  });

  test('a load has no end mark (the answer ends the replay); what the load changes (bytes, updatedAt, list order)', async () => {
    const order = async () => (await client.listSessions({ cwd: project })).sessions.map((s) => s.sessionId);
    const before = { bytes: readFileSync(files.loaded, 'utf8'), order: await order(), updatedAt: (await client.getSessions([ids.loaded]))[0]?.updatedAt };
    const result = await client.loadSession(ids.loaded, project, () => undefined);
    assert.deepEqual(result, { replayEnd: 'answer' });
    const afterLoad = { bytes: readFileSync(files.loaded, 'utf8'), order: await order(), updatedAt: (await client.getSessions([ids.loaded]))[0]?.updatedAt };
    console.log(
      `# codex load side effects: file ${before.bytes.length} -> ${afterLoad.bytes.length} bytes${afterLoad.bytes.startsWith(before.bytes) ? ' (appended)' : ' (rewritten)'}; ` +
        `updatedAt ${before.updatedAt} -> ${afterLoad.updatedAt}; list position ${before.order.indexOf(ids.loaded)} -> ${afterLoad.order.indexOf(ids.loaded)}`,
    );
  });

  test('what codex sends through the index leaves no warning or error in the log', () => {
    assert.deepEqual(log.problems, []);
  });
});
