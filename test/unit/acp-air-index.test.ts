// The JetBrains AIR session index beyond archive (what claude-agent-acp and codex-acp serve):
// rename, a live list, row metadata, the end of a replay, batch get and the "held elsewhere"
// errors, in the client's one vocabulary, against the reference agent in --air-index mode as
// real processes over real pipes (two agent processes share one store where another process acts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { AcpClient } from '../../src/acp/client';
import { AcpError, AgentDisconnectedError, SessionInUseError, UnsupportedCapabilityError } from '../../src/acp/errors';
import type { SessionListChange, SessionUpdate } from '../../src/acp/types';
import { storedSession, writeAll } from '../agent/fixtures';
import { readSession, writeSession } from '../agent/store';
import { capturedMessages, referenceAgent, rejection, scriptedAgent, startClient, teed, tempDir, within } from './acp-helpers';

const CWD = '/work/project-a';
/** How long a change made by another process may take to arrive (the agent coalesces for 50-500 ms). */
const CHANGE_DEADLINE_MS = 5_000;

/** The reference agent serving the whole AIR index on a store of `sessions`, its input captured. */
async function indexAgent(t: TestContext, sessions: ReturnType<typeof storedSession>[], flags: string[] = []) {
  const dir = tempDir(t);
  const store = join(dir, 'store');
  await writeAll(store, sessions);
  const capture = join(dir, 'client-to-agent.ndjson');
  const config = teed(referenceAgent(store, ['--air-index', ...flags]), capture);
  const sent = () => capturedMessages(capture) as { method?: string; params?: Record<string, unknown> }[];
  return { store, config, sent };
}

/** The next change of `subscriptionId` that satisfies `wanted`, or a failure naming `what` after the deadline. */
function nextChange(client: AcpClient, subscriptionId: string, wanted: (change: SessionListChange) => boolean, what: string): Promise<SessionListChange> {
  let listener: { dispose(): void } | undefined;
  const change = new Promise<SessionListChange>((resolve) => {
    listener = client.onDidChangeSessionList((c) => {
      if (c.subscriptionId === subscriptionId && wanted(c)) resolve(c);
    });
  });
  return within(change, CHANGE_DEADLINE_MS, `a list change: ${what}`).finally(() => listener?.dispose());
}

test('an agent with the AIR index and without session/set_title is renamed by _session/rename; the title sent is the stored one', async (t) => {
  const agent = await indexAgent(t, [storedSession('a')], ['--no-title']);
  const { client } = await startClient(t, agent.config);
  assert.equal(client.capabilities.title, true);
  assert.equal(client.capabilities.titleMethod, 'jetbrains-air');
  assert.equal(await client.setSessionTitle('a', 'Renamed'), 'Renamed');
  const rename = agent.sent().find((m) => m.method === '_session/rename');
  assert.deepEqual(rename?.params, { sessionId: 'a', title: 'Renamed' });
  assert.equal((await readSession(agent.store, 'a'))?.title, 'Renamed');
  assert.equal(agent.sent().some((m) => m.method === 'session/set_title'), false);
});

test('where both are advertised the standard session/set_title wins over _session/rename', async (t) => {
  const agent = await indexAgent(t, [storedSession('a')]);
  const { client } = await startClient(t, agent.config);
  assert.equal(client.capabilities.titleMethod, 'standard');
  await client.setSessionTitle('a', 'Standard');
  assert.ok(agent.sent().some((m) => m.method === 'session/set_title'));
  assert.equal(agent.sent().some((m) => m.method === '_session/rename'), false);
});

