// What each session changed, as its last replay told it, kept across restarts and shared by every
// window of the profile: one small file per session in a folder of the extension's global storage
// (the files and line counts, never the texts). Each replay the extension receives (a transcript,
// a search index's load, a kept copy's) is counted as it comes (changes.ts) and written when it
// ends; a window writes under a name of its own and renames, and never replaces what a replay of a
// newer state of the session wrote (it checks the file on disk under a lock, common/fileLock.ts).
// Each window follows the folder. Plain Node (no `vscode`).
import { createHash, randomBytes } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReplayObserver, SessionUpdate } from '../acp/types';
import { withFileLock } from '../common/fileLock';
import { Emitter, type Disposable, type Event } from '../sessions/events';
import { ChangeCollector, type FileChange, type SessionChanges } from './changes';

/** What is kept of one session's changes. */
export interface StoredChanges extends SessionChanges {
  agent: string;
  sessionId: string;
  /** The session's `updatedAt` as listed when its replay ended, if known. */
  updatedAt?: string;
  /** When the replay ended (ISO): a session updated later may have changed more since. */
  observedAt: string;
  /** Files left out of `files` (past MAX_FILES); `added` and `removed` count them too. */
  moreFiles: number;
}

export interface ChangesStoreOptions {
  /** What the sessions model knows of the session when its replay ends. */
  facts(agent: string, sessionId: string): { updatedAt?: string } | undefined;
  log: { warn(message: string): void };
  /** Follow other windows' writes (default true). */
  follow?: boolean;
}

