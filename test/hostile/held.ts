// Whether the event loop (the extension host's, or a plain Node's) was held while some work ran:
// a 10 ms timer ticks beside it, and the longest gap between ticks is what the tests bound.

/**
 * A gap between timer ticks this long means the loop was held, not busy: a loaded two-core machine
 * showed gaps up to 438 ms while reading a million lines; reading a FIFO the old way held it until
 * its writer came, 3 s later (the FIFO test's writer), so the bound stays below that.
 */
export const HELD_MS = 2500;

/** Runs `work` with a 10 ms interval ticking beside it: the longest gap between ticks (or from the last tick to the end). */
export async function longestGap<T>(work: () => Thenable<T> | Promise<T>): Promise<{ result: T; gapMs: number }> {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 10);
  try {
    const result = await work();
    gap = Math.max(gap, performance.now() - last);
    return { result, gapMs: gap };
  } finally {
    clearInterval(timer);
  }
}
