// Every row stays right (issue 21): the sessions model against the reference agent as a real
// child process, with the ways real agents list that once made rows vanish, double or move: a
// folder spelled differently from VS Code, entries without `archived`, a `cwd` filter ignored
// or matched as a prefix, a crash after Load more; and which failed loads count as the session's
// health.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AcpClient } from '../../src/acp/client';
import type { Logger } from '../../src/acp/types';
import { AgentRegistry } from '../../src/sessions/agentRegistry';
import { normalizeFolder, sameFolder } from '../../src/sessions/folders';
import { isVerdictOnSession } from '../../src/sessions/health';
import { SessionsModel, type SessionList } from '../../src/sessions/sessionsModel';
import { updateSession, writeSession, type StoredSession } from '../agent/store';

const agentScript = fileURLToPath(new URL('../agent/agent.mjs', import.meta.url));
const base = Date.parse('2026-01-10T12:00:00Z');
const quiet: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function record(sessionId: string, cwd: string, hoursAgo: number, extra: Partial<StoredSession> = {}): StoredSession {
  return {
    sessionId,
    cwd,
    title: `Session ${sessionId}`,
    updatedAt: new Date(base - hoursAgo * 3_600_000).toISOString(),
    archived: false,
    deleted: false,
    updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `hello from ${sessionId}` } }],
    ...extra,
  };
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function store(records: StoredSession[]): Promise<string> {
  const dir = tempDir('acp-sessions-rows-');
  for (const r of records) await writeSession(dir, r);
  return dir;
}

function setup(storeDir: string, flags: string[] = [], { pageSize = 50, warnings = [] as string[] } = {}) {
  const registry = new AgentRegistry({
    start: { clientInfo: { name: 'acp-sessions-tests', version: '0' }, log: quiet, defaultCwd: tmpdir(), killGraceMs: 500 },
    backoffMs: 50,
  });
  registry.setConfigs([{ name: 'ref', command: process.execPath, args: [agentScript, '--store', storeDir, ...flags] }]);
  const model = new SessionsModel(registry, { pageSize, log: { warn: (m) => warnings.push(m) } });
  cleanup.push(async () => {
    model.dispose();
    await registry.dispose();
  });
  return { registry, model };
}

const ids = (list: SessionList) => list.sessions.map((s) => s.sessionId);

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('folders: one spelling', () => {
  test('a Windows drive letter in either case and trailing separators name the same folder', () => {
    assert.equal(normalizeFolder('C:\\proj\\'), 'c:\\proj');
    assert.equal(normalizeFolder('c:/proj'), 'c:\\proj');
    assert.equal(normalizeFolder('C:\\'), 'c:\\');
    assert.equal(normalizeFolder('/home/me/proj//'), '/home/me/proj');
    assert.equal(normalizeFolder('/'), '/');
    assert.ok(sameFolder('c:\\proj', 'C:\\proj\\'));
    assert.ok(!sameFolder('/home/me/proj', '/home/me/proj2'));
    assert.ok(!sameFolder('/home/me/proj', '/home/me/PROJ'), 'POSIX folders differ by case');
  });

  test('a symbolic link and the folder it points to are the same folder', () => {
    const dir = tempDir('acp-sessions-link-');
    const real = join(dir, 'real');
    mkdirSync(real);
    symlinkSync(real, join(dir, 'link'));
    assert.ok(sameFolder(join(dir, 'link'), real));
    assert.ok(!sameFolder(join(dir, 'link'), dir));
  });
});

describe('sessions model: a row stays where it is when the agent spells its folder differently', () => {
  const folder = 'C:\\work\\proj';
  test('rename keeps a session whose folder the agent spells with another drive letter case and a trailing separator', async () => {
    const { model } = setup(await store([record('w1', 'c:\\work\\proj\\', 1), record('w2', 'C:\\work\\proj', 2)]), ['--cwd-match', 'loose']);
    const active = model.list('ref', 'active', folder);
    await active.load();
    assert.deepEqual(ids(active), ['w1', 'w2'], 'listed under the folder as VS Code spells it');
    const outcome = await model.rename('ref', 'w1', 'Renamed');
    assert.equal(outcome.status, 'done');
    assert.deepEqual(ids(active), ['w1', 'w2'], 'the renamed row is still there, in its place');
    assert.equal(active.sessions[0].title, 'Renamed');
  });

  test('a live session_info_update keeps it too (archive then unarchive moves it, never drops it)', async () => {
    const { model } = setup(await store([record('w1', 'c:\\work\\proj\\', 1)]), ['--cwd-match', 'loose']);
    const active = model.list('ref', 'active', folder);
    const archived = model.list('ref', 'archived', folder);
    await Promise.all([active.load(), archived.load()]);
    await model.archive('ref', ['w1']);
    assert.deepEqual([ids(active), ids(archived)], [[], ['w1']]);
    await model.unarchive('ref', ['w1']);
    assert.deepEqual([ids(active), ids(archived)], [['w1'], []]);
  });

  test('a session listed through a symbolic link to the workspace folder stays on rename', async () => {
    const dir = tempDir('acp-sessions-link-');
    const real = join(dir, 'real');
    mkdirSync(real);
    const link = join(dir, 'link');
    symlinkSync(real, link);
    const { model } = setup(await store([record('l1', real, 1)]), ['--cwd-match', 'ignore']);
    const active = model.list('ref', 'active', link);
    await active.load();
    assert.deepEqual(ids(active), ['l1']);
    await model.rename('ref', 'l1', 'Through the link');
    assert.deepEqual(ids(active), ['l1']);
  });
});