/** Files kept per session; the rest are counted in `moreFiles`. */
export const MAX_FILES = 200;
/** A path longer than this is cut (an agent's path is untrusted text). */
const MAX_PATH = 4096;
/** A file larger than this is not one of ours. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const FILE = /^([0-9a-f]{40})\.json$/;

export class ChangesStore implements Disposable {
  private readonly records = new Map<string, StoredChanges>();
  private readonly onDidChangeEmitter = new Emitter<{ agent?: string }>();
  /** The changes of an agent's sessions (or all) changed: a replay ended, a delete, or another window wrote. */
  readonly onDidChange: Event<{ agent?: string }> = this.onDidChangeEmitter.event;
  /** The first read of the folder, followed from before it (tests and the tree wait for it). */
  readonly scanned: Promise<void>;
  /** The last write (tests wait for it instead of sleeping). */
  lastWrite: Promise<unknown> = Promise.resolve();
  private watcher: FSWatcher | undefined;
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  private disposed = false;

  constructor(private readonly dir: string, private readonly options: ChangesStoreOptions) {
    this.scanned = this.start(options.follow !== false);
  }

  /**
   * Follows the folder, then reads it: another window's write between the two is seen either way
   * (followed after the read, a write in between was missed until that session was written again).
   */
  private async start(follow: boolean): Promise<void> {
    if (follow) {
      await mkdir(this.dir, { recursive: true, mode: 0o700 }).then(() => this.follow(), () => undefined);
    }
    await this.readAll();
  }

  /** What the last replay of the session told, or undefined when none was seen. */
  get(agent: string, sessionId: string): StoredChanges | undefined {
    return this.records.get(fileKey(agent, sessionId));
  }

  /** The observer of one replay (AcpClientOptions.replays): what it wrote is kept when it ends whole. */
  observe(agent: string, sessionId: string, cwd: string): ReplayObserver | undefined {
    if (this.disposed) return undefined;
    const collector = new ChangeCollector(cwd);
    return {
      update: (update: SessionUpdate) => collector.add(update),
      end: (ok: boolean) => {
        if (!ok || this.disposed) return;
        this.lastWrite = this.remember(agent, sessionId, collector.summary());
      },
    };
  }

  /** Keeps `changes` as the session's, unless what is kept came from a newer state of it. */
  async remember(agent: string, sessionId: string, changes: SessionChanges): Promise<void> {
    const updatedAt = this.options.facts(agent, sessionId)?.updatedAt;
    const key = fileKey(agent, sessionId);
    const existing = this.records.get(key);
    if (existing && isLater(existing.updatedAt, updatedAt)) return;
    const record: StoredChanges = {
      agent,
      sessionId,
      ...(updatedAt ? { updatedAt } : {}),
      observedAt: new Date().toISOString(),
      files: changes.files.slice(0, MAX_FILES).map((f) => ({ ...f, path: f.path.slice(0, MAX_PATH) })),
      moreFiles: Math.max(0, changes.files.length - MAX_FILES),
      added: changes.added,
      removed: changes.removed,
    };
    this.records.set(key, record);
    this.onDidChangeEmitter.fire({ agent });
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const path = join(this.dir, `${key}.json`);
      // Under the session's lock, what is on disk decides: another window may have written a
      // newer state a moment ago, which this one has not heard of yet.
      const newer = await withFileLock(join(this.dir, `.${key}.lock`), 'what this session changed', {}, async () => {
        const onDisk = await readRecord(path);
        if (onDisk && fileKey(onDisk.agent, onDisk.sessionId) === key && isLater(onDisk.updatedAt, updatedAt)) return onDisk;
        const temp = join(this.dir, `.${key}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
        try {
          await writeFile(temp, JSON.stringify(record), { mode: 0o600 });
          await rename(temp, path);
        } catch (error) {
          await rm(temp, { force: true });
          throw error;
        }
        return undefined;
      });
      if (newer && !this.disposed && this.records.get(key) === record) {
        this.records.set(key, newer);
        this.onDidChangeEmitter.fire({ agent });
      }
    } catch (error) {
      this.options.log.warn(`[${agent}] Could not keep what session ${JSON.stringify(sessionId.slice(0, 200))} changed: ${(error as Error)?.message ?? error}`);
    }
  }

  /** Forgets these sessions (deleted, or gone with nothing kept of them). */
  async forget(agent: string, sessionIds: readonly string[]): Promise<void> {
    let changed = false;
    for (const sessionId of sessionIds) {
      const key = fileKey(agent, sessionId);
      changed = this.records.delete(key) || changed;
      await rm(join(this.dir, `${key}.json`), { force: true }).catch(() => undefined);
    }
    if (changed) this.onDidChangeEmitter.fire({ agent });
  }

  dispose(): void {
    this.disposed = true;
    this.watcher?.close();
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    this.onDidChangeEmitter.dispose();
  }

  private async readAll(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    const read = await Promise.all(names.filter((n) => FILE.test(n)).map(async (name) => [FILE.exec(name)![1], await readRecord(join(this.dir, name))] as const));
    if (this.disposed) return;
    for (const [key, record] of read) {
      // A replay this window counted meanwhile is newer than what the folder held.
      if (record && fileKey(record.agent, record.sessionId) === key && !this.records.has(key)) this.records.set(key, record);
    }
    if (read.length > 0) this.onDidChangeEmitter.fire({});
  }

  /** Another window's write or delete: that session's file is read again (a burst once). */
  private follow(): void {
    if (this.disposed) return;
    try {
      this.watcher = watch(this.dir, { persistent: false }, (_event, name) => {
        const match = typeof name === 'string' ? FILE.exec(name) : null;
        if (!match) return;
        const key = match[1];
        clearTimeout(this.pending.get(key));
        this.pending.set(key, setTimeout(() => {
          this.pending.delete(key);
          void this.reread(key);
        }, 50));
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // No folder yet, or no watching here: this window's own replays still show.
    }
  }

  private async reread(key: string): Promise<void> {
    const record = await readRecord(join(this.dir, `${key}.json`));
    if (this.disposed) return;
    const had = this.records.get(key);
    if (!record || fileKey(record.agent, record.sessionId) !== key) {
      if (had && !(await exists(join(this.dir, `${key}.json`)))) {
        this.records.delete(key);
        this.onDidChangeEmitter.fire({ agent: had.agent });
      }
      return;
    }
    if (had && had.observedAt === record.observedAt) return;
    this.records.set(key, record);
    this.onDidChangeEmitter.fire({ agent: record.agent });
  }
}

/** The file name's stem for a session: a hash, so no agent name or id reaches the file system as a path. */
function fileKey(agent: string, sessionId: string): string {
  return createHash('sha1').update(JSON.stringify([agent, sessionId])).digest('hex');
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

async function readRecord(path: string): Promise<StoredChanges | undefined> {
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return undefined;
    return checkRecord(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    return undefined;
  }
}

const count = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;

/** The record a file holds, checked field by field (a damaged or foreign file is no record). */
export function checkRecord(value: unknown): StoredChanges | undefined {
  const r = value as Partial<StoredChanges> | null;
  if (!r || typeof r !== 'object' || typeof r.agent !== 'string' || typeof r.sessionId !== 'string' || typeof r.observedAt !== 'string') return undefined;
  if (!count(r.added) || !count(r.removed) || !count(r.moreFiles) || !Array.isArray(r.files)) return undefined;
  if (r.updatedAt !== undefined && typeof r.updatedAt !== 'string') return undefined;
  const files: FileChange[] = [];
  for (const f of r.files.slice(0, MAX_FILES) as Partial<FileChange>[]) {
    if (!f || typeof f.path !== 'string' || !count(f.added) || !count(f.removed) || !count(f.edits) || typeof f.linesKnown !== 'boolean') return undefined;
    files.push({ path: f.path.slice(0, MAX_PATH), added: f.added, removed: f.removed, edits: f.edits, linesKnown: f.linesKnown });
  }
  return { agent: r.agent, sessionId: r.sessionId, ...(r.updatedAt ? { updatedAt: r.updatedAt } : {}), observedAt: r.observedAt, files, moreFiles: r.moreFiles, added: r.added, removed: r.removed };
}

/**
 * Whether what is kept may be behind the session as listed now: the session was updated after
 * its replay ended (a load that resumes a session dates it before the replay ends, so that is not
 * counted as a change).
 */
export function isBehind(record: Pick<StoredChanges, 'updatedAt' | 'observedAt'>, updatedAt: string | null | undefined): boolean {
  if (!updatedAt) return false;
  const now = Date.parse(updatedAt);
  if (!Number.isFinite(now)) return false;
  const seen = Math.max(Date.parse(record.observedAt) || 0, record.updatedAt ? Date.parse(record.updatedAt) || 0 : 0);
  return now > seen;
}

/** Whether ISO date `a` is later than `b` (where either is unknown, neither is). */
function isLater(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const am = Date.parse(a);
  const bm = Date.parse(b);
  return Number.isFinite(am) && Number.isFinite(bm) && am > bm;
}
