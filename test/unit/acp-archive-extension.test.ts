// Archive through the JetBrains AIR vendor extension (what claude-agent-acp and codex-acp serve):
// the client's one archive vocabulary, translated in src/acp/archive.ts, against the reference
// agent in --archive-extension mode as a real process over real pipes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { ResourceNotFoundError } from '../../src/acp/errors';
import type { ArchivedFilter } from '../../src/acp/types';
import { storedSession, writeAll } from '../agent/fixtures';
import { readSession } from '../agent/store';
import { capturedMessages, referenceAgent, rejection, scriptedAgent, startClient, teed, tempDir } from './acp-helpers';

const AIR_OFFER = { jetbrains: { air: { version: 1, capabilities: ['sessionIndex', 'loadReplayEnd'] } } };

/** The reference agent serving the extension instead of the standard, on a store of `sessions`, its input captured. */
async function extensionAgent(t: TestContext, sessions: ReturnType<typeof storedSession>[], flags: string[] = []) {
  const dir = tempDir(t);
  const store = join(dir, 'store');
  await writeAll(store, sessions);
  const capture = join(dir, 'client-to-agent.ndjson');
  const config = teed(referenceAgent(store, ['--archive-extension', ...flags]), capture);
  const sent = () => capturedMessages(capture) as { method?: string; params?: Record<string, unknown> }[];
  return { store, config, sent };
}

/** An agent whose initialize answer is `result` (session/list advertised), to test what the client reads from it. */
function answering(result: Record<string, unknown>) {
  return scriptedAgent(
    'scripted',
    `handlers.initialize = (m) => send({ jsonrpc: '2.0', id: m.id, result: ${JSON.stringify(result)} });
     handlers['session/archive'] = (m) => send({ jsonrpc: '2.0', id: m.id, result: { via: 'standard' } });
     handlers['_session/archive'] = (m) => send({ jsonrpc: '2.0', id: m.id, result: { via: 'extension' } });
     handlers['session/list'] = (m) => send({ jsonrpc: '2.0', id: m.id, result: { sessions: [] } });`,
  );
}

test('initialize offers the JetBrains AIR session index in clientCapabilities._meta', async (t) => {
  const agent = await extensionAgent(t, []);
  await startClient(t, agent.config);
  const [initialize] = agent.sent();
  assert.equal(initialize.method, 'initialize');
  assert.deepEqual((initialize.params?.clientCapabilities as { _meta?: unknown })._meta, AIR_OFFER);
});

test('an agent that answers the extension and not the standard archives by the extension', async (t) => {
  const agent = await extensionAgent(t, []);
  const { client, log } = await startClient(t, agent.config);
  assert.equal(client.capabilities.archive, true);
  assert.equal(client.capabilities.archiveMethod, 'jetbrains-air');
  assert.match(log.text(), /"archiveMethod":"jetbrains-air"/);
});

test('archive and unarchive go out as _session/archive and _session/unarchive, and the agent stores them', async (t) => {
  const agent = await extensionAgent(t, [storedSession('a')]);
  const { client } = await startClient(t, agent.config);
  await client.archiveSession('a');
  assert.equal((await readSession(agent.store, 'a'))?.archived, true);
  await client.archiveSession('a'); // idempotent, as the standard
  await client.unarchiveSession('a');
  assert.equal((await readSession(agent.store, 'a'))?.archived, false);
  const calls = agent.sent().filter((m) => m.method?.includes('archive'));
  assert.deepEqual(
    calls.map((m) => [m.method, m.params]),
    [
      ['_session/archive', { sessionId: 'a' }],
      ['_session/archive', { sessionId: 'a' }],
      ['_session/unarchive', { sessionId: 'a' }],
    ],
  );
});

test('an unknown session gives ResourceNotFoundError (-32002) with data.sessionId, for archive and unarchive', async (t) => {
  const agent = await extensionAgent(t, [storedSession('gone', { deleted: true })]);
  const { client } = await startClient(t, agent.config);
  for (const call of [() => client.archiveSession('gone'), () => client.unarchiveSession('never-existed')]) {
    const error = await rejection(call());
    assert.ok(error instanceof ResourceNotFoundError, String(error));
    assert.equal(error.code, -32002);
    assert.match(error.method, /^_session\/(un)?archive$/);
    assert.equal(typeof (error.data as { sessionId?: unknown }).sessionId, 'string');
  }
});

