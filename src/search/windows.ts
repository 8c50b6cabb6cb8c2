// Several windows share one index: every VS Code window of a profile has the same global storage,
// and each runs its own SearchIndex on the same folder. The design, the simplest we found robust:
// - The manifest on disk is the shared truth. A window never writes it from its own view: it
//   keeps the changes it made since it last wrote (sessions indexed, deleted, dropped as damaged,
//   renamed or archived), and to write it takes a lock file (`index.lock`, common/fileLock.ts;
//   a lock whose window is gone or that is older than 15 s is broken), reads the
//   manifest, applies its changes to it, writes it (temp file, rename) and lets go. Its view
//   becomes what it wrote, so it also takes in what the others did. A window that only reads
//   takes in a newer manifest before it searches (its stamp changed).
// - Session files are never rewritten (each write is a new name), so readers need no lock. A file
//   is deleted only once no manifest names it: by the window whose write dropped it, after that
//   write. A file no manifest names yet (written, not listed yet: another window's write in
//   flight) belongs to the window named in its name, and is deleted only when that window is
//   gone: each window keeps `owner-<id>.json` (its process and host) while it runs.
// Plain Node (no `vscode`).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { chmod, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { acquireFileLock, processRuns } from '../common/fileLock';
import { LOCK_NAME, MANIFEST, ownerOfFile, type Entry, type SessionMeta } from './manifest';

const LOCK = LOCK_NAME;
/** How long a write waits for another window's lock before it tries again later. */
const LOCK_WAIT_MS = 3_000;
/** An owner on another host (a shared home folder) cannot be asked whether it runs: after this it is taken as gone. */
const OTHER_HOST_MS = 24 * 3_600_000;

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Folder 0700, files 0600: the indexed text is this user's alone (older versions made them 0755 and 0644). */
export async function secureFolder(dir: string): Promise<void> {
  const info = await stat(dir);
  if ((info.mode & 0o077) === 0 || process.platform === 'win32') return;
  await chmod(dir, DIR_MODE);
  for (const name of await readdir(dir)) await chmod(join(dir, name), FILE_MODE).catch(() => undefined);
}

export function newOwnerId(): string {
  return randomBytes(4).toString('hex');
}

const ownerFile = (id: string) => `owner-${id}.json`;

/** Says, while this window's index is open, that files named after `id` are in use. */
export async function registerOwner(dir: string, id: string): Promise<void> {
  await writeFile(join(dir, ownerFile(id)), JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() }), { mode: FILE_MODE });
}

export async function unregisterOwner(dir: string, id: string): Promise<void> {
  await rm(join(dir, ownerFile(id)), { force: true });
}

/** Whether the window `id` may still be running (it then owns the files named after it). */
export async function ownerIsLive(dir: string, id: string): Promise<boolean> {
  try {
    const path = join(dir, ownerFile(id));
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    const { pid, host } = JSON.parse(text) as { pid?: unknown; host?: unknown };
    if (host === hostname()) return processRuns(pid);
    return Date.now() - info.mtimeMs < OTHER_HOST_MS;
  } catch {
    return false;
  }
}

/** Takes the index's lock (waiting a little for another window's); resolves with its release. */
export function acquireLock(dir: string, owner: string, wait = LOCK_WAIT_MS): Promise<() => Promise<void>> {
  return acquireFileLock(join(dir, LOCK), 'the search index', { owner, waitMs: wait });
}

export type MetaPatch = Partial<Pick<SessionMeta, 'title' | 'archived' | 'cwd'>>;

/** What one window changed since it last wrote the manifest. */
export class PendingChanges {
  /** Sessions this window indexed: their entries name files it wrote. */
  readonly puts = new Map<string, Entry>();
  /** Sessions that left the agent (deleted). */
  readonly deletes = new Set<string>();
  /** Entries dropped because their file was missing or damaged: only that file's entry leaves. */
  readonly drops = new Map<string, string>();
  readonly patches = new Map<string, MetaPatch>();

  get empty(): boolean {
    return this.puts.size + this.deletes.size + this.drops.size + this.patches.size === 0;
  }

  put(key: string, entry: Entry): void {
    this.deletes.delete(key);
    this.drops.delete(key);
    this.patches.delete(key);
    this.puts.set(key, entry);
  }

  delete(key: string): void {
    this.puts.delete(key);
    this.patches.delete(key);
    this.drops.delete(key);
    this.deletes.add(key);
  }

  drop(key: string, file: string): void {
    if (this.puts.get(key)?.file === file) this.puts.delete(key);
    this.drops.set(key, file);
  }

