// Live state and loads with side effects, against the reference agent as a real process:
// `session/status` and the JetBrains AIR list entries' `state` read into one `SessionInfo.state`
// at the src/acp boundary (unknown values left out and logged), and a list whose order holds
// while the user reads: a load that resumes a session (claude, codex) changes its date in place,
// and only an explicit refresh sorts it anew.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { ResourceNotFoundError } from '../../src/acp/errors';
import type { SessionInfo } from '../../src/acp/types';
import { Problems } from '../../src/acp/validate';
import { parseSessionStatus, withAirState } from '../../src/acp/sessionState';
import { AgentRegistry } from '../../src/sessions/agentRegistry';
import { SessionsModel } from '../../src/sessions/sessionsModel';
import { storedSession, writeAll } from '../agent/fixtures';
import { hostileStrings } from '../hostile/corpus';
import { readSession, type StoredSession } from '../agent/store';
import { CLIENT_INFO, CapturingLog, referenceAgent, rejection, scriptedAgent, startClient, tempDir } from './acp-helpers';

const CWD = '/work/project-a';

async function store(t: TestContext, sessions: StoredSession[]): Promise<string> {
  const dir = join(tempDir(t), 'store');
  await writeAll(dir, sessions);
  return dir;
}

/** a (newest), b, c (oldest): active; z archived. */
const threeSessions = () => [
  storedSession('a', { minutesAgo: 10 }),
  storedSession('b', { minutesAgo: 20 }),
  storedSession('c', { minutesAgo: 30 }),
  storedSession('z', { minutesAgo: 5, archived: true }),
];

function model(t: TestContext, config: ReturnType<typeof referenceAgent>) {
  const log = new CapturingLog();
  const registry = new AgentRegistry({ start: { clientInfo: CLIENT_INFO, log, killGraceMs: 500 } });
  const sessions = new SessionsModel(registry, { pageSize: 50, log });
  t.after(async () => {
    sessions.dispose();
    await registry.dispose();
  });
  registry.setConfigs([config]);
  return { registry, sessions, log };
}

const ids = (list: { sessions: { sessionId: string }[] }) => list.sessions.map((s) => s.sessionId);

test('session/status: "open" for a session loaded on this connection, "saved" otherwise, read as no state; no side effects', async (t) => {
  const dir = await store(t, threeSessions());
  const { client } = await startClient(t, referenceAgent(dir, ['--status']));
  assert.equal(client.capabilities.status, true);
  assert.equal(client.capabilities.sessionState, 'status');
  const before = await readSession(dir, 'a');
  assert.equal(await client.sessionStatus('a'), undefined);
  assert.deepEqual(await readSession(dir, 'a'), before, 'asking changed nothing on the agent');
  await client.loadSession('a', CWD, () => undefined);
  assert.equal(await client.sessionStatus('a'), 'open');
  await client.closeSession('a');
  assert.equal(await client.sessionStatus('a'), undefined);
  assert.ok((await rejection(client.sessionStatus('unknown'))) instanceof ResourceNotFoundError);
});

test('session/status: a value this client does not know is read as "saved" and logged by type, not value', async (t) => {
  const dir = await store(t, [storedSession('a', { state: '_vendor<b>busy</b>' })]);
  const { client, log } = await startClient(t, referenceAgent(dir, ['--status']));
  assert.equal(await client.sessionStatus('a'), undefined);
  const warning = log.at('warn').find((m) => m.includes('session/status'));
  assert.match(warning ?? '', /a status this client does not know/);
  assert.doesNotMatch(warning ?? '', /vendor|<b>/);
});

test('without sessionCapabilities.status nothing is asked and no state is set', async (t) => {
  const dir = await store(t, threeSessions());
  const { client } = await startClient(t, referenceAgent(dir));
  assert.equal(client.capabilities.status, false);
  assert.equal(client.capabilities.sessionState, undefined);
  assert.ok((await client.listSessions()).sessions.every((s) => s.state === undefined));
});