test('list filters: exclude is the plain list, include and only go in _meta.jetbrains.air.list; entries carry a boolean archived', async (t) => {
  const agent = await extensionAgent(t, [
    storedSession('active-1', { minutesAgo: 1 }),
    storedSession('archived-1', { minutesAgo: 2, archived: true }),
    storedSession('deleted-1', { minutesAgo: 3, deleted: true }),
  ]);
  const { client } = await startClient(t, agent.config);
  const ids = async (archived?: ArchivedFilter) => (await client.listSessions({ archived })).sessions.map((s) => `${s.sessionId}:${s.archived}`);
  assert.deepEqual(await ids(), ['active-1:false']);
  assert.deepEqual(await ids('exclude'), ['active-1:false']);
  assert.deepEqual(await ids('include'), ['active-1:false', 'archived-1:true']);
  assert.deepEqual(await ids('only'), ['archived-1:true']);
  const lists = agent.sent().filter((m) => m.method === 'session/list').map((m) => m.params);
  // Never the standard `archived`: claude and codex ignore it without a word ("only" would list active sessions).
  assert.deepEqual(lists, [
    {},
    {},
    { _meta: { jetbrains: { air: { list: { archived: 'all' } } } } },
    { _meta: { jetbrains: { air: { list: { archived: 'archived' } } } } },
  ]);
});

test('a cursor chain of archived sessions keeps the extension filter on every page', async (t) => {
  const agent = await extensionAgent(
    t,
    [1, 2, 3].map((i) => storedSession(`archived-${i}`, { minutesAgo: i, archived: true })),
    ['--page-size', '1'],
  );
  const { client } = await startClient(t, agent.config);
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listSessions({ archived: 'only', ...(cursor ? { cursor } : {}) });
    seen.push(...page.sessions.map((s) => s.sessionId));
    cursor = page.nextCursor;
  } while (cursor);
  assert.deepEqual(seen, ['archived-1', 'archived-2', 'archived-3']);
});

test('the standard wins when an agent advertises both', async (t) => {
  const capture = join(tempDir(t), 'sent.ndjson');
  const { client } = await startClient(
    t,
    teed(answering({ protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {}, archive: {} } }, _meta: AIR_OFFER }), capture),
  );
  assert.equal(client.capabilities.archiveMethod, 'standard');
  await client.archiveSession('a');
  await client.listSessions({ archived: 'only' });
  const sent = capturedMessages(capture) as { method?: string; params?: unknown }[];
  assert.deepEqual(sent.filter((m) => m.method !== 'initialize').map((m) => [m.method, m.params]), [
    ['session/archive', { sessionId: 'a' }],
    ['session/list', { archived: 'only' }],
  ]);
});

test('no archive without list, without the extension\'s archive capability, or with a malformed answer', async (t) => {
  const cases: Record<string, unknown>[] = [
    // The extension without list: nowhere to show archived sessions.
    { protocolVersion: 1, agentCapabilities: { sessionCapabilities: {} }, _meta: AIR_OFFER },
    // Other AIR capabilities only.
    { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {} } }, _meta: { jetbrains: { air: { version: 1, capabilities: ['diffPatch'] } } } },
    // Malformed: no integer version, capabilities not an array, air not an object.
    { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {} } }, _meta: { jetbrains: { air: { version: '1', capabilities: ['sessionIndex'] } } } },
    { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {} } }, _meta: { jetbrains: { air: { version: 1, capabilities: 'sessionIndex' } } } },
    { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {} } }, _meta: { jetbrains: { air: ['sessionIndex'] } } },
    // The extension in the wrong place (agentCapabilities._meta) is not the answer.
    { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {} }, _meta: AIR_OFFER } },
  ];
  for (const result of cases) {
    const { client } = await startClient(t, answering(result));
    assert.equal(client.capabilities.archive, false, JSON.stringify(result));
    assert.equal(client.capabilities.archiveMethod, undefined);
  }
});

test('an extension entry whose archived flag is missing or not a boolean takes the flag its filter implies', async (t) => {
  const entries = [
    { sessionId: 'no-flag', cwd: '/w' },
    { sessionId: 'string-flag', cwd: '/w', _meta: { jetbrains: { air: { archived: 'yes' } } } },
  ];
  const { client } = await startClient(
    t,
    scriptedAgent(
      'scripted',
      `handlers.initialize = (m) => send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {} } }, _meta: ${JSON.stringify(AIR_OFFER)} } });
       handlers['session/list'] = (m) => send({ jsonrpc: '2.0', id: m.id, result: { sessions: ${JSON.stringify(entries)} } });`,
    ),
  );
  const flags = async (archived?: ArchivedFilter) => (await client.listSessions({ archived })).sessions.map((s) => s.archived);
  assert.deepEqual(await flags('exclude'), [false, false]);
  assert.deepEqual(await flags('only'), [true, true]);
  assert.deepEqual(await flags('include'), [undefined, undefined]);
});
