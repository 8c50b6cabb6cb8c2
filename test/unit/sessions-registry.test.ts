// The agent registry against the reference agent as a real process: one client per agent,
// states the tree shows, crashes with back-off, restarts, reconfiguration.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../src/acp/types';
import { AgentRegistry, type AgentState } from '../../src/sessions/agentRegistry';
import { SessionsModel } from '../../src/sessions/sessionsModel';
import { writeSession } from '../agent/store';

const agentScript = fileURLToPath(new URL('../agent/agent.mjs', import.meta.url));
const quiet: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function store(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'acp-sessions-registry-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  await writeSession(dir, {
    sessionId: 's1',
    cwd: '/projects/alpha',
    title: 'First',
    updatedAt: '2026-01-10T10:00:00Z',
    archived: false,
    deleted: false,
    updates: [],
  });
  return dir;
}

function registry(backoffMs = 50): AgentRegistry {
  const r = new AgentRegistry({
    start: { clientInfo: { name: 'acp-sessions-tests', version: '0' }, log: quiet, defaultCwd: tmpdir(), killGraceMs: 500, initializeTimeoutMs: 10_000 },
    backoffMs,
  });
  cleanup.push(() => r.dispose());
  return r;
}

function states(r: AgentRegistry): AgentState['kind'][] {
  const seen: AgentState['kind'][] = [];
  r.onDidChangeState((agent) => seen.push(agent.state.kind));
  return seen;
}

