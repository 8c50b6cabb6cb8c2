// One kept copy of a session on disk: the replay's `session/update` lines as the agent sent them,
// gzip-compressed, then a trailer that says whose they are. The trailer comes last because what
// it counts is known only once the replay ended; a listing reads it alone (a few kilobytes from
// the file's end), never the body.
//
//   [gzip body][trailer JSON, UTF-8][trailer length: u32 LE][MAGIC, 8 bytes]
//
// A copy is written under a temporary name beside its place, flushed to disk and renamed, so a
// window closed, a full disk or a crash half-way leaves no file that reads as whole; one cut short
// later fails the checks here (its size, the gzip frame) and, read to its end, gzip's own CRC.
// Plain Node, no `vscode`.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { basename, dirname, join } from 'node:path';
import { createGunzip, createGzip } from 'node:zlib';
import { linesIn } from '../acp/lineParse';
import { withFileLock } from '../common/fileLock';
import type { LineSink } from '../acp/lineWorker';
import type { ReplayHeader } from '../transcript/replayFile';
import { openReplayLines, type OpenedReplay } from '../transcript/replayReader';

export const KEPT_FORMAT = 'acp-sessions/kept';
export const KEPT_VERSION = 1;
const MAGIC = Buffer.from('ACPKEEP1', 'latin1');
const TAIL_BYTES = 4 + MAGIC.length;
/** A trailer is one small JSON object; a longer one is not a trailer. */
const MAX_TRAILER_BYTES = 64 * 1024;
/** What a listing reads of a copy's end at first. */
const FIRST_TAIL_READ = 4096;
/** Lines gathered before they are written: few writes, little waiting on the heap. */
const STAGE_BYTES = 256 * 1024;
/** Stages kept for use again once written: the writes in flight seldom number more. */
const SPARE_STAGES = 4;
const NEWLINE = 0x0a;
export const KEPT_SUFFIX = '.kept';
const TMP_SUFFIX = '.tmp';
const GONE_SUFFIX = '.gone';
const LOCK_SUFFIX = '.lock' + TMP_SUFFIX;

/** What a kept copy says of itself. */
export interface KeptMeta {
  format: typeof KEPT_FORMAT;
  version: number;
  agentName: string;
  sessionId: string;
  cwd: string;
  title?: string;
  /** The session's `updatedAt` as the agent listed it when the copy was made. */
  updatedAt?: string;
  archived?: boolean;
  /** When the copy was made (ISO). */
  keptAt: string;
  /** How many updates the body holds. */
  updates: number;
  /** The compressed body's bytes, and what it holds uncompressed. */
  bodyBytes: number;
  rawBytes: number;
}

/** The session's facts a copy records, as its writer is told them at the end. */
export type KeptFacts = Pick<KeptMeta, 'agentName' | 'sessionId' | 'cwd' | 'title' | 'updatedAt' | 'archived'>;

export class KeptFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeptFileError';
  }
}

/** Where `agentName`'s copies live under `root`: names are hashes, never the agent's text. */
export function agentFolder(root: string, agentName: string): string {
  return join(root, hash(agentName, 16));
}

/** The file of one session's copy. */
export function keptPath(root: string, agentName: string, sessionId: string): string {
  return join(agentFolder(root, agentName), hash(sessionId, 32) + KEPT_SUFFIX);
}

/** The mark a delete here leaves, so a copy another window was writing at that moment is not put back. */
export function gonePath(keptFile: string): string {
  return keptFile.slice(0, -KEPT_SUFFIX.length) + GONE_SUFFIX;
}

/** The lock of the copy at `keptFile` (see {@link withKeptLock}). */
export function keptLockPath(keptFile: string): string {
  return join(dirname(keptFile), '.' + basename(keptFile, KEPT_SUFFIX) + LOCK_SUFFIX);
}

/**
 * Runs `work` while no other window (or store) runs work on the copy at `keptFile`: the check of
 * what is in place and the rename that follows must be one step, or a copy of an older state
 * renamed a moment after a newer one was checked replaces it. The lock's file has a temporary
 * name, so a scan removes one left behind. `onBusy` is told when another holds it.
 */
export function withKeptLock<T>(keptFile: string, work: () => Promise<T>, onBusy?: () => void): Promise<T> {
  return withFileLock(keptLockPath(keptFile), 'this copy', { onBusy }, work);
}

export function isKeptName(name: string): boolean {
  return name.endsWith(KEPT_SUFFIX) && !name.startsWith('.');
}

export function isTemporaryName(name: string): boolean {
  return name.startsWith('.') && name.endsWith(TMP_SUFFIX);
}

function hash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * Reads the trailer of `path` and checks the file against it: its size, the gzip frame's start
 * and the uncompressed size gzip records at its end. Throws KeptFileError naming what is wrong.
 */