test('AIR list entries: _meta.jetbrains.air.state becomes SessionInfo.state; unknown values are left out with one warning', async (t) => {
  const dir = await store(t, [
    storedSession('a', { minutesAgo: 1, state: 'running' }),
    storedSession('b', { minutesAgo: 2, state: 'requires_action' }),
    storedSession('c', { minutesAgo: 3 }),
    storedSession('d', { minutesAgo: 4, state: 'error' }),
    storedSession('e', { minutesAgo: 5, state: '_custom' }),
    storedSession('f', { minutesAgo: 6, state: '[x](command:evil)' }),
  ]);
  const { client, log } = await startClient(t, referenceAgent(dir, ['--archive-extension', '--air-state']));
  assert.equal(client.capabilities.sessionState, 'jetbrains-air');
  const { sessions } = await client.listSessions({ archived: 'exclude' });
  assert.deepEqual(sessions.map((s) => [s.sessionId, s.state]), [
    ['a', 'running'],
    ['b', 'requires_action'],
    ['c', 'idle'],
    ['d', 'error'],
    ['e', undefined],
    ['f', undefined],
  ]);
  const warnings = log.at('warn').filter((m) => m.includes('session/list'));
  assert.equal(warnings.length, 1, log.text());
  assert.match(warnings[0], /a state this client does not know \(ignored\) \(×2\)/);
  assert.doesNotMatch(warnings[0], /custom|command/);
});

test('the standard wins: an agent with session/status and AIR list state is asked by session/status only', async (t) => {
  const dir = await store(t, [storedSession('a', { state: 'running' })]);
  const { client } = await startClient(t, referenceAgent(dir, ['--archive-extension', '--air-state', '--status']));
  assert.equal(client.capabilities.sessionState, 'status');
  assert.equal((await client.listSessions()).sessions[0].state, undefined);
});

test('a top-level state an agent puts on a list entry is not taken: only the two ways set it', async (t) => {
  const config = scriptedAgent(
    'scripted',
    `handlers.initialize = (m) => send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {} } } } });
     handlers['session/list'] = (m) => send({ jsonrpc: '2.0', id: m.id, result: { sessions: [{ sessionId: 's', cwd: '/w', state: 'running', _meta: { jetbrains: { air: { state: 'running' } } } }] } });`,
  );
  const { client } = await startClient(t, config);
  assert.equal(client.capabilities.sessionState, undefined, 'the agent did not answer the AIR index');
  assert.deepEqual((await client.listSessions()).sessions, [{ sessionId: 's', cwd: '/w', _meta: { jetbrains: { air: { state: 'running' } } } }]);
});

test('parsing rules: status answers and AIR states of any shape never throw', () => {
  const problems = new Problems();
  assert.equal(parseSessionStatus({ status: 'open' }, problems), 'open');
  assert.equal(parseSessionStatus({ status: 'saved' }, problems), undefined);
  for (const odd of [null, 42, 'open', [], { status: 7 }, { status: 'OPEN' }, { status: '_x' }]) assert.equal(parseSessionStatus(odd, problems), undefined);
  assert.equal(problems.size, 2);
  const base: SessionInfo = { sessionId: 's', cwd: '/w' };
  for (const meta of [undefined, null, 5, [], { jetbrains: 1 }, { jetbrains: { air: [] } }, { jetbrains: { air: { state: null } } }]) {
    assert.deepEqual(withAirState({ ...base, _meta: meta }, problems), { ...base, _meta: meta });
  }
  assert.equal(withAirState({ ...base, _meta: { jetbrains: { air: { state: 'idle' } } } }, problems).state, 'idle');
  assert.equal(withAirState({ ...base, _meta: { jetbrains: { air: { state: { kind: 'running' } } } } }, problems).state, undefined);
  assert.match(String(problems), /a state of type object/);
});

