// The ACP client's rules, each against the reference agent as a real process over real pipes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { AcpClient } from '../../src/acp/client';
import {
  AcpError,
  AgentDisconnectedError,
  AgentStartError,
  AuthRequiredError,
  InvalidParamsError,
  MethodNotFoundError,
  RequestCancelledError,
  ResourceNotFoundError,
  UnsupportedCapabilityError,
} from '../../src/acp/errors';
import type { ArchivedFilter, SessionUpdate } from '../../src/acp/types';
import { storedSession, writeAll } from '../agent/fixtures';
import type { SessionUpdate as StoredUpdate } from '../agent/store';
import {
  CLIENT_INFO,
  CapturingLog,
  capturedMessages,
  isAlive,
  referenceAgent,
  rejection,
  startClient,
  teed,
  tempDir,
} from './acp-helpers';

/** A store with `sessions`, and a reference agent on it with `flags`, whose input is captured. */
async function agentWith(t: TestContext, sessions: ReturnType<typeof storedSession>[], flags: string[] = [], protocol?: 1 | 2) {
  const dir = tempDir(t);
  const store = join(dir, 'store');
  await writeAll(store, sessions);
  const capture = join(dir, 'client-to-agent.ndjson');
  const config = teed(referenceAgent(store, flags, protocol ? { protocol } : {}), capture);
  return { store, capture, config, sent: () => capturedMessages(capture) };
}

