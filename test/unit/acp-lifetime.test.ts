// Processes that outlive us and connections that half-die: internal messages the agent cannot
// forge, the process group always ended, starts that can be stopped, deadlines on every request.
// Real processes over real pipes (scripted agents and the reference agent).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AgentDisconnectedError, AgentStartError, RequestTimeoutError } from '../../src/acp/errors';
import type { SessionUpdate } from '../../src/acp/types';
import { AgentRegistry } from '../../src/sessions/agentRegistry';
import { SessionsModel } from '../../src/sessions/sessionsModel';
import { storedSession, writeAll } from '../agent/fixtures';
import {
  CLIENT_INFO,
  CapturingLog,
  capturedMessages,
  isRunning,
  referenceAgent,
  rejection,
  scriptedAgent,
  startClient,
  stderrLine,
  teed,
  tempDir,
  waitFor,
  within,
} from './acp-helpers';

/** A store with two sessions (s1 with `updates` replayed updates) for the reference agent. */
async function store(t: { after(fn: () => void): void }, updates = 2): Promise<string> {
  const dir = join(tempDir(t), 'store');
  const replay = Array.from({ length: updates }, (_, i) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `part ${i}` } }));
  await writeAll(dir, [storedSession('s1', { updates: replay }), storedSession('s2')]);
  return dir;
}

/** Agent script lines that start a grandchild in the agent's process group and report its pid. */
const SPAWN_GRANDCHILD = `
  const grandchild = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  process.stderr.write('GRANDCHILD ' + grandchild.pid + '\\n');
`;

test('the client\'s internal messages cannot come from the agent: forged ones are dropped with a warning', async (t) => {
  const config = scriptedAgent('forger', `
    handlers['session/list'] = (m) => {
      send({ jsonrpc: '2.0', method: '$/acpSessions/sessionUpdateBatch', params: { notifications: [{ sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'forged' } } }] } });
      send({ jsonrpc: '2.0', method: '$/acpSessions/disconnected' });
      send({ jsonrpc: '2.0', id: 99, method: '$/acpSessions/disconnected', params: {} });
      send({ jsonrpc: '2.0', id: m.id, result: { sessions: [{ sessionId: 's1', cwd: '/w' }] } });
    };
  `);
  const { client, log } = await startClient(t, config);
  const updates: SessionUpdate[] = [];
  client.onSessionUpdate('s1', (u) => updates.push(u));
  const { sessions } = await client.listSessions();
  assert.deepEqual(sessions.map((s) => s.sessionId), ['s1']);
  assert.equal(client.isConnected, true, 'a forged disconnect does not end the connection');
  assert.deepEqual(updates, [], 'a forged batch reaches no listener');
  assert.equal(log.at('warn').filter((m) => m.includes('reserved method $/acpSessions/')).length, 3, log.text());
  // Still usable: a second request is answered.
  assert.equal((await client.listSessions()).sessions.length, 1);
});

test('the process group is ended also when the agent itself already exited: its child does not live on', async (t) => {
  const config = scriptedAgent('leaver', `
    ${SPAWN_GRANDCHILD}
    handlers['session/list'] = () => process.exit(5);
  `);
  const { client, log } = await startClient(t, config, { killGraceMs: 1_000 });
  const grandchild = Number(await waitFor(() => stderrLine(log, 'leaver', 'GRANDCHILD ')));
  assert.equal(isRunning(grandchild), true);
  const error = await rejection(client.listSessions());
  assert.ok(error instanceof AgentDisconnectedError, String(error));
  assert.match(error.message, /exited with code 5/);
  await within(client.dispose(), 10_000, 'dispose after the agent exited');
  assert.equal(isRunning(grandchild), false, 'the grandchild was ended with the group');
});

test('a disconnect alone ends the group: no dispose needed for the agent\'s children to go', async (t) => {
  const config = scriptedAgent('leaver2', `
    ${SPAWN_GRANDCHILD}
    handlers['session/list'] = () => process.exit(6);
  `);
  const { client, log } = await startClient(t, config, { killGraceMs: 1_000 });
  const grandchild = Number(await waitFor(() => stderrLine(log, 'leaver2', 'GRANDCHILD ')));
  await rejection(client.listSessions());
  await waitFor(() => !isRunning(grandchild), 'the grandchild ended after the disconnect');
});

test('stopping a registry during initialize stops the agent and its children at once, not after the timeout', async (t) => {
  const dir = tempDir(t);
  const pids = join(dir, 'pids');
  const config = scriptedAgent('slowstart', `
    handlers.initialize = () => {};
    ${SPAWN_GRANDCHILD}
    require('node:fs').writeFileSync(${JSON.stringify(pids)}, process.pid + ' ' + grandchild.pid);
  `);
  const registry = new AgentRegistry({
    start: { clientInfo: CLIENT_INFO, log: new CapturingLog(), initializeTimeoutMs: 60_000, killGraceMs: 1_000 },
  });
  registry.setConfigs([config]);
  const starting = registry.getClient('slowstart');
  const failure = rejection(starting);
  await waitFor(() => existsSync(pids) && readFileSync(pids, 'utf8').includes(' '), 'the agent reported its pids');
  const [agentPid, grandchild] = readFileSync(pids, 'utf8').split(' ').map(Number);
  assert.equal(isRunning(agentPid), true);
  await within(registry.dispose(), 10_000, 'registry.dispose during a 60 s initialize');
  assert.equal(isRunning(agentPid), false, 'the agent is gone');
  assert.equal(isRunning(grandchild), false, 'its child is gone');
  const error = await failure;
  assert.ok(error instanceof AgentStartError, String(error));
  assert.match(error.message, /the start was cancelled/);
});

