// Find's DOM-free part (src/webview/find.ts): which answer of the host's is current, what the
// count says, when a match is brought into view, and where a match is in a row's text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostToWebview } from '../../src/transcript/protocol';
import { FindSession, matchAt, matchSpan, queryWords } from '../../src/webview/find';

type Found = Extract<HostToWebview, { type: 'found' }>;
const found = (seq: number, fields: Partial<Found> = {}): Found =>
  ({ type: 'found', seq, query: 'q', total: 3, current: 1, index: 7, occurrence: 0, done: true, ...fields });

test('a new query starts a search from the row at the top; Enter steps through it', () => {
  const session = new FindSession();
  const first = session.search('needle', 1, 12);
  assert.deepEqual(first, { type: 'find', seq: 1, query: 'needle', step: 0, from: 12 }, 'a changed query is a new search, whatever the step');
  assert.deepEqual(session.search('needle', -1, 40), { type: 'find', seq: 2, query: 'needle', step: -1, from: 40 });
  assert.equal(session.search('', 1, 0), undefined, 'an empty query ends the search');
});

test('only the answer to the latest search counts', () => {
  const session = new FindSession();
  const old = session.search('a', 0, 0)!;
  const current = session.search('ab', 0, 0)!;
  assert.equal(session.found(found(old.seq)), undefined);
  assert.equal(session.found(found(current.seq))?.count, '1 of 3');
  session.close();
  assert.equal(session.found(found(current.seq)), undefined, 'nor after the bar closed');
});

test('the count says how many so far while the host is still searching, and when there is none', () => {
  const session = new FindSession();
  const { seq } = session.search('q', 0, 0)!;
  assert.equal(session.found(found(seq, { done: false, current: 2, total: 40 }))?.count, '2 of 40+');
  assert.deepEqual(session.found(found(seq, { total: 0, current: 0, index: -1 })), { count: 'No results', noResults: true });
  assert.deepEqual(session.found(found(seq, { total: 0, current: 0, index: -1, done: false })), { count: '', noResults: false });
});

test('a match is brought into view once; the same answer again moves nothing, a new step does', () => {
  const session = new FindSession();
  const { seq } = session.search('q', 0, 0)!;
  assert.deepEqual(session.found(found(seq))?.match, { index: 7, occurrence: 0, query: 'q' });
  assert.equal(session.found(found(seq, { done: true }))?.match, undefined);
  assert.deepEqual(session.found(found(seq, { occurrence: 1 }))?.match, { index: 7, occurrence: 1, query: 'q' });
  const next = session.search('q', 1, 0)!;
  assert.deepEqual(session.found(found(next.seq, { occurrence: 1 }))?.match, { index: 7, occurrence: 1, query: 'q' }, 'a new step shows its match again');
});

test('matchAt finds the nth match, case-insensitively, without overlapping', () => {
  assert.equal(matchAt('Aa aA aa', 'aa', 0), 0);
  assert.equal(matchAt('Aa aA aa', 'aa', 2), 6);
  assert.equal(matchAt('aaaa', 'aa', 1), 2, 'matches do not overlap');
  assert.equal(matchAt('Aa aA aa', 'aa', 9), 6, 'past the last: the last');
  assert.equal(matchAt('abc', 'x', 0), -1);
});

test('opened at a match of Search Sessions, the find sends its words, and the match it shows names them', () => {
  const session = new FindSession();
  const first = session.search('orbital relay', 0, 3, ['orbital', 'relay']);
  assert.deepEqual(first, { type: 'find', seq: 1, query: 'orbital relay', step: 0, from: 3, words: ['orbital', 'relay'] });
  assert.equal(session.search('orbital relay', 1, 3, ['orbital', 'relay'])?.step, 1, 'the same words: a step');
  assert.equal(session.search('orbital relay', 1, 3)?.step, 0, 'the same query as one string: a new search');
  const words = session.search('orbital relay', 0, 0, ['orbital', 'relay'])!;
  assert.deepEqual(session.found(found(words.seq))?.match, { index: 7, occurrence: 0, query: 'q', words: ['orbital', 'relay'] });
});

test('matchAt and matchSpan find the nth match of any of several words; queryWords reads words as Search Sessions does', () => {
  assert.equal(matchAt('The orbital relay; a RELAY', ['relay', 'orbital'], 2), 21);
  assert.deepEqual(matchSpan('The orbital relay', ['relay', 'orbital'], 1), [12, 17]);
  assert.equal(matchSpan('abc', ['x'], 0), undefined);
  assert.deepEqual(queryWords('zephyr "boot  loader" refact* Zephyr "" *'), ['zephyr', 'boot loader', 'refact', '*']);
});
