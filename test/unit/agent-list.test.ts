// The reference agent's session/list: filters, order, cursors and page size.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeSession } from '../agent/store';
import { storedSession, tempStore, writeAll } from '../agent/fixtures';
import { listAll, RawAgent } from '../agent/rawClient';

const ids = (sessions: Array<{ sessionId: string }>) => sessions.map((s) => s.sessionId);

/** Five sessions in project-a (two archived, one deleted) and two in project-b. */
async function fixture(t: Parameters<typeof tempStore>[0]): Promise<string> {
  const store = await tempStore(t);
  await writeAll(store, [
    storedSession('a1', { minutesAgo: 1 }),
    storedSession('a2', { minutesAgo: 2, archived: true }),
    storedSession('a3', { minutesAgo: 3 }),
    storedSession('a4', { minutesAgo: 4, archived: true }),
    storedSession('a5', { minutesAgo: 5, deleted: true }),
    storedSession('b1', { minutesAgo: 0, cwd: '/work/project-b' }),
    storedSession('b2', { minutesAgo: 6, cwd: '/work/project-b', archived: true }),
  ]);
  return store;
}

async function started(t: Parameters<typeof tempStore>[0], args: string[], env: NodeJS.ProcessEnv = {}): Promise<RawAgent> {
  const agent = RawAgent.start(args, env);
  t.after(() => agent.close());
  await agent.initialize();
  return agent;
}

test('archived omitted, null or "exclude" lists unarchived sessions only', async (t) => {
  const agent = await started(t, ['--store', await fixture(t)]);
  for (const params of [{}, { archived: null }, { archived: 'exclude' }]) {
    assert.deepEqual(ids(await listAll(agent, params)), ['b1', 'a1', 'a3'], JSON.stringify(params));
  }
});

test('archived "include" lists archived and unarchived sessions', async (t) => {
  const agent = await started(t, ['--store', await fixture(t)]);
  assert.deepEqual(ids(await listAll(agent, { archived: 'include' })), ['b1', 'a1', 'a2', 'a3', 'a4', 'b2']);
});

test('archived "only" lists archived sessions only', async (t) => {
  const agent = await started(t, ['--store', await fixture(t)]);
  assert.deepEqual(ids(await listAll(agent, { archived: 'only' })), ['a2', 'a4', 'b2']);
});

test('any other archived value is rejected with -32602', async (t) => {
  const agent = await started(t, ['--store', await fixture(t)]);
  for (const archived of ['bogus', 'ONLY', '', true, 1, ['only']]) {
    const response = await agent.request('session/list', { archived });
    assert.equal(response.error?.code, -32602, JSON.stringify(archived));
  }
});

test('deleted sessions appear under no archived filter value', async (t) => {
  const agent = await started(t, ['--store', await fixture(t)]);
  for (const archived of ['exclude', 'include', 'only']) {
    assert.ok(!ids(await listAll(agent, { archived })).includes('a5'), archived);
  }
});

test('the cwd filter returns only sessions with exactly that cwd, and combines with archived', async (t) => {
  const agent = await started(t, ['--store', await fixture(t)]);
  assert.deepEqual(ids(await listAll(agent, { cwd: '/work/project-b' })), ['b1']);
  assert.deepEqual(ids(await listAll(agent, { cwd: '/work/project-b', archived: 'only' })), ['b2']);
  assert.deepEqual(ids(await listAll(agent, { cwd: '/work/project-a', archived: 'include' })), ['a1', 'a2', 'a3', 'a4']);
  assert.deepEqual(ids(await listAll(agent, { cwd: '/work/project-a/' })), []);
});

test('every listed session carries title, updatedAt and a boolean archived', async (t) => {
  const agent = await started(t, ['--store', await fixture(t)]);
  const { sessions } = await agent.call('session/list', { archived: 'include' });
  for (const s of sessions) {
    assert.equal(typeof s.archived, 'boolean');
    assert.equal(s.title, `Session ${s.sessionId}`);
    assert.ok(!Number.isNaN(Date.parse(s.updatedAt)));
  }
  assert.deepEqual(sessions.filter((s: { archived: boolean }) => s.archived).map((s: { sessionId: string }) => s.sessionId), ['a2', 'a4', 'b2']);
});