test('the hostile-strings corpus as a state or a status: none becomes a state, so no agent text reaches the tree\'s state label or icon', () => {
  const corpus = hostileStrings();
  const problems = new Problems();
  for (const { text } of corpus) {
    assert.equal(withAirState<SessionInfo>({ sessionId: 's', cwd: '/w', _meta: { jetbrains: { air: { state: text } } } }, problems).state, undefined, JSON.stringify(text.slice(0, 80)));
    assert.equal(parseSessionStatus({ status: text }, problems), undefined);
  }
  assert.doesNotMatch(String(problems), /command:|<script/i, 'the log names no values');
});

test('the model shows session/status answers after each list, and "open" after a load through checkAfterLoad', async (t) => {
  const dir = await store(t, threeSessions());
  const { sessions, registry } = model(t, referenceAgent(dir, ['--status'], { name: 'ref' }));
  const list = sessions.list('ref', 'active', CWD);
  await list.load();
  await sessions.lastStatusCheck;
  assert.deepEqual(list.sessions.map((s) => s.state), [undefined, undefined, undefined]);
  const client = await registry.getClient('ref');
  await client.loadSession('b', CWD, () => undefined);
  const { resumed } = await sessions.checkAfterLoad('ref', list.sessions[1]);
  assert.equal(resumed, false, 'the reference agent does not resume on load without --resume-on-load');
  assert.deepEqual(list.sessions.map((s) => [s.sessionId, s.state]), [['a', undefined], ['b', 'open'], ['c', undefined]]);
  // A re-list keeps the shown state until the status answers come (no flicker), then shows them.
  await client.closeSession('b');
  await list.reload();
  assert.equal(list.sessions[1].state, 'open');
  await sessions.lastStatusCheck;
  assert.equal(list.sessions[1].state, undefined);
});

test('a load that resumes the session: reported as resumed, its date changes in place, and only an explicit refresh sorts it anew', async (t) => {
  const dir = await store(t, threeSessions());
  const { sessions, registry } = model(t, referenceAgent(dir, ['--resume-on-load'], { name: 'ref' }));
  const list = sessions.list('ref', 'active', CWD);
  await list.load();
  assert.deepEqual(ids(list), ['a', 'b', 'c']);
  const before = list.sessions[2];
  const client = await registry.getClient('ref');
  await client.loadSession('c', CWD, () => undefined);
  const { resumed, session } = await sessions.checkAfterLoad('ref', before);
  assert.equal(resumed, true);
  assert.ok(Date.parse(session!.updatedAt!) > Date.parse(before.updatedAt!));
  assert.deepEqual(ids(list), ['a', 'b', 'c'], 'c keeps its place while the user reads it');
  assert.equal(list.sessions[2].updatedAt, session!.updatedAt, 'and shows its new date');
  // A background re-list (as after an archive) holds the order too.
  await list.reload();
  assert.deepEqual(ids(list), ['a', 'b', 'c']);
  await sessions.refresh('ref');
  assert.deepEqual(ids(list), ['c', 'a', 'b'], 'the next explicit refresh sorts by the dates');
});

test('a session newly listed is placed by its date; an unarchived one comes back by its date too', async (t) => {
  const dir = await store(t, threeSessions());
  const { sessions } = model(t, referenceAgent(dir, [], { name: 'ref' }));
  const active = sessions.list('ref', 'active', CWD);
  const archived = sessions.list('ref', 'archived', CWD);
  await Promise.all([active.load(), archived.load()]);
  await sessions.unarchive('ref', ['z']);
  assert.deepEqual(ids(active), ['z', 'a', 'b', 'c']);
  await sessions.lastRevalidation;
  assert.deepEqual(ids(active), ['z', 'a', 'b', 'c']);
});

test('without the resume the load changes nothing and is not reported as resumed', async (t) => {
  const dir = await store(t, threeSessions());
  const { sessions, registry } = model(t, referenceAgent(dir, [], { name: 'ref' }));
  const list = sessions.list('ref', 'active', CWD);
  await list.load();
  const before = list.sessions[2];
  await (await registry.getClient('ref')).loadSession('c', CWD, () => undefined);
  assert.deepEqual(await sessions.checkAfterLoad('ref', before), { resumed: false, session: before });
});
