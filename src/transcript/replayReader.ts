// Reading an exported replay that anyone may have handed the user: opened without blocking (a
// FIFO cannot hold the open), refused unless it is a regular file within a size bound, read in
// chunks from its descriptor (never the whole file as one string, never past the size fstat gave),
// each line bounded, and handed on in slices so the extension host stays free between them.
// Plain Node, no `vscode`.
import { constants, promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { SessionUpdate } from '../acp/types';
import { checkSessionUpdate, Problems } from '../acp/validate';
import { exportFileStem, isReplayHeader, REPLAY_FORMAT, REPLAY_VERSION, ReplayFileError, type ReplayHeader } from './replayFile';

export interface ReplayReadLimits {
  /** The largest file read, in bytes. */
  maxFileBytes: number;
  /** The longest line kept, in bytes (a longer one is skipped and counted). */
  maxLineBytes: number;
}

/** What a read found that it left out, known in full once the updates have been read. */
export interface ReplayReadCounts {
  /** Lines kept as updates. */
  updates: number;
  /** Lines that were not a `session/update` notification of this session. */
  skipped: number;
  /** Lines longer than `maxLineBytes` (skipped, not parsed). */
  tooLong: number;
}

export interface OpenedReplay {
  header: ReplayHeader;
  /** The file's size as fstat gave it when opened: no byte past it is read. */
  size: number;
  /** The updates after the header, a slice at a time; the file is closed when it ends or the iteration stops. */
  slices: AsyncIterable<SessionUpdate[]>;
  counts: ReplayReadCounts;
  /** Closes the file when `slices` will not be read to its end (or at all); harmless after. */
  close(): Promise<void>;
}

/** Why a file was not read: a message and, for the size, the figures a caller names. */
export class ReplayOpenError extends ReplayFileError {
  constructor(
    message: string,
    readonly reason: 'not-a-file' | 'too-large' | 'header',
    readonly figures?: { size: number; limit: number },
  ) {
    super(message);
    this.name = 'ReplayOpenError';
  }
}

/** Bytes read from the descriptor at a time. */
const CHUNK_BYTES = 1 << 20;
/** A slice ends after this many updates or this many bytes of lines, whichever comes first. */
const SLICE_UPDATES = 2000;
/** The first slice is this small (each next one twice as long, up to SLICE_UPDATES): the first screen waits for it alone. */
const FIRST_SLICE_UPDATES = 32;
const SLICE_BYTES = 4 << 20;
/** The header is one small JSON line; a longer first line is not a header. */
export const MAX_HEADER_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
// O_NONBLOCK is POSIX only (Windows has no FIFOs to open and no such flag).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Opens `path` as a replay: checks what it is before reading a byte, then reads its header line. */
export async function openReplay(path: string, limits: ReplayReadLimits): Promise<OpenedReplay> {
  const file = await openRegular(path, limits.maxFileBytes);
  let handedOn = false;
  try {
    const lines = lineReader(fileChunks(file.handle, file.size), limits.maxLineBytes);
    const first = await lines.next();
    if (first.done || first.value === TOO_LONG) throw new ReplayOpenError('the first line is not an acp-sessions/replay header', 'header');
    const header = parseHeader(first.value);
    const counts: ReplayReadCounts = { updates: 0, skipped: 0, tooLong: 0 };
    handedOn = true;
    let closed: Promise<void> | undefined;
    const close = () => (closed ??= file.handle.close().catch(() => undefined));
    return { header, size: file.size, slices: slices(close, lines, header.sessionId, counts), counts, close };
  } finally {
    if (!handedOn) await file.handle.close().catch(() => undefined);
  }
}

/**
 * A replay whose header is known and whose lines come as `chunks` (a kept copy's decompressed
 * body): read as a file's are, each line bounded and checked; `close` ends the source.
 */
export function openReplayLines(header: ReplayHeader, chunks: AsyncIterable<Uint8Array>, maxLineBytes: number, size: number, close: () => Promise<void>): OpenedReplay {
  const counts: ReplayReadCounts = { updates: 0, skipped: 0, tooLong: 0 };
  let closed: Promise<void> | undefined;
  const closeOnce = () => (closed ??= close().catch(() => undefined));
  return { header, size, slices: slices(closeOnce, lineReader(chunks, maxLineBytes), header.sessionId, counts), counts, close: closeOnce };
}

/** The header of `path` only (a bounded read of its first line), or undefined when it is no replay. */
export async function readReplayHeader(path: string, maxFileBytes: number): Promise<ReplayHeader | undefined> {
  let file: { handle: fs.FileHandle; size: number } | undefined;
  try {
    file = await openRegular(path, maxFileBytes);
    const first = await lineReader(fileChunks(file.handle, Math.min(file.size, MAX_HEADER_BYTES + 1)), MAX_HEADER_BYTES).next();
    return first.done || first.value === TOO_LONG ? undefined : parseHeader(first.value);
  } catch {
    return undefined;
  } finally {
    await file?.handle.close().catch(() => undefined);
  }
}

async function openRegular(path: string, maxFileBytes: number): Promise<{ handle: fs.FileHandle; size: number }> {
  const handle = await fs.open(path, OPEN_FLAGS);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new ReplayOpenError(`it is not a regular file (${kindOf(stat)})`, 'not-a-file');
    if (stat.size > maxFileBytes) throw new ReplayOpenError(`it is ${stat.size} bytes, more than the ${maxFileBytes} read`, 'too-large', { size: stat.size, limit: maxFileBytes });
    return { handle, size: stat.size };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

function kindOf(stat: import('node:fs').Stats): string {
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}

function parseHeader(line: string): ReplayHeader {
  let header: unknown;
  try {
    header = JSON.parse(line);
  } catch {
    throw new ReplayOpenError('the first line is not JSON', 'header');
  }
  if (!isReplayHeader(header)) throw new ReplayOpenError(`the first line is not an ${REPLAY_FORMAT} header`, 'header');
  if (header.version > REPLAY_VERSION) throw new ReplayOpenError(`version ${header.version} is newer than this extension reads (${REPLAY_VERSION})`, 'header');
  return header;
}

const TOO_LONG = Symbol('line too long');

/** The first `size` bytes of a file, a chunk at a time (each a view of one buffer, good until the next). */
async function* fileChunks(handle: fs.FileHandle, size: number): AsyncGenerator<Buffer> {
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, size)));
  let position = 0;
  while (position < size) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

