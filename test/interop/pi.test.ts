// Our ACP client against the real pi-acp (0.0.34, with the pi coding agent 0.73.1 it starts),
// offline, with pi sessions written in a temporary HOME as pi keeps them (test/interop/stores.mjs).
// What works is listing and deleting; a load appends a record to the session's file and never answers offline,
// and the client ends it at the request deadline, cancelled, with the agent still serving lists.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AcpClient } from '../../src/acp/client';
import { RequestTimeoutError } from '../../src/acp/errors';
import { isVerdictOnSession } from '../../src/sessions/health';
import { loadEffect } from '../../src/sessions/loadEffects';
import { agentEntry, ensurePi } from './agents.mjs';
import { writePiSession } from './stores.mjs';
import { RecordingLog, assertNoLiveState, hoursAgo, stopAgent, tempHome } from './support';

const pi = ensurePi();
const ids = {
  health: '01a23aad-0000-7000-8000-000000000001',
  cache: '01a23aad-0000-7000-8000-000000000002',
  other: '01a23aad-0000-7000-8000-000000000003',
};

describe(`pi-acp ${pi.version} (pi ${pi.piVersion}), offline`, () => {
  const { home, project, cleanup } = tempHome();
  const other = join(home, 'work', 'other-project');
  const files: Record<string, string> = {};
  let client: AcpClient;
  const log = new RecordingLog();

  before(async () => {
    files.health = writePiSession(home, { sessionId: ids.health, cwd: project, createdAt: hoursAgo(3), turns: [['Add a health check endpoint', 'Added GET /healthz.'], ['Now a readiness check', 'Added GET /readyz.']] });
    files.cache = writePiSession(home, { sessionId: ids.cache, cwd: project, createdAt: hoursAgo(30), turns: [['Why is the cache cold?', 'The deploy clears it.']] });
    files.other = writePiSession(home, { sessionId: ids.other, cwd: other, createdAt: hoursAgo(5), turns: [['Hello from another folder', 'Hi.']] });
    const config = agentEntry(pi, { name: 'pi', home, env: { PI_ACP_PI_COMMAND: pi.pi } });
    // A request deadline of 5 s: the load below is the request that never answers.
    client = await AcpClient.start(config, { clientInfo: { name: 'acp-sessions-interop', version: '0.0.0' }, log, initializeTimeoutMs: 120_000, requestTimeoutMs: 5_000 });
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('advertises list, load and delete; no archive, rename, close or resume', () => {
    assert.equal(client.agentInfo?.name, 'pi-acp');
    assert.equal(client.agentInfo?.version, pi.version);
    const { loadSession, list, delete: canDelete, archive, title, close, resume } = client.capabilities;
    assert.deepEqual({ loadSession, list, delete: canDelete, archive, title, close, resume }, { loadSession: true, list: true, delete: true, archive: false, title: false, close: false, resume: false });
  });

  test('lists the sessions of a folder, titled by their first prompt', async () => {
    const { sessions, nextCursor } = await client.listSessions({ cwd: project });
    assert.equal(nextCursor, undefined, 'it answers nextCursor: null');
    assert.deepEqual(sessions.map((s) => [s.sessionId, s.cwd, s.title]).sort(), [
      [ids.health, project, 'Add a health check endpoint'],
      [ids.cache, project, 'Why is the cache cold?'],
    ].sort());
    assert.deepEqual((await client.listSessions({ cwd: other })).sessions.map((s) => s.sessionId), [ids.other]);
  });

  test('reports no live state: no session/status, no live list, and no state in its list entries', async () => {
    assertNoLiveState(client, (await client.listSessions({ cwd: project })).sessions);
  });

  test('delete (session/delete) removes the session\'s file, offline, and the list no longer has it; an unknown id is answered as deleted', async () => {
    assert.ok(existsSync(files.cache));
    await client.deleteSession(ids.cache);
    assert.equal(existsSync(files.cache), false, 'its file is gone');
    assert.deepEqual((await client.listSessions({ cwd: project })).sessions.map((s) => s.sessionId), [ids.health]);
    // pi-acp answers {} for an id it does not know: nothing tells a delete from a no-op.
    await client.deleteSession('01a23aad-0000-7000-8000-0000000000ff');
    assert.equal(existsSync(files.health), true, 'the other sessions are untouched');
  });

  test('a load appends a record to the session\'s file and never answers offline: it ends at the request deadline, cancelled, not the session\'s health, and the agent still lists', async () => {
    const size = (f: string) => statSync(f).size;
    const before = { bytes: size(files.health), text: readFileSync(files.health, 'utf8') };
    const started = Date.now();
    const error = await client.loadSession(ids.health, project, () => undefined).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof RequestTimeoutError, String(error));
    assert.equal(error.method, 'session/load');
    assert.ok(Date.now() - started < 60_000, 'ended at the deadline (5 s), not later');
    assert.equal(isVerdictOnSession(error), false);
    assert.ok(log.lines.some((l) => l.level === 'warn' && /No answer to session\/load within 5000 ms; cancelled it/.test(l.message)), log.problems.join('\n'));
    // What the load changed: pi appends a record to the session's file as it opens it (on a loaded
    // machine perhaps after our deadline), then hangs.
    const grown = Date.now() + 60_000;
    while (size(files.health) === before.bytes) {
      if (Date.now() > grown) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = { bytes: size(files.health), text: readFileSync(files.health, 'utf8') };
    assert.ok(after.text.startsWith(before.text), 'only appended to');
    const appended = after.text.slice(before.text.length).trim().split('\n').map((l) => JSON.parse(l) as { type?: string });
    console.log(`pi-acp load offline: no answer in 5 s; ${after.bytes - before.bytes} bytes appended to the session's file: ${appended.map((r) => r.type).join(', ')}`);
    assert.deepEqual(appended.map((r) => r.type), ['thinking_level_change']);
    assert.equal(client.isConnected, true);
    assert.deepEqual((await client.listSessions({ cwd: other })).sessions.map((s) => s.sessionId), [ids.other], 'lists still answer');
    assert.equal(loadEffect(client.agentInfo?.name).kind, 'pi', 'so nothing of it loads in the background');
  });
});
