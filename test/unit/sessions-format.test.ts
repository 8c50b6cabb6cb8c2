// How sessions read in the tree: titles with a readable fallback, short ages, date groups, order.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dateGroup, relativeTime, sessionLabel, sortNewestFirst } from '../../src/sessions/format';

describe('session labels and ages', () => {
  test('a session shows its title, on one line', () => {
    assert.equal(sessionLabel({ sessionId: 'sess_1', title: 'Fix the\nbuild' }), 'Fix the build');
  });

  test('a session without a title gets a readable fallback naming the end of its id', () => {
    assert.equal(sessionLabel({ sessionId: 'sess_abcdef123456', title: null }), 'Untitled session (…123456)');
    assert.equal(sessionLabel({ sessionId: 'sess_1', title: '  ' }), 'Untitled session (sess_1)');
  });

  test('ages read as "now", minutes, hours, days, weeks, months, years', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    const ago = (ms: number) => relativeTime(now - ms, now);
    assert.equal(ago(10_000), 'now');
    assert.equal(ago(5 * 60_000), '5 min');
    assert.equal(ago(3 * 3_600_000), '3 h');
    assert.equal(ago(2 * 86_400_000), '2 d');
    assert.equal(ago(15 * 86_400_000), '2 w');
    assert.equal(ago(65 * 86_400_000), '2 mo');
    assert.equal(ago(800 * 86_400_000), '2 y');
    assert.equal(relativeTime(now + 60_000, now), 'now', 'a clock skewed into the future is not negative');
  });

  test('date groups follow the local calendar: Today, Yesterday, This Week, Older', () => {
    const now = new Date(2026, 2, 11, 9, 0).getTime();
    assert.equal(dateGroup(new Date(2026, 2, 11, 0, 5).getTime(), now), 'today');
    assert.equal(dateGroup(new Date(2026, 2, 10, 23, 59).getTime(), now), 'yesterday');
    assert.equal(dateGroup(new Date(2026, 2, 5, 12, 0).getTime(), now), 'thisWeek');
    assert.equal(dateGroup(new Date(2026, 1, 1).getTime(), now), 'older');
    assert.equal(dateGroup(undefined, now), 'older', 'a session without a date is older');
  });

  test('sessions sort newest first; undated ones keep the agent\'s order after the dated', () => {
    const sorted = sortNewestFirst([
      { sessionId: 'u1', cwd: '/' },
      { sessionId: 'old', cwd: '/', updatedAt: '2026-01-01T00:00:00Z' },
      { sessionId: 'u2', cwd: '/', updatedAt: 'not a date' },
      { sessionId: 'new', cwd: '/', updatedAt: '2026-02-01T00:00:00Z' },
    ]);
    assert.deepEqual(sorted.map((s) => s.sessionId), ['new', 'old', 'u1', 'u2']);
  });
});