/** A replay with every kind of update this client must pass on, unknown kinds included. */
function varietyUpdates(n: number): StoredUpdate[] {
  const updates: StoredUpdate[] = [];
  for (let i = 0; i < n; i++) {
    switch (i % 8) {
      case 0: updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `question ${i} "quoted" \\ ünï` } }); break;
      case 1: updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer ${i}\nsecond line` } }); break;
      case 2: updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `thinking ${i}` } }); break;
      case 3: updates.push({ sessionUpdate: 'tool_call', toolCallId: `call-${i}`, title: `Read file ${i}`, kind: 'read', status: 'pending' }); break;
      case 4: updates.push({ sessionUpdate: 'tool_call_update', toolCallId: `call-${i - 1}`, status: 'completed' }); break;
      case 5: updates.push({ sessionUpdate: 'plan', entries: [{ content: `step ${i}`, priority: 'high', status: 'in_progress' }] }); break;
      case 6: updates.push({ sessionUpdate: 'future_kind_from_a_newer_agent', payload: { n: i, nested: [1, 2] } }); break;
      case 7: updates.push({ sessionUpdate: 'session_info_update', title: `Title ${i}`, archived: i % 16 === 7 } as StoredUpdate); break;
    }
  }
  return updates;
}

test('initialize offers protocol v1 with our clientInfo and the compaction and subagents capabilities, no fs or terminal', async (t) => {
  const agent = await agentWith(t, []);
  const { client } = await startClient(t, agent.config);
  const initialize = agent.sent()[0] as { method: string; params: Record<string, unknown> };
  assert.equal(initialize.method, 'initialize');
  assert.deepEqual(initialize.params, {
    protocolVersion: 1,
    clientInfo: CLIENT_INFO,
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      session: { compaction: {} },
      // Replays may announce children (`subagent_update`, unstable schema).
      subagents: {},
      // How today's agents archive (JetBrains AIR's session index); acp-archive-extension.test.ts.
      _meta: { jetbrains: { air: { version: 1, capabilities: ['sessionIndex', 'loadReplayEnd'] } } },
    },
  });
  assert.equal(client.protocolVersion, 1);
  assert.equal(client.name, 'reference');
  assert.equal(typeof client.agentInfo?.name, 'string');
  assert.deepEqual(client.capabilities, { loadSession: true, list: true, archive: true, archiveMethod: 'standard', delete: true, resume: true, close: true, title: true, titleMethod: 'standard', status: false, listSubscribe: false, batchGet: false, fork: true, authMethods: [] });
  assert.equal(client.isConnected, true);
});

test('capability gates: a method the agent did not advertise fails before anything is sent', async (t) => {
  const cases: { flag: string; calls: ((c: AcpClient) => Promise<unknown>)[]; capability: RegExp }[] = [
    { flag: '--no-archive', capability: /sessionCapabilities\.archive/, calls: [(c) => c.archiveSession('a'), (c) => c.unarchiveSession('a'), (c) => c.listSessions({ archived: 'only' }), (c) => c.listSessions({ archived: 'include' })] },
    { flag: '--no-delete', capability: /sessionCapabilities\.delete/, calls: [(c) => c.deleteSession('a')] },
    { flag: '--no-load', capability: /agentCapabilities\.loadSession/, calls: [(c) => c.loadSession('a', '/work/project-a', () => undefined)] },
    { flag: '--no-close', capability: /sessionCapabilities\.close/, calls: [(c) => c.closeSession('a')] },
    { flag: '--no-resume', capability: /sessionCapabilities\.resume/, calls: [(c) => c.resumeSession('a', '/work/project-a')] },
    { flag: '--no-list', capability: /sessionCapabilities\.(list|archive)/, calls: [(c) => c.listSessions(), (c) => c.archiveSession('a')] },
  ];
  for (const { flag, calls, capability } of cases) {
    const agent = await agentWith(t, [storedSession('a')], [flag]);
    const { client } = await startClient(t, agent.config);
    for (const call of calls) {
      const error = await rejection(call(client));
      assert.ok(error instanceof UnsupportedCapabilityError, `${flag}: ${String(error)}`);
      assert.match(error.message, capability);
      assert.match(error.message, /Agent "reference" does not support/);
    }
    assert.deepEqual(agent.sent().map((m) => m.method), ['initialize'], `${flag}: nothing but initialize went out`);
  }
});

test('without archive, listing excludes archived sessions by omitting the filter', async (t) => {
  const agent = await agentWith(t, [storedSession('a'), storedSession('b', { archived: true })], ['--no-archive']);
  const { client } = await startClient(t, agent.config);
  const { sessions } = await client.listSessions({ archived: 'exclude' });
  assert.ok(sessions.some((s) => s.sessionId === 'a'));
  assert.deepEqual(agent.sent()[1].params, {});
});

test('error responses map to typed errors by code, keeping the method and the agent message', async (t) => {
  const failures: [string, number, new (...args: never[]) => AcpError][] = [
    ['session/list', -32002, ResourceNotFoundError],
    ['session/archive', -32602, InvalidParamsError],
    ['session/unarchive', -32601, MethodNotFoundError],
    ['session/delete', -32000, AuthRequiredError],
    ['session/close', -32800, RequestCancelledError],
    ['session/resume', -32603, AcpError],
    ['session/load', -32099, AcpError],
  ];
  const agent = await agentWith(t, [storedSession('a')], failures.flatMap(([m, c]) => ['--fail', `${m}=${c}`]));
  const { client } = await startClient(t, agent.config);
  const calls: Record<string, () => Promise<unknown>> = {
    'session/list': () => client.listSessions(),
    'session/archive': () => client.archiveSession('a'),
    'session/unarchive': () => client.unarchiveSession('a'),
    'session/delete': () => client.deleteSession('a'),
    'session/close': () => client.closeSession('a'),
    'session/resume': () => client.resumeSession('a', '/work/project-a'),
    'session/load': () => client.loadSession('a', '/work/project-a', () => undefined),
  };
  for (const [method, code, type] of failures) {
    const error = await rejection(calls[method]());
    assert.ok(error instanceof type, `${method}: expected ${type.name}, got ${String(error)}`);
    assert.equal(error.constructor, type, `${method}: exactly ${type.name}`);
    assert.equal(error.code, code);
    assert.equal(error.method, method);
    assert.equal(error.agentMessage, `reference agent: ${method} failed on purpose`);
  }
  assert.equal(client.isConnected, true, 'error responses leave the connection up');
});

test('an agent that requires authentication: authMethods are kept and session methods give AuthRequiredError', async (t) => {
  const agent = await agentWith(t, [storedSession('a')], ['--auth-required']);
  const { client } = await startClient(t, agent.config);
  assert.ok(client.capabilities.authMethods.length > 0);
  assert.ok(await rejection(client.listSessions()) instanceof AuthRequiredError);
});

test('paging: following nextCursor with small pages yields every session once, newest first', async (t) => {
  const sessions = Array.from({ length: 7 }, (_, i) => storedSession(`s${i}`, { minutesAgo: (i * 37) % 11 }));
  const agent = await agentWith(t, sessions, ['--page-size', '2']);
  const { client } = await startClient(t, agent.config);
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listSessions({ cwd: '/work/project-a', cursor });
    assert.ok(page.sessions.length <= 2);
    seen.push(...page.sessions.map((s) => s.sessionId));
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  const expected = [...sessions].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.sessionId.localeCompare(b.sessionId));
  assert.deepEqual(seen, expected.map((s) => s.sessionId));
  assert.equal(pages, 4);
  const listCalls = agent.sent().filter((m) => m.method === 'session/list');
  assert.deepEqual(listCalls[0].params, { cwd: '/work/project-a' }, 'the first page has no cursor');
  assert.ok(listCalls.slice(1).every((m) => typeof (m.params as { cursor?: unknown }).cursor === 'string'));
});

test('the archived filter: exclude (also omitted), include and only; deleted sessions under none', async (t) => {
  const agent = await agentWith(t, [
    storedSession('active-1', { minutesAgo: 1 }),
    storedSession('active-2', { minutesAgo: 2 }),
    storedSession('archived-1', { minutesAgo: 3, archived: true }),
    storedSession('archived-2', { minutesAgo: 4, archived: true }),
    storedSession('deleted-1', { minutesAgo: 5, deleted: true }),
    storedSession('deleted-2', { minutesAgo: 6, deleted: true, archived: true }),
  ]);
  const { client } = await startClient(t, agent.config);
  const ids = async (archived?: ArchivedFilter) => (await client.listSessions({ archived })).sessions.map((s) => `${s.sessionId}:${s.archived}`);
  assert.deepEqual(await ids(), ['active-1:false', 'active-2:false']);
  assert.deepEqual(await ids('exclude'), ['active-1:false', 'active-2:false']);
  assert.deepEqual(await ids('include'), ['active-1:false', 'active-2:false', 'archived-1:true', 'archived-2:true']);
  assert.deepEqual(await ids('only'), ['archived-1:true', 'archived-2:true']);
  const sent = agent.sent().filter((m) => m.method === 'session/list').map((m) => m.params);
  assert.deepEqual(sent, [{}, { archived: 'exclude' }, { archived: 'include' }, { archived: 'only' }]);
});

test('an archived filter value the agent does not know gives InvalidParamsError (-32602)', async (t) => {
  const agent = await agentWith(t, [storedSession('a')]);
  const { client } = await startClient(t, agent.config);
  const error = await rejection(client.listSessions({ archived: 'everything' as ArchivedFilter }));
  assert.ok(error instanceof InvalidParamsError, String(error));
  assert.equal(error.code, -32602);
});

test('the cwd filter lists only that folder\'s sessions', async (t) => {
  const agent = await agentWith(t, [storedSession('a'), storedSession('b', { cwd: '/work/project-b' })]);
  const { client } = await startClient(t, agent.config);
  assert.deepEqual((await client.listSessions({ cwd: '/work/project-b' })).sessions.map((s) => s.sessionId), ['b']);
});

test('loadSession delivers every replayed update in order and resolves after the last', async (t) => {
  const updates = varietyUpdates(400);
  const agent = await agentWith(t, [storedSession('long', { updates })]);
  const { client } = await startClient(t, agent.config);
  const received: SessionUpdate[] = [];
  await client.loadSession('long', '/work/project-a', (u) => received.push(u));
  assert.deepEqual(received, updates);
  const load = agent.sent().find((m) => m.method === 'session/load')!;
  assert.deepEqual(load.params, { sessionId: 'long', cwd: '/work/project-a', mcpServers: [] });
});

test('loadSession registers its handler before sending: a slow replay is complete when it resolves', async (t) => {
  const updates = varietyUpdates(24);
  const agent = await agentWith(t, [storedSession('slow', { updates })], ['--replay-delay', '5']);
  const { client } = await startClient(t, agent.config);
  let count = 0;
  const loaded = client.loadSession('slow', '/work/project-a', () => count++);
  await loaded;
  assert.equal(count, 24);
});

test('unknown update kinds are passed on verbatim, never dropped', async (t) => {
  const unknown = { sessionUpdate: '_vendor_progress', percent: 42, detail: { stage: 'indexing' } };
  const future = { sessionUpdate: 'hologram', frames: [1, 2, 3] };
  const agent = await agentWith(t, [storedSession('u', { updates: [unknown, future] })]);
  const { client } = await startClient(t, agent.config);
  const received: SessionUpdate[] = [];
  await client.loadSession('u', '/work/project-a', (u) => received.push(u));
  assert.deepEqual(received, [unknown, future]);
});

test('session_info_update is delivered with archived: archiving a loaded session notifies its subscribers first', async (t) => {
  const agent = await agentWith(t, [storedSession('open')]);
  const { client } = await startClient(t, agent.config);
  await client.loadSession('open', '/work/project-a', () => undefined);
  const live: SessionUpdate[] = [];
  const other: SessionUpdate[] = [];
  client.onSessionUpdate('open', (u) => live.push(u));
  client.onSessionUpdate('someone-else', (u) => other.push(u));
  await client.archiveSession('open');
  assert.deepEqual(live, [{ sessionUpdate: 'session_info_update', archived: true }]);
  assert.deepEqual(other, []);
});

test('a disposed subscription receives nothing more', async (t) => {
  const agent = await agentWith(t, [storedSession('open')]);
  const { client } = await startClient(t, agent.config);
  await client.loadSession('open', '/work/project-a', () => undefined);
  const live: SessionUpdate[] = [];
  client.onSessionUpdate('open', (u) => live.push(u)).dispose();
  await client.archiveSession('open');
  assert.deepEqual(live, []);
});

test('archive and unarchive are idempotent', async (t) => {
  const agent = await agentWith(t, [storedSession('a')]);
  const { client } = await startClient(t, agent.config);
  await client.archiveSession('a');
  await client.archiveSession('a');
  assert.deepEqual((await client.listSessions({ archived: 'only' })).sessions.map((s) => s.sessionId), ['a']);
  await client.unarchiveSession('a');
  await client.unarchiveSession('a');
  assert.deepEqual((await client.listSessions({ archived: 'only' })).sessions, []);
  assert.deepEqual((await client.listSessions()).sessions.map((s) => [s.sessionId, s.archived]), [['a', false]]);
});

test('delete then archive gives ResourceNotFoundError (-32002); deleting an unknown session succeeds', async (t) => {
  const agent = await agentWith(t, [storedSession('a')]);
  const { client } = await startClient(t, agent.config);
  await client.deleteSession('a');
  const error = await rejection(client.archiveSession('a'));
  assert.ok(error instanceof ResourceNotFoundError, String(error));
  assert.equal(error.code, -32002);
  assert.ok(await rejection(client.unarchiveSession('a')) instanceof ResourceNotFoundError);
  assert.ok(await rejection(client.archiveSession('never-existed')) instanceof ResourceNotFoundError);
  await client.deleteSession('never-existed');
  assert.deepEqual((await client.listSessions({ archived: 'include' })).sessions, []);
});

test('a crash mid-list fails the request with AgentDisconnectedError (exit code, stderr) and fires onDidDisconnect', async (t) => {
  const agent = await agentWith(t, [storedSession('a')], ['--exit-at', 'list']);
  const { client } = await startClient(t, agent.config);
  const disconnected = new Promise<AgentDisconnectedError>((resolve) => client.onDidDisconnect(resolve));
  const error = await rejection(client.listSessions());
  assert.ok(error instanceof AgentDisconnectedError, String(error));
  assert.equal(error.exitCode, 3);
  assert.ok(error.stderrTail.some((l) => l.includes('reference agent: exiting at list')), error.message);
  assert.match(error.message, /Agent "reference" disconnected: it exited with code 3/);
  assert.equal(await disconnected, error);
  assert.equal(client.isConnected, false);
  const after = await rejection(client.archiveSession('a'));
  assert.equal(after, error, 'later calls fail with the same error, without sending');
});

test('a crash mid-load delivers the updates sent before it, then fails every pending request at once', async (t) => {
  const updates = varietyUpdates(10);
  const agent = await agentWith(t, [storedSession('a', { updates })], ['--exit-at', 'load-mid', '--delay', '300']);
  const { client } = await startClient(t, agent.config);
  const received: SessionUpdate[] = [];
  const list = client.listSessions();
  const load = client.loadSession('a', '/work/project-a', (u) => received.push(u));
  const [listError, loadError] = await Promise.all([rejection(list), rejection(load)]);
  assert.ok(loadError instanceof AgentDisconnectedError, String(loadError));
  assert.equal(listError, loadError, 'both pending requests fail with the one disconnect');
  assert.deepEqual(received, updates.slice(0, 5));
  assert.ok(loadError.stderrTail.some((l) => l.includes('exiting at load-mid')));
});

test('a malformed line from the agent is logged and skipped; the connection goes on', async (t) => {
  const agent = await agentWith(t, [storedSession('a')], ['--malformed-before', 'session/list']);
  const { client, log } = await startClient(t, agent.config);
  const { sessions } = await client.listSessions();
  assert.deepEqual(sessions.map((s) => s.sessionId), ['a']);
  assert.ok(log.at('warn').some((m) => m.startsWith('[reference] Skipped a line that is not JSON')), log.text());
  await client.archiveSession('a');
  assert.equal(client.isConnected, true);
});

test('cancellation sends $/cancel_request with the request id and fails the call with RequestCancelledError', async (t) => {
  const agent = await agentWith(t, [storedSession('a')], ['--delay', '400']);
  const { client } = await startClient(t, agent.config);
  const source = new CancellationTokenSource();
  const listing = client.listSessions({}, source.token);
  await waitFor(() => agent.sent().some((m) => m.method === 'session/list'));
  source.cancel();
  const error = await rejection(listing);
  assert.ok(error instanceof RequestCancelledError, String(error));
  const sent = agent.sent();
  const request = sent.find((m) => m.method === 'session/list')!;
  await waitFor(() => agent.sent().some((m) => m.method === '$/cancel_request'));
  const cancel = agent.sent().find((m) => m.method === '$/cancel_request')!;
  assert.deepEqual(cancel.params, { requestId: request.id });
  assert.ok(!agent.sent().some((m) => m.method === '$/cancelRequest'), 'not LSP\'s cancellation');
  assert.deepEqual((await client.listSessions()).sessions.map((s) => s.sessionId), ['a'], 'the connection goes on');
});

test('a token cancelled before the call sends nothing', async (t) => {
  const agent = await agentWith(t, [storedSession('a')]);
  const { client } = await startClient(t, agent.config);
  const source = new CancellationTokenSource();
  source.cancel();
  assert.ok(await rejection(client.listSessions({}, source.token)) instanceof RequestCancelledError);
  assert.deepEqual(agent.sent().map((m) => m.method), ['initialize']);
});

test('protocol 2: a v2 agent is initialized in the v2 shape, archive comes from capabilities.session, replay from session/resume', async (t) => {
  const updates: StoredUpdate[] = [
    { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hello' } },
    { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi there' } },
  ];
  const agent = await agentWith(t, [storedSession('a', { updates }), storedSession('b', { archived: true })], ['--v2'], 2);
  const { client } = await startClient(t, agent.config);
  assert.equal(client.protocolVersion, 2);
  assert.deepEqual(agent.sent()[0].params, { protocolVersion: 2, info: CLIENT_INFO, capabilities: {} });
  assert.equal(client.capabilities.archive, true);
  assert.equal(client.capabilities.loadSession, true);
  assert.deepEqual((await client.listSessions({ archived: 'only' })).sessions.map((s) => s.sessionId), ['b']);
  const received: SessionUpdate[] = [];
  await client.loadSession('a', '/work/project-a', (u) => received.push(u));
  assert.equal(received.length, 2);
  assert.deepEqual(received.map((u) => (u as { content?: { text?: string } }).content?.text), ['hello', 'hi there']);
  const resume = agent.sent().find((m) => m.method === 'session/resume')!;
  assert.deepEqual(resume.params, { sessionId: 'a', cwd: '/work/project-a', mcpServers: [], replayFrom: { type: 'start' } });
  assert.ok(!agent.sent().some((m) => m.method === 'session/load'), 'v2 has no session/load');
  await client.archiveSession('a');
  assert.deepEqual((await client.listSessions({ archived: 'only' })).sessions.map((s) => s.sessionId), ['a', 'b']);
});

test('protocol 2 falls back to v1 when the agent answers protocolVersion 1', async (t) => {
  const agent = await agentWith(t, [storedSession('a', { updates: varietyUpdates(8) })], [], 2);
  const { client, log } = await startClient(t, agent.config);
  assert.equal(client.protocolVersion, 1);
  assert.equal(agent.sent()[0].params && (agent.sent()[0].params as { protocolVersion: number }).protocolVersion, 2);
  assert.equal(client.capabilities.archive, true);
  const received: SessionUpdate[] = [];
  await client.loadSession('a', '/work/project-a', (u) => received.push(u));
  assert.equal(received.length, 8);
  assert.ok(agent.sent().some((m) => m.method === 'session/load'));
  assert.ok(log.at('info').some((m) => m.includes('answered protocol version 1')));
});

test('an agent that exits during start gives an AgentStartError with its exit code and stderr', async (t) => {
  for (const point of ['start', 'initialize']) {
    const agent = await agentWith(t, [], ['--exit-at', point]);
    const error = await rejection(AcpClient.start(agent.config, { clientInfo: CLIENT_INFO, log: new CapturingLog() }));
    assert.ok(error instanceof AgentStartError, `${point}: ${String(error)}`);
    assert.match(error.message, /Could not start agent "reference": it exited with code 3 before answering initialize/);
    assert.ok(error.stderrTail.some((l) => l.includes(`reference agent: exiting at ${point}`)), error.message);
  }
});

test('an agent that answers initialize with an error gives an AgentStartError with its message', async (t) => {
  const agent = await agentWith(t, [], ['--fail', 'initialize=-32603']);
  const error = await rejection(AcpClient.start(agent.config, { clientInfo: CLIENT_INFO, log: new CapturingLog() }));
  assert.ok(error instanceof AgentStartError, String(error));
  assert.match(error.message, /answered initialize with an error: reference agent: initialize failed on purpose \(-32603\)/);
});

test('dispose ends the agent process, leaves no process behind and fails pending requests', async (t) => {
  const agent = await agentWith(t, [storedSession('a')], ['--delay', '2000']);
  const client = await AcpClient.start(agent.config, { clientInfo: CLIENT_INFO, log: new CapturingLog() });
  const pid = client.pid!;
  assert.equal(isAlive(pid), true);
  let fired = false;
  client.onDidDisconnect(() => (fired = true));
  const pending = rejection(client.listSessions());
  await client.dispose();
  assert.ok(await pending instanceof AgentDisconnectedError);
  assert.equal(isAlive(pid), false);
  assert.equal(client.isConnected, false);
  assert.equal(fired, false, 'dispose is not a disconnect');
  await client.dispose(); // twice is fine
});

test('trace: messages logs each message sent and received; verbose adds their params; off logs none', async (t) => {
  for (const level of ['off', 'messages', 'verbose'] as const) {
    const agent = await agentWith(t, [storedSession('a')]);
    const { client, log } = await startClient(t, agent.config, { trace: () => level });
    await client.listSessions({ cwd: '/work/project-a' });
    const traced = log.at('info').filter((m) => /\[reference\] (Sending|Received) /.test(m));
    if (level === 'off') {
      assert.deepEqual(traced, []);
      continue;
    }
    assert.ok(traced.some((m) => m.startsWith("[reference] Sending request 'session/list - (1)'.")), traced.join('\n'));
    assert.ok(traced.some((m) => /^\[reference\] Received response 'session\/list - \(1\)' in \d+ms\./.test(m)), traced.join('\n'));
    const withParams = traced.some((m) => m.includes('Params: {') && m.includes('"/work/project-a"'));
    assert.equal(withParams, level === 'verbose');
  }
});

/** Polls until `probe` holds; gives up after 10 s so a broken rule fails instead of hanging. */
async function waitFor(probe: () => boolean): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`condition not reached: ${probe.toString()}`);
}