  patch(key: string, patch: MetaPatch): void {
    const put = this.puts.get(key);
    // A new object: a write under way keeps the one it took, and `settle` sees this one changed.
    if (put) this.puts.set(key, { ...put, ...patch });
    else this.patches.set(key, { ...this.patches.get(key), ...patch });
  }

  /** A copy, to apply while more changes come; `settle` then forgets what the copy held. */
  snapshot(): PendingChanges {
    const copy = new PendingChanges();
    for (const [k, v] of this.puts) copy.puts.set(k, v);
    for (const k of this.deletes) copy.deletes.add(k);
    for (const [k, v] of this.drops) copy.drops.set(k, v);
    for (const [k, v] of this.patches) copy.patches.set(k, { ...v });
    return copy;
  }

  /** Forgets the changes of `written` that did not change since. */
  settle(written: PendingChanges): void {
    for (const [k, v] of written.puts) if (this.puts.get(k) === v) this.puts.delete(k);
    for (const k of written.deletes) if (!this.puts.has(k)) this.deletes.delete(k);
    for (const [k, v] of written.drops) if (this.drops.get(k) === v) this.drops.delete(k);
    for (const [k, v] of written.patches) {
      const now = this.patches.get(k);
      if (now && JSON.stringify(now) === JSON.stringify(v)) this.patches.delete(k);
    }
  }
}

export interface Merged {
  entries: Map<string, Entry>;
  /** Files the manifest named and the result does not: deleted once the result is written. */
  orphans: string[];
  /** Files of this window's entries that another window's newer entry replaced. */
  losers: string[];
}

/** The manifest on disk with one window's changes applied; of two entries for a session the one indexed last wins. */
export function merge(disk: ReadonlyMap<string, Entry>, changes: PendingChanges): Merged {
  const entries = new Map<string, Entry>();
  for (const [k, e] of disk) entries.set(k, { ...e });
  const losers: string[] = [];
  for (const k of changes.deletes) entries.delete(k);
  for (const [k, file] of changes.drops) if (entries.get(k)?.file === file) entries.delete(k);
  for (const [k, mine] of changes.puts) {
    const theirs = entries.get(k);
    if (theirs && theirs.file !== mine.file && theirs.indexedAt > mine.indexedAt) losers.push(mine.file);
    else entries.set(k, mine);
  }
  for (const [k, patch] of changes.patches) {
    const e = entries.get(k);
    if (e) Object.assign(e, patch);
  }
  const named = new Set([...entries.values()].map((e) => e.file));
  const orphans = [...new Set([...disk.values()].map((e) => e.file))].filter((f) => !named.has(f));
  return { entries, orphans, losers };
}

/**
 * Removes what no manifest names and no running window owns: files of a write cut short (a crash,
 * a full disk), of older versions, of windows that are gone. Another running window's files,
 * written and not listed yet, stay (`open`, `clear`); Clear removes this window's own as well, and
 * a rebuild (a manifest of another format) every session file. Returns how many were removed.
 */
export async function removeStrays(dir: string, named: ReadonlySet<string>, self: string, mode: 'open' | 'clear' | 'rebuild'): Promise<number> {
  const live = new Map<string, Promise<boolean>>([[self, Promise.resolve(true)]]);
  const isLive = (id: string) => {
    let known = live.get(id);
    if (!known) live.set(id, (known = ownerIsLive(dir, id)));
    return known;
  };
  let removed = 0;
  for (const name of await readdir(dir)) {
    if (name === MANIFEST || name === LOCK || named.has(name)) continue;
    const owner = ownerOfFile(name);
    const record = name === ownerFile(owner ?? '');
    if (owner && (record || (mode === 'open' || (mode === 'clear' && owner !== self))) && (await isLive(owner))) continue;
    await rm(join(dir, name), { force: true, recursive: true });
    removed++;
  }
  return removed;
}

/** The disk is full: said once in the log, and by `diskFull`, instead of a failure per session. */
export class IndexDiskFullError extends Error {
  readonly code = 'ENOSPC';
  constructor(dir: string) {
    super(`the disk holding the search index (${dir}) is full`);
  }
}

export const isDiskFull = (error: unknown) => (error as NodeJS.ErrnoException)?.code === 'ENOSPC' || error instanceof IndexDiskFullError;

/** A stamp of the manifest on disk: another one means another window wrote it. */
export async function stampOf(path: string): Promise<string> {
  const s = await stat(path).catch(() => undefined);
  return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : '';
}

