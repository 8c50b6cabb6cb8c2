// Row heights of a virtualized list: measured rows keep their height, every other row counts
// as the estimate. Only rows the reader has seen are stored (sparse), so the cost is the
// rows seen, never the session's length; the list's total height covers every row from the
// start, and corrects itself as rows are measured. Plain TS (no DOM), tested under node.

/**
 * The most the unmeasured rows may add up to: a browser lays out at most 2^25 px (Chromium's
 * LayoutUnit; Firefox ~17.9 M), so a taller spacer is cut short and the last rows of a long
 * session (100,000 rows of 400 px) could never be scrolled to.
 */
export const MAX_ESTIMATED_PX = 15_000_000;

export class Heights {
  /** Rows in the list. */
  count = 0;
  private base: number;
  private readonly measured = new Map<number, number>();
  /** The measured rows' indices, ascending. */
  private sorted: number[] = [];

  constructor(estimate: number) {
    this.base = estimate;
  }

  /** The height of a row not measured yet: as set, or less when that would pass {@link MAX_ESTIMATED_PX}. */
  get estimate(): number {
    return this.count * this.base > MAX_ESTIMATED_PX ? Math.max(1, Math.floor(MAX_ESTIMATED_PX / this.count)) : this.base;
  }

  set estimate(height: number) {
    this.base = height;
  }

  get measuredCount(): number {
    return this.sorted.length;
  }

  /** Forgets every measurement (a fresh list). */
  reset(count: number): void {
    this.count = count;
    this.measured.clear();
    this.sorted = [];
  }

  get(index: number): number {
    return this.measured.get(index) ?? this.estimate;
  }

  isMeasured(index: number): boolean {
    return this.measured.has(index);
  }

  /** Records a row's measured height; true when it changed. */
  set(index: number, height: number): boolean {
    const old = this.measured.get(index);
    if (old === height) return false;
    if (old === undefined) this.sorted.splice(lowerBound(this.sorted, index), 0, index);
    this.measured.set(index, height);
    return true;
  }

  /** Where row `index` starts (the total height for `index === count`). */
  offset(index: number): number {
    let y = index * this.estimate;
    for (const i of this.sorted) {
      if (i >= index) break;
      y += this.measured.get(i)! - this.estimate;
    }
    return y;
  }

  total(): number {
    return this.offset(this.count);
  }

  /** The row at height `y` (clamped to the list). */
  indexAt(y: number): number {
    if (this.count === 0) return 0;
    if (y <= 0) return 0;
    let row = 0;
    let top = 0;
    for (const i of this.sorted) {
      if (i >= this.count) break;
      // Rows row..i-1 are estimates.
      const gap = (i - row) * this.estimate;
      if (y < top + gap) return Math.min(this.count - 1, row + Math.floor((y - top) / this.estimate));
      top += gap;
      const h = this.measured.get(i)!;
      if (y < top + h) return i;
      top += h;
      row = i + 1;
    }
    return Math.min(this.count - 1, row + Math.floor((y - top) / this.estimate));
  }
}

function lowerBound(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
