// The reference agent's session store: one JSON file per session in a directory.
//
// Files: `<name>.json` holds a StoredSession; `<name>.deleted` is a tombstone marker. Every
// JSON write goes to a unique temp file that is fsynced and renamed over the target, so a
// reader (or a crash) never sees a half-written session. Deletion lives in its own marker file
// that only `writeSession` with `deleted: false` removes: two agent processes may race an
// archive (read, modify, rename) against a delete, and whichever rename lands last, the
// marker keeps the session deleted, so no write can resurrect it. Archive state is an absolute
// value written whole, so concurrent archive/unarchive end in one of the two states, never a
// torn file.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type * as schema from '@agentclientprotocol/sdk/unstable';

/** A `session/update` payload as stored: a known kind of the schema, or any other kind verbatim. */
export type SessionUpdate = schema.SessionUpdate | UnknownSessionUpdate;

export interface UnknownSessionUpdate {
  sessionUpdate: string;
  [key: string]: unknown;
}

export interface StoredSession {
  sessionId: string;
  /** Absolute working directory; `session/list`'s `cwd` filter matches it exactly. */
  cwd: string;
  title?: string;
  /** ISO 8601; the list is ordered by it, newest first. */
  updatedAt: string;
  archived: boolean;
  deleted: boolean;
  /**
   * What the agent tells of the session's live state (--status, --air-state): any string, so that
   * tests can send unknown and hostile values; absent means the default of each way.
   */
  state?: string;
  /** Further workspace roots of the session (reported as `SessionInfo.additionalDirectories`). */
  additionalDirectories?: string[];
  /** A subagent session's parent: listed as `_meta.parentSessionId`. */
  parentSessionId?: string;
  /** Everything `session/load` replays, in order. */
  updates: SessionUpdate[];
}

const JSON_SUFFIX = '.json';
const DELETED_SUFFIX = '.deleted';
const TEMP_MARK = '.tmp-';

/** File name stem for a session ID: readable for plain IDs, escaped for anything else. */
export function sessionFileStem(sessionId: string): string {
  if (/^[A-Za-z0-9_-]{1,120}$/.test(sessionId)) return sessionId;
  return '~' + Buffer.from(sessionId, 'utf8').toString('base64url');
}

function sessionIdFromStem(stem: string): string {
  return stem.startsWith('~') ? Buffer.from(stem.slice(1), 'base64url').toString('utf8') : stem;
}

export function sessionFilePath(storeDir: string, sessionId: string): string {
  return join(storeDir, sessionFileStem(sessionId) + JSON_SUFFIX);
}

function deletedMarkerPath(storeDir: string, sessionId: string): string {
  return join(storeDir, sessionFileStem(sessionId) + DELETED_SUFFIX);
}

/** Throws a clear error when `value` is not a StoredSession; returns it typed otherwise. */
export function validateStoredSession(value: unknown, where: string): StoredSession {
  const fail = (why: string): never => {
    throw new Error(`${where}: not a stored session: ${why}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('expected a JSON object');
  const s = value as Record<string, unknown>;
  if (typeof s.sessionId !== 'string' || s.sessionId === '') fail('`sessionId` must be a non-empty string');
  if (typeof s.cwd !== 'string' || !s.cwd.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(s.cwd)) fail('`cwd` must be an absolute path');
  if (s.title !== undefined && typeof s.title !== 'string') fail('`title` must be a string when present');
  if (typeof s.updatedAt !== 'string' || Number.isNaN(Date.parse(s.updatedAt))) fail('`updatedAt` must be an ISO 8601 date');
  if (typeof s.archived !== 'boolean') fail('`archived` must be a boolean');
  if (s.state !== undefined && typeof s.state !== 'string') fail('`state` must be a string when present');
  if (typeof s.deleted !== 'boolean') fail('`deleted` must be a boolean');
  if (s.additionalDirectories !== undefined && (!Array.isArray(s.additionalDirectories) || s.additionalDirectories.some((d) => typeof d !== 'string'))) {
    fail('`additionalDirectories` must be an array of strings when present');
  }
  if (s.parentSessionId !== undefined && (typeof s.parentSessionId !== 'string' || s.parentSessionId === '')) fail('`parentSessionId` must be a non-empty string when present');
  if (!Array.isArray(s.updates)) fail('`updates` must be an array');
  (s.updates as unknown[]).forEach((u, i) => {
    if (typeof u !== 'object' || u === null || typeof (u as { sessionUpdate?: unknown }).sessionUpdate !== 'string') {
      fail(`updates[${i}] has no string \`sessionUpdate\``);
    }
  });
  return s as unknown as StoredSession;
}

/** Writes `content` to `file` atomically: unique temp file, fsync, rename over the target. */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const temp = `${file}${TEMP_MARK}${process.pid}-${randomBytes(6).toString('hex')}`;
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Writes the session's JSON file only, leaving its tombstone marker as it is. */
async function writeSessionFile(storeDir: string, record: StoredSession): Promise<void> {
  validateStoredSession(record, `session ${JSON.stringify(record?.sessionId)}`);
  await mkdir(storeDir, { recursive: true });
  await writeFileAtomic(sessionFilePath(storeDir, record.sessionId), JSON.stringify(record, null, 1) + '\n');
}

