// Streamed text (src/webview/streamedText.ts): appended text is joined per row and put in once
// per frame, at most the frame's budget, which follows the rate the last frame measured.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_FRAME_TEXT_CHARS, MIN_FRAME_TEXT_CHARS, StreamedText } from '../../src/webview/streamedText';

/** Rows as strings of what was put in, on a clock the test moves. */
function setup() {
  let clock = 0;
  const shown = new Map<string, string[]>();
  const text = new StreamedText<string>({
    appendText: (row, t) => shown.set(row, [...(shown.get(row) ?? []), t]),
    now: () => clock,
  });
  return { text, shown, advance: (ms: number) => (clock += ms) };
}

test('text appended to a row during a frame goes in once, joined', () => {
  const { text, shown } = setup();
  text.add('a', 'one ');
  text.add('a', 'two ');
  text.add('b', 'three');
  assert.equal(text.put(false), 13);
  assert.deepEqual(shown.get('a'), ['one two ']);
  assert.deepEqual(shown.get('b'), ['three']);
  assert.equal(text.waiting, false);
  assert.ok(text.dirty.has('a') && text.dirty.has('b'), 'rows with new text wait for the Markdown pass');
});

test('a frame puts in at most its budget; the rest goes first in the next frame', () => {
  const { text, shown } = setup();
  const budget = text.frameBudget;
  text.add('a', 'x'.repeat(budget + 100));
  assert.equal(text.put(false), budget);
  text.add('a', 'y');
  assert.equal(text.put(false), 101);
  assert.deepEqual(shown.get('a')!.map((s) => s.length), [budget, 101]);
  assert.equal(shown.get('a')![1], 'x'.repeat(100) + 'y', 'the rest comes before text that arrived meanwhile');
});

test('following a replay, a frame puts in less: the text scrolls away with the next batch', () => {
  const { text } = setup();
  text.add('a', 'x'.repeat(text.frameBudget));
  const put = text.put(true);
  assert.ok(put > 0 && put < text.frameBudget, `${put} of ${text.frameBudget}`);
});

test('the next frame\'s budget follows the measured rate, at most double, within its bounds', () => {
  const { text, advance } = setup();
  const first = text.frameBudget;
  // Fast: the frame's text took 1 ms to shape; the budget doubles, not more.
  text.beginFrame();
  text.add('a', 'x'.repeat(first));
  text.put(false);
  advance(1);
  text.endFrame();
  assert.equal(text.frameBudget, 2 * first);
  // Slow: 100 ms for the frame's text; the budget falls, not below the floor.
  text.beginFrame();
  text.add('a', 'x'.repeat(text.frameBudget));
  text.put(false);
  advance(100_000);
  text.endFrame();
  assert.equal(text.frameBudget, MIN_FRAME_TEXT_CHARS);
  // A frame that put in little says nothing about the rate.
  text.beginFrame();
  text.add('a', 'x');
  text.put(false);
  advance(1000);
  text.endFrame();
  assert.equal(text.frameBudget, MIN_FRAME_TEXT_CHARS);
  for (let i = 0; i < 20; i++) {
    text.beginFrame();
    text.add('a', 'x'.repeat(text.frameBudget));
    text.put(false);
    advance(0.001);
    text.endFrame();
  }
  assert.equal(text.frameBudget, MAX_FRAME_TEXT_CHARS);
});

test('a row no longer built gives back the text not put in, for its model', () => {
  const { text } = setup();
  text.add('a', 'kept ');
  text.add('a', 'too');
  text.dirty.add('a');
  assert.equal(text.forget('a'), 'kept too');
  assert.equal(text.waiting, false);
  assert.equal(text.dirty.has('a'), false);
  assert.equal(text.forget('b'), undefined);
  text.add('c', 'replaced');
  text.replaced('c');
  assert.equal(text.waiting, false, 'a replaced row already holds what was appended');
});
