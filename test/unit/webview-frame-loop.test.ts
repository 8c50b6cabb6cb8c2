// The webview's frame loop (src/webview/frameLoop.ts): one frame asked for at a time, messages
// applied in order within a frame's budget, a long message resumed where it stopped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameLoop } from '../../src/webview/frameLoop';

/** Frames run when the test says, on a clock the test moves. */
function frames() {
  const waiting: Array<() => void> = [];
  let clock = 0;
  return {
    requestFrame: (callback: () => void) => waiting.push(callback),
    now: () => clock,
    advance: (ms: number) => (clock += ms),
    waiting,
    run: () => waiting.splice(0).forEach((f) => f()),
  };
}

test('one frame is asked for however many messages arrive before it', () => {
  const f = frames();
  let ran = 0;
  const loop = new FrameLoop<number>({ ...f, budgetMs: 16 }, () => ran++);
  loop.push(1);
  loop.push(2);
  loop.schedule();
  assert.equal(f.waiting.length, 1);
  f.run();
  assert.equal(ran, 1);
  loop.schedule();
  assert.equal(f.waiting.length, 1, 'after the frame ran, the next one can be asked for');
});

test('messages are applied in order until the frame\'s budget is spent; the rest waits for the next frame', () => {
  const f = frames();
  const applied: number[] = [];
  const loop: FrameLoop<number> = new FrameLoop<number>({ ...f, budgetMs: 16 }, () => {
    loop.drain(loop.deadline(), (message) => {
      applied.push(message);
      f.advance(10);
      return true;
    });
    if (loop.pending) loop.schedule();
  });
  for (let i = 0; i < 5; i++) loop.push(i);
  f.run();
  assert.deepEqual(applied, [0, 1], 'the second message passed the budget: the frame ends there');
  assert.equal(loop.pending, true);
  f.run();
  f.run();
  assert.deepEqual(applied, [0, 1, 2, 3, 4]);
  assert.equal(loop.pending, false);
});

test('a message stopped part-way is resumed from where it stopped, before the messages after it', () => {
  const f = frames();
  const seen: string[] = [];
  const loop: FrameLoop<string> = new FrameLoop<string>({ ...f, budgetMs: 16 }, () => {
    loop.drain(loop.deadline(), (message, from) => {
      seen.push(`${message}@${from}`);
      // The long message does 3 parts a frame, 7 in all.
      if (message === 'long') return from + 3 >= 7 ? true : from + 3;
      return true;
    });
  });
  loop.push('long');
  loop.push('next');
  f.run();
  loop.schedule();
  f.run();
  loop.schedule();
  f.run();
  assert.deepEqual(seen, ['long@0', 'long@3', 'long@6', 'next@0']);
});
