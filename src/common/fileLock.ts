// A lock between windows: a file created exclusively beside what it guards. Every VS Code window
// of a profile shares the global storage, so a check of what is on disk and the write that follows
// must be one step, or two windows each check, then each write, and the later write undoes the
// other's. Holding a lock takes milliseconds; one whose window is gone (same host, its process not
// running) or that is older than `staleMs` (15 s) is broken. Plain Node (no `vscode`).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';

/** A lock held longer belongs to a window that hung or died (holding one takes milliseconds). */
const STALE_MS = 15_000;
/** Longer than STALE_MS: a wait gives up only on a window that takes the lock anew each time. */
const WAIT_MS = 20_000;

export interface FileLockOptions {
  /** Who takes it (written into the lock, with the process and host); this process by default. */
  owner?: string;
  /** How long to wait for another's lock before giving up with a `LockBusyError` (WAIT_MS by default). */
  waitMs?: number;
  /** A lock older than this belongs to a window that hung or died: it is broken (STALE_MS by default). */
  staleMs?: number;
  /** Told once when another holds the lock (tests drive the order with it). */
  onBusy?: () => void;
}

export class LockBusyError extends Error {
  constructor(what: string) {
    super(`another window is writing ${what}`);
  }
}

/** Whether process `pid` of this host runs. */
export function processRuns(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Takes the lock at `path` (waiting for another's up to `waitMs`); resolves with its release.
 * Rejects with `LockBusyError` when the wait ran out, or with the error that kept the lock from
 * being written (a full disk: nothing is left behind).
 */
export async function acquireFileLock(path: string, what: string, options: FileLockOptions = {}): Promise<() => Promise<void>> {
  const token = `${options.owner ?? process.pid}.${randomBytes(4).toString('hex')}`;
  const deadline = Date.now() + (options.waitMs ?? WAIT_MS);
  let onBusy = options.onBusy;
  for (;;) {
    try {
      const handle = await open(path, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify({ token, pid: process.pid, host: hostname() }));
      } finally {
        await handle.close();
      }
      return async () => {
        // Only our own lock: one broken as stale meanwhile is another window's now.
        const held = await readFile(path, 'utf8').catch(() => '');
        if (held.includes(`"${token}"`)) await rm(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        // A lock file begun on a full disk may exist, empty.
        await rm(path, { force: true }).catch(() => undefined);
        throw error;
      }
    }
    if (await lockIsStale(path, options.staleMs ?? STALE_MS)) {
      // Moved aside first: of two windows breaking it at once, one moves it, the other finds none.
      const aside = `${path}.${randomBytes(4).toString('hex')}.stale`;
      await rename(path, aside).then(() => rm(aside, { force: true }), () => undefined);
      continue;
    }
    if (Date.now() > deadline) throw new LockBusyError(what);
    onBusy?.();
    onBusy = undefined;
    await pause(20 + Math.random() * 30);
  }
}

/** Runs `work` under the lock at `path` (see {@link acquireFileLock}), and lets go however it ends. */
export async function withFileLock<T>(path: string, what: string, options: FileLockOptions, work: () => Promise<T>): Promise<T> {
  const release = await acquireFileLock(path, what, options);
  try {
    return await work();
  } finally {
    await release().catch(() => undefined);
  }
}

async function lockIsStale(path: string, staleMs: number): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    if (Date.now() - info.mtimeMs > staleMs) return true;
    const { pid, host } = JSON.parse(text) as { pid?: unknown; host?: unknown };
    return host === hostname() && !processRuns(pid);
  } catch {
    // Gone (try again), or being written this instant (empty): not stale yet unless old.
    return false;
  }
}
