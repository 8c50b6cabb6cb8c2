// Pins: kept per agent and session id in a Memento-like store, pinned sessions first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pinnedFirst, Pins, PINS_KEY } from '../../src/sessions/pins';

function memento(initial: Record<string, unknown> = {}) {
  const data = new Map(Object.entries(initial));
  return { get: <T>(key: string) => data.get(key) as T | undefined, update: async (key: string, value: unknown) => void data.set(key, value), data };
}

test('pins are per agent and session id, survive a new Pins over the same store, and unpin', async () => {
  const store = memento();
  const pins = new Pins(store);
  let changes = 0;
  pins.onDidChange(() => changes++);
  await pins.pin('A', [{ sessionId: 's1', cwd: '/w', title: 'One' }, { sessionId: 's2', cwd: '/w' }], 5);
  await pins.pin('B', [{ sessionId: 's1', cwd: '/v' }], 6);
  await pins.pin('A', [{ sessionId: 's1', cwd: '/w' }], 7);
  const again = new Pins(store);
  assert.equal(again.isPinned('A', 's1'), true);
  assert.equal(again.isPinned('B', 's2'), false);
  assert.deepEqual(again.of('A').map((p) => [p.sessionId, p.title, p.pinnedAt]), [['s1', 'One', 5], ['s2', undefined, 5]]);
  await again.unpin('A', ['s1']);
  assert.equal(pins.isPinned('A', 's1'), false);
  assert.equal(pins.isPinned('B', 's1'), true);
  assert.equal(changes, 3);
});

test('malformed entries in the stored state are left out, not thrown on', () => {
  const pins = new Pins(memento({ [PINS_KEY]: [null, 'x', { agent: 'A', sessionId: 's', cwd: '/w', pinnedAt: 1 }, { agent: 'A', sessionId: 3, cwd: '/w', pinnedAt: 1 }] }));
  assert.deepEqual(pins.all().map((p) => p.sessionId), ['s']);
  assert.deepEqual(new Pins(memento({ [PINS_KEY]: { not: 'an array' } })).all(), []);
});

test('a pin remembers the title the agent lists, to show it if the session goes', async () => {
  const pins = new Pins(memento());
  await pins.pin('A', [{ sessionId: 's', cwd: '/w', title: 'Old' }]);
  await pins.remember('A', [{ sessionId: 's', cwd: '/w', title: 'New' }]);
  assert.equal(pins.of('A')[0].title, 'New');
});

test('pinned sessions come first, each group in the agent\'s order', () => {
  const sessions = ['a', 'b', 'c', 'd'].map((sessionId) => ({ sessionId }));
  assert.deepEqual(pinnedFirst(sessions, (id) => id === 'c' || id === 'b').map((s) => s.sessionId), ['b', 'c', 'a', 'd']);
});