test('sessions are ordered by updatedAt, newest first, with equal times ordered by sessionId', async (t) => {
  const store = await tempStore(t);
  await writeAll(store, [storedSession('s-c', { minutesAgo: 10 }), storedSession('s-b', { minutesAgo: 10 }), storedSession('s-a', { minutesAgo: 10 }), storedSession('s-z', { minutesAgo: 1 })]);
  const agent = await started(t, ['--store', store, '--page-size', '2']);
  assert.deepEqual(ids(await listAll(agent)), ['s-z', 's-a', 's-b', 's-c']);
});

test('pages of --page-size sessions concatenate to the whole list, and the last page has no nextCursor', async (t) => {
  const store = await tempStore(t);
  await writeAll(store, Array.from({ length: 11 }, (_, i) => storedSession(`s${String(i).padStart(2, '0')}`, { minutesAgo: i })));
  const agent = await started(t, ['--store', store, '--page-size', '3']);
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const result = await agent.call('session/list', cursor ? { cursor } : {});
    pages.push(ids(result.sessions));
    cursor = result.nextCursor;
  } while (cursor);
  assert.deepEqual(pages.map((p) => p.length), [3, 3, 3, 2]);
  assert.deepEqual(pages.flat(), Array.from({ length: 11 }, (_, i) => `s${String(i).padStart(2, '0')}`));
});

test('the page size also comes from ACP_AGENT_PAGE_SIZE', async (t) => {
  const store = await tempStore(t);
  await writeAll(store, Array.from({ length: 5 }, (_, i) => storedSession(`s${i}`, { minutesAgo: i })));
  const agent = await started(t, [], { ACP_AGENT_STORE: store, ACP_AGENT_PAGE_SIZE: '2' });
  const first = await agent.call('session/list', {});
  assert.deepEqual(ids(first.sessions), ['s0', 's1']);
  assert.equal(typeof first.nextCursor, 'string');
});

test('a page boundary holds when a session of an earlier page is archived before the next page', async (t) => {
  const store = await tempStore(t);
  await writeAll(store, Array.from({ length: 6 }, (_, i) => storedSession(`s${i}`, { minutesAgo: i })));
  const agent = await started(t, ['--store', store, '--page-size', '3']);
  const first = await agent.call('session/list', {});
  assert.deepEqual(ids(first.sessions), ['s0', 's1', 's2']);
  await agent.call('session/archive', { sessionId: 's0' });
  const second = await agent.call('session/list', { cursor: first.nextCursor });
  assert.deepEqual(ids(second.sessions), ['s3', 's4', 's5']);
});

test('a cursor the agent did not issue is rejected with -32602', async (t) => {
  const agent = await started(t, ['--store', await fixture(t), '--page-size', '1']);
  for (const cursor of ['not-a-cursor', 'eyJwYWdlIjogMn0=', '']) {
    assert.equal((await agent.request('session/list', { cursor })).error?.code, -32602, cursor);
  }
});

test('a cursor followed with a different cwd or archived filter is rejected with -32602', async (t) => {
  const agent = await started(t, ['--store', await fixture(t), '--page-size', '1']);
  const { nextCursor } = await agent.call('session/list', { archived: 'include' });
  assert.equal((await agent.request('session/list', { archived: 'only', cursor: nextCursor })).error?.code, -32602);
  assert.equal((await agent.request('session/list', { archived: 'include', cwd: '/work/project-a', cursor: nextCursor })).error?.code, -32602);
  assert.ok((await agent.request('session/list', { archived: 'include', cursor: nextCursor })).result);
});

test('a session written to the store by someone else is listed on the next request', async (t) => {
  const store = await tempStore(t);
  const agent = await started(t, ['--store', store]);
  assert.deepEqual(ids(await listAll(agent)), []);
  await writeSession(store, storedSession('late'));
  assert.deepEqual(ids(await listAll(agent)), ['late']);
});

test('without the archive capability the list has no archived field, shows every undeleted session and rejects the filter', async (t) => {
  const agent = await started(t, ['--store', await fixture(t), '--no-archive']);
  const { sessions } = await agent.call('session/list', {});
  assert.deepEqual(ids(sessions), ['b1', 'a1', 'a2', 'a3', 'a4', 'b2']);
  assert.ok(sessions.every((s: object) => !('archived' in s)));
  assert.equal((await agent.request('session/list', { archived: 'only' })).error?.code, -32602);
});