test('a live list reports a session created, retitled, archived and deleted by ANOTHER process', async (t) => {
  const agent = await indexAgent(t, [storedSession('a'), storedSession('b')]);
  const { client } = await startClient(t, agent.config);
  // Another agent process on the same store: what it changes, ours did not do.
  const { client: other } = await startClient(t, referenceAgent(agent.store, ['--air-index', '--no-title']));
  assert.equal(client.capabilities.listSubscribe, true);
  const subscriptionId = await client.subscribeSessionList(CWD);
  assert.deepEqual(agent.sent().find((m) => m.method === '_session/list/subscribe')?.params, { cwd: CWD });

  const created = nextChange(client, subscriptionId, (c) => c.sessions.some((s) => s.sessionId === 'new'), 'a session written into the store');
  await writeSession(agent.store, storedSession('new', { title: 'Made elsewhere' }));
  const change = await created;
  const entry = change.sessions.find((s) => s.sessionId === 'new')!;
  assert.equal(entry.title, 'Made elsewhere');
  assert.equal(entry.archived, false);
  assert.equal(entry.state, 'idle');

  const retitled = nextChange(client, subscriptionId, (c) => c.sessions.some((s) => s.sessionId === 'a' && s.title === 'Retitled'), 'a retitle by the other process');
  await other.setSessionTitle('a', 'Retitled');
  await retitled;

  const archived = nextChange(client, subscriptionId, (c) => c.sessions.some((s) => s.sessionId === 'b' && s.archived === true), 'an archive by the other process');
  await other.archiveSession('b');
  await archived;

  const deleted = nextChange(client, subscriptionId, (c) => c.removed.includes('new'), 'a delete by the other process');
  await other.deleteSession('new');
  assert.deepEqual((await deleted).sessions.map((s) => s.sessionId), []);
});

test('a live list covers its cwd only, and an unsubscribed list gets no more changes', async (t) => {
  const agent = await indexAgent(t, []);
  const { client } = await startClient(t, agent.config);
  const seen: SessionListChange[] = [];
  client.onDidChangeSessionList((c) => seen.push(c));
  const first = await client.subscribeSessionList(CWD);
  const other = await client.subscribeSessionList('/work/project-b');
  await client.unsubscribeSessionList(first);
  assert.deepEqual(agent.sent().find((m) => m.method === '_session/list/unsubscribe')?.params, { subscriptionId: first });
  await client.unsubscribeSessionList(first); // idempotent: nothing more is sent
  assert.equal(agent.sent().filter((m) => m.method === '_session/list/unsubscribe').length, 1);
  const inB = nextChange(client, other, (c) => c.sessions.some((s) => s.sessionId === 'in-b'), 'a session of project-b');
  await writeSession(agent.store, storedSession('in-a'));
  await writeSession(agent.store, storedSession('in-b', { cwd: '/work/project-b' }));
  await inB;
  assert.deepEqual(seen.filter((c) => c.subscriptionId === first), [], 'the unsubscribed list got a change');
  assert.equal(seen.some((c) => c.sessions.some((s) => s.sessionId === 'in-a')), false, 'project-b got a session of project-a');
});

test('subscriptions end with the agent process: unsubscribe has nothing to do, subscribe fails with the disconnect', async (t) => {
  const agent = await indexAgent(t, []);
  const { client } = await startClient(t, agent.config);
  const subscriptionId = await client.subscribeSessionList(CWD);
  await client.dispose();
  await client.unsubscribeSessionList(subscriptionId);
  assert.ok((await rejection(client.subscribeSessionList(CWD))) instanceof AgentDisconnectedError);
});

test('without the AIR index there is no live list and no batch get: refused before anything is sent', async (t) => {
  const dir = tempDir(t);
  const { client } = await startClient(t, referenceAgent(join(dir, 'store'), ['--archive-extension']));
  assert.equal(client.capabilities.listSubscribe, false);
  assert.equal(client.capabilities.batchGet, false);
  assert.ok((await rejection(client.subscribeSessionList(CWD))) instanceof UnsupportedCapabilityError);
  assert.ok((await rejection(client.getSessions(['a']))) instanceof UnsupportedCapabilityError);
});

