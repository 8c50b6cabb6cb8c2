// The reference agent's failure flags: --exit-at, --fail, and their env forms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSession, writeSession, type SessionUpdate } from '../agent/store';
import { storedSession, tempStore } from '../agent/fixtures';
import { RawAgent } from '../agent/rawClient';

type T = Parameters<typeof tempStore>[0];

async function storeWith(t: T, ...sessions: ReturnType<typeof storedSession>[]): Promise<string> {
  const store = await tempStore(t);
  for (const s of sessions) await writeSession(store, s);
  return store;
}

function start(t: T, args: string[], env: NodeJS.ProcessEnv = {}): RawAgent {
  const agent = RawAgent.start(args, env);
  t.after(() => agent.close());
  return agent;
}

test('--exit-at start exits with code 3 before reading stdin, saying so on stderr', async (t) => {
  const agent = start(t, ['--store', await storeWith(t), '--exit-at', 'start']);
  assert.deepEqual(await agent.exited, { code: 3, signal: null });
  assert.match(agent.stderr, /reference agent: exiting at start/);
  assert.deepEqual(agent.stdout, []);
});

test('--exit-at initialize exits with code 3 instead of answering initialize', async (t) => {
  const agent = start(t, ['--store', await storeWith(t), '--exit-at', 'initialize']);
  const init = agent.request('initialize', { protocolVersion: 1 });
  assert.deepEqual(await agent.exited, { code: 3, signal: null });
  assert.match(agent.stderr, /reference agent: exiting at initialize/);
  assert.equal((await init).error?.message, 'agent exited');
});

test('--exit-at list answers initialize, then exits with code 3 on session/list', async (t) => {
  const agent = start(t, ['--store', await storeWith(t, storedSession('s1')), '--exit-at', 'list']);
  assert.equal((await agent.initialize()).protocolVersion, 1);
  void agent.request('session/list', {});
  assert.equal((await agent.exited).code, 3);
  assert.match(agent.stderr, /reference agent: exiting at list/);
  assert.equal(agent.stdout.filter((e) => e.kind === 'response').length, 1, 'only initialize was answered');
});