/**
 * The lines of `chunks`, decoded one by one (a newline byte is never inside a UTF-8 sequence, so
 * each line decodes alone); a line over `maxLineBytes` is dropped as it is read and given as
 * TOO_LONG, its bytes never held. A chunk may be reused by its source once the next is asked for.
 */
async function* lineReader(chunks: AsyncIterable<Uint8Array>, maxLineBytes: number): AsyncGenerator<string | typeof TOO_LONG> {
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let overLong = false;
  for await (const bytes of chunks) {
    const chunk = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const bytesRead = chunk.length;
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      const stop = end === -1 ? bytesRead : end;
      const piece = stop - start;
      if (!overLong && partialBytes + piece > maxLineBytes) {
        overLong = true;
        partial = [];
        partialBytes = 0;
      }
      if (end === -1) {
        // The rest of the chunk begins a line the next chunk goes on with (copied: the buffer is reused).
        if (!overLong && piece > 0) {
          partial.push(Buffer.from(chunk.subarray(start, stop)));
          partialBytes += piece;
        }
        break;
      }
      if (overLong) yield TOO_LONG;
      else if (partialBytes === 0) yield chunk.toString('utf8', start, stop);
      else {
        partial.push(chunk.subarray(start, stop));
        yield Buffer.concat(partial, partialBytes + piece).toString('utf8');
      }
      partial = [];
      partialBytes = 0;
      overLong = false;
      start = end + 1;
    }
  }
  if (overLong) yield TOO_LONG;
  else if (partialBytes > 0) yield Buffer.concat(partial, partialBytes).toString('utf8');
}

