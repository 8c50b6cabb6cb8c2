// Rename through `session/set_title` (sessionCapabilities.title), against the reference agent as
// a real process: the client's call, the sessions model's immediate title change, and the gates.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { tmpdir } from 'node:os';
import { InvalidParamsError, ResourceNotFoundError, UnsupportedCapabilityError } from '../../src/acp/errors';
import { AgentRegistry } from '../../src/sessions/agentRegistry';
import { CapabilityMissingError, SessionsModel } from '../../src/sessions/sessionsModel';
import { storedSession, writeAll } from '../agent/fixtures';
import { readSession } from '../agent/store';
import { AGENT, CLIENT_INFO, CapturingLog, referenceAgent, rejection, startClient, tempDir } from './acp-helpers';

async function store(t: Parameters<typeof tempDir>[0]): Promise<string> {
  const dir = join(tempDir(t), 'store');
  await writeAll(dir, [storedSession('a', { minutesAgo: 1 }), storedSession('b', { minutesAgo: 2 }), storedSession('gone', { deleted: true })]);
  return dir;
}

test('set_title stores the title the agent normalized and answers it; the conversation is untouched', async (t) => {
  const dir = await store(t);
  const { client } = await startClient(t, referenceAgent(dir));
  assert.equal(client.capabilities.title, true);
  assert.equal(await client.setSessionTitle('a', '  Fix the parser  '), 'Fix the parser');
  const record = await readSession(dir, 'a');
  assert.equal(record?.title, 'Fix the parser');
  assert.equal(record?.updates.length, 2);
  assert.equal((await client.listSessions()).sessions.find((s) => s.sessionId === 'a')?.title, 'Fix the parser');
});

test('set_title: -32002 for an unknown session, -32602 for an empty title', async (t) => {
  const { client } = await startClient(t, referenceAgent(await store(t)));
  assert.ok((await rejection(client.setSessionTitle('gone', 'x'))) instanceof ResourceNotFoundError);
  assert.ok((await rejection(client.setSessionTitle('a', '   '))) instanceof InvalidParamsError);
});

test('without sessionCapabilities.title, set_title is refused before anything is sent', async (t) => {
  const dir = await store(t);
  const { client } = await startClient(t, referenceAgent(dir, ['--no-title']));
  assert.equal(client.capabilities.title, false);
  const error = await rejection(client.setSessionTitle('a', 'x'));
  assert.ok(error instanceof UnsupportedCapabilityError);
  assert.match(String(error), /sessionCapabilities\.title/);
  assert.equal((await readSession(dir, 'a'))?.title, 'Session a');
});

test('the sessions model renames at once in every list; -32002 removes the session; no title capability refuses', async (t) => {
  const dir = await store(t);
  const registry = new AgentRegistry({ start: { clientInfo: CLIENT_INFO, log: new CapturingLog(), defaultCwd: tmpdir(), killGraceMs: 500 } });
  registry.setConfigs([{ name: 'ref', command: process.execPath, args: [AGENT, '--store', dir] }, { name: 'plain', command: process.execPath, args: [AGENT, '--store', dir, '--no-title'] }]);
  const model = new SessionsModel(registry, {});
  t.after(async () => {
    model.dispose();
    await registry.dispose();
  });
  const active = model.list('ref', 'active', undefined);
  await active.load();
  const outcome = await model.rename('ref', 'b', 'Renamed b');
  assert.deepEqual([outcome.status, outcome.title], ['done', 'Renamed b']);
  assert.equal(active.sessions.find((s) => s.sessionId === 'b')?.title, 'Renamed b', 'shown before any re-list');
  const gone = await model.rename('ref', 'gone', 'x');
  assert.equal(gone.status, 'gone');
  await assert.rejects(model.rename('plain', 'a', 'x'), CapabilityMissingError);
});
