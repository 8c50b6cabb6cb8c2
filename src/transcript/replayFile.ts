// An exported replay: the agent's `session/update` notifications of one session as NDJSON, one
// JSON-RPC notification a line, after a header line that says what it is. Reading one back gives
// the same updates, so the same timeline. Pure, no `vscode`.
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
  const head: ReplayHeader = { format: REPLAY_FORMAT, version: REPLAY_VERSION, ...header, updates: count };
  yield JSON.stringify(head) + '\n';
  for (const update of updates) yield JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: header.sessionId, update } }) + '\n';
}

export class ReplayFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplayFileError';
  }
}

/** Reads a replay file's text; throws ReplayFileError when it is not one. */
export function readReplay(text: string): ReplayFile {
  const lines = text.split(/\r?\n/);
  let header: unknown;
  try {
    header = JSON.parse(lines[0] ?? '');
  } catch {
    throw new ReplayFileError('the first line is not JSON');
  }
  if (!isHeader(header)) throw new ReplayFileError(`the first line is not an ${REPLAY_FORMAT} header`);
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

function isHeader(value: unknown): value is ReplayHeader {
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
 * A file name from a session's title: letters, digits, spaces, `-`, `_` and `.` kept, everything
 * else (separators, controls, reserved characters) a `-`; bounded; never empty, hidden or `..`.
 */
export function exportFileStem(title: string, sessionId: string): string {
  const base = `${title} ${sessionId}`.normalize('NFC').replace(/[^\p{L}\p{N} _.-]+/gu, '-').replace(/\s+/g, ' ').trim().slice(0, 100).replace(/^[.\s-]+|[.\s]+$/g, '');
  return base || 'session';
}