test('list changes are checked as list entries: bad entries and ids dropped with one warning, unknown subscriptions ignored', async (t) => {
  const agent = scriptedAgent('changes', `
    handlers.initialize = (m) => send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1,
      agentCapabilities: { sessionCapabilities: { list: {} } },
      _meta: { jetbrains: { air: { version: 1, capabilities: ['sessionIndex', 'sessionListSubscribe'] } } } } });
    handlers['_session/list/subscribe'] = (m) => {
      send({ jsonrpc: '2.0', id: m.id, result: { subscriptionId: 'sub-1' } });
      const changes = (params) => send({ jsonrpc: '2.0', method: '_session/list/changes', params });
      changes({ subscriptionId: 'someone-else', sessions: [{ sessionId: 'x', cwd: '/w' }], removed: [] });
      changes({ subscriptionId: 42, sessions: [], removed: [] });
      changes({ subscriptionId: 'sub-1', removed: ['gone', 7, ''], sessions: [
        { sessionId: 'ok', cwd: '/w', title: 'Fine', _meta: { jetbrains: { air: { archived: true, state: 'running', model: 'opus' } } } },
        { sessionId: 'odd', cwd: '/w', title: 42, _meta: { jetbrains: { air: { archived: 'yes', model: 5 } } } },
        { cwd: '/w' }, 'text', null,
      ] });
    };
  `);
  const { client, log } = await startClient(t, agent);
  const change = nextChange(client, 'sub-1', () => true, 'the scripted change');
  const seen: string[] = [];
  client.onDidChangeSessionList((c) => seen.push(c.subscriptionId));
  assert.equal(await client.subscribeSessionList('/w'), 'sub-1');
  const { sessions, removed } = await change;
  assert.deepEqual(removed, ['gone']);
  assert.deepEqual(sessions.map((s) => s.sessionId), ['ok', 'odd']);
  assert.deepEqual([sessions[0].archived, sessions[0].state, sessions[0].details], [true, 'running', { model: 'opus' }]);
  assert.deepEqual([sessions[1].title, sessions[1].archived, sessions[1].details], [undefined, undefined, undefined]);
  assert.deepEqual(seen, ['sub-1']);
  const warnings = log.at('warn').filter((m) => m.includes('_session/list/changes'));
  assert.ok(warnings.length >= 1 && warnings.length <= 2, log.text()); // one per notification with problems
  assert.match(warnings.join('\n'), /an entry without a sessionId skipped/);
  assert.match(warnings.join('\n'), /_meta\.jetbrains\.air\.model of type number/);
  assert.doesNotMatch(warnings.join('\n'), /opus|Fine/, 'values are never logged');
});

test('list entries carry the AIR row metadata as details; wrong types are dropped with one warning', async (t) => {
  const agent = await indexAgent(t, [
    storedSession('full', {
      airMeta: {
        model: 'claude-opus', gitBranch: 'main', agentWorktree: true, forkedFrom: 'origin',
        createdAt: '2026-01-01T10:00:00.000Z', lastPromptAt: '2026-01-31T11:00:00.000Z', lastTurnEndedAt: '2026-01-31T11:05:00.000Z',
        cost: { amount: 0.42, currency: 'USD' },
      },
    }),
    storedSession('odd', { minutesAgo: 5, airMeta: { model: 7, gitBranch: ['x'], agentWorktree: 'yes', lastPromptAt: 'yesterday', cost: 3 } }),
    storedSession('plain', { minutesAgo: 10 }),
  ]);
  const { client, log } = await startClient(t, agent.config);
  const { sessions } = await client.listSessions({ cwd: CWD });
  const byId = new Map(sessions.map((s) => [s.sessionId, s]));
  assert.deepEqual(byId.get('full')?.details, {
    model: 'claude-opus', gitBranch: 'main', worktree: true, forkedFrom: 'origin',
    createdAt: '2026-01-01T10:00:00.000Z', lastPromptAt: '2026-01-31T11:00:00.000Z', lastTurnEndedAt: '2026-01-31T11:05:00.000Z',
    cost: { amount: 0.42, currency: 'USD' },
  });
  assert.equal(byId.get('odd')?.details, undefined);
  assert.equal(byId.get('plain')?.details, undefined);
  const warnings = log.at('warn').filter((m) => m.includes('session/list'));
  assert.equal(warnings.length, 1, log.text());
  for (const field of ['model of type number', 'gitBranch of type array', 'agentWorktree of type string', 'lastPromptAt that is not a date', 'cost without a number amount']) {
    assert.match(warnings[0], new RegExp(field));
  }
});

test('an agent cannot set the client\'s own details field', async (t) => {
  const agent = scriptedAgent('details', `
    handlers['session/list'] = (m) => send({ jsonrpc: '2.0', id: m.id, result: { sessions: [{ sessionId: 's', cwd: '/w', details: { model: 'forged' } }] } });
  `);
  const { client } = await startClient(t, agent);
  const [session] = (await client.listSessions()).sessions;
  assert.equal(session.details, undefined);
});

