// Row heights of the virtualized transcript (src/webview/heights.ts): the list's height covers
// every row from the start, measured rows correct it, and positions map back to rows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Heights, MAX_ESTIMATED_PX } from '../../src/webview/heights';

test('unmeasured rows count as the estimate; measured rows as measured', () => {
  const h = new Heights(50);
  h.reset(100_000);
  assert.equal(h.total(), 5_000_000);
  h.set(10, 150);
  h.set(5, 20);
  assert.equal(h.offset(5), 250);
  assert.equal(h.offset(6), 270);
  assert.equal(h.offset(11), 11 * 50 - 30 + 100);
  assert.equal(h.total(), 5_000_000 + 70);
  assert.equal(h.measuredCount, 2);
});

test('a list too long for the browser to lay out estimates its rows smaller, so its last rows stay within reach', () => {
  // 2,000,000 chunks: 100,050 rows of about 400 px would be 40 M px, past Chromium's 2^25 px.
  const h = new Heights(400);
  h.reset(100_050);
  assert.ok(h.total() <= MAX_ESTIMATED_PX, `total ${h.total()} px`);
  const last = h.offset(h.count - 1);
  h.set(h.count - 1, 900);
  h.set(h.count - 2, 700);
  assert.equal(h.indexAt(h.total() - 1), h.count - 1, 'the bottom of the list is the last row');
  assert.ok(h.total() < 2 ** 25 && h.offset(h.count - 1) > last, 'measured rows still correct the total');
  for (const i of [0, 1, 5000, 100_047, 100_049]) assert.equal(h.indexAt(h.offset(i)), i, `row ${i}`);
  h.reset(1000);
  assert.equal(h.estimate, 400, 'a list that fits keeps the estimate');
});

test('indexAt is the inverse of offset, across measured and estimated rows', () => {
  const h = new Heights(40);
  h.reset(10_000);
  for (let i = 100; i < 200; i += 3) h.set(i, 10 + (i % 7) * 30);
  for (const i of [0, 1, 99, 100, 101, 150, 199, 200, 5000, 9999]) {
    assert.equal(h.indexAt(h.offset(i)), i, `row ${i} starts at ${h.offset(i)}`);
    assert.equal(h.indexAt(h.offset(i) + h.get(i) - 0.5), i, `row ${i} ends before the next`);
  }
  assert.equal(h.indexAt(-5), 0);
  assert.equal(h.indexAt(h.total() + 1000), 9999);
});
