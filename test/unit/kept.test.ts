// Kept copies (src/keep/): a replay from the reference agent, a real process over real pipes, is
// kept as it comes and reads back as the same updates; a copy cut short or spoiled on disk never
// reads as whole; two stores on one folder (two windows) never spoil each other's work; a delete
// here is not undone by a copy another window was still writing; a full disk loses the copy
// alone, with a message.
import assert from 'node:assert/strict';
import { mkdtempSync, promises as fs, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { linesIn } from '../../src/acp/lineParse';
import type { SessionUpdate } from '../../src/acp/types';
import { keptLockPath, keptPath, KeptFileError, KeptWriter, openKept, placeKept, readKeptMeta, type KeptBody, type KeptMeta } from '../../src/keep/keptFile';
import { KeptStore, type KeepMode, type KeptStoreOptions } from '../../src/keep/keptStore';
import { collectReplay } from '../../src/transcript/replayReader';
import { storedSession, writeAll } from '../agent/fixtures';
import { LINE_WORKER, referenceAgent, rejection, startClient, tempDir } from './acp-helpers';
import { reductionSpec, type ReducedReplay } from '../../src/transcript/replayReduction';
import { mountTmpfs, unmount } from './fullDisk';

const CWD = '/work/project-a';
const MB = 1024 * 1024;

function replayOf(sessionId: string, parts: number, noise = false): SessionUpdate[] {
  return Array.from({ length: parts }, (_, i) =>
    noise
      ? { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: createHash('sha512').update(`${sessionId} ${i}`).digest('hex') } }
      : i % 2 === 0
      ? { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `question ${i} of ${sessionId}: how does the orbital relay route its packets?` } }
      : { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer ${i}: the relay keeps a table of neighbours and forwards each packet to the nearest, «ここ» included.` } },
  ) as SessionUpdate[];
}

function storeOn(root: string, overrides: Partial<KeptStoreOptions> & { updatedAt?: () => string | undefined; mode?: () => KeepMode } = {}): { store: KeptStore; warnings: string[] } {
  const warnings: string[] = [];
  const store = new KeptStore({
    root,
    mode: () => 'read',
    budgetBytes: () => 100 * MB,
    facts: () => ({ title: 'Orbital relay', updatedAt: overrides.updatedAt?.() ?? '2026-11-30T10:00:00.000Z' }),
    log: { warn: (m) => warnings.push(m) },
    ...overrides,
  });
  return { store, warnings };
}

/**
 * A client of the reference agent holding `sessions`, whose replays `store` observes. `heard`
 * counts the updates this thread's observer was handed, and the replays whose lines the line
 * worker wrote instead (`sunk`).
 */
async function agentWith(t: Parameters<typeof tempDir>[0], sessions: { id: string; parts: number; noise?: boolean }[], store: KeptStore, options: { worker?: boolean } = {}) {
  const dir = join(tempDir(t), 'store');
  await writeAll(dir, sessions.map((s) => storedSession(s.id, { updates: replayOf(s.id, s.parts, s.noise) })));
  const heard = { updates: 0, sunk: 0 };
  const started = await startClient(t, referenceAgent(dir), {
    ...(options.worker ? { lineWorker: LINE_WORKER } : {}),
    replays: (agent, sessionId, cwd) => {
      const observer = store.observe(agent, sessionId, cwd);
      return observer && { ...observer, update: (update, line) => (heard.updates++, observer.update(update, line)), sunk: (written) => (heard.sunk++, observer.sunk?.(written)) };
    },
  });
  if (options.worker) {
    const deadline = Date.now() + 10_000;
    while (started.client.parsedOn !== 'worker') {
      assert.ok(Date.now() < deadline, 'the line worker runs within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  return { ...started, heard };
}

/** A load whose replay the line worker reduces (as a transcript's is), into a spill folder of the test's. */
function reducedLoad(t: Parameters<typeof tempDir>[0], client: Awaited<ReturnType<typeof agentWith>>['client'], sessionId: string, onUpdate: (update: SessionUpdate, line: Uint8Array | undefined) => void = () => undefined) {
  return client.loadSession(sessionId, CWD, onUpdate, undefined, { reduce: reductionSpec(tempDir(t, 'kept-spill-'), 'test') });
}

test('a replay is kept as it comes: the copy reads back as the same updates, in a 0700 folder as a 0600 file, with its facts', async (t) => {
  const root = join(tempDir(t), 'kept');
  const { store } = storeOn(root);
  const { client } = await agentWith(t, [{ id: 's1', parts: 400 }], store);
  const replayed: SessionUpdate[] = [];
  await client.loadSession('s1', CWD, (u) => replayed.push(u));
  await store.lastWrite;
  const copy = store.get('reference', 's1');
  assert.ok(copy, 'the store knows the copy');
  assert.equal(copy.meta.updates, 400);
  assert.equal(copy.meta.title, 'Orbital relay');
  assert.equal(copy.meta.cwd, CWD);
  assert.equal(statSync(copy.path).mode & 0o777, 0o600);
  assert.equal(statSync(join(copy.path, '..')).mode & 0o777, 0o700);
  assert.equal(statSync(root).mode & 0o777, 0o700);
  assert.ok(copy.bytes < copy.meta.rawBytes / 4, `compressed: ${copy.bytes} bytes for ${copy.meta.rawBytes}`);
  const opened = await openKept(copy.path, 64 * MB);
  assert.deepEqual(await collectReplay(opened), replayed);
  assert.deepEqual(opened.counts, { updates: 400, skipped: 0, tooLong: 0 });
  // A second store on the folder (another window) finds it by its trailer alone.
  const other = storeOn(root).store;
  await other.scan();
  assert.equal(other.get('reference', 's1')?.meta.updates, 400);
});

test('a replay the line worker reduces is kept by the worker as it comes: the same copy as this thread makes of it', async (t) => {
  const root = join(tempDir(t), 'kept');
  const { store, warnings } = storeOn(root);
  const { client, heard } = await agentWith(t, [{ id: 's1', parts: 400 }, { id: 's2', parts: 400 }], store, { worker: true });
  // The same replay on this thread (no reduction): what the copy must read back as.
  const replayed: SessionUpdate[] = [];
  await client.loadSession('s1', CWD, (u) => replayed.push(u));
  await store.lastWrite;
  assert.equal(heard.sunk, 0, 'without a reduction this thread keeps the lines');
  const byThread = store.get('reference', 's1')!;
  const threadUpdates = await collectReplay(await openKept(byThread.path, 64 * MB));
  assert.deepEqual(threadUpdates, replayed);
  await fs.rm(byThread.path);
  await store.scan();
  const result = await reducedLoad(t, client, 's1');
  assert.ok(result.reduced, 'the worker reduced the replay');
  await store.lastWrite;
  assert.equal(heard.sunk, 1, 'the worker wrote the lines: the observer was told so before the first update');
  const copy = store.get('reference', 's1');
  assert.ok(copy, `the store knows the copy the worker wrote: ${warnings.join('; ')}`);
  assert.equal(copy.meta.updates, 400);
  assert.equal(copy.meta.title, 'Orbital relay');
  assert.equal(statSync(copy.path).mode & 0o777, 0o600);
  // Line for line what this thread keeps of the same replay.
  assert.deepEqual(await collectReplay(await openKept(copy.path, 64 * MB)), threadUpdates);
  assert.equal(copy.meta.rawBytes, byThread.meta.rawBytes);
  // A load that fails (the agent has no such session) leaves no file of the worker's behind.
  await rejection(reducedLoad(t, client, 'missing'));
  await store.lastWrite;
  const names = await fs.readdir(join(copy.path, '..'));
  assert.deepEqual(names.filter((n) => !n.endsWith('.kept')), [], `no temporary file stays: ${names.join(', ')}`);
  assert.deepEqual(warnings, []);
});

test('a copy is not made again while the session has not moved, and is made again once it has', async (t) => {
  const root = join(tempDir(t), 'kept');
  let updatedAt = '2026-11-30T10:00:00.000Z';
  const { store } = storeOn(root, { updatedAt: () => updatedAt });
  const { client } = await agentWith(t, [{ id: 's1', parts: 4 }], store);
  await client.loadSession('s1', CWD, () => undefined);
  await store.lastWrite;
  const first = store.get('reference', 's1')!;
  assert.equal(store.observe('reference', 's1', CWD), undefined, 'nothing to observe: the copy is as new as the session');
  updatedAt = '2026-12-01T10:00:00.000Z';
  await client.loadSession('s1', CWD, () => undefined);
  await store.lastWrite;
  const second = store.get('reference', 's1')!;
  assert.equal(second.meta.updatedAt, updatedAt);
  assert.notEqual(second.meta.keptAt, undefined);
  assert.ok(second.meta.keptAt >= first.meta.keptAt);
});

test('with the mode off, or the budget spent, no copy is made; a failed load leaves no file behind', async (t) => {
  const root = join(tempDir(t), 'kept');
  let mode: KeepMode = 'off';
  let budget = 100 * MB;
  const { store } = storeOn(root, { mode: () => mode, budgetBytes: () => budget });
  const { client } = await agentWith(t, [{ id: 's1', parts: 4 }, { id: 's2', parts: 4 }], store);
  await client.loadSession('s1', CWD, () => undefined);
  await store.lastWrite;
  assert.equal(store.get('reference', 's1'), undefined);
  mode = 'read';
  await client.loadSession('s1', CWD, () => undefined);
  await store.lastWrite;
  assert.ok(store.get('reference', 's1'));
  budget = 1;
  await client.loadSession('s2', CWD, () => undefined);
  await store.lastWrite;
  assert.equal(store.get('reference', 's2'), undefined, 'no new copy past the budget');
  budget = 100 * MB;
  await rejection(client.loadSession('missing', CWD, () => undefined));
  await store.lastWrite;
  const names = await fs.readdir(join(store.get('reference', 's1')!.path, '..'));
  assert.deepEqual(names.filter((n) => !n.endsWith('.kept')), [], `no temporary file stays: ${names.join(', ')}`);
});

test('a copy cut short or spoiled on disk never reads as whole: the scan lists it as damaged, a spoiled body fails at its end', async (t) => {
  const root = join(tempDir(t), 'kept');
  const { store } = storeOn(root);
  const { client } = await agentWith(t, [{ id: 'cut', parts: 300 }, { id: 'spoiled', parts: 300 }], store);
  await client.loadSession('cut', CWD, () => undefined);
  await store.lastWrite;
  await client.loadSession('spoiled', CWD, () => undefined);
  await store.lastWrite;
  const cut = store.get('reference', 'cut')!;
  const spoiled = store.get('reference', 'spoiled')!;
  truncateSync(cut.path, cut.bytes - 100);
  await assert.rejects(readKeptMeta(cut.path), KeptFileError);
  // One byte in the middle of the body: the trailer and sizes hold, gzip's CRC does not.
  const bytes = readFileSync(spoiled.path);
  bytes[Math.floor(spoiled.meta.bodyBytes / 2)] ^= 0xff;
  writeFileSync(spoiled.path, bytes);
  const fresh = storeOn(root).store;
  await fresh.scan();
  assert.equal(fresh.get('reference', 'cut'), undefined, 'a cut copy is not listed as a copy');
  assert.deepEqual(fresh.damaged('reference').map((d) => d.path), [cut.path]);
  const opened = await openKept(spoiled.path, 64 * MB);
  await assert.rejects(collectReplay(opened), (error: Error) => error instanceof KeptFileError || /damaged|check|invalid/i.test(error.message));
});

test('two windows on one folder: a copy of an older state never replaces a newer one, and both leave one whole copy', async (t) => {
  const root = join(tempDir(t), 'kept');
  const newer = storeOn(root, { updatedAt: () => '2026-12-01T10:00:00.000Z' }).store;
  const older = storeOn(root, { updatedAt: () => '2026-11-01T10:00:00.000Z' }).store;
  const one = await agentWith(t, [{ id: 's1', parts: 2000 }], newer);
  const two = await agentWith(t, [{ id: 's1', parts: 10 }], older);
  await Promise.all([one.client.loadSession('s1', CWD, () => undefined), two.client.loadSession('s1', CWD, () => undefined)]);
  await Promise.all([newer.lastWrite, older.lastWrite]);
  const { meta } = await readKeptMeta(keptPath(root, 'reference', 's1'));
  assert.equal(meta.updatedAt, '2026-12-01T10:00:00.000Z');
  assert.equal(meta.updates, 2000);
  // The older window's copy, finished last, was declined (written again here so the order is sure).
  await two.client.loadSession('s1', CWD, () => undefined);
  await older.lastWrite;
  assert.equal((await readKeptMeta(keptPath(root, 'reference', 's1'))).meta.updates, 2000);
});

/** A copy's body of `parts` updates written for `path`, not in place yet. */
async function bodyOf(path: string, parts: number): Promise<KeptBody> {
  const writer = new KeptWriter(path);
  for (const update of replayOf('s1', parts)) writer.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update } }));
  return writer.endBody();
}

/** A gate: `passed` resolves once `open` was called. */
function gate(): { passed: Promise<void>; open: () => void } {
  let open!: () => void;
  const passed = new Promise<void>((resolve) => (open = resolve));
  return { passed, open };
}

test('two windows on one folder: a copy of an older state checked a moment before a newer copy is placed never replaces it', async (t) => {
  const root = join(tempDir(t), 'kept');
  const path = keptPath(root, 'reference', 's1');
  const [older, newer] = await Promise.all([bodyOf(path, 10), bodyOf(path, 2000)]);
  const facts = (updatedAt: string) => ({ agentName: 'reference', sessionId: 's1', cwd: CWD, updatedAt });
  // The policy of KeptStore: a copy in place that is newer stays.
  const notNewer = (mine: string) => (existing: KeptMeta | undefined) => !existing || !(Date.parse(existing.updatedAt!) > Date.parse(mine));
  const checked = gate();
  const release = gate();
  // The older copy finds nothing in place, then is held between its check and its rename.
  const olderPlaced = placeKept(older, facts('2026-11-01T10:00:00.000Z'), async (existing) => {
    const keep = notNewer('2026-11-01T10:00:00.000Z')(existing);
    checked.open();
    await release.passed;
    return keep;
  });
  await checked.passed;
  let waited = false;
  // The newer copy comes now: it waits for the older one's step to end (or, were there no lock, is placed at once).
  const newerPlaced = placeKept(newer, facts('2026-12-01T10:00:00.000Z'), async (existing) => notNewer('2026-12-01T10:00:00.000Z')(existing), () => {
    waited = true;
    release.open();
  });
  void newerPlaced.finally(release.open);
  await Promise.all([olderPlaced, newerPlaced]);
  const { meta } = await readKeptMeta(path);
  assert.deepEqual([meta.updatedAt, meta.updates], ['2026-12-01T10:00:00.000Z', 2000], 'the newer copy is in place');
  assert.ok(waited, 'the newer copy waited for the older one to be placed');
  assert.deepEqual((await fs.readdir(join(path, '..'))).filter((n) => n !== basename(path)), [], 'no lock or temporary file is left');
});

test('a delete here while another window checks its copy is not undone by the rename of that copy', async (t) => {
  const root = join(tempDir(t), 'kept');
  const path = keptPath(root, 'reference', 's1');
  const checked = gate();
  const release = gate();
  // The other window's copy passed its checks (nothing in place, no delete since it began) and is held before its rename.
  const placed = placeKept(await bodyOf(path, 10), { agentName: 'reference', sessionId: 's1', cwd: CWD }, async () => {
    checked.open();
    await release.passed;
    return true;
  });
  await checked.passed;
  // This window deletes the session now: it waits for that step to end (or, were there no lock, deletes at once).
  const { store } = storeOn(root, { onLockBusy: release.open });
  const deleted = store.delete('reference', ['s1']);
  void deleted.finally(release.open);
  await Promise.all([placed, deleted]);
  await assert.rejects(fs.stat(path), { code: 'ENOENT' }, 'the deleted copy is not in place');
});

test('a lock left by a window that closed while placing its copy is taken over once it is older than 15 s; a newer one is waited for', async (t) => {
  const root = join(tempDir(t), 'kept');
  const path = keptPath(root, 'reference', 's1');
  const body = await bodyOf(path, 10);
  writeFileSync(keptLockPath(path), '');
  const old = new Date(Date.now() - 60_000);
  utimesSync(keptLockPath(path), old, old);
  let waited = false;
  const meta = await placeKept(body, { agentName: 'reference', sessionId: 's1', cwd: CWD }, async () => true, () => (waited = true));
  assert.equal(meta?.updates, 10, 'the copy is in place');
  assert.equal(waited, false, 'a stale lock is not waited for');
  // A lock taken a moment ago is another window's at work: this copy waits until it is gone.
  writeFileSync(keptLockPath(path), '');
  const next = await bodyOf(path, 20);
  const placed = placeKept(next, { agentName: 'reference', sessionId: 's1', cwd: CWD }, async () => true, () => {
    waited = true;
    rmSync(keptLockPath(path));
  });
  assert.equal((await placed)?.updates, 20);
  assert.ok(waited, 'a fresh lock was waited for');
  assert.deepEqual((await fs.readdir(join(path, '..'))).filter((n) => n !== basename(path)), [], 'no lock or temporary file is left');
});

test('a delete here is not undone by a copy of the session that was being written when it happened', async (t) => {
  const root = join(tempDir(t), 'kept');
  const { store } = storeOn(root);
  const other = storeOn(root).store;
  const { client } = await agentWith(t, [{ id: 's1', parts: 10 }], store);
  await client.loadSession('s1', CWD, () => undefined);
  await store.lastWrite;
  // The other window begins its copy, then this one deletes the session.
  const observer = other.observe('reference', 's1', CWD)!;
  observer.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'late' } } as SessionUpdate, undefined);
  await store.delete('reference', ['s1']);
  assert.equal(store.get('reference', 's1'), undefined);
  observer.end(true);
  await other.lastWrite;
  await assert.rejects(fs.stat(keptPath(root, 'reference', 's1')), { code: 'ENOENT' });
});

for (const worker of [false, true]) {
  test(`a full disk loses the copy alone: the copy is dropped naming the cause, no file is left, the load itself succeeds${worker ? ' (the copy written by the line worker)' : ''}`, async (t) => {
    // Its own folder, unmounted before it is removed (after-hooks run in the order they were added).
    const root = mkdtempSync(join(tmpdir(), 'acp-kept-'));
    const mounted = mountTmpfs(root, 64 * 1024);
    t.after(() => {
      if (mounted) unmount(root);
      rmSync(root, { recursive: true, force: true });
    });
    if (!mounted) {
      // Where this process may not mount (not root), a folder it may not write to refuses instead.
      t.diagnostic('no tmpfs: the copies folder is read-only instead of full');
      await fs.chmod(root, 0o500);
    }
    const { store, warnings } = storeOn(root);
    const { client } = await agentWith(t, [{ id: 'big', parts: 3000, noise: true }], store, { worker });
    // Counted as the agent sent them: the line worker merges a message's text chunks into one update.
    let replayed = 0;
    if (worker) replayed = ((await reducedLoad(t, client, 'big')).reduced as ReducedReplay).timeline.updateCount;
    else await client.loadSession('big', CWD, (_u, line) => (replayed += line ? linesIn(line) : 1));
    await store.lastWrite;
    assert.equal(replayed, 3000, 'the load is whole');
    assert.equal(store.get('reference', 'big'), undefined);
    assert.match(warnings.join('\n'), mounted ? /Could not keep a copy of session "big": .*(ENOSPC|no space)/i : /Could not keep a copy of session "big": .*(EACCES|permission)/i);
    const left = (await fs.readdir(root, { recursive: true })).filter((n) => String(n).includes('.tmp'));
    assert.deepEqual(left, []);
  });
}