async function* slices(close: () => Promise<void>, lines: AsyncGenerator<string | typeof TOO_LONG>, sessionId: string, counts: ReplayReadCounts): AsyncGenerator<SessionUpdate[]> {
  const problems = new Problems();
  try {
    let slice: SessionUpdate[] = [];
    let sliceBytes = 0;
    let sliceUpdates = FIRST_SLICE_UPDATES;
    for await (const line of lines) {
      if (line === TOO_LONG) {
        counts.tooLong++;
        continue;
      }
      if (line.trim() === '') continue;
      const update = updateOf(line, sessionId, problems);
      if (!update) {
        counts.skipped++;
        continue;
      }
      counts.updates++;
      slice.push(update);
      sliceBytes += line.length;
      if (slice.length >= sliceUpdates || sliceBytes >= SLICE_BYTES) {
        yield slice;
        slice = [];
        sliceBytes = 0;
        sliceUpdates = Math.min(SLICE_UPDATES, sliceUpdates * 2);
      }
    }
    if (slice.length > 0) yield slice;
  } finally {
    await close();
  }
}

/**
 * Hands each slice to `apply` and lets the event loop run (timers, I/O, other extensions) before
 * the next, as long as `wanted` says so; a stop closes the file.
 */
export async function forEachSlice<T>(slices: AsyncIterable<readonly T[]>, apply: (item: T) => void, wanted: () => boolean): Promise<void> {
  for await (const slice of slices) {
    let since = performance.now();
    for (let i = 0; i < slice.length; i++) {
      // Costly items (a long message's append) make a slice long: it is cut by the clock too.
      if (i % 256 === 0 && performance.now() - since > APPLY_MS) {
        await yieldToLoop();
        since = performance.now();
      }
      // Leaving the loop ends the iteration, which closes the file.
      if (!wanted()) return;
      apply(slice[i]);
    }
    await yieldToLoop();
  }
}

/** Applying a slice gives the event loop a turn after this many milliseconds at most. */
const APPLY_MS = 20;

function yieldToLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** A line's update when it is a `session/update` of this session, checked as the client checks an agent's. */
function updateOf(line: string, sessionId: string, problems: Problems): SessionUpdate | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  const m = message as { method?: unknown; params?: { sessionId?: unknown; update?: unknown } } | null;
  if (!m || typeof m !== 'object' || m.method !== 'session/update' || !m.params || typeof m.params !== 'object' || m.params.sessionId !== sessionId) return undefined;
  const update = m.params.update as { sessionUpdate?: unknown } | null;
  if (!update || typeof update !== 'object' || typeof update.sessionUpdate !== 'string') return undefined;
  return checkSessionUpdate(update as SessionUpdate, problems);
}

/** Every update of an opened replay, in order (tests, and readers that want them all). */
export async function collectReplay(opened: OpenedReplay): Promise<SessionUpdate[]> {
  const all: SessionUpdate[] = [];
  for await (const slice of opened.slices) all.push(...slice);
  return all;
}

/** How many entries of an export's folder are looked at for a child, at most. */
const MAX_FOLDER_ENTRIES = 10_000;
const REPLAY_SUFFIX = '.acp.ndjson';

/**
 * The replay file in `folder` (that folder only, no deeper) whose header is `sessionId` of
 * `agentName`, reading headers only (each bounded), or undefined. Files whose name holds the
 * id (as Export Sessions names them) are read first.
 */
export async function findReplayIn(folder: string, agentName: string, sessionId: string, maxFileBytes: number): Promise<string | undefined> {
  const names: string[] = [];
  const dir = await fs.opendir(folder);
  try {
    for await (const entry of dir) {
      if (entry.name.toLowerCase().endsWith(REPLAY_SUFFIX) && (entry.isFile() || entry.isSymbolicLink())) names.push(entry.name);
      if (names.length >= MAX_FOLDER_ENTRIES) break;
    }
  } finally {
    await dir.close().catch(() => undefined);
  }
  const hint = exportFileStem('', sessionId).replace(/^_/, '');
  const ordered = [...names.filter((n) => n.includes(hint)), ...names.filter((n) => !n.includes(hint))];
  for (const name of ordered) {
    const path = join(folder, name);
    const header = await readReplayHeader(path, maxFileBytes);
    if (header?.sessionId === sessionId && header.agentName === agentName) return path;
  }
  return undefined;
}
