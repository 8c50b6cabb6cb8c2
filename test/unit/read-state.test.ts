// Read and unread (src/sessions/readState.ts): a session is unread when its agent has something
// newer than the user last saw; one first seen here is read; marks by hand hold until the next
// look; a deleted session's entry goes; two windows writing one profile's global state never undo
// each other's changes. The store here is the global state's contract (one value per key, the
// latest write wins, every window reads what the last one wrote); VS Code's own is driven by the
// UI test (test/ui/readState.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionInfo } from '../../src/acp/types';
import { activityOf, MAX_READ_ENTRIES, READ_STATE_KEY, ReadState, type ReadStateStore } from '../../src/sessions/readState';

function sharedStore(): ReadStateStore & { writes: number; value(): unknown } {
  const values = new Map<string, unknown>();
  let writes = 0;
  return {
    get: <T>(key: string) => values.get(key) as T | undefined,
    update: async (key, value) => {
      writes++;
      // What VS Code keeps is serialized: a reader never holds the writer's object.
      values.set(key, JSON.parse(JSON.stringify(value)));
    },
    get writes() {
      return writes;
    },
    value: () => values.get(READ_STATE_KEY),
  };
}

const at = (iso: string) => Date.parse(iso);
const session = (sessionId: string, updatedAt: string, extra: Partial<SessionInfo> = {}): SessionInfo => ({ sessionId, cwd: '/w', updatedAt, ...extra });

test('activity is the last turn\'s end where the agent sends it, else the date; neither: unknown', () => {
  assert.equal(activityOf({ updatedAt: '2026-12-01T10:00:00Z', details: { lastTurnEndedAt: '2026-12-01T09:00:00Z' } }), at('2026-12-01T09:00:00Z'));
  assert.equal(activityOf({ updatedAt: '2026-12-01T10:00:00Z' }), at('2026-12-01T10:00:00Z'));
  assert.equal(activityOf({ updatedAt: 'not a date' }), undefined);
  assert.equal(activityOf({}), undefined);
});

test('a session first seen here is read; something newer after that makes it unread; showing it makes it read', async () => {
  let now = at('2026-12-02T12:00:00Z');
  const state = new ReadState(sharedStore(), () => now);
  const old = session('s1', '2026-11-01T00:00:00Z');
  assert.equal(state.isUnread('A', old), false, 'never seen: read, no wall of dots');
  state.sighted('A', [old]);
  assert.equal(state.knows('A', 's1'), true);
  assert.equal(state.isUnread('A', old), false);
  const newer = session('s1', '2026-12-02T12:05:00Z');
  assert.equal(state.isUnread('A', newer), true, 'updated by another process after it was seen');
  now = at('2026-12-02T12:06:00Z');
  state.markRead('A', [newer]);
  assert.equal(state.isUnread('A', newer), false);
  // A date the agent's clock puts ahead of ours counts as seen once shown.
  const ahead = session('s1', '2026-12-02T13:00:00Z');
  state.markRead('A', [ahead]);
  assert.equal(state.isUnread('A', ahead), false);
  // The last turn's end outranks the date: a rename (a new date, no new turn) is not news.
  const renamed = session('s1', '2026-12-02T14:00:00Z', { details: { lastTurnEndedAt: '2026-12-02T12:30:00Z' } });
  assert.equal(state.isUnread('A', renamed), false);
  // Another agent's session of the same id is its own.
  assert.equal(state.knows('B', 's1'), false);
});

test('Mark as Unread holds until the session is marked read; a deleted session is forgotten', async () => {
  const now = at('2026-12-02T12:00:00Z');
  const store = sharedStore();
  const state = new ReadState(store, () => now);
  const s = session('s1', '2026-11-01T00:00:00Z');
  state.sighted('A', [s]);
  let changes = 0;
  state.onDidChange(() => changes++);
  state.markUnread('A', [s]);
  assert.equal(state.isUnread('A', s), true);
  assert.equal(changes, 1);
  state.markRead('A', [s]);
  assert.equal(state.isUnread('A', s), false);
  state.markUnread('A', [s]);
  state.forget('A', ['s1']);
  await state.flushed();
  assert.equal(state.knows('A', 's1'), false);
  assert.equal(state.isUnread('A', s), false);
  assert.deepEqual(store.value(), {}, 'nothing of it is stored');
});

test('two windows of one profile: neither brings back what the other forgot, nor undoes its later mark', async () => {
  const store = sharedStore();
  let now = 1_000;
  const one = new ReadState(store, () => now);
  const two = new ReadState(store, () => now);
  const a = session('a', '2026-11-01T00:00:00Z');
  const b = session('b', '2026-11-01T00:00:00Z');
  one.sighted('A', [a, b]);
  await one.flushed();
  assert.equal(two.knows('A', 'a'), true, 'the other window reads what the first wrote');
  now = 2_000;
  one.forget('A', ['a']);
  await one.flushed();
  now = 3_000;
  two.markUnread('A', [b]);
  await two.flushed();
  assert.equal(one.knows('A', 'a'), false, 'window two did not bring back the forgotten session');
  assert.equal(one.isUnread('A', b), true, 'window one sees two\'s mark');
  // Window one marks b read later than two's mark: its change wins, in both.
  now = 4_000;
  one.markRead('A', [b]);
  await one.flushed();
  assert.equal(two.isUnread('A', b), false);
});

test('what another window or version stored that is not an entry is ignored; the store stays bounded', async () => {
  const store = sharedStore();
  await store.update(READ_STATE_KEY, { '["A","x"]': 'junk', '["A","y"]': [1, 2, 1], '["A","z"]': [Number.NaN, 1, 0] });
  const state = new ReadState(store, () => 10);
  assert.equal(state.knows('A', 'x'), false);
  assert.equal(state.isUnread('A', session('y', '2026-11-01T00:00:00Z')), true);
  assert.equal(state.knows('A', 'z'), false);
  await store.update(READ_STATE_KEY, ['not', 'a', 'map']);
  assert.equal(state.knows('A', 'y'), false);
  let now = 0;
  const many = new ReadState(store, () => ++now);
  many.sighted('A', Array.from({ length: MAX_READ_ENTRIES + 10 }, (_, i) => session(`s${i}`, '2026-11-01T00:00:00Z')));
  await many.flushed();
  assert.equal(Object.keys(store.value() as object).length, MAX_READ_ENTRIES);
});

test('a write that fails (a full disk) loses nothing: the change is written with the next one', async () => {
  const store = sharedStore();
  let fail = true;
  const failing: ReadStateStore = { get: store.get, update: async (k, v) => (fail ? Promise.reject(new Error('ENOSPC')) : store.update(k, v)) };
  const state = new ReadState(failing, () => 5);
  state.markUnread('A', [session('s', '2026-11-01T00:00:00Z')]);
  await state.flushed();
  assert.equal(store.value(), undefined);
  assert.equal(state.isUnread('A', session('s', '2026-11-01T00:00:00Z')), true, 'still unread in this window');
  fail = false;
  state.markUnread('A', [session('t', '2026-11-01T00:00:00Z')]);
  await state.flushed();
  assert.deepEqual(Object.keys(store.value() as object).sort(), ['["A","s"]', '["A","t"]']);
});
