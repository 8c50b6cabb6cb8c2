// The search index's manifest (`index.json`) and the names of the index's files. Everything read
// from the folder is untrusted (another window, another version, a damaged disk wrote it): each
// entry is checked field by field, a bad one is left out (its session is indexed again), and a
// `file` is only ever one of the names the index itself writes, never a path. Plain Node.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Bumped whenever the files' layout or the grams change: an index of another version is rebuilt. */
export const FORMAT_VERSION = 4;
export const MANIFEST = 'index.json';
/** The lock a window holds while it writes the manifest (src/search/windows.ts). */
export const LOCK_NAME = 'index.lock';

export interface SessionMeta {
  agent: string;
  sessionId: string;
  title?: string;
  cwd: string;
  /** The agent's `updatedAt` when the text was indexed: another value later means re-index. */
  updatedAt?: string;
  archived: boolean;
}

export interface IndexedSession extends SessionMeta {
  /** When it was indexed (ISO). */
  indexedAt: string;
  /** Characters of text indexed. */
  chars: number;
}

export interface BlockRef {
  /** Byte offsets in the session's file. */
  bloomOff: number;
  bloomLen: number;
  off: number;
  len: number;
}

export interface Entry extends IndexedSession {
  file: string;
  blocks: BlockRef[];
}

export interface Manifest {
  version: number;
  sessions: Entry[];
}

export function keyOf(agent: string, sessionId: string): string {
  return `${agent}\u0000${sessionId}`;
}

/**
 * A session's file: `<20 hex of the key's hash>-<8 hex owner><8 hex random>.bin`, the owner being
 * the window (SearchIndex) that wrote it. Older versions wrote `<20 hex>-<8 hex>.bin` (no owner).
 */
const SESSION_FILE = /^[0-9a-f]{20}-(?:([0-9a-f]{8})[0-9a-f]{8}|[0-9a-f]{8})\.bin$/;
/** A session's file being written (renamed to its name when complete). */
const SESSION_TEMP = /^([0-9a-f]{20}-(?:[0-9a-f]{16}|[0-9a-f]{8})\.bin)\.tmp$/;
/** The manifest being written: `index.json.<owner>.<random>.tmp` (older versions: `index.json.<random>.tmp`). */
const MANIFEST_TEMP = /^index\.json\.(?:([0-9a-f]{8})\.)?[0-9a-f]{8}\.tmp$/;
/** A window's record of itself (src/search/windows.ts). */
const OWNER_FILE = /^owner-([0-9a-f]{8})\.json$/;

/** Whether `name` is a session file's name as the index writes it (so never a path). */
export function isSessionFile(name: unknown): name is string {
  return typeof name === 'string' && SESSION_FILE.test(name);
}

/** The window that wrote a file of the index folder, when its name says so. */
export function ownerOfFile(name: string): string | undefined {
  const temp = SESSION_TEMP.exec(name);
  if (temp) return SESSION_FILE.exec(temp[1])?.[1];
  return SESSION_FILE.exec(name)?.[1] ?? MANIFEST_TEMP.exec(name)?.[1] ?? OWNER_FILE.exec(name)?.[1];
}

export function isTempFile(name: string): boolean {
  return SESSION_TEMP.test(name) || MANIFEST_TEMP.test(name);
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const isText = (s: unknown): s is string => typeof s === 'string';

/** A manifest entry as read, or undefined when any field is not what the index writes. */
export function validEntry(raw: unknown): Entry | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const e = raw as Record<string, unknown>;
  if (!isText(e.agent) || !isText(e.sessionId) || !e.sessionId || !isText(e.cwd) || typeof e.archived !== 'boolean') return undefined;
  if (!isText(e.indexedAt) || !isCount(e.chars) || !isSessionFile(e.file) || !Array.isArray(e.blocks)) return undefined;
  if (e.title !== undefined && !isText(e.title)) return undefined;
  if (e.updatedAt !== undefined && !isText(e.updatedAt)) return undefined;
  const blocks: BlockRef[] = [];
  // The filters lie first, then the blocks: each within the file's layout as written.
  let bloomEnd = 0;
  for (const b of e.blocks as unknown[]) {
    if (typeof b !== 'object' || b === null) return undefined;
    const { bloomOff, bloomLen, off, len } = b as Record<string, unknown>;
    if (!isCount(bloomOff) || !isCount(bloomLen) || !isCount(off) || !isCount(len) || bloomLen === 0 || len === 0) return undefined;
    if (bloomOff !== bloomEnd) return undefined;
    bloomEnd += bloomLen;
    blocks.push({ bloomOff, bloomLen, off, len });
  }
  if (blocks.some((b) => b.off < bloomEnd)) return undefined;
  const entry: Entry = { agent: e.agent, sessionId: e.sessionId, cwd: e.cwd, archived: e.archived, indexedAt: e.indexedAt, chars: e.chars, file: e.file, blocks };
  if (e.title !== undefined) entry.title = e.title as string;
  if (e.updatedAt !== undefined) entry.updatedAt = e.updatedAt as string;
  return entry;
}

export type ManifestRead =
  /** No manifest yet. */
  | { kind: 'none' }
  /** Not JSON, or not a manifest at all. */
  | { kind: 'unreadable'; reason: string }
  | { kind: 'version'; version: unknown }
  /** `dropped`: entries left out as not valid (or naming the same session twice). */
  | { kind: 'ok'; entries: Map<string, Entry>; dropped: number };

export function parseManifest(text: string): ManifestRead {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { kind: 'unreadable', reason: (error as Error).message };
  }
  if (typeof raw !== 'object' || raw === null) return { kind: 'unreadable', reason: 'not an object' };
  const { version, sessions } = raw as { version?: unknown; sessions?: unknown };
  if (version !== FORMAT_VERSION) return { kind: 'version', version };
  if (!Array.isArray(sessions)) return { kind: 'unreadable', reason: 'no list of sessions' };
  const entries = new Map<string, Entry>();
  let dropped = 0;
  for (const item of sessions) {
    const entry = validEntry(item);
    const key = entry && keyOf(entry.agent, entry.sessionId);
    if (!entry || !key || entries.has(key)) dropped++;
    else entries.set(key, entry);
  }
  return { kind: 'ok', entries, dropped };
}

export async function readManifest(dir: string): Promise<ManifestRead> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unreadable', reason: (error as Error).message };
  }
  return parseManifest(text);
}
