// The search index: a cache of the text of replays the extension received, kept in a folder of
// the extension's storage, rebuildable, never the truth. Per session one file: the Bloom filters
// of its blocks (about BLOCK_CHARS characters of text each; see blocks.ts), then the blocks. A manifest
// (`index.json`, with the format's version) lists each session's metadata and where its blocks
// are. A query keeps the filters in memory (about one bit per character indexed), picks the blocks
// that may hold every gram of a term, and reads, inflates and matches only those, newest session
// first, until a page is full. Plain Node (no `vscode`).
import { closeSync, openSync, readSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { searchText } from '../transcript/find';
import type { Entity } from '../transcript/model';
import { decodeBlock, WHERE_CODE, type EncodedBlock, type IndexRecord, type RecordRow } from './blocks';
import { EncoderWorker, InlineEncoder, type SessionEncoder } from './encoder';
import { bloomHasAll } from './grams';
import type { ParsedQuery, SearchFilters, Term, Where } from './query';
import { fold } from './text';

export { BLOCK_CHARS, type IndexRecord } from './blocks';

/** Bumped whenever the files' layout or the grams change: an index of another version is rebuilt. */
export const FORMAT_VERSION = 4;
const MANIFEST = 'index.json';

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

interface BlockRef {
  /** Byte offsets in the session's file. */
  bloomOff: number;
  bloomLen: number;
  off: number;
  len: number;
}

interface Entry extends IndexedSession {
  file: string;
  blocks: BlockRef[];
}

interface Manifest {
  version: number;
  sessions: Entry[];
}

/** One match: a line of context with the words highlighted, where it was said, and its entity. */
export interface SearchMatch {
  where: Where;
  /** The entity's place in the transcript's timeline. */
  index: number;
  /** One line of context (plain text, agent's words: untrusted). */
  line: string;
  /** [start, end) of each highlighted word in `line`. */
  highlights: [number, number][];
  /** The matched text as written, for the transcript's find. */
  text: string;
}

export interface SessionResult {
  session: IndexedSession;
  matches: SearchMatch[];
  /** More matches than `matches` holds. */
  more: boolean;
}

export interface SearchResult {
  sessions: SessionResult[];
  /** Every candidate session was checked (false: `limit` was reached first). */
  complete: boolean;
  /** Sessions of the index the filters let through. */
  searched: number;
}

export interface SearchOptions {
  /** Most sessions to return (a page). */
  limit?: number;
  /** Most matches listed per session. */
  matchesPerSession?: number;
  now?: number;
  isCancelled?: () => boolean;
}

const WHERE_OF: Partial<Record<Entity['kind'], Where>> = {
  user_message: 'you',
  agent_message: 'agent',
  session_message: 'agent',
  plan: 'agent',
  subagent: 'agent',
  thought: 'thoughts',
  tool_call: 'tools',
  compaction: 'compactions',
};

/** The searchable text of a timeline's entities (what the transcript's find searches). */
export function recordsOf(entities: readonly Entity[], first = 0): IndexRecord[] {
  const records: IndexRecord[] = [];
  for (let i = 0; i < entities.length; i++) {
    const entity = entities[i];
    const index = first + i;
    const where = WHERE_OF[entity.kind];
    if (!where) continue;
    // Only the summary of a compaction (its status is not text anybody said).
    const text = entity.kind === 'compaction' ? searchText(entity).replace(/^[^\n]*\n[^\n]*\n/, '') : searchText(entity);
    if (text.trim()) records.push({ where, index, text });
  }
  return records;
}

function keyOf(agent: string, sessionId: string): string {
  return `${agent}\u0000${sessionId}`;
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface SearchIndexOptions {
  log?: { warn(message: string): void; info(message: string): void };
  /** The worker's script (dist/searchWorker.js): blocks are encoded there, off the caller's thread. Without it, or if it fails, on this thread in slices. */
  worker?: string;
}

/** A session's text, handed over in batches as it comes (a replay's entities, in timeline order). */
export interface SessionWriter {
  /** Adds records; resolves once they are handed over (awaiting it bounds what waits in memory). */
  add(records: readonly IndexRecord[]): Promise<void>;
  /** The text is complete: resolves once it is indexed, replacing what the session had. */
  end(): Promise<void>;
  /** Drops what was added; the session's indexed text stays as it was. */
  abort(): void;
}

/** Entities turned into records per batch: each batch is one task on the caller's thread. */
const ENTITY_BATCH = 256;

export class SearchIndex {
  private readonly entries = new Map<string, Entry>();
  /** Blooms by entry key, loaded on the first search. */
  private readonly blooms = new Map<string, Uint8Array[]>();
  private bloomsLoaded: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();
  /** Per session, the write under way: a later one waits for it. */
  private readonly writing = new Map<string, Promise<unknown>>();
  private manifestTimer: ReturnType<typeof setTimeout> | undefined;
  private manifestWrite: Promise<void> = Promise.resolve();
  private generation = 0;
  private readonly worker: EncoderWorker | undefined;

  private constructor(readonly dir: string, private readonly options: SearchIndexOptions) {
    if (options.worker) this.worker = new EncoderWorker(options.worker, options.log);
  }

  /** Opens (or creates) the index in `dir`; an index of another format version is removed first. */
  static async open(dir: string, options: SearchIndexOptions = {}): Promise<SearchIndex> {
    const index = new SearchIndex(dir, options);
    await mkdir(dir, { recursive: true });
    let manifest: Manifest | undefined;
    try {
      manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as Manifest;
    } catch {
      manifest = undefined;
    }
    if (manifest && manifest.version === FORMAT_VERSION && Array.isArray(manifest.sessions)) {
      for (const entry of manifest.sessions) index.entries.set(keyOf(entry.agent, entry.sessionId), entry);
      await index.removeStrayFiles();
    } else {
      if (manifest) options.log?.info(`Search index: format ${String(manifest.version)} found, ${FORMAT_VERSION} needed; rebuilding.`);
      await index.removeAllFiles();
    }
    return index;
  }

  /** Called after every change (indexed, removed, metadata, cleared). Returns an unsubscribe. */
  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(agent: string, sessionId: string): IndexedSession | undefined {
    return this.entries.get(keyOf(agent, sessionId));
  }

  /** The indexed sessions, of one agent or all. */
  sessions(agent?: string): IndexedSession[] {
    const all = [...this.entries.values()];
    return agent === undefined ? all : all.filter((e) => e.agent === agent);
  }

  /** Characters of text indexed, and bytes on disk (files). */
  async size(): Promise<{ sessions: number; chars: number; bytes: number }> {
    let bytes = 0;
    for (const name of await readdir(this.dir)) bytes += (await stat(join(this.dir, name)).catch(() => ({ size: 0 }))).size;
    let chars = 0;
    for (const e of this.entries.values()) chars += e.chars;
    return { sessions: this.entries.size, chars, bytes };
  }

  /** Indexes a replayed timeline's text for the session (replacing what was there), a batch of entities per task. */
  async indexEntities(meta: SessionMeta, entities: readonly Entity[]): Promise<void> {
    const writer = this.begin(meta);
    try {
      for (let at = 0; at < entities.length; at += ENTITY_BATCH) {
        await writer.add(recordsOf(entities.slice(at, at + ENTITY_BATCH), at));
        await yieldNow();
      }
    } catch (error) {
      writer.abort();
      throw error;
    }
    await writer.end();
  }

  /**
   * Indexes a session's text read in batches as they come (a transcript's entities read back from
   * its file): only a batch at a time is held here. A batch that fails (the tab was closed)
   * leaves the session's indexed text as it was.
   */
  async indexBatches(meta: SessionMeta, batches: AsyncIterable<readonly Entity[]>): Promise<void> {
    const writer = this.begin(meta);
    let at = 0;
    try {
      for await (const batch of batches) {
        for (let from = 0; from < batch.length; from += ENTITY_BATCH) {
          await writer.add(recordsOf(batch.slice(from, from + ENTITY_BATCH), at + from));
          await yieldNow();
        }
        at += batch.length;
      }
    } catch (error) {
      writer.abort();
      throw error;
    }
    await writer.end();
  }

  /** Indexes `records` as the session's whole text. */
  async indexRecords(meta: SessionMeta, records: readonly IndexRecord[]): Promise<void> {
    const writer = this.begin(meta);
    await writer.add(records);
    await writer.end();
  }

  /** Starts indexing a session's text, fed in batches; nothing changes for the session until `end`. */
  begin(meta: SessionMeta): SessionWriter {
    const key = keyOf(meta.agent, meta.sessionId);
    const generation = this.generation;
    const encoder: SessionEncoder = this.worker ? this.worker.encoder() : new InlineEncoder();
    let fed = Promise.resolve();
    let closed = false;
    return {
      add: (records) => {
        if (closed) return Promise.reject(new Error('the session was ended or aborted'));
        fed = fed.then(() => encoder.add(records));
        return fed;
      },
      abort: () => {
        closed = true;
        encoder.abort();
      },
      end: () => {
        if (closed) return Promise.reject(new Error('the session was ended or aborted'));
        closed = true;
        const encoded = fed.then(() => encoder.end());
        const run = (this.writing.get(key) ?? Promise.resolve()).catch(() => undefined).then(async () => this.write(key, meta, await encoded, generation));
        this.writing.set(key, run);
        void run.finally(() => {
          if (this.writing.get(key) === run) this.writing.delete(key);
        }).catch(() => undefined);
        return run;
      },
    };
  }

  private async write(key: string, meta: SessionMeta, blocks: readonly EncodedBlock[], generation: number): Promise<void> {
    const blooms = blocks.map((b) => b.bloom);
    const datas = blocks.map((b) => b.data);
    const chars = blocks.reduce((n, b) => n + b.chars, 0);
    if (generation !== this.generation) return;
    const refs: BlockRef[] = [];
    let offset = 0;
    for (const bloom of blooms) {
      refs.push({ bloomOff: offset, bloomLen: bloom.length, off: 0, len: 0 });
      offset += bloom.length;
    }
    datas.forEach((data, i) => {
      refs[i].off = offset;
      refs[i].len = data.length;
      offset += data.length;
    });
    const file = `${createHash('sha1').update(key).digest('hex').slice(0, 20)}-${randomBytes(4).toString('hex')}.bin`;
    const temp = join(this.dir, `${file}.tmp`);
    await writeFile(temp, Buffer.concat([...blooms, ...datas]));
    await rename(temp, join(this.dir, file));
    if (generation !== this.generation) {
      await rm(join(this.dir, file), { force: true });
      return;
    }
    const previous = this.entries.get(key);
    const entry: Entry = {
      agent: meta.agent,
      sessionId: meta.sessionId,
      cwd: meta.cwd,
      archived: meta.archived,
      indexedAt: new Date().toISOString(),
      chars,
      file,
      blocks: refs,
    };
    if (meta.title) entry.title = meta.title;
    if (meta.updatedAt) entry.updatedAt = meta.updatedAt;
    this.entries.set(key, entry);
    this.blooms.set(key, blooms);
    if (previous) await rm(join(this.dir, previous.file), { force: true });
    this.changed();
  }

  /** A listed session's title, date or archived state changed (archive is a filter, not new text). */
  updateMeta(agent: string, sessionId: string, patch: Partial<Pick<SessionMeta, 'title' | 'archived' | 'cwd'>>): void {
    const entry = this.entries.get(keyOf(agent, sessionId));
    if (!entry) return;
    let changed = false;
    if (patch.title !== undefined && patch.title !== entry.title) (entry.title = patch.title), (changed = true);
    if (patch.archived !== undefined && patch.archived !== entry.archived) (entry.archived = patch.archived), (changed = true);
    if (patch.cwd !== undefined && patch.cwd !== entry.cwd) (entry.cwd = patch.cwd), (changed = true);
    if (changed) this.changed();
  }

  /** The session left the agent (deleted): its text leaves the index. */
  async remove(agent: string, sessionId: string): Promise<void> {
    const key = keyOf(agent, sessionId);
    await this.writing.get(key)?.catch(() => undefined);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.blooms.delete(key);
    await rm(join(this.dir, entry.file), { force: true });
    this.changed();
  }

  /** Removes everything (the Clear command). */
  async clear(): Promise<void> {
    this.generation++;
    await Promise.all([...this.writing.values()].map((w) => w.catch(() => undefined)));
    this.entries.clear();
    this.blooms.clear();
    await this.removeAllFiles();
    this.changed();
  }

  /** Writes the manifest now (it is otherwise written shortly after each change). */
  async flush(): Promise<void> {
    await Promise.all([...this.writing.values()].map((w) => w.catch(() => undefined)));
    if (this.manifestTimer) {
      clearTimeout(this.manifestTimer);
      this.manifestTimer = undefined;
      this.manifestWrite = this.manifestWrite.then(() => this.writeManifest());
    }
    await this.manifestWrite;
  }

  async dispose(): Promise<void> {
    this.listeners.clear();
    await this.flush();
    await this.worker?.dispose();
  }

  /** The sessions matching `query`, newest first, up to `limit`, each with its first matches. */
  async search(query: ParsedQuery, options: SearchOptions = {}): Promise<SearchResult> {
    const limit = options.limit ?? 50;
    const perSession = options.matchesPerSession ?? 20;
    const result: SearchResult = { sessions: [], complete: true, searched: 0 };
    if (query.terms.length === 0) return result;
    await (this.bloomsLoaded ??= this.loadBlooms());
    const candidates = [...this.entries.entries()].filter(([, e]) => passes(e, query.filters, options.now ?? Date.now()));
    result.searched = candidates.length;
    candidates.sort(([, a], [, b]) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
    let sliceStart = performance.now();
    for (const [key, entry] of candidates) {
      if (options.isCancelled?.()) break;
      const blooms = this.blooms.get(key);
      if (!blooms) continue;
      const wanted = candidateBlocks(blooms, query.terms);
      if (!wanted) continue;
      if (result.sessions.length >= limit) {
        result.complete = false;
        break;
      }
      const found = await this.verify(entry, wanted, query, perSession);
      if (found) result.sessions.push(found);
      // Long searches leave the event loop room every few milliseconds.
      if (performance.now() - sliceStart > 8) {
        await yieldNow();
        sliceStart = performance.now();
      }
    }
    return result;
  }

  private async verify(entry: Entry, blocks: number[], query: ParsedQuery, perSession: number): Promise<SessionResult | undefined> {
    const where = query.filters.where?.length ? new Set(query.filters.where) : undefined;
    const seen = new Array<boolean>(query.terms.length).fill(false);
    const matches: SearchMatch[] = [];
    let more = false;
    let fd: number;
    try {
      // Synchronous: a block is read from the page cache in microseconds; the search yields between sessions.
      fd = openSync(join(this.dir, entry.file), 'r');
    } catch (error) {
      this.options.log?.warn(`Search index: ${entry.file} is missing (${(error as Error).message}); its session is left out.`);
      return undefined;
    }
    try {
      for (const b of blocks) {
        const ref = entry.blocks[b];
        const buffer = Buffer.allocUnsafe(ref.len);
        readSync(fd, buffer, 0, ref.len, ref.off);
        const { records, overlap, text } = decodeBlock(buffer);
        const hits: { at: number; end: number; record: RecordRow }[] = [];
        query.terms.forEach((term, t) => {
          term.pattern.lastIndex = 0;
          for (let m = term.pattern.exec(text); m; m = term.pattern.exec(text)) {
            if (m[0].length === 0) {
              term.pattern.lastIndex++;
              continue;
            }
            // Wholly inside the repeat of the block before: found there.
            if (m.index + m[0].length <= overlap) continue;
            const record = recordAt(records, m.index);
            if (!record || (where && !where.has(WHERE_CODE[record[0]]))) continue;
            seen[t] = true;
            hits.push({ at: m.index, end: m.index + m[0].length, record });
          }
        });
        hits.sort((a, b) => a.at - b.at);
        let last: SearchMatch | undefined;
        let lastEnd = -1;
        let lastStart = -1;
        for (const hit of hits) {
          // A hit inside the line shown last is highlighted there.
          if (last && hit.at >= lastStart && hit.end <= lastEnd && last.index === hit.record[1]) {
            last.highlights.push([hit.at - lastStart + (last.line.startsWith('…') ? 1 : 0), hit.end - lastStart + (last.line.startsWith('…') ? 1 : 0)]);
            continue;
          }
          if (matches.length >= perSession) {
            more = true;
            break;
          }
          const [start, end] = lineAround(text, hit.at, hit.end, hit.record[2], hit.record[3]);
          const prefix = start > hit.record[2] && text[start - 1] !== '\n' ? '…' : '';
          last = {
            where: WHERE_CODE[hit.record[0]],
            index: hit.record[1],
            line: prefix + text.slice(start, end).replace(/[\r\n\t\u2028\u2029]/g, ' '),
            highlights: [[hit.at - start + prefix.length, hit.end - start + prefix.length]],
            text: text.slice(hit.at, hit.end),
          };
          lastStart = start;
          lastEnd = end;
          matches.push(last);
        }
        if (more && seen.every(Boolean)) break;
      }
    } finally {
      closeSync(fd);
    }
    if (!seen.every(Boolean)) return undefined;
    return { session: publicEntry(entry), matches, more };
  }

  /**
   * Reads every session's filters. Synchronous reads from the page cache, a few milliseconds of
   * them per task: three awaited thread-pool round trips per file (open, read, close) made this
   * wait on a loaded machine's scheduler 3,000 times for 1,000 sessions.
   */
  private async loadBlooms(): Promise<void> {
    let sliceStart = performance.now();
    for (const [key, entry] of this.entries) {
      if (this.blooms.has(key) || entry.blocks.length === 0) continue;
      const total = entry.blocks.reduce((n, b) => n + b.bloomLen, 0);
      try {
        const fd = openSync(join(this.dir, entry.file), 'r');
        try {
          const buffer = new Uint8Array(total);
          if (readSync(fd, buffer, 0, total, 0) < total) throw new Error('the file is shorter than its filters');
          this.blooms.set(key, entry.blocks.map((b) => buffer.subarray(b.bloomOff, b.bloomOff + b.bloomLen)));
        } finally {
          closeSync(fd);
        }
      } catch (error) {
        this.options.log?.warn(`Search index: cannot read ${entry.file} (${(error as Error).message}); its session will be indexed again.`);
        this.entries.delete(key);
      }
      if (performance.now() - sliceStart > 8) {
        await yieldNow();
        sliceStart = performance.now();
      }
    }
  }

  private changed(): void {
    if (!this.manifestTimer) {
      this.manifestTimer = setTimeout(() => {
        this.manifestTimer = undefined;
        this.manifestWrite = this.manifestWrite.then(() => this.writeManifest());
      }, 300);
    }
    for (const listener of this.listeners) listener();
  }

  private async writeManifest(): Promise<void> {
    const manifest: Manifest = { version: FORMAT_VERSION, sessions: [...this.entries.values()] };
    const temp = join(this.dir, `${MANIFEST}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await writeFile(temp, JSON.stringify(manifest));
      await rename(temp, join(this.dir, MANIFEST));
    } catch (error) {
      this.options.log?.warn(`Search index: could not write its manifest: ${(error as Error).message}`);
      await rm(temp, { force: true });
    }
  }

  private async removeAllFiles(): Promise<void> {
    for (const name of await readdir(this.dir)) await rm(join(this.dir, name), { force: true, recursive: true });
  }

  /** Files no entry names (a write cut short by a crash). */
  private async removeStrayFiles(): Promise<void> {
    const known = new Set([...this.entries.values()].map((e) => e.file));
    for (const name of await readdir(this.dir)) {
      if (name !== MANIFEST && !known.has(name)) await rm(join(this.dir, name), { force: true, recursive: true });
    }
  }
}

function publicEntry(entry: Entry): IndexedSession {
  const { file: _file, blocks: _blocks, ...session } = entry;
  return session;
}

function passes(entry: Entry, filters: SearchFilters, now: number): boolean {
  if (filters.agents?.length && !filters.agents.some((a) => a.toLowerCase() === entry.agent.toLowerCase())) return false;
  if (filters.archived !== undefined && entry.archived !== filters.archived) return false;
  if (filters.folder && !fold(entry.cwd).includes(fold(filters.folder))) return false;
  if (filters.newerThanMs !== undefined || filters.olderThanMs !== undefined) {
    const at = entry.updatedAt ? Date.parse(entry.updatedAt) : NaN;
    if (Number.isNaN(at)) return false;
    if (filters.newerThanMs !== undefined && now - at > filters.newerThanMs) return false;
    if (filters.olderThanMs !== undefined && now - at < filters.olderThanMs) return false;
  }
  return true;
}

/** The blocks that may hold some term, or undefined when some term is in none of them. */
function candidateBlocks(blooms: readonly Uint8Array[], terms: readonly Term[]): number[] | undefined {
  const wanted = new Set<number>();
  for (const term of terms) {
    let any = false;
    for (let b = 0; b < blooms.length; b++) {
      if (bloomHasAll(blooms[b], term.grams)) {
        wanted.add(b);
        any = true;
      }
    }
    if (!any) return undefined;
  }
  return [...wanted].sort((a, b) => a - b);
}

function recordAt(records: readonly RecordRow[], at: number): RecordRow | undefined {
  let lo = 0;
  let hi = records.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (records[mid][2] <= at) lo = mid;
    else hi = mid - 1;
  }
  const r = records[lo];
  return r && at >= r[2] && at < r[3] ? r : undefined;
}

/** The line around [at, end), within [min, max): about 24 characters before and 120 after. */
function lineAround(text: string, at: number, end: number, min: number, max: number): [number, number] {
  let start = Math.max(min, at - 24);
  const newlineBefore = text.lastIndexOf('\n', at - 1);
  if (newlineBefore >= start) start = newlineBefore + 1;
  let stop = Math.min(max, Math.max(end, at + 120));
  const newlineAfter = text.indexOf('\n', end);
  if (newlineAfter >= 0 && newlineAfter < stop) stop = newlineAfter;
  return [start, Math.max(stop, end)];
}