test('sessions with further workspace roots list them as additionalDirectories', async (t) => {
  const store = await tempStore(t);
  await writeAll(store, [storedSession('both', { additionalDirectories: ['/work/project-b'] }), storedSession('one', { minutesAgo: 1 })]);
  const agent = await started(t, ['--store', store]);
  const [both, one] = await listAll(agent);
  assert.deepEqual(both.additionalDirectories, ['/work/project-b']);
  assert.equal(one.additionalDirectories, undefined);
});

describe('--archive-extension: the JetBrains AIR extension instead of the standard', () => {
  const AIR_CLIENT = { protocolVersion: 1, clientInfo: { name: 'agent-tests', version: '0' }, clientCapabilities: { _meta: { jetbrains: { air: { version: 1, capabilities: ['sessionIndex'] } } } } };
  const airList = (archived: unknown) => ({ _meta: { jetbrains: { air: { list: { archived } } } } });

  test('answers an AIR client with _meta.jetbrains.air and no standard archive capability', async (t) => {
    const agent = RawAgent.start(['--store', await fixture(t), '--archive-extension']);
    t.after(() => agent.close());
    const result = await agent.initialize(AIR_CLIENT);
    assert.deepEqual(result._meta, { jetbrains: { air: { version: 1, capabilities: ['sessionIndex', 'sessionArchive'] } } });
    assert.equal(result.agentCapabilities.sessionCapabilities.archive, undefined);
  });

  test('lists by _meta.jetbrains.air.list.archived, each entry flagged in _meta.jetbrains.air.archived', async (t) => {
    const agent = RawAgent.start(['--store', await fixture(t), '--archive-extension']);
    t.after(() => agent.close());
    await agent.initialize(AIR_CLIENT);
    const flagged = (sessions: any[]) => sessions.map((s) => `${s.sessionId}:${s._meta?.jetbrains?.air?.archived}:${s.archived}`);
    assert.deepEqual(flagged(await listAll(agent, {})), ['b1:false:undefined', 'a1:false:undefined', 'a3:false:undefined']);
    assert.deepEqual(flagged(await listAll(agent, airList('unarchived'))), ['b1:false:undefined', 'a1:false:undefined', 'a3:false:undefined']);
    assert.deepEqual(ids(await listAll(agent, airList('archived'))), ['a2', 'a4', 'b2']);
    assert.deepEqual(ids(await listAll(agent, airList('all'))), ['b1', 'a1', 'a2', 'a3', 'a4', 'b2']);
    assert.equal((await agent.request('session/list', airList('everything'))).error?.code, -32602);
    assert.equal((await agent.request('session/list', { archived: 'only' })).error?.code, -32602, 'the standard filter is not served');
  });

  test('_session/archive and _session/unarchive answer {} and -32002 with data.sessionId; session/archive is -32601', async (t) => {
    const agent = RawAgent.start(['--store', await fixture(t), '--archive-extension']);
    t.after(() => agent.close());
    await agent.initialize(AIR_CLIENT);
    assert.deepEqual(await agent.call('_session/archive', { sessionId: 'a1' }), {});
    assert.deepEqual(ids(await listAll(agent, airList('archived'))), ['a1', 'a2', 'a4', 'b2']);
    assert.deepEqual(await agent.call('_session/unarchive', { sessionId: 'a1' }), {});
    const unknown = await agent.request('_session/archive', { sessionId: 'a5' });
    assert.equal(unknown.error?.code, -32002);
    assert.deepEqual(unknown.error?.data, { sessionId: 'a5' });
    assert.equal((await agent.request('_session/archive', {})).error?.code, -32602);
    assert.equal((await agent.request('session/archive', { sessionId: 'a1' })).error?.code, -32601);
  });

  test('a client that does not offer the extension gets neither the extension nor the standard', async (t) => {
    const agent = RawAgent.start(['--store', await fixture(t), '--archive-extension']);
    t.after(() => agent.close());
    const result = await agent.initialize();
    assert.equal(result._meta, undefined);
    assert.equal((await agent.request('_session/archive', { sessionId: 'a1' })).error?.code, -32601);
  });
});
