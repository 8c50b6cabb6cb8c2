// The sessions model against the reference agent as a real child process over real pipes:
// the Active and Archived lists per filter and folder, paging along a cursor chain, moves
// between the sections, -32002, failures, and live `session_info_update`s.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Logger, SessionUpdate } from '../../src/acp/types';
import { AgentRegistry } from '../../src/sessions/agentRegistry';
import { SessionsModel, type SessionList } from '../../src/sessions/sessionsModel';
import { readSession, writeSession } from '../agent/store';
import { agentScript, cleanUpAfterEach, onCleanUp, quiet, record } from './sessionsFixture';

const ALPHA = '/projects/alpha';
const BETA = '/projects/beta';
cleanUpAfterEach();
const cleanup = { push: onCleanUp };

/** alpha: a1..a5 active, a6 a7 archived, a8 deleted; beta: b1 b2 active, b3 archived. */
async function seededStore(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'acp-sessions-model-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const records = [
    record('a1', ALPHA, 1),
    record('a2', ALPHA, 2),
    record('a3', ALPHA, 3, { title: undefined }),
    record('a4', ALPHA, 4),
    record('a5', ALPHA, 5),
    record('a6', ALPHA, 6, { archived: true }),
    record('a7', ALPHA, 7, { archived: true }),
    record('a8', ALPHA, 8, { deleted: true }),
    record('b1', BETA, 1.5),
    record('b2', BETA, 2.5),
    record('b3', BETA, 3.5, { archived: true }),
  ];
  for (const r of records) await writeSession(dir, r);
  return dir;
}

function setup(store: string, flags: string[] = [], pageSize = 50) {
  const registry = new AgentRegistry({
    start: { clientInfo: { name: 'acp-sessions-tests', version: '0' }, log: quiet, defaultCwd: tmpdir(), killGraceMs: 500 },
    backoffMs: 50,
  });
  registry.setConfigs([{ name: 'ref', command: process.execPath, args: [agentScript, '--store', store, ...flags] }]);
  const model = new SessionsModel(registry, { pageSize });
  cleanup.push(async () => {
    model.dispose();
    await registry.dispose();
  });
  return { registry, model };
}

const ids = (list: SessionList) => list.sessions.map((s) => s.sessionId);