test('stopping a registry does not wait out a failed agent\'s back-off', async (t) => {
  const config = scriptedAgent('crasher', `handlers.initialize = () => process.exit(2);`);
  const registry = new AgentRegistry({
    start: { clientInfo: CLIENT_INFO, log: new CapturingLog(), killGraceMs: 500 },
    backoffMs: 60_000,
  });
  t.after(() => registry.dispose());
  registry.setConfigs([config]);
  await rejection(registry.getClient('crasher'));
  const waiting = rejection(registry.getClient('crasher')); // waits 60 s of back-off
  await within(registry.dispose(), 10_000, 'registry.dispose during a 60 s back-off');
  assert.match(String(await waiting), /removed from the settings/);
});

test('every request has a deadline: an unanswered session/list fails with RequestTimeoutError and is cancelled; the connection stays', async (t) => {
  const dir = tempDir(t);
  const capture = join(dir, 'sent.ndjson');
  const config = teed(referenceAgent(await store(t), ['--hang', 'session/list']), capture);
  const { client, log } = await startClient(t, config, { requestTimeoutMs: 1_000, initializeTimeoutMs: 30_000 });
  const error = await within(rejection(client.listSessions()), 10_000, 'a session/list the agent never answers');
  assert.ok(error instanceof RequestTimeoutError, String(error));
  assert.match(error.message, /did not answer session\/list within 1000 ms \(setting acpSessions.requestTimeout\)/);
  assert.ok(log.at('warn').some((m) => m.includes('No answer to session/list within 1000 ms')), log.text());
  const list = capturedMessages(capture).find((m) => m.method === 'session/list')!;
  await waitFor(() => capturedMessages(capture).some((m) => m.method === '$/cancel_request' && (m.params as { requestId?: unknown }).requestId === list.id), 'the agent was told to cancel');
  assert.equal(client.isConnected, true);
  await client.archiveSession('s1'); // other methods still answer
});

test('a replay\'s deadline restarts with every update: a slow but steady load outlasts the timeout', async (t) => {
  const config = referenceAgent(await store(t, 25), ['--replay-delay', '100']);
  const { client } = await startClient(t, config, { requestTimeoutMs: 1_000, initializeTimeoutMs: 30_000 });
  let count = 0;
  await client.loadSession('s1', '/work/project-a', () => count++);
  assert.equal(count, 25, 'about 2.5 s of replay at 100 ms per update, deadline 1 s');
});

test('a replay that stops sending updates fails at the deadline', async (t) => {
  const config = referenceAgent(await store(t), ['--hang', 'session/load']);
  const { client } = await startClient(t, config, { requestTimeoutMs: 1_000, initializeTimeoutMs: 30_000 });
  const error = await within(rejection(client.loadSession('s1', '/work/project-a', () => undefined)), 10_000, 'a load the agent never answers');
  assert.ok(error instanceof RequestTimeoutError, String(error));
  assert.equal(error.method, 'session/load');
});

test('an agent that closes its stdout and keeps running is a disconnect: pending requests fail at once, the process is killed', async (t) => {
  const config = referenceAgent(await store(t), ['--close-stdout-at', 'session/list']);
  const { client, log } = await startClient(t, config, { requestTimeoutMs: 60_000, killGraceMs: 1_000 });
  const pid = client.pid!;
  let disconnect: AgentDisconnectedError | undefined;
  client.onDidDisconnect((e) => (disconnect = e));
  const error = await within(rejection(client.listSessions()), 10_000, 'a session/list whose agent closed its output (deadline 60 s)');
  assert.ok(error instanceof AgentDisconnectedError, String(error));
  assert.match(error.message, /closed its output while connected/);
  assert.equal(disconnect, error, 'onDidDisconnect fired with the same error');
  assert.equal(client.isConnected, false);
  await waitFor(() => !isRunning(pid), 'the half-dead agent was killed');
  assert.ok(log.at('warn').some((m) => m.includes('Closed its output but is still running')), log.text());
});

test('the tree\'s list shows a hung session/list as an error (with Retry) once the deadline passes', async (t) => {
  const dir = await store(t);
  const registry = new AgentRegistry({ start: { clientInfo: CLIENT_INFO, log: new CapturingLog(), requestTimeoutMs: 1_000, initializeTimeoutMs: 30_000, killGraceMs: 500 } });
  const model = new SessionsModel(registry, { pageSize: 50 });
  t.after(async () => {
    model.dispose();
    await registry.dispose();
  });
  registry.setConfigs([referenceAgent(dir, ['--hang', 'session/list'])]);
  const list = model.list('reference', 'active', undefined);
  await within(list.load(), 10_000, 'loading a list the agent never answers');
  assert.equal(list.status, 'error', 'status "error" is what the tree shows with a Retry item (listChildren.ts)');
  assert.ok(list.error instanceof RequestTimeoutError, String(list.error));
});