export async function readKeptMeta(path: string): Promise<{ meta: KeptMeta; size: number; mtimeMs: number }> {
  const handle = await fs.open(path, 'r');
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new KeptFileError('it is not a regular file');
    const size = stat.size;
    if (size < TAIL_BYTES + 18) throw new KeptFileError(`it is ${size} bytes, too short to be a copy`);
    // A trailer is a few hundred bytes: the file's last kilobytes hold it (and gzip's size before
    // it); a longer one is read again, whole. A listing of a thousand copies reads little.
    let tail = Buffer.allocUnsafe(Math.min(size, FIRST_TAIL_READ));
    await readFully(handle, tail, size - tail.length);
    if (!tail.subarray(tail.length - MAGIC.length).equals(MAGIC)) throw new KeptFileError('its end is missing (it was cut short or is not a copy)');
    const trailerBytes = tail.readUInt32LE(tail.length - TAIL_BYTES);
    if (trailerBytes > MAX_TRAILER_BYTES || trailerBytes + TAIL_BYTES + 4 > size) throw new KeptFileError('its trailer is too long');
    if (trailerBytes + TAIL_BYTES + 4 > tail.length) {
      tail = Buffer.allocUnsafe(trailerBytes + TAIL_BYTES + 4);
      await readFully(handle, tail, size - tail.length);
    }
    const trailerStart = tail.length - TAIL_BYTES - trailerBytes;
    let meta: unknown;
    try {
      meta = JSON.parse(tail.toString('utf8', trailerStart, tail.length - TAIL_BYTES));
    } catch {
      throw new KeptFileError('its trailer is not JSON');
    }
    if (!isKeptMeta(meta)) throw new KeptFileError(`its trailer is not an ${KEPT_FORMAT} trailer`);
    if (meta.version > KEPT_VERSION) throw new KeptFileError(`version ${meta.version} is newer than this extension reads (${KEPT_VERSION})`);
    if (meta.bodyBytes + trailerBytes + TAIL_BYTES !== size) throw new KeptFileError(`it is ${size} bytes where its trailer counts ${meta.bodyBytes + trailerBytes + TAIL_BYTES}`);
    const head = Buffer.alloc(2);
    await readFully(handle, head, 0);
    // gzip's magic first; its last four body bytes are the uncompressed size, modulo 2^32.
    if (head[0] !== 0x1f || head[1] !== 0x8b) throw new KeptFileError('its body is not gzip');
    const isize = tail.readUInt32LE(trailerStart - 4);
    if (isize !== meta.rawBytes % 2 ** 32) throw new KeptFileError('its body does not end where gzip says');
    return { meta, size, mtimeMs: stat.mtimeMs };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function readFully(handle: fs.FileHandle, into: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new KeptFileError('it ended while being read');
    done += bytesRead;
  }
}

function isKeptMeta(value: unknown): value is KeptMeta {
  const m = value as Partial<KeptMeta> | null;
  const optionalString = (v: unknown) => v === undefined || typeof v === 'string';
  return (
    !!m && typeof m === 'object' && m.format === KEPT_FORMAT && typeof m.version === 'number' &&
    typeof m.agentName === 'string' && typeof m.sessionId === 'string' && typeof m.cwd === 'string' &&
    optionalString(m.title) && optionalString(m.updatedAt) && (m.archived === undefined || typeof m.archived === 'boolean') &&
    typeof m.keptAt === 'string' && isCount(m.updates) && isCount(m.bodyBytes) && isCount(m.rawBytes)
  );
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/**
 * Opens a copy to read as an exported replay is read (each line bounded and checked as an agent's
 * is: the file is on a disk other windows write to). A body that fails gzip's check ends the
 * slices with a KeptFileError.
 */
export async function openKept(path: string, maxLineBytes: number): Promise<OpenedReplay & { meta: KeptMeta }> {
  const { meta } = await readKeptMeta(path);
  const stream = createReadStream(path, { start: 0, end: Math.max(0, meta.bodyBytes - 1) });
  const gunzip = createGunzip();
  stream.on('error', (error) => gunzip.destroy(error));
  stream.pipe(gunzip);
  const header: ReplayHeader = {
    format: 'acp-sessions/replay',
    version: 1,
    agentName: meta.agentName,
    sessionId: meta.sessionId,
    cwd: meta.cwd,
    title: meta.title,
    updatedAt: meta.updatedAt,
    archived: meta.archived,
    exportedAt: meta.keptAt,
    updates: meta.updates,
  };
  const close = async () => {
    stream.destroy();
    gunzip.destroy();
  };
  return { ...openReplayLines(header, checkedChunks(gunzip), maxLineBytes, meta.bodyBytes, close), meta };
}

async function* checkedChunks(gunzip: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of gunzip) yield chunk;
  } catch (error) {
    throw new KeptFileError(`the copy is damaged: ${(error as Error)?.message ?? error}`);
  }
}

