// Types at the boundary: every field the client reads from an agent, of the wrong type, is
// dropped or coerced where it enters src/acp, with one warning per message, and nothing later
// throws (labels, sorting, the sessions model). A real scripted agent over real pipes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcpError } from '../../src/acp/errors';
import type { SessionUpdate } from '../../src/acp/types';
import { AgentRegistry } from '../../src/sessions/agentRegistry';
import { dateGroup, relativeTime, sessionLabel, sortNewestFirst, updatedAtMs } from '../../src/sessions/format';
import { SessionsModel } from '../../src/sessions/sessionsModel';
import { CLIENT_INFO, CapturingLog, rejection, scriptedAgent, startClient, waitFor } from './acp-helpers';

/** An agent whose every answer has fields of the wrong type; `session/load` replays bad info updates. */
const oddAgent = () =>
  scriptedAgent('odd', `
    handlers.initialize = (m) => send({ jsonrpc: '2.0', id: m.id, result: {
      protocolVersion: 1,
      agentInfo: { name: 'odd', version: 3, title: { x: 1 } },
      agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, archive: 'yes', delete: 5, close: {}, resume: {} } },
      authMethods: [42, { id: 1, name: 'x' }, { id: 'a', name: 'A', description: 7 }],
    } });
    const sessions = [
      { sessionId: 'n', cwd: '/w', title: 42, updatedAt: 42, archived: 'yes' },
      { sessionId: 'o', cwd: '/w', title: { text: 'object' }, updatedAt: 'not a date', _meta: 5 },
      { sessionId: 'ok', cwd: '/w', title: 'Fine', updatedAt: '2026-01-01T00:00:00Z', archived: false },
      { sessionId: 7, cwd: '/w' }, { sessionId: '', cwd: '/w' }, { sessionId: 'c', cwd: 42 }, 'text', null, [],
    ];
    handlers['session/list'] = (m) => send({ jsonrpc: '2.0', id: m.id, result: { sessions, nextCursor: 42 } });
    handlers['session/load'] = (m) => {
      const update = (u) => send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: m.params.sessionId, update: u } });
      update({ sessionUpdate: 'session_info_update', title: 42, updatedAt: {}, archived: 'no' });
      update({ sessionUpdate: 'session_info_update', title: 'New', updatedAt: '2026-02-01T00:00:00Z', archived: true });
      send({ jsonrpc: '2.0', id: m.id, result: {} });
    };
    handlers['session/close'] = (m) => send({ jsonrpc: '2.0', id: m.id, error: { code: 1.5, message: { nested: 'object' }, data: [1, { deep: true }] } });
    // A live update of a listed session, sent when the client asks for it (session/resume).
    handlers['session/resume'] = (m) => {
      send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'ok', update: { sessionUpdate: 'session_info_update', title: 42, updatedAt: [] } } });
      send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'ok', update: { sessionUpdate: 'session_info_update', title: 'Renamed' } } });
      send({ jsonrpc: '2.0', id: m.id, result: {} });
    };
  `);

test('initialize: capabilities, agent info and auth methods of the wrong shape are read as not advertised or dropped, with one warning', async (t) => {
  const { client, log } = await startClient(t, oddAgent());
  assert.deepEqual(client.agentInfo, { name: 'odd', version: '3' });
  assert.deepEqual(
    { ...client.capabilities, authMethods: undefined },
    { loadSession: true, list: true, archive: false, delete: false, resume: true, close: true, title: false, status: false, listSubscribe: false, batchGet: false, fork: false, authMethods: undefined },
  );
  assert.deepEqual(client.capabilities.authMethods, [{ id: 'a', name: 'A' }]);
  const warnings = log.at('warn').filter((m) => m.includes('in initialize'));
  assert.equal(warnings.length, 1, log.text());
  assert.match(warnings[0], /sessionCapabilities\.archive of type string/);
  assert.match(warnings[0], /agent version of type number/);
});

test('session/list: titles, dates, archived and _meta of the wrong type are dropped; entries without ids skipped; one warning', async (t) => {
  const { client, log } = await startClient(t, oddAgent());
  const result = await client.listSessions();
  assert.deepEqual(result, {
    sessions: [
      { sessionId: 'n', cwd: '/w' },
      { sessionId: 'o', cwd: '/w' },
      { sessionId: 'ok', cwd: '/w', title: 'Fine', updatedAt: '2026-01-01T00:00:00Z', archived: false },
    ],
  });
  const warnings = log.at('warn').filter((m) => m.includes('in session/list'));
  assert.equal(warnings.length, 1, log.text());
  assert.match(warnings[0], /title of type number, .*updatedAt of type number/);
  assert.match(warnings[0], /nextCursor of type number/);
  assert.doesNotMatch(warnings[0], /Fine|"text"|\/w/, 'types are named, values are not quoted');
  // Everything the tree does with them works.
  const now = Date.parse('2026-03-01T00:00:00Z');
  for (const s of sortNewestFirst(result.sessions)) {
    assert.equal(typeof sessionLabel(s), 'string');
    const ms = updatedAtMs(s);
    if (ms !== undefined) relativeTime(ms, now);
    dateGroup(ms, now);
  }
});

test('session_info_update: fields of the wrong type are dropped (= unchanged) before any listener sees them', async (t) => {
  const { client, log } = await startClient(t, oddAgent());
  const received: SessionUpdate[] = [];
  await client.loadSession('ok', '/w', (u) => received.push(u));
  assert.deepEqual(received, [
    { sessionUpdate: 'session_info_update' },
    { sessionUpdate: 'session_info_update', title: 'New', updatedAt: '2026-02-01T00:00:00Z', archived: true },
  ]);
  assert.equal(log.at('warn').filter((m) => m.includes('in session/update')).length, 1, log.text());
});

test('an error answer with a fractional code and an object message becomes a typed error with an integer code and a string message', async (t) => {
  const { client } = await startClient(t, oddAgent());
  const error = await rejection(client.closeSession('ok'));
  assert.ok(error instanceof AcpError, String(error));
  assert.equal(Number.isInteger(error.code), true);
  assert.equal(typeof error.agentMessage, 'string');
  assert.deepEqual(error.data, [1, { deep: true }]);
});

test('the sessions model lists and renames through bad types without throwing: labels stay strings', async (t) => {
  const log = new CapturingLog();
  const registry = new AgentRegistry({ start: { clientInfo: CLIENT_INFO, log, killGraceMs: 500 } });
  const model = new SessionsModel(registry, { pageSize: 50 });
  t.after(async () => {
    model.dispose();
    await registry.dispose();
  });
  registry.setConfigs([oddAgent()]);
  const list = model.list('odd', 'active', undefined);
  await list.load();
  assert.equal(list.status, 'loaded', String(list.error));
  assert.deepEqual(list.sessions.map((s) => [s.sessionId, sessionLabel(s)]), [
    ['ok', 'Fine'],
    ['n', 'Untitled session (n)'],
    ['o', 'Untitled session (o)'],
  ]);
  // The agent sends live updates for "ok": a title of 42 (dropped), then "Renamed".
  const client = await registry.getClient('odd');
  await client.resumeSession('ok', '/w');
  await waitFor(() => model.find('odd', 'ok')?.session.title === 'Renamed', 'the rename reached the model');
  for (const s of list.sessions) assert.equal(typeof sessionLabel(s), 'string');
});
