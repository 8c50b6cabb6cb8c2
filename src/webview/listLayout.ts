// The virtual list's arithmetic, apart from the DOM: which rows a view needs built, and in which
// order to build them within a frame's room. Tested under Node; the list (virtualList.ts) does
// the building and measuring.
import type { Heights } from './heights';

export interface IndexRange {
  from: number;
  to: number;
}

/**
 * The rows a view [visTop, visTop + viewHeight) of the list needs: `visible`, and [a, b) which
 * adds `margin` pixels on each side.
 */
export function rowsInView(heights: Heights, visTop: number, viewHeight: number, margin: number): { a: number; b: number; visible: IndexRange } {
  const count = heights.count;
  if (!count) return { a: 0, b: 0, visible: { from: 0, to: 0 } };
  const visBottom = visTop + viewHeight;
  return {
    a: heights.indexAt(visTop - margin),
    b: Math.min(count, heights.indexAt(visBottom + margin) + 1),
    visible: { from: heights.indexAt(visTop), to: Math.min(count, heights.indexAt(visBottom) + 1) },
  };
}

/**
 * The order to build rows [from, to) in, next to the contiguous run already built: the visible
 * rows first (from the bottom when following the end), then the margin below and above. The
 * built run stays contiguous: each step adds the row just after it or just before it. With
 * nothing built, the run starts at the first visible row (the last, from the bottom).
 */
export class BuildOrder {
  /** The run built once the steps so far are taken: [lo, hi). */
  lo: number;
  hi: number;
  private readonly limits: number[];
  private limit = 0;

  constructor(range: IndexRange, visible: IndexRange, built: { start: number; end: number } | undefined, fromBottom: boolean) {
    const { from, to } = range;
    const visFrom = Math.min(to - 1, Math.max(from, visible.from));
    const visTo = Math.max(visFrom + 1, Math.min(to, visible.to));
    if (built) {
      this.lo = Math.max(from, built.start);
      this.hi = Math.min(to, built.end);
    } else {
      this.lo = this.hi = fromBottom ? visTo : visFrom;
    }
    this.limits = fromBottom ? [visFrom, to, from] : [visTo, visFrom, to, from];
  }

  /** The next row to build and whether it goes before the run, or undefined when the range is built. */
  next(): { index: number; before: boolean } | undefined {
    while (this.limit < this.limits.length) {
      const limit = this.limits[this.limit];
      if (limit > this.hi) return { index: this.hi++, before: false };
      if (limit < this.lo) return { index: --this.lo, before: true };
      this.limit++;
    }
    return undefined;
  }
}