describe('agent registry', () => {
  test('while starting is blocked (Restricted Mode) no agent is spawned and the reason is the error; unblocking starts it', async () => {
    const r = registry();
    const dir = await store();
    const marker = join(dir, 'spawned');
    // The shell writes the marker, then becomes the reference agent.
    r.setConfigs([{ name: 'ref', command: '/bin/sh', args: ['-c', 'touch "$0" && exec "$@"', marker, process.execPath, agentScript, '--store', dir] }]);
    const changed: string[] = [];
    r.onDidChangeState((agent) => changed.push(agent.name));
    r.setStartBlocked('Restricted Mode');
    assert.deepEqual(changed, ['ref'], 'views are told, to say why nothing starts');
    await assert.rejects(r.getClient('ref'), { name: 'StartBlockedError', message: 'Restricted Mode' });
    await assert.rejects(r.restart('ref'), { name: 'StartBlockedError' });
    assert.equal(r.agent('ref')?.state.kind, 'idle');
    assert.equal(existsSync(marker), false, 'nothing was spawned');
    r.setStartBlocked(undefined);
    const client = await r.getClient('ref');
    assert.ok(client.isConnected);
    assert.equal(existsSync(marker), true);
  });

  test('an agent starts on demand: idle, starting, connected, with name and version from initialize', async () => {
    const r = registry();
    r.setConfigs([{ name: 'ref', command: process.execPath, args: [agentScript, '--store', await store()] }]);
    assert.equal(r.agent('ref')?.state.kind, 'idle');
    const seen = states(r);
    await r.getClient('ref');
    assert.deepEqual(seen, ['starting', 'connected']);
    const agent = r.agent('ref')!;
    assert.equal(agent.agentInfo?.name, 'acp-reference-agent');
    assert.ok(agent.agentInfo?.version);
    assert.equal(agent.capabilities?.archive, true);
  });

  test('the tree and every transcript share one client per agent', async () => {
    const r = registry();
    r.setConfigs([{ name: 'ref', command: process.execPath, args: [agentScript, '--store', await store()] }]);
    const [a, b] = await Promise.all([r.getClient('ref'), r.getClient('ref')]);
    assert.equal(a, b);
    assert.equal(await r.getClient('ref'), a);
  });

  test('an agent that cannot start is failed with the reason', async () => {
    const r = registry();
    r.setConfigs([{ name: 'missing', command: '/nonexistent/agent-binary' }]);
    await assert.rejects(r.getClient('missing'));
    const state = r.agent('missing')!.state;
    assert.equal(state.kind, 'failed');
    assert.match(state.kind === 'failed' ? state.reason : '', /not found/);
  });

  test('an agent that exits is failed with the reason, and the next start waits out a growing back-off', async () => {
    const r = registry(300);
    r.setConfigs([{ name: 'crashy', command: process.execPath, args: [agentScript, '--store', await store(), '--exit-at', 'list'] }]);
    const client = await r.getClient('crashy');
    await assert.rejects(client.listSessions({}));
    await waitFor(() => r.agent('crashy')!.state.kind === 'failed');
    const first = r.agent('crashy')!.state;
    assert.ok(first.kind === 'failed');
    assert.match(first.reason, /exit|code 3/);
    assert.ok(first.restartAt > Date.now() - 50, 'a restart is not allowed at once');
    const started = Date.now();
    const again = await r.getClient('crashy');
    assert.ok(Date.now() - started >= 200, 'the restart waited for the back-off');
    await assert.rejects(again.listSessions({}));
    await waitFor(() => r.agent('crashy')!.state.kind === 'failed');
    const second = r.agent('crashy')!.state;
    assert.ok(second.kind === 'failed');
    assert.ok(second.restartAt - Date.now() > 400, 'the back-off doubled');
  });

  test('restart starts at once, whatever the back-off, and recovers', async () => {
    const r = registry(60_000);
    const dir = await store();
    r.setConfigs([{ name: 'ref', command: process.execPath, args: [agentScript, '--store', dir, '--exit-at', 'archive'] }]);
    const client = await r.getClient('ref');
    await assert.rejects(client.archiveSession('s1'));
    await waitFor(() => r.agent('ref')!.state.kind === 'failed');
    const restarted = await r.restart('ref');
    assert.equal(r.agent('ref')!.state.kind, 'connected');
    assert.deepEqual((await restarted.listSessions({})).sessions.map((s) => s.sessionId), ['s1']);
  });

  test('a -32000 answer marks the agent as needing authentication, with its auth methods', async () => {
    const r = registry();
    r.setConfigs([{ name: 'locked', command: process.execPath, args: [agentScript, '--store', await store(), '--auth-required'] }]);
    const model = new SessionsModel(r);
    cleanup.push(() => model.dispose());
    const list = model.list('locked', 'active', undefined);
    await list.load();
    assert.equal(list.status, 'error');
    const state = r.agent('locked')!.state;
    assert.equal(state.kind, 'needsAuthentication');
    assert.ok(state.kind === 'needsAuthentication' && state.authMethods.length > 0);
  });

  test('reconfiguring an agent stops its process; an unchanged agent keeps its client', async () => {
    const r = registry();
    const dir = await store();
    const keep = { name: 'keep', command: process.execPath, args: [agentScript, '--store', dir] };
    const change = { name: 'change', command: process.execPath, args: [agentScript, '--store', dir] };
    r.setConfigs([keep, change]);
    const keptClient = await r.getClient('keep');
    const oldClient = await r.getClient('change');
    r.setConfigs([keep, { ...change, args: [...change.args, '--page-size', '1'] }]);
    await waitFor(() => !oldClient.isConnected);
    assert.equal(await r.getClient('keep'), keptClient);
    assert.notEqual(await r.getClient('change'), oldClient);
    r.setConfigs([]);
    assert.equal(r.agents.length, 0);
    await waitFor(() => !keptClient.isConnected);
  });

  test('a reconnect makes the model list again: content from a dead client stays on screen until the new process has listed it', async () => {
    const r = registry();
    const dir = await store();
    r.setConfigs([{ name: 'ref', command: process.execPath, args: [agentScript, '--store', dir] }]);
    const model = new SessionsModel(r);
    cleanup.push(() => model.dispose());
    const list = model.list('ref', 'active', undefined);
    await list.load();
    assert.equal(list.status, 'loaded');
    const before = list.loadedFrom;
    await r.restart('ref');
    assert.equal(list.status, 'loaded', 'what the reader had stays on screen');
    await waitFor(() => list.loadedFrom !== before && list.loadedFrom === r.connectedClient('ref'));
    assert.deepEqual(list.sessions.map((s) => s.sessionId), ['s1']);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