/**
 * Writes one copy as a replay comes in: `push` takes each update's line (copied at once) and the
 * lines go to a temporary file as they are, on libuv's threads; `endBody` compresses them into
 * the body once the replay has ended, so the compressing (about 0.35 s of CPU per 65 MB) is not
 * on the cores the agent, the line worker and the page share while the session comes in.
 * `finish` puts the copy in its place when `keep` agrees, `abort` drops it. Never throws into
 * `push`: a failed write is told by `finish`.
 */
export class KeptWriter {
  private readonly tmp: string;
  /** The lines as they come, uncompressed: gone once the body is written (or the copy dropped). */
  private readonly raw: string;
  private readonly opened: Promise<fs.FileHandle>;
  /** The writes to `raw` so far, in order: rejects with the first that failed. */
  private writes: Promise<void>;
  private position = 0;
  private stage: Buffer = Buffer.allocUnsafe(STAGE_BYTES);
  /**
   * Stages written, to stage again: a new buffer for each (65 MB of them for a 200,000-chunk
   * replay) counted towards the next full collection of the thread that made it (Node 24, V8 13).
   */
  private readonly spare: Buffer[] = [];
  private staged = 0;
  private rawBytes = 0;
  private updates = 0;
  private failure: Error | undefined;
  private ended = false;
  readonly startedAt = Date.now();

  constructor(readonly path: string) {
    const name = `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}`;
    this.tmp = join(dirname(path), name + TMP_SUFFIX);
    this.raw = join(dirname(path), `${name}.raw${TMP_SUFFIX}`);
    this.opened = fs.mkdir(dirname(path), { recursive: true, mode: 0o700 }).then(() => fs.open(this.raw, 'wx', 0o600));
    this.writes = this.heard(this.opened.then(() => undefined));
  }

  /** `writes`, its failure heard at once (a full disk stops the pushes; `finish` rejects with it). */
  private heard(writes: Promise<void>): Promise<void> {
    writes.catch((error: Error) => (this.failure ??= error));
    return writes;
  }

  /** One notification line (without its newline): the agent's bytes (`lines` lines, where the caller counted them), or a line encoded here. */
  push(line: Uint8Array | string, lines?: number): void {
    if (this.ended || this.failure) return;
    const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
    // A merged update's line is its chunks' lines: each is one update of the copy.
    this.updates += typeof line === 'string' ? 1 : (lines ?? linesIn(bytes));
    this.rawBytes += bytes.length + 1;
    if (bytes.length + 1 > this.stage.length - this.staged) this.flush();
    if (bytes.length + 1 > this.stage.length) {
      const own = Buffer.allocUnsafe(bytes.length + 1);
      own.set(bytes, 0);
      own[bytes.length] = NEWLINE;
      this.write(own);
      return;
    }
    this.stage.set(bytes, this.staged);
    this.stage[this.staged + bytes.length] = NEWLINE;
    this.staged += bytes.length + 1;
  }

  private flush(): void {
    if (this.staged === 0) return;
    // The write keeps the buffer it was given until it is done with it: another one is staged.
    const stage = this.stage;
    this.write(stage.subarray(0, this.staged), stage);
    this.stage = this.spare.pop() ?? Buffer.allocUnsafe(STAGE_BYTES);
    this.staged = 0;
  }

  /** Writes `data` after what came before it; `stage`, the buffer it is in, is staged again once written. */
  private write(data: Buffer, stage?: Buffer): void {
    const at = this.position;
    this.position += data.length;
    this.writes = this.heard(this.writes.then(async () => {
      await writeFully(await this.opened, data, at);
      if (stage && this.spare.length < SPARE_STAGES) this.spare.push(stage);
    }));
  }

  /**
   * Ends the body: compresses the lines into it and resolves once it is on disk, whole, under its
   * temporary name (what {@link placeKept} takes); rejects when writing failed, the temporary
   * files gone.
   */
  async endBody(): Promise<KeptBody> {
    if (this.ended) throw new KeptFileError('the copy was already ended');
    this.flush();
    this.ended = true;
    try {
      await this.writes;
      await (await this.opened).close();
      // Level 4: figure 9's 65.7 MB replay in 354 ms of a libuv thread, to 0.111 of its size; level
      // 6 took 781 ms for 0.105.
      await pipeline(createReadStream(this.raw), createGzip({ level: 4 }), createWriteStream(this.tmp, { flags: 'wx', mode: 0o600 }));
    } catch (error) {
      await fs.rm(this.tmp, { force: true }).catch(() => undefined);
      throw error;
    } finally {
      await this.dropRaw();
    }
    return { tmp: this.tmp, path: this.path, startedAt: this.startedAt, updates: this.updates, rawBytes: this.rawBytes };
  }

