// The reference agent's session store: one JSON file per session in a directory.
//
// Files: `<name>.json` holds a StoredSession; `<name>.deleted` is a tombstone marker; a long
// session's updates may live in a sidecar `<name>.<random>.updates.ndjson` (one update a line,
// named by the JSON's `updatesFile`), written before the JSON that names it and never
// rewritten, so the pair changes atomically with the JSON's rename, a reader streams the
// updates without holding them, and archive/rename (metadata only) leave the sidecar alone. Every
// JSON write goes to a unique temp file that is fsynced and renamed over the target, so a
// reader (or a crash) never sees a half-written session. Deletion lives in its own marker file
// that only `writeSession` with `deleted: false` removes: two agent processes may race an
// archive (read, modify, rename) against a delete, and whichever rename lands last, the
// marker keeps the session deleted, so no write can resurrect it. Archive state is an absolute
// value written whole, so concurrent archive/unarchive end in one of the two states, never a
// torn file.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
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
  /** The session this one was forked from (`session/fork`): listed as `_meta.jetbrains.air.forkedFrom`, as claude-agent-acp and codex-acp list it. */
  forkedFrom?: string;
  /**
   * Row metadata sent verbatim in `_meta.jetbrains.air` with --air-index (`model`, `lastPromptAt`,
   * `gitBranch`, `cost`, ...): any JSON object, so that tests can send fields of the wrong type.
   */
  airMeta?: Record<string, unknown>;
  /** Everything `session/load` replays, in order (empty when they live in `updatesFile`). */
  updates: SessionUpdate[];
  /** The sidecar holding the updates instead, a file name in the store (see {@link readSessionUpdates}). */
  updatesFile?: string;
  /** How many updates the sidecar holds (known before replaying it: --exit-at load-mid stops half-way). */
  updateCount?: number;
}

const JSON_SUFFIX = '.json';
const DELETED_SUFFIX = '.deleted';
const TEMP_MARK = '.tmp-';
const SIDECAR_SUFFIX = '.updates.ndjson';

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
  // Any folder an agent could report, relative ones too: a client must cope with them (Resume refuses one).
  if (typeof s.cwd !== 'string' || s.cwd === '') fail('`cwd` must be a non-empty string');
  if (s.title !== undefined && typeof s.title !== 'string') fail('`title` must be a string when present');
  if (typeof s.updatedAt !== 'string' || Number.isNaN(Date.parse(s.updatedAt))) fail('`updatedAt` must be an ISO 8601 date');
  if (typeof s.archived !== 'boolean') fail('`archived` must be a boolean');
  if (s.state !== undefined && typeof s.state !== 'string') fail('`state` must be a string when present');
  if (typeof s.deleted !== 'boolean') fail('`deleted` must be a boolean');
  if (s.additionalDirectories !== undefined && (!Array.isArray(s.additionalDirectories) || s.additionalDirectories.some((d) => typeof d !== 'string'))) {
    fail('`additionalDirectories` must be an array of strings when present');
  }
  if (s.parentSessionId !== undefined && (typeof s.parentSessionId !== 'string' || s.parentSessionId === '')) fail('`parentSessionId` must be a non-empty string when present');
  if (s.forkedFrom !== undefined && (typeof s.forkedFrom !== 'string' || s.forkedFrom === '')) fail('`forkedFrom` must be a non-empty string when present');
  if (s.airMeta !== undefined && (typeof s.airMeta !== 'object' || s.airMeta === null || Array.isArray(s.airMeta))) fail('`airMeta` must be a JSON object when present');
  if (!Array.isArray(s.updates)) fail('`updates` must be an array');
  if (s.updatesFile !== undefined) {
    if (typeof s.updatesFile !== 'string' || !s.updatesFile.endsWith(SIDECAR_SUFFIX) || /[/\\]|^\./.test(s.updatesFile)) fail(`\`updatesFile\` must be a file name ending in ${SIDECAR_SUFFIX}`);
    if (!Number.isSafeInteger(s.updateCount) || (s.updateCount as number) < 0) fail('`updateCount` must be a count when `updatesFile` is present');
    if ((s.updates as unknown[]).length) fail('`updates` must be empty when `updatesFile` holds them');
  }
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

/** A string of a stored update, or a clear error when it is not one. */
function updateLine(update: unknown, where: string): string {
  if (typeof update !== 'object' || update === null || typeof (update as { sessionUpdate?: unknown }).sessionUpdate !== 'string') {
    throw new Error(`${where}: has no string \`sessionUpdate\``);
  }
  return JSON.stringify(update) + '\n';
}

const WRITE_BATCH = 256 * 1024;

