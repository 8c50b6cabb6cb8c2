// The reference agent's session methods: archive, unarchive, delete, close, load, resume,
// capability gates, auth and protocol v2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSession, writeSession, type SessionUpdate } from '../agent/store';
import { storedSession, tempStore } from '../agent/fixtures';
import { listAll, RawAgent } from '../agent/rawClient';

type T = Parameters<typeof tempStore>[0];

async function started(t: T, args: string[], init?: Record<string, unknown>): Promise<RawAgent> {
  const agent = RawAgent.start(args);
  t.after(() => agent.close());
  await agent.initialize(init);
  return agent;
}

async function storeWith(t: T, ...sessions: ReturnType<typeof storedSession>[]): Promise<string> {
  const store = await tempStore(t);
  for (const s of sessions) await writeSession(store, s);
  return store;
}

const compactionTranscript: SessionUpdate[] = [
  { sessionUpdate: 'user_message_chunk', messageId: 'm1', content: { type: 'text', text: 'Refactor it' } },
  { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'in_progress' },
  { sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: { type: 'text', text: 'Kept: ' } },
  { sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: { type: 'text', text: 'the plan.' } },
  { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed' },
  { sessionUpdate: 'compaction_update', compactionId: 'c2', status: 'in_progress' },
  { sessionUpdate: 'compaction_update', compactionId: 'c2', status: 'failed', error: 'rate limited' },
  { sessionUpdate: 'compaction_update', compactionId: 'c3', status: 'completed', summary: [{ type: 'text', text: 'Replaced.' }] },
  { sessionUpdate: 'compaction_summary_chunk', compactionId: 'c3', content: { type: 'text', text: ' Late chunk.' } },
  { sessionUpdate: 'checkpoint_created', checkpointId: 'k1' },
  { sessionUpdate: 'agent_message_chunk', messageId: 'm2', content: { type: 'text', text: 'Done.' } },
] as SessionUpdate[];

test('archive is idempotent and the session moves to the archived list', async (t) => {
  const agent = await started(t, ['--store', await storeWith(t, storedSession('s1'))]);
  assert.deepEqual(await agent.call('session/archive', { sessionId: 's1' }), {});
  assert.deepEqual(await agent.call('session/archive', { sessionId: 's1' }), {});
  assert.deepEqual((await listAll(agent, { archived: 'only' })).map((s) => s.sessionId), ['s1']);
  assert.deepEqual(await listAll(agent), []);
});

test('unarchive is idempotent and restores the session with its ID and history', async (t) => {
  const store = await storeWith(t, storedSession('s1', { archived: true }));
  const agent = await started(t, ['--store', store]);
  assert.deepEqual(await agent.call('session/unarchive', { sessionId: 's1' }), {});
  assert.deepEqual(await agent.call('session/unarchive', { sessionId: 's1' }), {});
  assert.deepEqual((await listAll(agent)).map((s) => [s.sessionId, s.archived]), [['s1', false]]);
  assert.deepEqual((await readSession(store, 's1'))?.updates, storedSession('s1').updates);
});

test('archive and unarchive of an unknown session answer -32002', async (t) => {
  const agent = await started(t, ['--store', await storeWith(t)]);
  assert.equal((await agent.request('session/archive', { sessionId: 'nope' })).error?.code, -32002);
  assert.equal((await agent.request('session/unarchive', { sessionId: 'nope' })).error?.code, -32002);
});

test('delete then archive answers -32002, and unarchive does not restore a deleted session', async (t) => {
  const agent = await started(t, ['--store', await storeWith(t, storedSession('s1', { archived: true }))]);
  assert.deepEqual(await agent.call('session/delete', { sessionId: 's1' }), {});
  assert.equal((await agent.request('session/archive', { sessionId: 's1' })).error?.code, -32002);
  assert.equal((await agent.request('session/unarchive', { sessionId: 's1' })).error?.code, -32002);
  assert.deepEqual(await listAll(agent, { archived: 'include' }), []);
});

test('delete of an unknown or already deleted session succeeds silently', async (t) => {
  const agent = await started(t, ['--store', await storeWith(t, storedSession('s1'))]);
  assert.deepEqual(await agent.call('session/delete', { sessionId: 'never-existed' }), {});
  assert.deepEqual(await agent.call('session/delete', { sessionId: 's1' }), {});
  assert.deepEqual(await agent.call('session/delete', { sessionId: 's1' }), {});
});

test('load replays every stored update in order as session/update, then answers', async (t) => {
  const record = storedSession('s1', { updates: compactionTranscript });
  const agent = await started(t, ['--store', await storeWith(t, record)]);
  const load = agent.request('session/load', { sessionId: 's1', cwd: record.cwd, mcpServers: [] });
  const response = await load;
  assert.deepEqual(response.result, {});
  const responseIndex = agent.stdout.findIndex((e) => e.kind === 'response' && e.message.id === load.id);
  const before = agent.stdout.slice(0, responseIndex).filter((e) => e.kind === 'notification');
  assert.equal(before.length, compactionTranscript.length, 'every update arrives before the response');
  assert.deepEqual(agent.updates('s1'), compactionTranscript);
});

test('load of an unknown or deleted session answers -32002', async (t) => {
  const agent = await started(t, ['--store', await storeWith(t, storedSession('gone', { deleted: true }))]);
  for (const sessionId of ['nope', 'gone']) {
    assert.equal((await agent.request('session/load', { sessionId, cwd: '/work/project-a', mcpServers: [] })).error?.code, -32002, sessionId);
  }
});

test('a client without the compaction capability gets no compaction updates; a completed compaction becomes an agent message', async (t) => {
  const record = storedSession('s1', { updates: compactionTranscript });
  const agent = await started(t, ['--store', await storeWith(t, record)], { protocolVersion: 1, clientCapabilities: { session: { compaction: null } } });
  await agent.call('session/load', { sessionId: 's1', cwd: record.cwd, mcpServers: [] });
  const updates = agent.updates('s1');
  assert.ok(updates.every((u) => !u.sessionUpdate.startsWith('compaction')), 'no compaction update or chunk');
  const text = (messageId: string) => updates.filter((u) => u.messageId === messageId).map((u) => u.content.text).join('');
  assert.equal(text('compaction-c1'), 'Context compacted. Summary:\n\nKept: the plan.');
  assert.equal(text('compaction-c3'), 'Context compacted. Summary:\n\nReplaced.');
  assert.equal(text('compaction-c2'), '', 'a failed compaction is omitted');
  assert.deepEqual(
    updates.map((u) => u.messageId ?? u.sessionUpdate),
    ['m1', 'compaction-c1', 'compaction-c1', 'compaction-c1', 'compaction-c3', 'compaction-c3', 'checkpoint_created', 'm2'],
  );
});

test('archiving a loaded session sends session_info_update archived: true before answering, then closes it', async (t) => {
  const record = storedSession('s1');
  const agent = await started(t, ['--store', await storeWith(t, record)]);
  await agent.call('session/load', { sessionId: 's1', cwd: record.cwd, mcpServers: [] });
  const replayed = agent.updates('s1').length;
  const archive = agent.request('session/archive', { sessionId: 's1' });
  await archive;
  const responseIndex = agent.stdout.findIndex((e) => e.kind === 'response' && e.message.id === archive.id);
  const notice = agent.stdout.findIndex((e) => e.kind === 'notification' && e.message.params.update.sessionUpdate === 'session_info_update');
  assert.ok(notice >= 0 && notice < responseIndex, 'the update comes before the archive response');
  assert.deepEqual(agent.updates('s1').slice(replayed), [{ sessionUpdate: 'session_info_update', archived: true }]);
  await agent.call('session/archive', { sessionId: 's1' });
  assert.equal(agent.updates('s1').length, replayed + 1, 'a closed session gets no second notice');
});

test('archiving a session that is not open sends no session/update', async (t) => {
  const agent = await started(t, ['--store', await storeWith(t, storedSession('s1'))]);
  await agent.call('session/archive', { sessionId: 's1' });
  assert.deepEqual(agent.updates(), []);
});

test('v1 session/resume restores a session without replaying it; unknown sessions answer -32002', async (t) => {
  const record = storedSession('s1');
  const agent = await started(t, ['--store', await storeWith(t, record)]);
  assert.deepEqual(await agent.call('session/resume', { sessionId: 's1', cwd: record.cwd }), {});
  assert.deepEqual(agent.updates(), []);
  assert.equal((await agent.request('session/resume', { sessionId: 'nope', cwd: record.cwd })).error?.code, -32002);
});

test('session/close succeeds for a stored session and answers -32002 for an unknown one', async (t) => {
  const record = storedSession('s1');
  const agent = await started(t, ['--store', await storeWith(t, record)]);
  await agent.call('session/load', { sessionId: 's1', cwd: record.cwd, mcpServers: [] });
  assert.deepEqual(await agent.call('session/close', { sessionId: 's1' }), {});
  assert.equal((await agent.request('session/close', { sessionId: 'nope' })).error?.code, -32002);
});

test('all capabilities are advertised by default', async (t) => {
  const agent = RawAgent.start(['--store', await storeWith(t)]);
  t.after(() => agent.close());
  const init = await agent.initialize();
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.deepEqual(Object.keys(init.agentCapabilities.sessionCapabilities).sort(), ['additionalDirectories', 'archive', 'close', 'delete', 'fork', 'list', 'resume', 'title']);
  assert.equal(init.agentInfo.name, 'acp-reference-agent');
});

for (const [flag, capability, method, params] of [
  ['--no-list', 'list', 'session/list', {}],
  ['--no-archive', 'archive', 'session/archive', { sessionId: 's1' }],
  ['--no-delete', 'delete', 'session/delete', { sessionId: 's1' }],
  ['--no-close', 'close', 'session/close', { sessionId: 's1' }],
  ['--no-resume', 'resume', 'session/resume', { sessionId: 's1', cwd: '/work/project-a' }],
  ['--no-title', 'title', 'session/set_title', { sessionId: 's1', title: 'x' }],
  ['--no-fork', 'fork', 'session/fork', { sessionId: 's1', cwd: '/work/project-a', mcpServers: [] }],
] as const) {
  test(`${flag} leaves out sessionCapabilities.${capability} and answers ${method} with -32601`, async (t) => {
    const wanted = flag === '--no-list' ? ['list', 'archive'] : [capability];
    const reduced = RawAgent.start(['--store', await storeWith(t, storedSession('s1')), flag]);
    t.after(() => reduced.close());
    const reducedInit = await reduced.initialize();
    for (const c of wanted) assert.equal(reducedInit.agentCapabilities.sessionCapabilities[c], undefined, c);
    assert.equal((await reduced.request(method, params)).error?.code, -32601);
    if (flag === '--no-list') assert.equal((await reduced.request('session/archive', { sessionId: 's1' })).error?.code, -32601, 'archive needs list');
  });
}

test('--no-load advertises loadSession false and answers session/load with -32601', async (t) => {
  const agent = RawAgent.start(['--store', await storeWith(t, storedSession('s1')), '--no-load']);
  t.after(() => agent.close());
  assert.equal((await agent.initialize()).agentCapabilities.loadSession, false);
  assert.equal((await agent.request('session/load', { sessionId: 's1', cwd: '/work/project-a', mcpServers: [] })).error?.code, -32601);
});

test('--auth-required advertises an auth method and answers session methods with -32000 until authenticate', async (t) => {
  const agent = RawAgent.start(['--store', await storeWith(t, storedSession('s1')), '--auth-required']);
  t.after(() => agent.close());
  const init = await agent.initialize();
  assert.equal(init.authMethods.length, 1);
  for (const [method, params] of [
    ['session/list', {}],
    ['session/load', { sessionId: 's1', cwd: '/work/project-a', mcpServers: [] }],
    ['session/archive', { sessionId: 's1' }],
    ['session/delete', { sessionId: 's1' }],
  ] as const) {
    assert.equal((await agent.request(method, params)).error?.code, -32000, method);
  }
  await agent.call('authenticate', { methodId: init.authMethods[0].id });
  assert.equal((await agent.call('session/list', {})).sessions.length, 1);
});

test('--malformed-before METHOD writes one line that is not JSON just before that answer', async (t) => {
  const agent = await started(t, ['--store', await storeWith(t, storedSession('s1')), '--malformed-before', 'session/list']);
  const list = agent.request('session/list', {});
  await list;
  const responseIndex = agent.stdout.findIndex((e) => e.kind === 'response' && e.message.id === list.id);
  assert.equal(agent.stdout[responseIndex - 1].kind, 'malformed');
  assert.equal(agent.stdout.filter((e) => e.kind === 'malformed').length, 1);
  assert.equal((await agent.call('session/list', {})).sessions.length, 1, 'the connection goes on');
});

test('a load cancelled with $/cancel_request stops the replay and answers -32800', async (t) => {
  const record = storedSession('s1', { updates: Array.from({ length: 50 }, (_, i) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${i}` } }) as SessionUpdate) });
  const agent = await started(t, ['--store', await storeWith(t, record), '--replay-delay', '20']);
  const load = agent.request('session/load', { sessionId: 's1', cwd: record.cwd, mcpServers: [] });
  await agent.until(() => agent.updates('s1').length >= 2);
  agent.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: load.id } });
  assert.equal((await load).error?.code, -32800);
  assert.ok(agent.updates('s1').length < 50);
});

test('without --v2 a v2 initialize is answered with protocolVersion 1', async (t) => {
  const agent = RawAgent.start(['--store', await storeWith(t)]);
  t.after(() => agent.close());
  const init = await agent.initialize({ protocolVersion: 2, info: { name: 'v2-client', version: '0' }, capabilities: {} });
  assert.equal(init.protocolVersion, 1);
  assert.ok(init.agentCapabilities.sessionCapabilities.archive);
});

test('with --v2 a v2 initialize gets protocolVersion 2 with capabilities.session.archive, and a v1 one still gets 1', async (t) => {
  const store = await storeWith(t);
  const v2 = RawAgent.start(['--store', store, '--v2']);
  t.after(() => v2.close());
  const init = await v2.initialize({ protocolVersion: 2, info: { name: 'v2-client', version: '0' }, capabilities: {} });
  assert.equal(init.protocolVersion, 2);
  assert.deepEqual(init.capabilities.session.archive, {});
  assert.equal(init.info.name, 'acp-reference-agent');
  const v1 = RawAgent.start(['--store', store, '--v2']);
  t.after(() => v1.close());
  assert.equal((await v1.initialize()).protocolVersion, 1);
});

test('v2 session/resume with replayFrom start replays the whole history (compactions included) before answering', async (t) => {
  const record = storedSession('s1', { updates: compactionTranscript });
  const agent = RawAgent.start(['--store', await storeWith(t, record), '--v2']);
  t.after(() => agent.close());
  await agent.initialize({ protocolVersion: 2, info: { name: 'v2-client', version: '0' }, capabilities: {} });
  assert.deepEqual(await agent.call('session/resume', { sessionId: 's1', cwd: record.cwd }), {});
  assert.deepEqual(agent.updates(), [], 'no replay without replayFrom');
  assert.deepEqual(await agent.call('session/resume', { sessionId: 's1', cwd: record.cwd, replayFrom: { type: 'start' } }), {});
  const kinds = agent.updates('s1').map((u) => u.sessionUpdate);
  assert.deepEqual(kinds, compactionTranscript.map((u) => u.sessionUpdate));
  assert.ok(agent.updates('s1').filter((u) => u.sessionUpdate.endsWith('_chunk') && !u.sessionUpdate.startsWith('compaction')).every((u) => typeof u.messageId === 'string'));
  assert.equal((await agent.request('session/load', { sessionId: 's1', cwd: record.cwd, mcpServers: [] })).error?.code, -32601, 'v2 has no session/load');
  assert.deepEqual((await listAll(agent, { archived: 'include' })).map((s) => s.archived), [false]);
});