test('--exit-at load-mid exits with code 3 after half of the replay, without answering the load', async (t) => {
  const updates = Array.from({ length: 10 }, (_, i) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${i}` } }) as SessionUpdate);
  const record = storedSession('s1', { updates });
  const agent = start(t, ['--store', await storeWith(t, record), '--exit-at', 'load-mid']);
  await agent.initialize();
  void agent.request('session/load', { sessionId: 's1', cwd: record.cwd, mcpServers: [] });
  assert.equal((await agent.exited).code, 3);
  assert.match(agent.stderr, /reference agent: exiting at load-mid/);
  assert.deepEqual(agent.updates('s1'), updates.slice(0, 5));
  assert.equal(agent.stdout.filter((e) => e.kind === 'response').length, 1, 'only initialize was answered');
});

test('--exit-at archive exits with code 3 on session/archive and leaves the store unchanged', async (t) => {
  const store = await storeWith(t, storedSession('s1'));
  const agent = start(t, ['--store', store, '--exit-at', 'archive']);
  await agent.initialize();
  void agent.request('session/archive', { sessionId: 's1' });
  assert.equal((await agent.exited).code, 3);
  assert.match(agent.stderr, /reference agent: exiting at archive/);
  assert.equal((await readSession(store, 's1'))?.archived, false);
});

test('--exit-at delete exits with code 3 on session/delete and leaves the store unchanged', async (t) => {
  const store = await storeWith(t, storedSession('s1'));
  const agent = start(t, ['--store', store, '--exit-at', 'delete']);
  await agent.initialize();
  void agent.request('session/delete', { sessionId: 's1' });
  assert.equal((await agent.exited).code, 3);
  assert.match(agent.stderr, /reference agent: exiting at delete/);
  assert.equal((await readSession(store, 's1'))?.deleted, false);
});

test('ACP_AGENT_EXIT_AT works like --exit-at', async (t) => {
  const agent = start(t, [], { ACP_AGENT_STORE: await storeWith(t), ACP_AGENT_EXIT_AT: 'initialize' });
  void agent.request('initialize', { protocolVersion: 1 });
  assert.equal((await agent.exited).code, 3);
  assert.match(agent.stderr, /exiting at initialize/);
});

test('--fail METHOD=CODE answers that method with the code and "reference agent: METHOD failed on purpose"', async (t) => {
  const store = await storeWith(t, storedSession('s1'));
  const agent = start(t, ['--store', store, '--fail', 'session/list=-32603', '--fail', 'session/archive=-32002']);
  await agent.initialize();
  assert.deepEqual((await agent.request('session/list', {})).error, { code: -32603, message: 'reference agent: session/list failed on purpose' });
  assert.equal((await agent.request('session/archive', { sessionId: 's1' })).error?.code, -32002);
  assert.equal((await readSession(store, 's1'))?.archived, false, 'a failed archive changes nothing');
  assert.deepEqual(await agent.call('session/unarchive', { sessionId: 's1' }), {}, 'other methods still work');
});

test('--fail applies to initialize and to methods the agent does not implement', async (t) => {
  const agent = start(t, ['--store', await storeWith(t), '--fail', 'initialize=-32000', '--fail', 'session/prompt=-32800']);
  assert.equal((await agent.request('initialize', { protocolVersion: 1 })).error?.code, -32000);
  const other = start(t, ['--store', await storeWith(t), '--fail', 'session/prompt=-32800']);
  await other.initialize();
  assert.deepEqual((await other.request('session/prompt', { sessionId: 's1', prompt: [] })).error, { code: -32800, message: 'reference agent: session/prompt failed on purpose' });
});

test('ACP_AGENT_FAIL takes a comma-separated list of METHOD=CODE', async (t) => {
  const agent = start(t, [], { ACP_AGENT_STORE: await storeWith(t, storedSession('s1')), ACP_AGENT_FAIL: 'session/list=-32602,session/delete=-32603' });
  await agent.initialize();
  assert.equal((await agent.request('session/list', {})).error?.code, -32602);
  assert.equal((await agent.request('session/delete', { sessionId: 's1' })).error?.code, -32603);
});

test('flags win over their env form', async (t) => {
  const store = await storeWith(t, ...Array.from({ length: 4 }, (_, i) => storedSession(`s${i}`, { minutesAgo: i })));
  const agent = start(t, ['--store', store, '--page-size', '3'], { ACP_AGENT_STORE: '/nonexistent', ACP_AGENT_PAGE_SIZE: '1' });
  await agent.initialize();
  assert.equal((await agent.call('session/list', {})).sessions.length, 3);
});

test('a bad flag exits with code 2 and a message that names it', async (t) => {
  const store = await storeWith(t);
  for (const [args, message] of [
    [['--store', store, '--page-size', 'many'], /--page-size: expected an integer >= 1, got "many"/],
    [['--store', store, '--fail', 'session/list'], /--fail: expected METHOD=CODE/],
    [['--store', store, '--exit-at', 'never'], /--exit-at: expected one of start, initialize, list, load-mid, archive, delete/],
    [['--store', store, '--bogus'], /unknown flag --bogus/],
    [[], /--store DIR \(or ACP_AGENT_STORE\) is required/],
  ] as const) {
    const agent = start(t, [...args]);
    assert.equal((await agent.exited).code, 2, args.join(' '));
    assert.match(agent.stderr, message);
  }
});

test('--delay MS holds every reply, including errors, for at least MS', async (t) => {
  const agent = start(t, ['--store', await storeWith(t), '--delay', '150']);
  for (const [method, params] of [['initialize', { protocolVersion: 1 }], ['session/list', {}], ['session/archive', { sessionId: 'unknown' }]] as const) {
    const started = performance.now();
    await agent.request(method, params);
    // A lower bound only: it cannot fail on a slow machine.
    assert.ok(performance.now() - started >= 145, method);
  }
});