/**
 * Writes a sidecar of `updates` (one a line) through a write stream, waiting for it to drain,
 * so a session of any length never exists whole in memory. Returns its name and line count.
 */
async function writeSidecar(storeDir: string, sessionId: string, updates: Iterable<SessionUpdate> | AsyncIterable<SessionUpdate>): Promise<{ name: string; count: number }> {
  const name = `${sessionFileStem(sessionId)}.${randomBytes(6).toString('hex')}${SIDECAR_SUFFIX}`;
  const file = join(storeDir, name);
  const temp = `${file}${TEMP_MARK}${process.pid}-${randomBytes(6).toString('hex')}`;
  // `flush`: fsync before the stream closes its descriptor.
  const stream = createWriteStream(temp, { flags: 'wx', flush: true });
  const failed = new Promise<never>((_, reject) => stream.once('error', reject));
  failed.catch(() => undefined);
  let count = 0;
  try {
    let batch = '';
    const flush = async () => {
      const room = stream.write(batch);
      batch = '';
      if (!room) await Promise.race([once(stream, 'drain'), failed]);
    };
    for await (const update of updates) {
      batch += updateLine(update, `session ${JSON.stringify(sessionId)}: update ${count}`);
      count++;
      if (batch.length >= WRITE_BATCH) await flush();
    }
    if (batch) await flush();
    stream.end();
    await Promise.race([once(stream, 'close'), failed]);
  } catch (error) {
    stream.destroy();
    await rm(temp, { force: true });
    throw error;
  }
  await rename(temp, file);
  return { name, count };
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
 * With `updates`, they go to a new sidecar (streamed: any length) and `record.updates` must be
 * empty; a sidecar the session named before is removed once the new JSON is in place.
 */
export async function writeSession(storeDir: string, record: StoredSession, updates?: Iterable<SessionUpdate> | AsyncIterable<SessionUpdate>): Promise<void> {
  const previous = await readSession(storeDir, record.sessionId).catch(() => undefined);
  let written = record;
  if (updates) {
    if (record.updates.length) throw new Error(`session ${JSON.stringify(record.sessionId)}: updates given both in the record and as a stream`);
    await mkdir(storeDir, { recursive: true });
    const { name, count } = await writeSidecar(storeDir, record.sessionId, updates);
    written = { ...record, updates: [], updatesFile: name, updateCount: count };
  }
  await writeSessionFile(storeDir, written);
  if (record.deleted) await writeFileAtomic(deletedMarkerPath(storeDir, record.sessionId), new Date().toISOString() + '\n');
  else await rm(deletedMarkerPath(storeDir, record.sessionId), { force: true });
  if (previous?.updatesFile && previous.updatesFile !== written.updatesFile) await rm(join(storeDir, previous.updatesFile), { force: true });
}

const READ_CHUNK = 1024 * 1024;

/**
 * The session's updates in order: its `updates`, or its sidecar read in chunks and parsed a
 * line at a time (only as fast as the caller takes them). A line that is not an update, or a
 * count that differs from `updateCount`, throws a clear error naming the file and line.
 */
export async function* readSessionUpdates(storeDir: string, record: StoredSession): AsyncGenerator<SessionUpdate> {
  if (record.updatesFile === undefined) {
    yield* record.updates;
    return;
  }
  const file = join(storeDir, record.updatesFile);
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${file}: the updates of session ${JSON.stringify(record.sessionId)} are missing`);
    throw error;
  }
  try {
    const decoder = new StringDecoder('utf8');
    const buffer = Buffer.allocUnsafe(READ_CHUNK);
    let pending = '';
    let line = 0;
    const parse = (text: string): SessionUpdate => {
      line++;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new Error(`${file}:${line}: not valid JSON: ${(error as Error).message}`);
      }
      updateLine(value, `${file}:${line}`);
      return value as SessionUpdate;
    };
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK, null);
      if (bytesRead === 0) break;
      pending += decoder.write(buffer.subarray(0, bytesRead));
      let start = 0;
      let newline: number;
      while ((newline = pending.indexOf('\n', start)) >= 0) {
        const text = pending.slice(start, newline);
        start = newline + 1;
        yield parse(text);
      }
      pending = pending.slice(start);
    }
    pending += decoder.end();
    if (pending) yield parse(pending);
    if (line !== record.updateCount) throw new Error(`${file}: holds ${line} updates, session ${JSON.stringify(record.sessionId)} says ${record.updateCount}`);
  } finally {
    await handle.close();
  }
}

/** How many updates the session holds, without reading them. */
export function storedUpdateCount(record: StoredSession): number {
  return record.updatesFile === undefined ? record.updates.length : record.updateCount!;
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
