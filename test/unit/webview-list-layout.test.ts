// The virtual list's arithmetic (src/webview/listLayout.ts): which rows a view needs, and the
// order they are built in: the visible ones first, the run built always contiguous.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Heights } from '../../src/webview/heights';
import { BuildOrder, rowsInView } from '../../src/webview/listLayout';

function steps(order: BuildOrder, max = Infinity): number[] {
  const out: number[] = [];
  while (out.length < max) {
    const step = order.next();
    if (!step) break;
    out.push(step.index);
  }
  return out;
}

test('a view needs its visible rows and a margin on each side', () => {
  const h = new Heights(100);
  h.reset(1000);
  const { a, b, visible } = rowsInView(h, 5000, 500, 500);
  assert.deepEqual(visible, { from: 50, to: 56 });
  assert.deepEqual({ a, b }, { a: 45, b: 61 });
  assert.deepEqual(rowsInView(h, 99_000, 500, 500), { a: 985, b: 1000, visible: { from: 990, to: 996 } }, 'clamped to the list');
  h.reset(0);
  assert.deepEqual(rowsInView(h, 0, 500, 500), { a: 0, b: 0, visible: { from: 0, to: 0 } });
});

test('with nothing built, the visible rows come first, top down, then the margin below, then above', () => {
  assert.deepEqual(steps(new BuildOrder({ from: 10, to: 30 }, { from: 15, to: 20 }, undefined, false)),
    [15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 14, 13, 12, 11, 10]);
});

test('following the end, the visible rows come first from the bottom up', () => {
  assert.deepEqual(steps(new BuildOrder({ from: 10, to: 30 }, { from: 25, to: 30 }, undefined, true)),
    [29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10]);
});

test('rows built already are kept: the run grows from them on each side, and stays contiguous when stopped early', () => {
  const order = new BuildOrder({ from: 10, to: 30 }, { from: 15, to: 20 }, { start: 18, end: 22 }, false);
  assert.deepEqual(steps(order, 3), [17, 16, 15]);
  assert.deepEqual({ lo: order.lo, hi: order.hi }, { lo: 15, hi: 22 }, 'what was built is one run');
  assert.deepEqual(steps(order), [22, 23, 24, 25, 26, 27, 28, 29, 14, 13, 12, 11, 10]);
  assert.deepEqual({ lo: order.lo, hi: order.hi }, { lo: 10, hi: 30 });
});
