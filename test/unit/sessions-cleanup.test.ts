// Clean-up rules and session health under plain Node, and the model's bulk paths against the
// reference agent over real pipes: every page listed without loading, archive with cancel,
// the vendor extension's seam, and health remembered across a restart (a new memento reader).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Logger, SessionInfo } from '../../src/acp/types';
import { AgentRegistry } from '../../src/sessions/agentRegistry';
import { isRunning, selectForCleanup, titlePatternRegExp, type CleanupCandidate, type RuleContext } from '../../src/sessions/cleanup';
import { HEALTH_STATE_KEY, SessionHealth, type HealthMemento } from '../../src/sessions/health';
import { ListCancelledError, SessionsModel } from '../../src/sessions/sessionsModel';
import { seedMany } from '../agent/seed';
import { readSession, type StoredSession } from '../agent/store';

const agentScript = fileURLToPath(new URL('../agent/agent.mjs', import.meta.url));
const quiet: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const DAY = 86_400_000;
const now = Date.parse('2026-06-01T12:00:00Z');
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function tmp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function info(sessionId: string, daysAgo: number, extra: Partial<SessionInfo> & Record<string, unknown> = {}): CleanupCandidate {
  return {
    agent: 'ref',
    session: { sessionId, cwd: '/here', title: `Title ${sessionId}`, updatedAt: new Date(now - daysAgo * DAY).toISOString(), archived: false, ...extra } as SessionInfo,
  };
}

const ctx = (gone: string[] = [], problems: string[] = []): RuleContext => ({
  now,
  folderExists: (cwd) => !gone.includes(cwd),
  problemOf: (_agent, s) => (problems.includes(s.sessionId) ? { kind: 'loadFailed', detail: 'nope', since: now } : undefined),
});

class MapMemento implements HealthMemento {
  readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    // A real memento hands out a copy of JSON: nothing shared with the writer.
    const v = this.values.get(key);
    return v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as T);
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, JSON.parse(JSON.stringify(value)));
  }
}

describe('clean-up rules', () => {
  const sessions = [
    info('new', 2),
    info('old', 40),
    info('older', 90, { cwd: '/gone' }),
    info('undated', 0, { updatedAt: undefined }),
    info('arch-old', 60, { archived: true }),
    info('arch-new', 1, { archived: true }),
    info('running-old', 50, { state: 'running' }),
  ];

  test('older than N days selects only active sessions updated before then; undated never', () => {
    const { selected, running } = selectForCleanup(sessions, 'archive', { olderThanDays: 30 }, ctx());
    assert.deepEqual(selected.map((c) => c.session.sessionId), ['old', 'older']);
    assert.deepEqual(running.map((c) => c.session.sessionId), ['running-old'], 'a running session is reported, not selected');
  });

  test('delete selects archived sessions only, and every archived one when no rule is given', () => {
    assert.deepEqual(selectForCleanup(sessions, 'delete', { olderThanDays: 30 }, ctx()).selected.map((c) => c.session.sessionId), ['arch-old']);
    assert.deepEqual(selectForCleanup(sessions, 'delete', {}, ctx()).selected.map((c) => c.session.sessionId), ['arch-old', 'arch-new']);
  });

  test('rules combine: every rule given must match', () => {
    const selected = selectForCleanup(sessions, 'archive', { olderThanDays: 30, missingFolder: true }, ctx(['/gone'])).selected;
    assert.deepEqual(selected.map((c) => c.session.sessionId), ['older']);
  });

  test('a folder not checked yet is not "missing"', () => {
    const unknown: RuleContext = { ...ctx(), folderExists: () => undefined };
    assert.deepEqual(selectForCleanup(sessions, 'archive', { missingFolder: true }, unknown).selected, []);
  });

  test('title patterns: case-insensitive text anywhere, * and ? wildcards, everything else literal', () => {
    assert.ok(titlePatternRegExp('title o*d').test('Title older'));
    assert.ok(titlePatternRegExp('TITLE N?W').test('title new'));
    assert.ok(!titlePatternRegExp('a.c').test('abc'), 'a dot is a dot');
    assert.ok(titlePatternRegExp('(x)[y]').test('pre (x)[y] post'));
    const selected = selectForCleanup(sessions, 'archive', { titlePattern: 'title o*' }, ctx()).selected;
    assert.deepEqual(selected.map((c) => c.session.sessionId), ['old', 'older']);
  });

  test('sessions with problems', () => {
    assert.deepEqual(selectForCleanup(sessions, 'archive', { problems: true }, ctx([], ['new'])).selected.map((c) => c.session.sessionId), ['new']);
  });

  test('in use: open, running or waiting for the user (as src/acp reads either wire form); idle, error or unknown are not', () => {
    for (const state of ['open', 'running', 'requires_action'] as const) assert.ok(isRunning(info('a', 1, { state }).session), state);
    for (const state of ['idle', 'error'] as const) assert.ok(!isRunning(info('a', 1, { state }).session), state);
    assert.ok(!isRunning(info('a', 1).session));
  });
});

