// Two observers of one replay as one (AcpClientOptions.replays): the kept copy's and the changes'.
// Plain Node, no `vscode`.
import type { ReplayObserver } from './types';

/** Both observers of one replay, each told every update (either may be undefined); one that fails stops alone, and is logged. */
export function bothObservers(a: ReplayObserver | undefined, b: ReplayObserver | undefined, log: { error(message: string): void }): ReplayObserver | undefined {
  if (!a || !b) return a ?? b;
  const failed = new Set<ReplayObserver>();
  const tell = (o: ReplayObserver, run: () => void) => {
    if (failed.has(o)) return;
    try {
      run();
    } catch (error) {
      failed.add(o);
      log.error(`A replay observer failed: ${(error as Error)?.stack ?? error}`);
    }
  };
  // One sink at most: the line worker writes the lines of the first observer that keeps them.
  const keeper = a.sink !== undefined ? a : b.sink !== undefined ? b : undefined;
  return {
    sink: keeper?.sink,
    sunk: (written) => {
      if (keeper) tell(keeper, () => keeper.sunk?.(written));
    },
    update: (update, line) => {
      tell(a, () => a.update(update, line));
      tell(b, () => b.update(update, line));
    },
    end: (ok) => {
      for (const o of [a, b]) {
        const whole = ok && !failed.has(o);
        failed.delete(o);
        tell(o, () => o.end(whole));
      }
    },
  };
}
