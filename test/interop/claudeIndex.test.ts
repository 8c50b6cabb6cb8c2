// What we rely on of claude-agent-acp's JetBrains AIR session index, probed offline: rename by
// `_session/rename`, a live list that reports what ANOTHER process does (a transcript written
// into the store, a retitle, an archive and a delete by a second claude-agent-acp), row
// metadata, the replay's end mark, batch get, and what a load changes. The measured figures are
// printed as test diagnostics (`# ...` lines) for the README.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AcpClient } from '../../src/acp/client';
import type { SessionListChange } from '../../src/acp/types';
import { claudeProjectDir, writeClaudeSession } from './stores.mjs';
import { RecordingLog, agentConfig, hoursAgo, installed, startClient, stopAgent, tempHome } from './support';
import { changeWithin } from './indexSupport';

describe(`claude-agent-acp ${installed.agents.claude.version}: the AIR session index`, () => {
  const { home, project, cleanup } = tempHome();
  const ids = {
    kept: '0a1b2c3d-1111-4000-8000-000000000001',
    renamed: '0a1b2c3d-1111-4000-8000-000000000002',
    archived: '0a1b2c3d-1111-4000-8000-000000000003',
    deleted: '0a1b2c3d-1111-4000-8000-000000000004',
    created: '0a1b2c3d-1111-4000-8000-000000000005',
    loaded: '0a1b2c3d-1111-4000-8000-000000000006',
    retitled: '0a1b2c3d-1111-4000-8000-000000000007',
  };
  const dates = { loaded: hoursAgo(3), kept: hoursAgo(1), renamed: hoursAgo(2), retitled: hoursAgo(4), archived: hoursAgo(5), deleted: hoursAgo(6) };
  let client: AcpClient;
  /** A second claude-agent-acp on the same HOME: what it does, our client did not. */
  let other: AcpClient;
  const log = new RecordingLog();

  before(async () => {
    for (const key of ['kept', 'renamed', 'retitled', 'archived', 'deleted', 'loaded'] as const) {
      writeClaudeSession(home, { sessionId: ids[key], cwd: project, title: `Session ${key}`, updatedAt: dates[key], turns: [[`Question of ${key}`, `Answer of ${key}`]] });
    }
    // One after the other: two first starts on a fresh home race for its state (codex-acp 2.6.0:
    // "failed to initialize sqlite state runtime" in one of them).
    client = await startClient(agentConfig('claude', home), log);
    other = await startClient(agentConfig('claude', home));
  });

  after(async () => {
    await Promise.all([stopAgent(client), stopAgent(other)]);
    cleanup();
  });

  test('advertises rename (by the extension: no session/set_title), a live list and batch get', () => {
    const { title, titleMethod, listSubscribe, batchGet } = client.capabilities;
    assert.deepEqual({ title, titleMethod, listSubscribe, batchGet }, { title: true, titleMethod: 'jetbrains-air', listSubscribe: true, batchGet: true });
  });

  test('rename (_session/rename) stores the title: the list shows it and the transcript holds a custom-title record', async () => {
    assert.equal(await client.setSessionTitle(ids.renamed, 'Renamed by us'), 'Renamed by us');
    const listed = (await client.listSessions({ cwd: project })).sessions.find((s) => s.sessionId === ids.renamed);
    assert.equal(listed?.title, 'Renamed by us');
    assert.match(readFileSync(join(claudeProjectDir(home, project), `${ids.renamed}.jsonl`), 'utf8'), /"custom-title"/);
  });

  test('list entries carry row metadata as details: lastPromptAt (and model where the transcript names one)', async () => {
    const { sessions } = await client.listSessions({ cwd: project });
    for (const session of sessions) {
      assert.equal(typeof session.details?.lastPromptAt, 'string', JSON.stringify(session._meta));
      assert.ok(!Number.isNaN(Date.parse(session.details!.lastPromptAt!)));
    }
    const fields = new Set(sessions.flatMap((s) => Object.keys(s.details ?? {})));
    console.log(`# claude row details seen: ${[...fields].sort().join(', ')}; _meta.jetbrains.air keys: ${[...new Set(sessions.flatMap((s) => Object.keys(((s._meta as any)?.jetbrains?.air) ?? {})))].sort().join(', ')}`);
    assert.deepEqual(log.problems, []);
  });

  test('batch get (_session/batch_get) returns the entries of known sessions and leaves an unknown id out', async () => {
    const unknown = 'ffffffff-1111-4000-8000-00000000dead';
    const sessions = await client.getSessions([ids.kept, unknown]);
    assert.deepEqual(sessions.map((s) => [s.sessionId, s.title, s.archived]), [[ids.kept, 'Session kept', false]]);
  });

  test('a live list reports a transcript written by another process, with its delay', async () => {
    const subscriptionId = await client.subscribeSessionList(project);
    const started = Date.now();
    const change = changeWithin(client, subscriptionId, (c) => c.sessions.some((s) => s.sessionId === ids.created), 'a transcript written into the store');
    writeClaudeSession(home, { sessionId: ids.created, cwd: project, title: 'Made by another process', updatedAt: hoursAgo(0), turns: [['New question', 'New answer']] });
    const entry = (await change).sessions.find((s) => s.sessionId === ids.created)!;
    console.log(`# claude live list: a transcript written by another process arrived after ${Date.now() - started} ms`);
    assert.equal(entry.title, 'Made by another process');
    assert.equal(entry.archived, false);
    await client.unsubscribeSessionList(subscriptionId);
  });

  test('a live list reports a retitle, an archive and a delete by another claude-agent-acp process', async () => {
    const subscriptionId = await client.subscribeSessionList(project);
    const timed = async (what: string, wanted: (c: SessionListChange) => boolean, act: () => Promise<unknown>) => {
      const change = changeWithin(client, subscriptionId, wanted, what);
      const started = Date.now();
      await act();
      const acted = Date.now();
      await change;
      console.log(`# claude live list: ${what}: ${Date.now() - acted} ms after the other process answered (${Date.now() - started} ms after its request)`);
    };
    await timed('a retitle by another process', (c) => c.sessions.some((s) => s.sessionId === ids.retitled && s.title === 'Retitled elsewhere'), () => other.setSessionTitle(ids.retitled, 'Retitled elsewhere'));
    await timed('an archive by another process', (c) => c.sessions.some((s) => s.sessionId === ids.archived && s.archived === true), () => other.archiveSession(ids.archived));
    await timed('a delete by another process', (c) => c.removed.includes(ids.deleted), () => other.deleteSession(ids.deleted));
    await client.unsubscribeSessionList(subscriptionId);
  });

  test('a load ends its replay with the mark, before its answer; what the load changes (bytes, updatedAt, list order)', async () => {
    const file = join(claudeProjectDir(home, project), `${ids.loaded}.jsonl`);
    const order = async () => (await client.listSessions({ cwd: project })).sessions.map((s) => s.sessionId);
    const before = { bytes: readFileSync(file, 'utf8'), order: await order(), updatedAt: (await client.getSessions([ids.loaded]))[0]?.updatedAt };
    let updatesAtMark: number | undefined;
    let updates = 0;
    const result = await client.loadSession(ids.loaded, project, () => updates++, undefined, { onReplayEnd: () => (updatesAtMark = updates) });
    assert.deepEqual(result, { replayEnd: 'marker' });
    assert.equal(updatesAtMark, updates, 'no replayed update after the mark');
    await client.closeSession(ids.loaded);
    const afterLoad = { bytes: readFileSync(file, 'utf8'), order: await order(), updatedAt: (await client.getSessions([ids.loaded]))[0]?.updatedAt };
    const appended = afterLoad.bytes.startsWith(before.bytes)
      ? afterLoad.bytes.slice(before.bytes.length).split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { type?: string }).type)
      : ['(rewritten)'];
    console.log(
      `# claude load side effects: file ${before.bytes.length} -> ${afterLoad.bytes.length} bytes, appended record types [${appended.join(', ')}]; ` +
        `updatedAt ${before.updatedAt} -> ${afterLoad.updatedAt}; list order ${JSON.stringify(before.order) === JSON.stringify(afterLoad.order) ? 'unchanged' : 'changed'}`,
    );
    assert.equal(afterLoad.updatedAt, before.updatedAt, 'a load does not move updatedAt');
    assert.deepEqual(afterLoad.order, before.order, 'a load does not move the session in the list');
  });

  test('nothing above left a warning or an error in the log', () => {
    assert.deepEqual(log.problems, []);
  });
});
