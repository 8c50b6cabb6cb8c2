// An exported replay: the agent's `session/update` notifications of one session as NDJSON, one
// JSON-RPC notification a line, after a header line that says what it is. Reading one back gives
// the same updates, so the same timeline. Pure, no `vscode`.
import { createHash } from 'node:crypto';
import type { SessionUpdate } from '../acp/types';

/** The header line's marker and version. */
export const REPLAY_FORMAT = 'acp-sessions/replay';
export const REPLAY_VERSION = 1;

export interface ReplayHeader {
  format: typeof REPLAY_FORMAT;
  version: number;
  agentName: string;
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt?: string;
  archived?: boolean;
  /** When the file was written (ISO). */
  exportedAt: string;
  /** How many updates follow. */
  updates: number;
}

export interface ReplayFile {
  header: ReplayHeader;
  updates: SessionUpdate[];
  /** Lines that were not a `session/update` notification of this session (skipped). */
  skipped: number;
}

/** The whole file's text: the header, then one notification a line. */
export function writeReplay(header: Omit<ReplayHeader, 'format' | 'version' | 'updates'>, updates: readonly SessionUpdate[]): string {
  let text = '';
  for (const line of replayLines(header, updates, updates.length)) text += line;
  return text;
}

/** The file's lines (each with its newline), for a writer that does not hold the whole text: `count` updates follow the header. */
export function* replayLines(header: Omit<ReplayHeader, 'format' | 'version' | 'updates'>, updates: Iterable<SessionUpdate>, count: number): Generator<string> {
  yield replayHeaderLine(header, count);
  for (const update of updates) yield replayUpdateLine(header.sessionId, update);
}

/** The header line (with its newline), `count` updates to follow. */
export function replayHeaderLine(header: Omit<ReplayHeader, 'format' | 'version' | 'updates'>, count: number): string {
  const head: ReplayHeader = { format: REPLAY_FORMAT, version: REPLAY_VERSION, ...header, updates: count };
  return JSON.stringify(head) + '\n';
}

/** One update's line (with its newline): the `session/update` notification it came in. */
export function replayUpdateLine(sessionId: string, update: SessionUpdate): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } }) + '\n';
}

export class ReplayFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplayFileError';
  }
}

/** Reads a replay held as text (a file is read with `openReplay`, bounded); throws ReplayFileError when it is not one. */
export function readReplay(text: string): ReplayFile {
  const lines = text.split(/\r?\n/);
  let header: unknown;
  try {
    header = JSON.parse(lines[0] ?? '');
  } catch {
    throw new ReplayFileError('the first line is not JSON');
  }
  if (!isReplayHeader(header)) throw new ReplayFileError(`the first line is not an ${REPLAY_FORMAT} header`);
  if (header.version > REPLAY_VERSION) throw new ReplayFileError(`version ${header.version} is newer than this extension reads (${REPLAY_VERSION})`);
  const updates: SessionUpdate[] = [];
  let skipped = 0;
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const params = (message as { method?: unknown; params?: { sessionId?: unknown; update?: unknown } } | null);
    if (params?.method !== 'session/update' || params.params?.sessionId !== header.sessionId || !isUpdate(params.params.update)) {
      skipped++;
      continue;
    }
    updates.push(params.params.update);
  }
  return { header, updates, skipped };
}

export function isReplayHeader(value: unknown): value is ReplayHeader {
  const h = value as Partial<ReplayHeader> | null;
  return (
    !!h && typeof h === 'object' && h.format === REPLAY_FORMAT && typeof h.version === 'number' &&
    typeof h.agentName === 'string' && typeof h.sessionId === 'string' && typeof h.cwd === 'string' &&
    (h.title === undefined || typeof h.title === 'string') && (h.updatedAt === undefined || typeof h.updatedAt === 'string')
  );
}

function isUpdate(value: unknown): value is SessionUpdate {
  return !!value && typeof value === 'object' && typeof (value as { sessionUpdate?: unknown }).sessionUpdate === 'string';
}

/**
 * The most UTF-8 bytes of a stem: a file name is at most 255 bytes on the common file systems,
 * and " (999)" and ".acp.ndjson" go after the stem.
 */
export const MAX_STEM_BYTES = 255 - ' (999)'.length - '.acp.ndjson'.length;
/** An id longer than this (in bytes) is cut and a hash of the whole id added, so it stays told apart. */
const MAX_ID_BYTES = 120;
/** Windows' device names, which no file may be called, whatever its extension (`CON.md`, `nul.acp.ndjson`). */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\s*\.|\s*$)/i;

/**
 * A file name from a session's title and id: letters, digits, spaces, `-`, `_` and `.` kept,
 * everything else (separators, controls, reserved characters) a `-`; never empty, hidden or `..`;
 * at most MAX_STEM_BYTES in UTF-8 with the id always whole at its end (the title is what is cut);
 * a Windows device name gets a `_` in front.
 */
export function exportFileStem(title: string, sessionId: string): string {
  const id = boundId(clean(sessionId));
  const room = MAX_STEM_BYTES - utf8Bytes(id) - (id ? 1 : 0);
  const head = clean(title);
  const cut = trimEnds(cutToBytes(head, Math.max(0, room)));
  let stem = trimEnds([cut, id].filter(Boolean).join(' '));
  if (!stem) stem = 'session';
  return RESERVED.test(stem) ? `_${stem}` : stem;
}

function clean(text: string): string {
  return text.normalize('NFC').replace(/[^\p{L}\p{N} _.-]+/gu, '-').replace(/\s+/g, ' ').trim();
}

function trimEnds(text: string): string {
  return text.replace(/^[.\s-]+|[.\s]+$/g, '');
}

function boundId(id: string): string {
  if (utf8Bytes(id) <= MAX_ID_BYTES) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 12);
  return `${trimEnds(cutToBytes(id, MAX_ID_BYTES - hash.length - 1))}-${hash}`;
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The longest start of `text` of at most `max` UTF-8 bytes, cut between code points (never inside a surrogate pair). */
function cutToBytes(text: string, max: number): string {
  if (utf8Bytes(text) <= max) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8Bytes(char);
    if (bytes + size > max) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}