test('a load whose replay the agent marks as ended says "marker", calls onReplayEnd before the answer, and never delivers the mark', async (t) => {
  const agent = await indexAgent(t, [storedSession('a')]);
  const { client } = await startClient(t, agent.config);
  const updates: SessionUpdate[] = [];
  let endedAfter: number | undefined;
  const result = await client.loadSession('a', CWD, (u) => updates.push(u), undefined, { onReplayEnd: () => (endedAfter = updates.length) });
  assert.deepEqual(result, { replayEnd: 'marker' });
  assert.deepEqual(updates.map((u) => u.sessionUpdate), ['user_message_chunk', 'agent_message_chunk']);
  assert.equal(endedAfter, 2, 'the mark came after the last replayed update');
});

test('a load without the mark says "answer" (an agent that does not send it)', async (t) => {
  const dir = tempDir(t);
  const store = join(dir, 'store');
  await writeAll(store, [storedSession('a')]);
  const { client } = await startClient(t, referenceAgent(store, ['--archive-extension']));
  let called = false;
  const result = await client.loadSession('a', CWD, () => undefined, undefined, { onReplayEnd: () => (called = true) });
  assert.deepEqual(result, { replayEnd: 'answer' });
  assert.equal(called, false);
});

test('batch get returns the entries of known sessions only, sends each id once and no blank one', async (t) => {
  const agent = await indexAgent(t, [storedSession('a', { airMeta: { model: 'm' } }), storedSession('b', { archived: true })]);
  const { client } = await startClient(t, agent.config);
  assert.equal(client.capabilities.batchGet, true);
  const sessions = await client.getSessions(['a', 'b', 'a', ' ', 'unknown']);
  assert.deepEqual(sessions.map((s) => [s.sessionId, s.archived, s.details?.model]).sort(), [['a', false, 'm'], ['b', true, undefined]]);
  assert.deepEqual(agent.sent().find((m) => m.method === '_session/batch_get')?.params, { sessionIds: ['a', 'b', 'unknown'] });
  assert.deepEqual(await client.getSessions([]), []);
  assert.equal(agent.sent().filter((m) => m.method === '_session/batch_get').length, 1, 'an empty batch is not sent');
});

test('a session held by another process (thread_active_writer) is a SessionInUseError with clear words, never a raw code', async (t) => {
  const agent = await indexAgent(t, [storedSession('held')], ['--active-writer', 'held', '--no-title']);
  const { client } = await startClient(t, agent.config);
  for (const attempt of [() => client.setSessionTitle('held', 'x'), () => client.archiveSession('held'), () => client.deleteSession('held')]) {
    const error = await rejection(attempt());
    assert.ok(error instanceof SessionInUseError, String(error));
    assert.equal(error.reason, 'thread_active_writer');
    assert.equal(error.message, 'This session is open in another reference process; close it there first.');
    assert.doesNotMatch(error.message, /-326|thread_active_writer/);
  }
  assert.equal((await readSession(agent.store, 'held'))?.archived, false, 'nothing changed');
});

test('session_active in an error\'s data is the same SessionInUseError; other reasons stay plain errors', async (t) => {
  const dir = tempDir(t);
  const store = join(dir, 'store');
  await writeAll(store, [storedSession('a')]);
  const strings = join(dir, 'strings.json');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(strings, JSON.stringify({ errorMessage: 'session is active elsewhere', errorData: { reason: 'session_active', sessionId: 'a' } }));
  const { client } = await startClient(t, referenceAgent(store, ['--air-index', '--fail', '_session/archive=-32600', '--strings', strings]));
  const error = await rejection(client.archiveSession('a'));
  assert.ok(error instanceof SessionInUseError);
  assert.equal(error.reason, 'session_active');
  assert.equal(error.agentMessage, 'session is active elsewhere');
  writeFileSync(strings, JSON.stringify({ errorData: { reason: 'archived' } }));
  const { client: second } = await startClient(t, referenceAgent(store, ['--air-index', '--fail', '_session/archive=-32600', '--strings', strings]));
  const plain = await rejection(second.archiveSession('a'));
  assert.ok(plain instanceof AcpError && !(plain instanceof SessionInUseError));
});