describe('sessions model: the section of an entry without `archived`', () => {
  test('rename leaves an archived session in Archived when the agent leaves `archived` out of its entries', async () => {
    const { model } = setup(await store([record('a1', '/p', 1), record('z1', '/p', 2, { archived: true })]), ['--omit-archived-flag']);
    const active = model.list('ref', 'active', '/p');
    const archived = model.list('ref', 'archived', '/p');
    await Promise.all([active.load(), archived.load()]);
    assert.deepEqual([ids(active), ids(archived)], [['a1'], ['z1']]);
    assert.equal(archived.sessions[0].archived, true, 'the flag is taken from the list\'s filter');
    const outcome = await model.rename('ref', 'z1', 'Still archived');
    assert.equal(outcome.status, 'done');
    assert.deepEqual([ids(active), ids(archived)], [['a1'], ['z1']]);
  });
});

describe('sessions model: one row per session when the agent ignores `cwd`', () => {
  for (const mode of ['ignore', 'prefix'] as const) {
    test(`--cwd-match ${mode}: each folder's list holds its own sessions only, and the log says so once`, async () => {
      const warnings: string[] = [];
      const { model } = setup(await store([record('a1', '/w/app', 1), record('a2', '/w/app-old', 2), record('b1', '/w/lib', 3)]), ['--cwd-match', mode], { warnings });
      const app = model.list('ref', 'active', '/w/app');
      const lib = model.list('ref', 'active', '/w/lib');
      await Promise.all([app.load(), lib.load()]);
      assert.deepEqual(ids(app), ['a1']);
      assert.deepEqual(ids(lib), ['b1']);
      assert.equal(warnings.filter((w) => /sessions of other folders/.test(w)).length, mode === 'ignore' ? 2 : 1);
    });
  }
});

describe('sessions model: a crash keeps what the reader had', () => {
  test('after a crash and restart, every list keeps its Load more pages and its order, and is listed again in the background', async () => {
    const dir = await store(['s1', 's2', 's3', 's4', 's5'].map((id, i) => record(id, '/p', i + 1)));
    const { registry, model } = setup(dir, ['--page-size', '2', '--exit-at', 'archive'], { pageSize: 2 });
    const active = model.list('ref', 'active', '/p');
    await active.load();
    await active.loadMore();
    assert.deepEqual(ids(active), ['s1', 's2', 's3', 's4']);
    // s3 becomes the newest on the agent's side while the reader looks at the list.
    await updateSession(dir, 's3', (r) => ({ ...r, title: 'Changed while away', updatedAt: new Date(base).toISOString() }));
    const crashed = model.archive('ref', ['s1']);
    const [outcome] = await crashed;
    assert.equal(outcome.status, 'failed', 'the agent exited on the archive');
    await until('the agent is down', () => registry.agent('ref')?.state.kind === 'failed');
    assert.deepEqual(ids(active), ['s1', 's2', 's3', 's4'], 'kept while the agent is down');
    await registry.restart('ref');
    await until('the list is listed again from the new process', () => active.loadedFrom === registry.connectedClient('ref'));
    await model.lastRevalidation;
    assert.deepEqual(ids(active), ['s1', 's2', 's3', 's4'], 'as deep as before, in the order the reader saw');
    assert.equal(active.sessions[2].title, 'Changed while away', 'with what the agent says now');
  });
});

describe('session health: only the agent\'s word about a session', () => {
  async function loadError(flags: string[], timeoutMs = 30_000): Promise<unknown> {
    const dir = await store([record('h1', '/p', 1)]);
    const client = await AcpClient.start(
      { name: 'ref', command: process.execPath, args: [agentScript, '--store', dir, ...flags] },
      { clientInfo: { name: 'acp-sessions-tests', version: '0' }, log: quiet, defaultCwd: tmpdir(), requestTimeoutMs: timeoutMs, initializeTimeoutMs: 30_000, killGraceMs: 500 },
    );
    cleanup.push(() => client.dispose());
    return client.loadSession('h1', '/p', () => undefined).then(() => undefined, (error: unknown) => error);
  }

  test('-32002 (the agent does not know the session) and a refusal (-32602) are remembered', async () => {
    assert.ok(isVerdictOnSession(await loadError(['--fail', 'session/load=-32002'])));
    assert.ok(isVerdictOnSession(await loadError(['--fail', 'session/load=-32602'])));
  });

  test('a time-out, the agent\'s internal error (-32603), a sign-in or a crash are not', async () => {
    assert.ok(!isVerdictOnSession(await loadError(['--fail', 'session/load=-32603'])));
    assert.ok(!isVerdictOnSession(await loadError(['--fail', 'session/load=-32000'])));
    const timeout = await loadError(['--hang', 'session/load'], 300);
    assert.match(String(timeout), /time|deadline/i);
    assert.ok(!isVerdictOnSession(timeout));
    const crash = await loadError(['--exit-at', 'load-mid']);
    assert.ok(crash instanceof Error);
    assert.ok(!isVerdictOnSession(crash));
  });
});