describe('session health', () => {
  test('a folder that is gone marks its sessions, with the date it was found missing, and the date survives a restart', async () => {
    const dir = tmp('acp-health-');
    const here = join(dir, 'here');
    mkdirSync(here);
    const gone = join(dir, 'gone');
    const memento = new MapMemento();
    let clock = now;
    const health = new SessionHealth(memento, { now: () => clock });
    let changes = 0;
    health.onDidChange(() => changes++);
    await health.checkFolders([{ cwd: here }, { cwd: gone }]);
    assert.equal(health.problemOf('ref', { sessionId: 's1', cwd: here }), undefined);
    assert.deepEqual(health.problemOf('ref', { sessionId: 's2', cwd: gone }), { kind: 'missingFolder', detail: gone, since: now });
    assert.equal(health.folderExists(gone), false);
    assert.equal(changes, 1);

    clock = now + DAY;
    const restarted = new SessionHealth(memento, { now: () => clock });
    assert.equal(restarted.problemOf('ref', { sessionId: 's2', cwd: gone }), undefined, 'not marked before it is checked again');
    await restarted.checkFolders([{ cwd: gone }]);
    assert.equal(restarted.problemOf('ref', { sessionId: 's2', cwd: gone })?.since, now, 'first found missing a day ago');

    // It comes back: the mark goes after the next check.
    mkdirSync(gone);
    restarted.forgetFolders();
    await restarted.checkFolders([{ cwd: gone }]);
    assert.equal(restarted.problemOf('ref', { sessionId: 's2', cwd: gone }), undefined);
  });

  test('a failed load is remembered with its reason and date across a restart, and a later good load clears it', async () => {
    const memento = new MapMemento();
    const health = new SessionHealth(memento, { now: () => now });
    await health.recordLoadFailure('ref', 's1', 'Internal error: the store is corrupt');
    assert.ok(memento.values.has(HEALTH_STATE_KEY));
    const restarted = new SessionHealth(memento);
    assert.deepEqual(restarted.problemOf('ref', { sessionId: 's1', cwd: '/x' }), { kind: 'loadFailed', detail: 'Internal error: the store is corrupt', since: now });
    assert.equal(restarted.problemOf('other agent', { sessionId: 's1', cwd: '/x' }), undefined, 'per agent');
    await restarted.recordLoadSuccess('ref', 's1');
    assert.equal(new SessionHealth(memento).problemOf('ref', { sessionId: 's1', cwd: '/x' }), undefined);
  });

  test('a memento holding something else is read as empty, not a crash', () => {
    const memento = new MapMemento();
    memento.values.set(HEALTH_STATE_KEY, { loadFailures: [1, 2], missingFolders: 'x' });
    assert.equal(new SessionHealth(memento).problemOf('ref', { sessionId: '0', cwd: '/x' }), undefined);
  });
});

describe('bulk operations through the model (reference agent)', () => {
  async function setup(count: number, flags: string[] = []) {
    const store = tmp('acp-bulk-');
    const folder = tmp('acp-bulk-folder-');
    const sessions = await seedMany({ store, count, folders: [folder], missingFolders: ['/gone/one', '/gone/two'], now: new Date(now), seed: 3 });
    const registry = new AgentRegistry({
      start: { clientInfo: { name: 'acp-sessions-tests', version: '0' }, log: quiet, defaultCwd: tmpdir(), killGraceMs: 500 },
      backoffMs: 50,
    });
    registry.setConfigs([{ name: 'ref', command: process.execPath, args: [agentScript, '--store', store, '--page-size', '7', ...flags] }]);
    const model = new SessionsModel(registry, { pageSize: 10 });
    cleanup.push(async () => {
      model.dispose();
      await registry.dispose();
    });
    return { store, sessions, model };
  }

  const ids = (list: { sessionId: string }[]) => list.map((s) => s.sessionId).sort();
  const expect = (sessions: StoredSession[], archived: boolean) => ids(sessions.filter((s) => s.archived === archived));

  test('listAll follows every cursor of a section, reports each page, and leaves the tree\'s lists alone', async () => {
    const { sessions, model } = await setup(60);
    const pages: number[] = [];
    const active = await model.listAll('ref', 'active', { onPage: (n) => pages.push(n) });
    assert.deepEqual(ids(active), expect(sessions, false));
    assert.equal(pages.length, Math.ceil(active.length / 7));
    assert.deepEqual(ids(await model.listAll('ref', 'archived')), expect(sessions, true));
    assert.equal(model.allLists().length, 0, 'no list of the tree was created or loaded');
  });

  test('listAll stops when cancelled', async () => {
    const { model } = await setup(30);
    let pages = 0;
    await assert.rejects(model.listAll('ref', 'active', { onPage: () => pages++, isCancelled: () => pages >= 2 }), ListCancelledError);
    assert.equal(pages, 2);
  });

  test('a cancelled bulk archive stops before the next session: those reached are archived in the store, the rest untouched', async () => {
    const { store, sessions, model } = await setup(20);
    const targets = sessions.filter((s) => !s.archived).map((s) => s.sessionId);
    let answered = 0;
    const outcomes = await model.archive('ref', targets, { onOutcome: () => answered++, isCancelled: () => answered >= 5 });
    assert.equal(outcomes.length, 5);
    assert.equal(answered, 5);
    for (const [i, id] of targets.entries()) assert.equal((await readSession(store, id))?.archived, i < 5, id);
  });

  test('bulk archive and delete work through the vendor extension seam too', async () => {
    const { store, sessions, model } = await setup(12, ['--archive-extension']);
    const active = await model.listAll('ref', 'active');
    assert.deepEqual(ids(active), expect(sessions, false));
    const outcomes = await model.archive('ref', active.map((s) => s.sessionId));
    assert.ok(outcomes.every((o) => o.status === 'done'));
    for (const s of active) assert.equal((await readSession(store, s.sessionId))?.archived, true);
    const archived = await model.listAll('ref', 'archived');
    assert.equal(archived.length, sessions.length);
    assert.ok(archived.every((s) => s.archived === true));
  });
});
