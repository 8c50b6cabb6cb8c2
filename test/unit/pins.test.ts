// Pins: one file per pin in a folder every window of the profile shares; pinned sessions first.
// Two windows are two Pins on one folder (and, for the last test, two processes): neither brings
// back a pin the other removed, and each sees the other's changes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pinnedFirst, Pins, PINS_KEY } from '../../src/sessions/pins';

// As the worker of the two-process test: pins 20 sessions, unpins the odd ones, exits.
if (process.env.ACP_PINS_WORKER) {
  const [dir, who] = JSON.parse(process.env.ACP_PINS_WORKER) as [string, string];
  const pins = new Pins(dir);
  for (let i = 0; i < 20; i++) await pins.pin('A', [{ sessionId: `${who}${i}`, cwd: '/w', title: `${who} ${i}` }]);
  for (let i = 1; i < 20; i += 2) await pins.unpin('A', [`${who}${i}`]);
  for (let i = 0; i < 20; i += 2) await pins.remember('A', [{ sessionId: `${who}${i}`, cwd: '/w', title: `${who} ${i}!` }]);
  pins.dispose();
  process.exit(0);
}

function folder(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'acp-pins-unit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'pins');
}

function memento(initial: Record<string, unknown> = {}) {
  const data = new Map(Object.entries(initial));
  return { get: <T>(key: string) => data.get(key) as T | undefined, update: async (key: string, value: unknown) => void (value === undefined ? data.delete(key) : data.set(key, value)), data };
}

