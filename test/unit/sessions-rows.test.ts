// Every row stays right (issue 21): the sessions model against the reference agent as a real
// child process, with the ways real agents list that once made rows vanish, double or move: a
// folder spelled differently from VS Code, entries without `archived`, a `cwd` filter ignored
// or matched as a prefix, a crash after Load more; and which failed loads count as the session's
// health.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AcpClient } from '../../src/acp/client';
import { normalizeFolder, sameFolder } from '../../src/sessions/folders';
import { isVerdictOnSession } from '../../src/sessions/health';
import type { SessionsModel } from '../../src/sessions/sessionsModel';
import { markSessionDeleted, updateSession, writeSession } from '../agent/store';
import { agentScript, base, cleanUpAfterEach, ids, onCleanUp, quiet, record, setupModel, store, tempDir, until } from './sessionsFixture';

cleanUpAfterEach();

const setup = setupModel;

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
      // Starting is not what times out here (a loaded machine starts Node slowly): the load is.
      { clientInfo: { name: 'acp-sessions-tests', version: '0' }, log: quiet, defaultCwd: tmpdir(), initializeTimeoutMs: 30_000, requestTimeoutMs: timeoutMs, killGraceMs: 500 },
    );
    onCleanUp(() => client.dispose());
    return client.loadSession('h1', '/p', () => undefined).then(() => undefined, (error: unknown) => error);
  }

  test('-32002 (the agent does not know the session) and a refusal (-32600) are remembered', async () => {
    assert.ok(isVerdictOnSession(await loadError(['--fail', 'session/load=-32002'])));
    assert.ok(isVerdictOnSession(await loadError(['--fail', 'session/load=-32600'])));
  });

  test('a time-out, the agent\'s internal error (-32603), invalid params (-32602: OpenCode without mcpServers, Auggie for an id it cannot find), a sign-in or a crash are not', async () => {
    assert.ok(!isVerdictOnSession(await loadError(['--fail', 'session/load=-32603'])));
    assert.ok(!isVerdictOnSession(await loadError(['--fail', 'session/load=-32602'])));
    assert.ok(!isVerdictOnSession(await loadError(['--fail', 'session/load=-32000'])));
    const timeout = await loadError(['--hang', 'session/load'], 300);
    assert.match(String(timeout), /time|deadline/i);
    assert.ok(!isVerdictOnSession(timeout));
    const crash = await loadError(['--exit-at', 'load-mid']);
    assert.ok(crash instanceof Error);
    assert.ok(!isVerdictOnSession(crash));
  });
});

describe('sessions model: a live list (the agent serves list subscriptions)', () => {
  /** Resolves with the next live change the model applied that `matches`. */
  function nextLiveChange(model: SessionsModel, what: string, matches: (c: { sessions: string[]; removed: string[] }) => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        subscription.dispose();
        reject(new Error(`timed out waiting for a live change: ${what}`));
      }, 10_000);
      const subscription = model.onDidLiveChange((change) => {
        if (!matches(change)) return;
        clearTimeout(timer);
        subscription.dispose();
        resolve();
      });
    });
  }

  test('what another process creates, retitles, archives and deletes shows in the lists with no re-list, and every row keeps its place', async () => {
    const dir = await store([record('s1', '/p', 1), record('s2', '/p', 2), record('z1', '/p', 3, { archived: true })]);
    const { model } = setup(dir, ['--air-index']);
    const active = model.list('ref', 'active', '/p');
    const archived = model.list('ref', 'archived', '/p');
    await Promise.all([active.load(), archived.load()]);
    await model.lastLiveSubscription;
    assert.deepEqual(model.liveFolders('ref'), ['/p']);
    const requests = active.listRequests + archived.listRequests;

    let change = nextLiveChange(model, 'n1 created', (c) => c.sessions.includes('n1'));
    await writeSession(dir, record('n1', '/p', 0.5, { title: 'Made in a terminal' }));
    await change;
    assert.deepEqual(ids(active), ['n1', 's1', 's2']);
    assert.equal(active.sessions[0].title, 'Made in a terminal');

    change = nextLiveChange(model, 's2 retitled', (c) => c.sessions.includes('s2'));
    await updateSession(dir, 's2', (r) => ({ ...r, title: 'Retitled elsewhere' }));
    await change;
    assert.deepEqual(ids(active), ['n1', 's1', 's2'], 'in place');
    assert.equal(active.sessions[2].title, 'Retitled elsewhere');

    change = nextLiveChange(model, 's1 archived', (c) => c.sessions.includes('s1'));
    await updateSession(dir, 's1', (r) => ({ ...r, archived: true }));
    await change;
    assert.deepEqual([ids(active), ids(archived)], [['n1', 's2'], ['s1', 'z1']]);

    change = nextLiveChange(model, 'n1 deleted', (c) => c.removed.includes('n1') || c.sessions.includes('n1'));
    await markSessionDeleted(dir, 'n1');
    await change;
    assert.deepEqual(ids(active), ['s2']);
    assert.equal(active.listRequests + archived.listRequests, requests, 'nothing was listed again');
  });

  test('a change of scope ends the folder\'s subscription; a restart of the agent subscribes again', async () => {
    const dir = await store([record('s1', '/p', 1), record('q1', '/q', 1)]);
    const { registry, model } = setup(dir, ['--air-index']);
    model.setScope({ kind: 'folders', folders: ['/p', '/q'] });
    await Promise.all([model.list('ref', 'active', '/p').load(), model.list('ref', 'active', '/q').load()]);
    await model.lastLiveSubscription;
    assert.deepEqual(model.liveFolders('ref').sort(), ['/p', '/q']);
    model.setScope({ kind: 'folders', folders: ['/p'] });
    assert.deepEqual(model.liveFolders('ref'), ['/p']);

    await registry.restart('ref');
    await until('the list is listed again from the new process', () => model.list('ref', 'active', '/p').loadedFrom === registry.connectedClient('ref'));
    await model.lastLiveSubscription;
    assert.deepEqual(model.liveFolders('ref'), ['/p']);
    const change = nextLiveChange(model, 'n2 created after the restart', (c) => c.sessions.includes('n2'));
    await writeSession(dir, record('n2', '/p', 0.2));
    await change;
    assert.deepEqual(ids(model.list('ref', 'active', '/p')), ['n2', 's1']);
  });

  test('without list subscriptions nothing is subscribed (Refresh shows changes)', async () => {
    const { model } = setup(await store([record('s1', '/p', 1)]), ['--archive-extension']);
    await model.list('ref', 'active', '/p').load();
    await model.lastLiveSubscription;
    assert.deepEqual(model.liveFolders('ref'), []);
  });
});