  /** Ends the body and puts the copy in place (see {@link placeKept}). */
  async finish(facts: KeptFacts, keep: (existing: KeptMeta | undefined, startedAt: number) => Promise<boolean>): Promise<KeptMeta | undefined> {
    return placeKept(await this.endBody(), facts, keep);
  }

  /** Drops the copy (the load failed or was cancelled); resolves once the temporary file is gone. */
  async abort(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.writes.catch(() => undefined);
    await this.dropRaw();
  }

  /** Closes and removes the file of the uncompressed lines (closing again does nothing). */
  private async dropRaw(): Promise<void> {
    await this.opened.then((handle) => handle.close()).catch(() => undefined);
    await fs.rm(this.raw, { force: true }).catch(() => undefined);
  }

  /** Set once a write failed (a full disk): `finish` rejects with it. */
  get failed(): Error | undefined {
    return this.failure;
  }
}

/** Writes all of `data` at `position` of `handle`. */
async function writeFully(handle: fs.FileHandle, data: Buffer, position: number): Promise<void> {
  for (let done = 0; done < data.length; ) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, position + done);
    done += bytesWritten;
  }
}

/** What the line worker's sink of a copy's body is told (lineWorker.ts LineSink): the copy's place. */
export interface KeptSinkSpec {
  path: string;
}

/** The line worker's sink for a copy's body, from the spec the host sent (see KeptSinkSpec). */
export function keptSink(spec: unknown): LineSink {
  const path = (spec as Partial<KeptSinkSpec> | undefined)?.path;
  if (typeof path !== 'string' || !path.endsWith(KEPT_SUFFIX)) throw new KeptFileError('no place for the copy');
  const writer = new KeptWriter(path);
  return { push: (line, lines) => writer.push(line, lines), end: () => writer.endBody(), abort: () => writer.abort() };
}

/** The body the line worker says it wrote for the copy at `path`: only a temporary file beside that place. */
export function keptBodyOf(result: unknown, path: string): KeptBody {
  const body = result as Partial<KeptBody> | undefined;
  const ok = body && body.path === path && typeof body.tmp === 'string' && dirname(body.tmp) === dirname(path) && isTemporaryName(basename(body.tmp))
    && [body.startedAt, body.updates, body.rawBytes].every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0);
  if (!ok) throw new KeptFileError('the line worker did not say where it wrote the copy');
  return body as KeptBody;
}

/** A copy's body written whole under its temporary name (by this thread or the line worker's), not in place yet. */
export interface KeptBody {
  tmp: string;
  path: string;
  /** When its writing started (a delete here since then wins). */
  startedAt: number;
  updates: number;
  rawBytes: number;
}

/**
 * Adds the trailer to `body`, flushes the file to disk and, when `keep` agrees (given the copy in
 * place, if any, it may decline: a newer copy, a delete since), renames it into place, the check
 * and the rename under the copy's lock (`withKeptLock`). Resolves to
 * the copy's trailer, or undefined when it was declined; rejects when writing failed. Either way
 * the temporary file is gone unless it became the copy.
 */
export async function placeKept(body: KeptBody, facts: KeptFacts, keep: (existing: KeptMeta | undefined, startedAt: number) => Promise<boolean>, onBusy?: () => void): Promise<KeptMeta | undefined> {
  try {
    const bodyBytes = (await fs.stat(body.tmp)).size;
    const meta: KeptMeta = { format: KEPT_FORMAT, version: KEPT_VERSION, ...facts, keptAt: new Date().toISOString(), updates: body.updates, bodyBytes, rawBytes: body.rawBytes };
    const trailer = Buffer.from(JSON.stringify(meta), 'utf8');
    if (trailer.length > MAX_TRAILER_BYTES) throw new KeptFileError('the trailer is too long');
    const tail = Buffer.alloc(TAIL_BYTES);
    tail.writeUInt32LE(trailer.length, 0);
    MAGIC.copy(tail, 4);
    const handle = await fs.open(body.tmp, 'a');
    try {
      await handle.write(Buffer.concat([trailer, tail]));
      await handle.sync();
    } finally {
      await handle.close();
    }
    const placed = await withKeptLock(body.path, async () => {
      let existing: KeptMeta | undefined;
      try {
        existing = (await readKeptMeta(body.path)).meta;
      } catch {
        existing = undefined;
      }
      if (!(await keep(existing, body.startedAt))) return false;
      await fs.rename(body.tmp, body.path);
      return true;
    }, onBusy);
    if (placed) return meta;
    await fs.rm(body.tmp, { force: true });
    return undefined;
  } catch (error) {
    await fs.rm(body.tmp, { force: true }).catch(() => undefined);
    throw error;
  }
}