/** Resolves once `pins` fired a change (the watcher read another window's write), or fails after `ms`. */
function changed(pins: Pins, what: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no change seen: ${what}`)), ms);
    const sub = pins.onDidChange(() => {
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
  });
}

test('pins are per agent and session id, survive a new Pins over the same folder, and unpin', async (t) => {
  const dir = folder(t);
  const pins = new Pins(dir, { follow: false });
  let changes = 0;
  pins.onDidChange(() => changes++);
  await pins.pin('A', [{ sessionId: 's1', cwd: '/w', title: 'One' }, { sessionId: 's2', cwd: '/w' }], 5);
  await pins.pin('B', [{ sessionId: 's1', cwd: '/v' }], 6);
  await pins.pin('A', [{ sessionId: 's1', cwd: '/w' }], 7);
  const again = new Pins(dir, { follow: false });
  assert.equal(again.isPinned('A', 's1'), true);
  assert.equal(again.isPinned('B', 's2'), false);
  assert.deepEqual(again.of('A').map((p) => [p.sessionId, p.title, p.pinnedAt]), [['s1', 'One', 5], ['s2', undefined, 5]]);
  await again.unpin('A', ['s1']);
  pins.reload();
  assert.equal(pins.isPinned('A', 's1'), false);
  assert.equal(pins.isPinned('B', 's1'), true);
  assert.equal(changes, 3, 'two pins and one unpin seen');
  pins.dispose();
  again.dispose();
});

test('the folder and its files are readable by this user only; file names carry no agent text', async (t) => {
  const dir = folder(t);
  const pins = new Pins(dir, { follow: false });
  await pins.pin('../../etc', [{ sessionId: '../passwd', cwd: '/w', title: 'x' }]);
  await pins.remember('../../etc', [{ sessionId: '../passwd', cwd: '/w', title: 'y' }]);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  for (const name of readdirSync(dir)) {
    assert.match(name, /^[0-9a-f]{40}\.(pin|title)$/);
    assert.equal(statSync(join(dir, name)).mode & 0o777, 0o600, name);
  }
  pins.dispose();
});

test('files that are not pins are left out, not thrown on', async (t) => {
  const dir = folder(t);
  new Pins(dir, { follow: false }).dispose();
  const pins = new Pins(dir, { follow: false });
  await pins.pin('A', [{ sessionId: 's', cwd: '/w' }], 1);
  const [name] = readdirSync(dir);
  writeFileSync(join(dir, `${'0'.repeat(40)}.pin`), '{"agent":"A","sessionId":3}');
  writeFileSync(join(dir, `${'1'.repeat(40)}.pin`), 'not json');
  // A valid pin under a name that is not its own hash: not ours.
  writeFileSync(join(dir, `${'2'.repeat(40)}.pin`), JSON.stringify({ agent: 'A', sessionId: 'forged', cwd: '/w', pinnedAt: 1 }));
  writeFileSync(join(dir, 'notes.txt'), 'x');
  writeFileSync(join(dir, name.replace('.pin', '.title')), '[]');
  assert.deepEqual(new Pins(dir, { follow: false }).all().map((p) => [p.sessionId, p.title]), [['s', undefined]]);
  pins.dispose();
});

test('pins older versions kept in the global state move into the folder once, malformed entries left out', async (t) => {
  const dir = folder(t);
  const legacy = memento({ [PINS_KEY]: [null, 'x', { agent: 'A', sessionId: 's', cwd: '/w', title: 'Old', pinnedAt: 1 }, { agent: 'A', sessionId: 3, cwd: '/w', pinnedAt: 1 }] });
  const pins = new Pins(dir, { legacy, follow: false });
  await until(() => !legacy.data.has(PINS_KEY), 'the old key is cleared');
  assert.deepEqual(new Pins(dir, { follow: false }).all().map((p) => [p.agent, p.sessionId, p.title, p.pinnedAt]), [['A', 's', 'Old', 1]]);
  const none = memento({ [PINS_KEY]: { not: 'an array' } });
  new Pins(folder(t), { legacy: none, follow: false });
  await until(() => !none.data.has(PINS_KEY), 'a malformed old key is cleared too');
  pins.dispose();
});

test('a pin remembers the title the agent lists, to show it if the session goes', async (t) => {
  const dir = folder(t);
  const pins = new Pins(dir, { follow: false });
  await pins.pin('A', [{ sessionId: 's', cwd: '/w', title: 'Old' }]);
  await pins.remember('A', [{ sessionId: 's', cwd: '/w', title: 'New' }]);
  assert.equal(pins.of('A')[0].title, 'New');
  assert.equal(new Pins(dir, { follow: false }).of('A')[0].title, 'New');
  pins.dispose();
});

test('two windows: a pin one removed stays removed however often the other keeps titles, and each sees the other\'s changes', async (t) => {
  const dir = folder(t);
  const a = new Pins(dir);
  const b = new Pins(dir);
  t.after(() => { a.dispose(); b.dispose(); });
  const seen = changed(b, 'B sees A\'s pins');
  await a.pin('A', [{ sessionId: 'x', cwd: '/w', title: 'X' }, { sessionId: 'y', cwd: '/w', title: 'Y' }]);
  await seen;
  assert.equal(b.isPinned('A', 'x'), true);
  // B unpins x while A's copy still has it (A has not read the folder since).
  await b.unpin('A', ['x']);
  // A's list changes: it keeps the titles it sees, as it does on every list change.
  await a.remember('A', [{ sessionId: 'x', cwd: '/w', title: 'X renamed' }, { sessionId: 'y', cwd: '/w', title: 'Y renamed' }]);
  a.reload();
  b.reload();
  assert.equal(a.isPinned('A', 'x'), false, 'A sees x unpinned');
  assert.equal(b.isPinned('A', 'x'), false, 'x did not come back');
  assert.deepEqual(b.of('A').map((p) => [p.sessionId, p.title]), [['y', 'Y renamed']]);
});

test('two processes pinning and unpinning on one folder at once lose none of each other\'s pins', async (t) => {
  const dir = folder(t);
  new Pins(dir, { follow: false }).dispose();
  // This file again, as a worker: each process pins 20 sessions of its own and unpins every other one.
  const runs = await Promise.all(['p', 'q'].map((who) => new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, ACP_PINS_WORKER: JSON.stringify([dir, who]) }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stderr }));
  })));
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const pins = new Pins(dir, { follow: false });
  const expected = ['p', 'q'].flatMap((who) => Array.from({ length: 10 }, (_, i) => `${who}${i * 2}`));
  assert.deepEqual(pins.all().map((p) => p.sessionId).sort(), expected.sort());
  pins.dispose();
});

test('pinned sessions come first, each group in the agent\'s order', () => {
  const sessions = ['a', 'b', 'c', 'd'].map((sessionId) => ({ sessionId }));
  assert.deepEqual(pinnedFirst(sessions, (id) => id === 'c' || id === 'b').map((s) => s.sessionId), ['b', 'c', 'a', 'd']);
});

async function until(probe: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a pin with a title and folder of a megabyte each is read back by another window', async (t) => {
  const dir = folder(t);
  const pins = new Pins(dir, { follow: false });
  const long = 'x'.repeat(1024 * 1024);
  await pins.pin('A', [{ sessionId: 's', cwd: `/w/${long}`, title: long }]);
  assert.deepEqual(new Pins(dir, { follow: false }).all().map((p) => [p.cwd.length, p.title?.length]), [[long.length + 3, long.length]]);
  pins.dispose();
});
