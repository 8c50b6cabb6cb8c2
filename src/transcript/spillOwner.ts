// Which extension host owns a spill file: its name carries the process's id and, on Linux, the
// process's start time (/proc/<pid>/stat), so a file of a host that is gone is told from one of a
// host that runs, even when another process got the dead host's pid since. Removing the files of
// hosts that are gone is cheap (a directory listing, a small read per file) and runs soon after
// activation, whether or not a transcript opens in the window. Plain Node, no `vscode`.
import { readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** `<pid>_<start>-<random>-<tag>.spill` (`_0` where the start time is unknown). */
const NAME = /^(\d+)_(\d+)-[0-9a-f]+-[a-z]+\.spill$/;
/** The names before the start time was in them: the pid alone tells. */
const PID_ONLY_NAME = /^(\d+)-[0-9a-f]+-[a-z]+\.spill$/;

let ownStart: string | undefined;

/** What names this process in a spill file's name: `<pid>_<start time>`. */
export function ownerTag(): string {
  ownStart ??= startTimeOf(process.pid) ?? '0';
  return `${process.pid}_${ownStart}`;
}

/**
 * When the process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat), or
 * undefined where there is no such file (no such process, or not Linux).
 */
export function startTimeOf(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = fields[19];
  return start && /^\d+$/.test(start) ? start : undefined;
}

/** Whether the file named `name` belongs to an extension host that is no longer running; false for names that are not ours. */
export function isStaleSpillName(name: string): boolean {
  const match = NAME.exec(name);
  if (match) {
    const pid = Number(match[1]);
    if (!isRunning(pid)) return true;
    if (match[2] === '0') return false;
    // A running process with another start time took a dead host's pid. Where /proc cannot be read, the pid alone tells.
    const start = startTimeOf(pid);
    return start !== undefined && start !== match[2];
  }
  const legacy = PID_ONLY_NAME.exec(name);
  return legacy !== null && !isRunning(Number(legacy[1]));
}

/** Removes the files in `dir` of extension hosts that are no longer running (a crash, a kill). Returns how many were removed. */
export async function removeStaleSpillFiles(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!isStaleSpillName(name)) continue;
    await rm(join(dir, name), { force: true }).then(() => removed++, () => undefined);
  }
  return removed;
}

/** Whether a process with this id runs (one we may not signal runs too). */
function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
