// The reference agent's chaos mode (test/agent/chaos.ts) as a real process: the same seed gives
// the same faults, a restart draws anew, and the crash, hang and error-storm faults do what
// they say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSession } from '../agent/store';
import { storedSession, tempStore, writeAll } from '../agent/fixtures';
import { RawAgent } from '../agent/rawClient';

type T = Parameters<typeof tempStore>[0];

interface LogEntry {
  pid: number;
  process: number;
  event?: string;
  child?: number;
  kind?: string;
  method?: string;
  storm?: boolean;
}

function readLog(file: string): LogEntry[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogEntry);
}

/** Starts and initializes a chaos agent; afterwards it and the child it started are gone, whatever the test did. */
async function chaosAgent(t: T, store: string, log: string, flags: string[]): Promise<RawAgent> {
  const agent = RawAgent.start(['--store', store, '--chaos-log', log, ...flags]);
  t.after(() => agent.close());
  await agent.initialize();
  // The start record is written before stdin is read, so it is there once initialize is answered.
  const child = readLog(log).find((e) => e.event === 'start' && e.pid === agent.pid)?.child;
  assert.ok(child, 'the chaos agent logged the child it started');
  t.after(() => {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });
  return agent;
}

async function store(t: T): Promise<string> {
  const dir = await tempStore(t);
  await writeAll(dir, Array.from({ length: 7 }, (_, i) => storedSession(`s${i}`, { minutesAgo: i })));
  return dir;
}

/** Twenty `session/list` requests, one after the other; what came back, as kinds of lines. */
async function listRun(t: T, seed: number, faults: string): Promise<{ faults: string[]; stdout: string[] }> {
  const dir = await store(t);
  const log = join(dir, 'chaos.jsonl');
  const agent = await chaosAgent(t, dir, log, ['--page-size', '2', '--chaos-seed', String(seed), '--chaos-rate', '0.6', '--chaos-faults', faults]);
  for (let i = 0; i < 20; i++) await agent.request('session/list', { archived: i % 2 ? 'only' : 'exclude' });
  await agent.close();
  return {
    faults: readLog(log).filter((e) => !e.event).map((e) => `${e.kind}${e.storm ? ' (storm)' : ''}`),
    stdout: agent.stdout.map((e) => (e.kind === 'response' ? `response ${e.message.id} ${e.message.error?.code ?? 'ok'}` : e.kind)),
  };
}

test('chaos: the same seed injects the same faults and writes the same lines; another seed does not', async (t) => {
  const kinds = 'delay,error-32002,error-32603,duplicate,unknown-id,malformed,out-of-order';
  const first = await listRun(t, 7, kinds);
  const again = await listRun(t, 7, kinds);
  const other = await listRun(t, 8, kinds);
  assert.ok(first.faults.length >= 5, `rate 0.6 injects faults (${first.faults.join(', ')})`);
  assert.deepEqual(again.faults, first.faults);
  // Out-of-order may only move a response behind the next line; the multiset of lines is fixed.
  assert.deepEqual([...again.stdout].sort(), [...first.stdout].sort());
  assert.notDeepEqual(other.faults, first.faults);
});

test('chaos: an error storm answers the next requests with the same code', async (t) => {
  const dir = await store(t);
  const log = join(dir, 'chaos.jsonl');
  const agent = await chaosAgent(t, dir, log, ['--chaos-seed', '3', '--chaos-rate', '1', '--chaos-faults', 'error-32603']);
  const codes: (number | undefined)[] = [];
  for (let i = 0; i < 6; i++) codes.push((await agent.request('session/list', {})).error?.code);
  assert.deepEqual(codes, Array(6).fill(-32603));
  assert.ok(readLog(log).some((e) => e.storm), 'some of them were a storm that started earlier');
});

test('chaos: crash-archive changes the store, then exits without answering; the next start draws anew', async (t) => {
  const dir = await store(t);
  const log = join(dir, 'chaos.jsonl');
  const agent = await chaosAgent(t, dir, log, ['--chaos-seed', '1', '--chaos-rate', '1', '--chaos-faults', 'crash-archive']);
  const archive = agent.request('session/archive', { sessionId: 's1' });
  assert.equal((await agent.exited).code, 3);
  assert.equal((await archive).error?.message, 'agent exited', 'no answer came');
  assert.equal((await readSession(dir, 's1'))?.archived, true, 'the store changed before the crash');
  const [start] = readLog(log).filter((e) => e.event === 'start');
  assert.equal(start.process, 0);
  assert.ok(start.child && start.child > 0, 'the agent started a child of its own');

  const second = await chaosAgent(t, dir, log, ['--chaos-seed', '1', '--chaos-rate', '0', '--chaos-faults', 'crash-archive']);
  assert.equal(readLog(log).filter((e) => e.event === 'start')[1].process, 1, 'the second start counts the first');
});

test('chaos: hang-list leaves that request unanswered while the agent answers later ones', async (t) => {
  const dir = await store(t);
  const log = join(dir, 'chaos.jsonl');
  const agent = await chaosAgent(t, dir, log, ['--chaos-seed', '1', '--chaos-rate', '1', '--chaos-faults', 'hang-list']);
  const list = agent.request('session/list', {});
  // Archive has no hang-list fault: its answer proves the agent still serves.
  const archive = await agent.request('session/archive', { sessionId: 's2' });
  assert.deepEqual(archive.result, {});
  assert.equal(agent.stdout.filter((e) => e.kind === 'response' && e.message.id === list.id).length, 0, 'the list is never answered');
  assert.deepEqual(readLog(log).filter((e) => !e.event).map((e) => e.kind), ['hang-list']);
});

test('chaos: crash-stream ends the process in the middle of a session/update line', async (t) => {
  const dir = await store(t);
  const updates = Array.from({ length: 40 }, (_, i) => ({ sessionUpdate: 'agent_message_chunk' as const, content: { type: 'text' as const, text: `chunk ${i}` } }));
  await writeAll(dir, [storedSession('long', { updates })]);
  const log = join(dir, 'chaos.jsonl');
  const agent = await chaosAgent(t, dir, log, ['--chaos-seed', '2', '--chaos-rate', '1', '--chaos-faults', 'crash-stream']);
  const load = agent.request('session/load', { sessionId: 'long', cwd: '/work/project-a', mcpServers: [] });
  assert.equal((await agent.exited).code, 3);
  assert.equal((await load).error?.message, 'agent exited');
  assert.ok(agent.updates('long').length < 40, 'the replay stopped early');
  assert.match(agent.stderr, /chaos: crashing in the middle of a session\/update line/);
});

test('chaos flags need --chaos-seed, and unknown fault kinds are refused', async (t) => {
  const dir = await store(t);
  for (const flags of [['--chaos-rate', '0.5'], ['--chaos-seed', '1', '--chaos-faults', 'meteor']]) {
    const agent = RawAgent.start(['--store', dir, ...flags]);
    t.after(() => agent.close());
    assert.equal((await agent.exited).code, 2);
    assert.match(agent.stderr, flags[0] === '--chaos-rate' ? /--chaos-rate needs --chaos-seed/ : /unknown fault "meteor"/);
  }
});
