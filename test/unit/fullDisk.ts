// A real full disk for spill files: a tmpfs of a few hundred kilobytes mounted for the test (root
// with CAP_SYS_ADMIN, as CI runs), or, where mounting is refused, spill files that are links to
// /dev/full, whose every write fails with ENOSPC. Both are the kernel's own errors, not a stub.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpillFile, type SpillFileOptions } from '../../src/transcript/spillFile';

export interface FullDisk {
  /** How the disk is full: a small tmpfs, or /dev/full. */
  kind: 'tmpfs' | '/dev/full';
  /** The folder the spill files are in. */
  dir: string;
  /** A new spill file on it. */
  create(tag: string, options?: SpillFileOptions): SpillFile;
}

/** Mounts a tmpfs of `bytes` at `dir`; false when the system refuses (no root, no CAP_SYS_ADMIN, no `mount`). */
export function mountTmpfs(dir: string, bytes: number): boolean {
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  return mounted.status === 0;
}

export function unmount(dir: string): void {
  // Lazy: a descriptor a failed test left open does not keep the mount.
  spawnSync('umount', ['-l', dir]);
}

/** A full disk: a tmpfs of `bytes` when the system lets this process mount one (and `kind` does not ask for /dev/full), else /dev/full. */
export function fullDisk(t: { after(fn: () => void): void }, kind: FullDisk['kind'] = 'tmpfs', bytes = 256 * 1024): FullDisk {
  const dir = mkdtempSync(join(tmpdir(), 'spill-full-'));
  const mounted = kind === 'tmpfs' && mountTmpfs(dir, bytes);
  t.after(() => {
    if (mounted) unmount(dir);
    rmSync(dir, { recursive: true, force: true });
  });
  if (mounted) {
    return { kind: 'tmpfs', dir, create: (tag, options) => SpillFile.create(dir, tag, options) };
  }
  let n = 0;
  return {
    kind: '/dev/full',
    dir,
    create: (tag, options) => {
      const link = join(dir, `${tag}-${n++}.spill`);
      symlinkSync('/dev/full', link);
      return SpillFile.open(link, options);
    },
  };
}