/**
 * Writes `record` as the whole truth about the session: its JSON file, and its tombstone
 * marker created or removed to match `record.deleted`. For seeding and tests; the agent's own
 * operations use {@link updateSession} and {@link markSessionDeleted}, which never undelete.
 */
export async function writeSession(storeDir: string, record: StoredSession): Promise<void> {
  await writeSessionFile(storeDir, record);
  if (record.deleted) await writeFileAtomic(deletedMarkerPath(storeDir, record.sessionId), new Date().toISOString() + '\n');
  else await rm(deletedMarkerPath(storeDir, record.sessionId), { force: true });
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Reads one session (tombstones included, with `deleted: true`); undefined when there is no such file. */
export async function readSession(storeDir: string, sessionId: string): Promise<StoredSession | undefined> {
  const file = sessionFilePath(storeDir, sessionId);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const record = parseSessionFile(text, file);
  if (record.sessionId !== sessionId) throw new Error(`${file}: holds session ${JSON.stringify(record.sessionId)}, expected ${JSON.stringify(sessionId)}`);
  if (!record.deleted && (await exists(deletedMarkerPath(storeDir, sessionId)))) record.deleted = true;
  return record;
}

function parseSessionFile(text: string, file: string): StoredSession {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  return validateStoredSession(value, file);
}

export interface ListStoredOptions {
  /** Called for a file that is not a valid session; without it such a file throws. */
  onInvalid?: (file: string, error: Error) => void;
  /** Reuses parsed records across calls while a file is unchanged (same inode, size, mtime). */
  cache?: Map<string, { key: string; record: StoredSession }>;
  /** Returns (and caches) records with `updates: []`, for listing without holding transcripts. */
  withoutUpdates?: boolean;
}

/** Every session in the store, tombstones included (with `deleted: true`), in no particular order. */
export async function listStoredSessions(storeDir: string, options: ListStoredOptions = {}): Promise<StoredSession[]> {
  let names: string[];
  try {
    names = await readdir(storeDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const deletedStems = new Set(names.filter((n) => n.endsWith(DELETED_SUFFIX)).map((n) => n.slice(0, -DELETED_SUFFIX.length)));
  const sessions: StoredSession[] = [];
  for (const name of names) {
    if (!name.endsWith(JSON_SUFFIX) || name.includes(TEMP_MARK)) continue;
    const file = join(storeDir, name);
    const stem = name.slice(0, -JSON_SUFFIX.length);
    try {
      const record = await readCached(file, options.cache, options.withoutUpdates ?? false);
      if (record === undefined) continue; // removed between readdir and read
      if (record.sessionId !== sessionIdFromStem(stem)) throw new Error(`${file}: holds session ${JSON.stringify(record.sessionId)}, not the one its name says`);
      sessions.push(deletedStems.has(stem) && !record.deleted ? { ...record, deleted: true } : record);
    } catch (error) {
      if (!options.onInvalid) throw error;
      options.onInvalid(file, error as Error);
    }
  }
  return sessions;
}

async function readCached(file: string, cache: ListStoredOptions['cache'], withoutUpdates: boolean): Promise<StoredSession | undefined> {
  const parse = async () => {
    const record = parseSessionFile(await readFile(file, 'utf8'), file);
    return withoutUpdates ? { ...record, updates: [] } : record;
  };
  try {
    if (!cache) return await parse();
    const info = await stat(file);
    const key = `${info.ino}:${info.size}:${info.mtimeMs}`;
    const hit = cache.get(file);
    if (hit && hit.key === key) return hit.record;
    const record = await parse();
    cache.set(file, { key, record });
    return record;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Read-modify-write of one session for the agent's operations. Returns the new record, or
 * undefined when the session does not exist or is deleted (then nothing is written). The
 * tombstone marker is never touched, so a concurrent delete always wins over this write.
 */
export async function updateSession(
  storeDir: string,
  sessionId: string,
  change: (record: StoredSession) => StoredSession | undefined | Promise<StoredSession | undefined>,
): Promise<StoredSession | undefined> {
  const current = await readSession(storeDir, sessionId);
  if (!current || current.deleted) return undefined;
  const next = await change(current);
  if (next === undefined) return current; // nothing to change (idempotent operation)
  await writeSessionFile(storeDir, { ...next, deleted: false });
  return next;
}

/** Marks a session deleted (its tombstone marker); false when there was no such session. */
export async function markSessionDeleted(storeDir: string, sessionId: string): Promise<boolean> {
  if (!(await exists(sessionFilePath(storeDir, sessionId)))) return false;
  await writeFileAtomic(deletedMarkerPath(storeDir, sessionId), new Date().toISOString() + '\n');
  return true;
}

/** Removes temp files left by a crashed writer (older than `olderThanMs`). */
export async function removeStaleTempFiles(storeDir: string, olderThanMs = 60_000): Promise<void> {
  let names: string[];
  try {
    names = await readdir(storeDir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    if (!name.includes(TEMP_MARK)) continue;
    const file = join(storeDir, name);
    try {
      if (now - (await stat(file)).mtimeMs > olderThanMs) await unlink(file);
    } catch {
      // Another process removed or renamed it first.
    }
  }
}