/** Waits for a condition that an agent notification makes true (bounded: a hang guard, not a speed limit). */
async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('sessions model: the two sections', () => {
  test('Active lists the unarchived sessions of the folder, newest first', async () => {
    const { model } = setup(await seededStore());
    const active = model.list('ref', 'active', ALPHA);
    await active.load();
    assert.equal(active.status, 'loaded');
    assert.deepEqual(ids(active), ['a1', 'a2', 'a3', 'a4', 'a5']);
    assert.ok(active.sessions.every((s) => s.archived === false));
  });

  test('Archived lists only the archived sessions of the folder', async () => {
    const { model } = setup(await seededStore());
    const archived = model.list('ref', 'archived', ALPHA);
    await archived.load();
    assert.deepEqual(ids(archived), ['a6', 'a7']);
    assert.ok(archived.sessions.every((s) => s.archived === true));
  });

  test('a deleted session is in neither section', async () => {
    const { model } = setup(await seededStore());
    const active = model.list('ref', 'active', undefined);
    const archived = model.list('ref', 'archived', undefined);
    await Promise.all([active.load(), archived.load()]);
    assert.ok(![...ids(active), ...ids(archived)].includes('a8'));
  });

  test('the "all folders" scope lists every folder without a cwd filter', async () => {
    const { model } = setup(await seededStore());
    const active = model.list('ref', 'active', undefined);
    await active.load();
    assert.deepEqual(ids(active), ['a1', 'b1', 'a2', 'b2', 'a3', 'a4', 'a5']);
  });

  test('an agent with archive has both sections; without it only Active', async () => {
    const store = await seededStore();
    const withArchive = setup(store);
    await withArchive.registry.getClient('ref');
    assert.deepEqual(withArchive.model.sections('ref'), ['active', 'archived']);
    const without = setup(store, ['--no-archive']);
    await without.registry.getClient('ref');
    assert.deepEqual(without.model.sections('ref'), ['active']);
  });

  test('without archive, Active sends no archived filter (the agent would reject one) and lists every undeleted session', async () => {
    const { model } = setup(await seededStore(), ['--no-archive']);
    const active = model.list('ref', 'active', ALPHA);
    await active.load();
    assert.equal(active.status, 'loaded', String(active.error));
    assert.deepEqual(ids(active), ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']);
  });

  test('without archive, the Archived list refuses to load and sends nothing', async () => {
    const { model } = setup(await seededStore(), ['--no-archive']);
    const archived = model.list('ref', 'archived', ALPHA);
    await archived.load();
    assert.equal(archived.status, 'error');
    assert.match(String(archived.error), /sessionCapabilities\.archive/);
  });

  test('an agent without list gets no list request and a clear reason', async () => {
    const { model } = setup(await seededStore(), ['--no-list']);
    const active = model.list('ref', 'active', ALPHA);
    await active.load();
    assert.equal(active.status, 'error');
    assert.match(String(active.error), /sessionCapabilities\.list/);
  });
});

describe('sessions model: paging', () => {
  test('paging with pages of 2 follows nextCursor to the end, each session once, in order', async () => {
    const { model } = setup(await seededStore(), ['--page-size', '2'], 2);
    const active = model.list('ref', 'active', undefined);
    await active.load();
    assert.deepEqual(ids(active), ['a1', 'b1']);
    assert.equal(active.hasMore, true);
    let pages = 1;
    while (active.hasMore) {
      await active.loadMore();
      pages++;
      assert.ok(pages < 10, 'paging ends');
    }
    assert.equal(pages, 4);
    assert.deepEqual(ids(active), ['a1', 'b1', 'a2', 'b2', 'a3', 'a4', 'a5']);
  });

  test('the cwd and archived filter stay the same along a cursor chain (the agent rejects a changed one)', async () => {
    const { model } = setup(await seededStore(), ['--page-size', '1'], 1);
    const archived = model.list('ref', 'archived', ALPHA);
    await archived.load();
    await archived.loadMore();
    assert.equal(archived.error, undefined, String(archived.error));
    assert.deepEqual(ids(archived), ['a6', 'a7']);
    assert.equal(archived.hasMore, false);
  });

  test('a first load fetches pages until the page size of the view is reached', async () => {
    const { model } = setup(await seededStore(), ['--page-size', '2'], 5);
    const active = model.list('ref', 'active', ALPHA);
    await active.load();
    assert.deepEqual(ids(active), ['a1', 'a2', 'a3', 'a4', 'a5']);
    assert.equal(active.hasMore, false);
  });

  test('a refresh lists again as deep as was loaded', async () => {
    const store = await seededStore();
    const { model } = setup(store, ['--page-size', '2'], 2);
    const active = model.list('ref', 'active', ALPHA);
    await active.load();
    await active.loadMore();
    await writeSession(store, record('a0', ALPHA, 0.5));
    await model.refresh();
    assert.deepEqual(ids(active), ['a0', 'a1', 'a2', 'a3']);
  });
});

describe('sessions model: archive, unarchive, delete', () => {
  test('archiving moves the session from Active to Archived at once and the agent stores it archived', async () => {
    const store = await seededStore();
    const { model } = setup(store);
    const active = model.list('ref', 'active', ALPHA);
    const archived = model.list('ref', 'archived', ALPHA);
    await Promise.all([active.load(), archived.load()]);
    const outcomes = await model.archive('ref', ['a2']);
    assert.deepEqual(outcomes.map((o) => o.status), ['done']);
    assert.deepEqual(ids(active), ['a1', 'a3', 'a4', 'a5']);
    assert.deepEqual(ids(archived), ['a2', 'a6', 'a7']);
    assert.equal(archived.sessions[0].archived, true);
    assert.equal((await readSession(store, 'a2'))?.archived, true);
    await model.lastRevalidation;
    assert.deepEqual(ids(archived), ['a2', 'a6', 'a7'], 'the agent lists the same after the move');
  });

  test('unarchiving moves the session back to Active', async () => {
    const store = await seededStore();
    const { model } = setup(store);
    const active = model.list('ref', 'active', ALPHA);
    const archived = model.list('ref', 'archived', ALPHA);
    await Promise.all([active.load(), archived.load()]);
    await model.unarchive('ref', ['a7']);
    assert.deepEqual(ids(active), ['a1', 'a2', 'a3', 'a4', 'a5', 'a7']);
    assert.deepEqual(ids(archived), ['a6']);
    assert.equal((await readSession(store, 'a7'))?.archived, false);
  });

  test('archiving several sessions moves each one', async () => {
    const store = await seededStore();
    const { model } = setup(store);
    const active = model.list('ref', 'active', ALPHA);
    await active.load();
    const outcomes = await model.archive('ref', ['a1', 'a3']);
    assert.deepEqual(outcomes.map((o) => [o.sessionId, o.status]), [['a1', 'done'], ['a3', 'done']]);
    assert.deepEqual(ids(active), ['a2', 'a4', 'a5']);
  });

  test('a moved session older than the loaded page of a list with more pages is left to its page (no duplicate)', async () => {
    const store = await seededStore();
    const { model } = setup(store, ['--page-size', '1'], 1);
    const active = model.list('ref', 'active', ALPHA);
    await active.load();
    assert.deepEqual(ids(active), ['a1']);
    await model.unarchive('ref', ['a6']);
    await model.lastRevalidation;
    while (active.hasMore) await active.loadMore();
    assert.deepEqual(ids(active), ['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
  });

  test('deleting removes the session from both sections and the agent marks it deleted', async () => {
    const store = await seededStore();
    const { model } = setup(store);
    const active = model.list('ref', 'active', ALPHA);
    const archived = model.list('ref', 'archived', ALPHA);
    await Promise.all([active.load(), archived.load()]);
    await model.delete('ref', ['a1', 'a6']);
    assert.deepEqual(ids(active), ['a2', 'a3', 'a4', 'a5']);
    assert.deepEqual(ids(archived), ['a7']);
    assert.equal((await readSession(store, 'a1'))?.deleted, true);
    assert.equal((await readSession(store, 'a6'))?.deleted, true);
  });

  test('-32002 on archive: the session is reported gone and removed from the lists', async () => {
    const store = await seededStore();
    const { model } = setup(store);
    const active = model.list('ref', 'active', ALPHA);
    await active.load();
    // Deleted behind our back (another client, another process).
    await writeSession(store, record('a4', ALPHA, 4, { deleted: true }));
    const [outcome] = await model.archive('ref', ['a4']);
    assert.equal(outcome.status, 'gone');
    assert.equal((outcome.error as { code?: number }).code, -32002);
    assert.ok(!ids(active).includes('a4'));
  });

  test('-32002 on unarchive: the session is reported gone and removed from the lists', async () => {
    const store = await seededStore();
    const { model } = setup(store);
    const archived = model.list('ref', 'archived', ALPHA);
    await archived.load();
    await writeSession(store, record('a6', ALPHA, 6, { archived: true, deleted: true }));
    const [outcome] = await model.unarchive('ref', ['a6']);
    assert.equal(outcome.status, 'gone');
    assert.deepEqual(ids(archived), ['a7']);
  });

  test('another failure keeps the lists as they were and carries the agent\'s message', async () => {
    const store = await seededStore();
    const { model } = setup(store, ['--fail', 'session/archive=-32603']);
    const active = model.list('ref', 'active', ALPHA);
    const archived = model.list('ref', 'archived', ALPHA);
    await Promise.all([active.load(), archived.load()]);
    const [outcome] = await model.archive('ref', ['a1']);
    assert.equal(outcome.status, 'failed');
    assert.match(String(outcome.error), /reference agent: session\/archive failed on purpose/);
    assert.deepEqual(ids(active), ['a1', 'a2', 'a3', 'a4', 'a5']);
    assert.deepEqual(ids(archived), ['a6', 'a7']);
    assert.equal((await readSession(store, 'a1'))?.archived, false);
  });

  test('without archive, archive is refused before anything is sent', async () => {
    const store = await seededStore();
    const { model } = setup(store, ['--no-archive']);
    await assert.rejects(model.archive('ref', ['a1']), /sessionCapabilities\.archive/);
    assert.equal((await readSession(store, 'a1'))?.archived, false);
  });

  test('without delete, delete is refused before anything is sent', async () => {
    const store = await seededStore();
    const { model } = setup(store, ['--no-delete']);
    await assert.rejects(model.delete('ref', ['a1']), /sessionCapabilities\.delete/);
    assert.equal((await readSession(store, 'a1'))?.deleted, false);
  });
});

describe('sessions model: session_info_update', () => {
  test('an archived: true update from the agent moves the session to Archived without listing again', async () => {
    const store = await seededStore();
    const { model, registry } = setup(store);
    const active = model.list('ref', 'active', ALPHA);
    const archived = model.list('ref', 'archived', ALPHA);
    await Promise.all([active.load(), archived.load()]);
    const client = await registry.getClient('ref');
    // With the session open on this connection, the agent reports the archive to us (archive RFD).
    await client.loadSession('a3', ALPHA, () => undefined);
    const listsBefore = [active, archived].map((l) => l.sessions);
    const requests = () => [active.listRequests, archived.listRequests];
    const before = requests();
    const received: SessionUpdate[] = [];
    const subscription = client.onSessionUpdate('a3', (u) => received.push(u));
    cleanup.push(() => subscription.dispose());
    await client.archiveSession('a3'); // not through the model: only the notification can tell it
    await until('a3 is in Archived', () => ids(archived).includes('a3'));
    assert.ok(received.some((u) => u.sessionUpdate === 'session_info_update'));
    assert.ok(!ids(active).includes('a3'));
    assert.deepEqual(requests(), before, 'no session/list was needed');
    assert.notDeepEqual(listsBefore, [active.sessions, archived.sessions]);
  });
});

describe('sessions model: archive by the JetBrains AIR extension (the agent lacks the standard)', () => {
  const EXTENSION = ['--archive-extension'];

  test('the agent has both sections, and each lists what the extension filter gives', async () => {
    const { model, registry } = setup(await seededStore(), EXTENSION);
    await registry.getClient('ref');
    assert.deepEqual(model.sections('ref'), ['active', 'archived']);
    const active = model.list('ref', 'active', ALPHA);
    const archived = model.list('ref', 'archived', ALPHA);
    await Promise.all([active.load(), archived.load()]);
    assert.deepEqual(ids(active), ['a1', 'a2', 'a3', 'a4', 'a5']);
    assert.deepEqual(ids(archived), ['a6', 'a7']);
    assert.ok(active.sessions.every((s) => s.archived === false));
    assert.ok(archived.sessions.every((s) => s.archived === true));
  });

  test('archive and unarchive move sessions at once, the agent stores them, and a refresh agrees', async () => {
    const store = await seededStore();
    const { model } = setup(store, EXTENSION);
    const active = model.list('ref', 'active', ALPHA);
    const archived = model.list('ref', 'archived', ALPHA);
    await Promise.all([active.load(), archived.load()]);
    assert.deepEqual((await model.archive('ref', ['a2', 'a3'])).map((o) => o.status), ['done', 'done']);
    assert.deepEqual(ids(active), ['a1', 'a4', 'a5']);
    assert.deepEqual(ids(archived), ['a2', 'a3', 'a6', 'a7']);
    assert.equal((await readSession(store, 'a2'))?.archived, true);
    await model.unarchive('ref', ['a7']);
    assert.deepEqual(ids(active), ['a1', 'a4', 'a5', 'a7']);
    await model.lastRevalidation;
    await model.refresh();
    assert.deepEqual(ids(active), ['a1', 'a4', 'a5', 'a7']);
    assert.deepEqual(ids(archived), ['a2', 'a3', 'a6']);
  });

  test('-32002 from _session/archive: the session is reported gone and removed from the lists', async () => {
    const store = await seededStore();
    const { model } = setup(store, EXTENSION);
    const active = model.list('ref', 'active', ALPHA);
    await active.load();
    await writeSession(store, record('a4', ALPHA, 4, { deleted: true }));
    const [outcome] = await model.archive('ref', ['a4']);
    assert.equal(outcome.status, 'gone');
    assert.deepEqual((outcome.error as { data?: unknown }).data, { sessionId: 'a4' });
    assert.ok(!ids(active).includes('a4'));
  });

  test('the Archived cursor chain pages with the extension filter to the end', async () => {
    const { model } = setup(await seededStore(), [...EXTENSION, '--page-size', '1'], 1);
    const archived = model.list('ref', 'archived', ALPHA);
    await archived.load();
    while (archived.hasMore) await archived.loadMore();
    assert.equal(archived.error, undefined, String(archived.error));
    assert.deepEqual(ids(archived), ['a6', 'a7']);
  });
});
