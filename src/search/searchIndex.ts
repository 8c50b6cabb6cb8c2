// The search index: a cache of the text of replays the extension received, kept in a folder of
// the extension's storage (this user's alone), rebuildable, never the truth. Per session one file:
// the Bloom filters of its blocks (about BLOCK_CHARS characters of text each; see blocks.ts), then
// the blocks. A manifest (`index.json`, with the format's version; manifest.ts) lists each
// session's metadata and where its blocks are; every window of the profile shares it (windows.ts).
// A query keeps the filters in memory (about one bit per character indexed), picks the blocks that
// may hold every gram of a term, and reads, inflates and matches only those, newest session first,
// until a page is full. A session whose file is damaged or gone is dropped (indexed again), never
// the query. Plain Node (no `vscode`).
import { closeSync, openSync, readSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Entity } from '../transcript/model';
import { decodeBlock, type EncodedBlock, type IndexRecord } from './blocks';
import { EncoderWorker, InlineEncoder, type SessionEncoder } from './encoder';
import { FORMAT_VERSION, keyOf, MANIFEST, readManifest, type BlockRef, type Entry, type IndexedSession, type Manifest, type SessionMeta } from './manifest';
import { candidateBlocks, matchSession, passes, type SearchOptions, type SearchResult, type SessionResult } from './match';
import type { ParsedQuery } from './query';
import { recordsOf } from './records';
import { LockBusyError } from '../common/fileLock';
import { acquireLock, DIR_MODE, FILE_MODE, IndexDiskFullError, isDiskFull, merge, newOwnerId, PendingChanges, registerOwner, removeStrays, secureFolder, stampOf, unregisterOwner, type MetaPatch } from './windows';

export { BLOCK_CHARS, type IndexRecord } from './blocks';
export { FORMAT_VERSION, type IndexedSession, type SessionMeta } from './manifest';
export type { SearchMatch, SearchOptions, SearchResult, SessionResult } from './match';
export { recordsOf } from './records';
export { IndexDiskFullError } from './windows';

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
  /** This window's view: the manifest on disk as last read or written, with this window's changes since. */
  private entries = new Map<string, Entry>();
  /** Blooms by file, loaded on the first search that needs them. */
  private readonly blooms = new Map<string, Uint8Array[]>();
  private bloomsLoading: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly dropListeners = new Set<(session: IndexedSession) => void>();
  /** Per session, the write under way: a later one waits for it. */
  private readonly writing = new Map<string, Promise<unknown>>();
  private manifestTimer: ReturnType<typeof setTimeout> | undefined;
  private manifestWrite: Promise<void> = Promise.resolve();
  private removals: Promise<void> = Promise.resolve();
  private generation = 0;
  private readonly worker: EncoderWorker | undefined;
  /** This window, in the names of the files it writes (see windows.ts). */
  private readonly owner = newOwnerId();
  /** What this window changed since it last wrote the manifest. */
  private changes = new PendingChanges();
  /** Files the manifest on disk names (as last read or written): deleted only through a manifest write. */
  private committed = new Set<string>();
  private stamp = '';
  /** Files already reported damaged (one log line each). */
  private readonly reported = new Set<string>();
  private fullSaid = false;
  /** The manifest on disk holds entries that are not valid: written again even without changes. */
  private rewrite = false;
  private writeFailureSaid = false;

  private constructor(readonly dir: string, private readonly options: SearchIndexOptions) {
    if (options.worker) this.worker = new EncoderWorker(options.worker, options.log);
  }

  /**
   * Opens (or creates) the index in `dir`, readable by this user alone. Entries that are not
   * valid, or whose file is gone, are left out (their sessions are indexed again); an index of
   * another format version is removed first. What no manifest names and no running window owns
   * is removed.
   */
  static async open(dir: string, options: SearchIndexOptions = {}): Promise<SearchIndex> {
    const index = new SearchIndex(dir, options);
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    await secureFolder(dir);
    await registerOwner(dir, index.owner).catch((error: unknown) => options.log?.warn(`Search index: could not note this window in ${dir}: ${(error as Error).message}`));
    // Under the lock, so that no window's write lands between reading the manifest and removing what it does not name.
    const release = await acquireLock(dir, index.owner).catch(() => undefined);
    try {
      // Stamped before it is read: a write in between makes the next search read it again.
      index.stamp = await stampOf(join(dir, MANIFEST));
      const read = await readManifest(dir);
      let dropped = 0;
      if (read.kind === 'ok') {
        const present = new Set(await readdir(dir));
        dropped = read.dropped;
        for (const [key, entry] of read.entries) {
          if (present.has(entry.file)) index.entries.set(key, entry);
          else {
            index.changes.drop(key, entry.file);
            dropped++;
          }
        }
        index.committed = new Set([...read.entries.values()].map((e) => e.file));
      } else if (read.kind !== 'none') {
        options.log?.info(read.kind === 'version' ? `Search index: format ${String(read.version)} found, ${FORMAT_VERSION} needed; rebuilding.` : `Search index: its manifest cannot be read (${read.reason}); rebuilding.`);
        if (release) {
          await rm(join(dir, MANIFEST), { force: true });
          await removeStrays(dir, new Set(), index.owner, 'rebuild');
        }
      }
      if (dropped > 0) {
        // Written again without them, even when no entry of a session is left to drop (a `null`).
        index.rewrite = true;
        options.log?.warn(`Search index: ${dropped} of its entries were damaged or named a missing file and were left out; their sessions will be indexed again.`);
        index.scheduleWrite();
      }
      if (release && read.kind !== 'version' && read.kind !== 'unreadable') await removeStrays(dir, new Set([...index.entries.values()].map((e) => e.file)), index.owner, 'open');
    } finally {
      await release?.();
    }
    return index;
  }

  /** Called after every change (indexed, removed, metadata, cleared, another window's). Returns an unsubscribe. */
  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A session's entry was dropped because its file was damaged or gone: it is no longer indexed. */
  onDidDrop(listener: (session: IndexedSession) => void): () => void {
    this.dropListeners.add(listener);
    return () => this.dropListeners.delete(listener);
  }

  /** A write failed because the disk is full (cleared once the manifest is written again). */
  get diskFull(): boolean {
    return this.fullSaid;
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
    // The owner in the name: until a manifest lists it, the file is this window's (windows.ts).
    const file = `${createHash('sha1').update(key).digest('hex').slice(0, 20)}-${this.owner}${randomBytes(4).toString('hex')}.bin`;
    const temp = join(this.dir, `${file}.tmp`);
    try {
      await writeFile(temp, Buffer.concat([...blooms, ...datas]), { mode: FILE_MODE });
      await rename(temp, join(this.dir, file));
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      if (isDiskFull(error)) throw this.full();
      throw error;
    }
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
    this.changes.put(key, entry);
    this.blooms.set(file, blooms);
    // One no manifest named yet is this window's alone; one it names leaves with the next manifest write.
    if (previous) this.forget(previous.file);
    this.changed();
  }

  /** A file this window no longer needs: removed now if no manifest names it. */
  private forget(file: string): void {
    this.blooms.delete(file);
    if (!this.committed.has(file)) this.unlink(file);
  }

  /** Removes a file in the background (`flush` waits for it). */
  private unlink(file: string): void {
    this.removals = this.removals.then(() => rm(join(this.dir, file), { force: true })).catch(() => undefined);
  }

  private full(): IndexDiskFullError {
    const error = new IndexDiskFullError(this.dir);
    if (!this.fullSaid) {
      this.fullSaid = true;
      this.options.log?.warn(`Search index: ${error.message}; sessions are not indexed until there is room.`);
      for (const listener of this.listeners) listener();
    }
    return error;
  }

  /** A listed session's title, date or archived state changed (archive is a filter, not new text). */
  updateMeta(agent: string, sessionId: string, patch: MetaPatch): void {
    const key = keyOf(agent, sessionId);
    const entry = this.entries.get(key);
    if (!entry) return;
    const changes: MetaPatch = {};
    if (patch.title !== undefined && patch.title !== entry.title) changes.title = entry.title = patch.title;
    if (patch.archived !== undefined && patch.archived !== entry.archived) changes.archived = entry.archived = patch.archived;
    if (patch.cwd !== undefined && patch.cwd !== entry.cwd) changes.cwd = entry.cwd = patch.cwd;
    if (Object.keys(changes).length === 0) return;
    this.changes.patch(key, changes);
    this.changed();
  }

  /** The session left the agent (deleted): its text leaves the index, also where another window indexed it. */
  async remove(agent: string, sessionId: string): Promise<void> {
    const key = keyOf(agent, sessionId);
    await this.writing.get(key)?.catch(() => undefined);
    this.changes.delete(key);
    const entry = this.entries.get(key);
    if (!entry) {
      this.scheduleWrite();
      return;
    }
    this.entries.delete(key);
    this.forget(entry.file);
    this.changed();
  }

  /** Forgets the entries of agents not in `agents` (no longer configured); returns how many. */
  removeAgentsOtherThan(agents: readonly string[]): number {
    const kept = new Set(agents);
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (kept.has(entry.agent)) continue;
      this.entries.delete(key);
      this.changes.delete(key);
      this.forget(entry.file);
      removed++;
    }
    if (removed > 0) this.changed();
    return removed;
  }

  /**
   * Removes everything (the Clear command), for every window: the manifest becomes empty and
   * every file goes but another running window's writes in flight. Works whatever the folder
   * holds, and even when another window holds the lock too long.
   */
  async clear(): Promise<void> {
    this.generation++;
    await Promise.all([...this.writing.values()].map((w) => w.catch(() => undefined)));
    // A manifest write under way would bring back what it had read.
    await this.manifestWrite;
    this.entries.clear();
    this.blooms.clear();
    this.changes = new PendingChanges();
    const release = await acquireLock(this.dir, this.owner).catch(() => undefined);
    try {
      await this.writeManifestFile({ version: FORMAT_VERSION, sessions: [] });
      this.committed.clear();
      await removeStrays(this.dir, new Set(), this.owner, 'clear');
    } finally {
      await release?.();
    }
    this.changed();
  }

  /** Takes in what other windows wrote since (the manifest's stamp changed). */
  async refresh(): Promise<void> {
    const stamp = await stampOf(join(this.dir, MANIFEST));
    if (stamp === this.stamp) return;
    const read = await readManifest(this.dir);
    // Another version's or a damaged manifest: this window's next write replaces it.
    if (read.kind !== 'ok' && read.kind !== 'none') return;
    this.stamp = stamp;
    const disk = read.kind === 'ok' ? read.entries : new Map<string, Entry>();
    const merged = merge(disk, this.changes);
    this.adopt(merged.entries, disk);
    for (const file of merged.losers) this.forget(file);
    for (const listener of this.listeners) listener();
  }

  private adopt(entries: Map<string, Entry>, disk: ReadonlyMap<string, Entry>): void {
    this.entries = entries;
    this.committed = new Set([...disk.values()].map((e) => e.file));
    const named = new Set([...entries.values()].map((e) => e.file));
    for (const file of this.blooms.keys()) if (!named.has(file)) this.blooms.delete(file);
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
    await this.removals;
  }

  async dispose(): Promise<void> {
    this.listeners.clear();
    this.dropListeners.clear();
    await this.flush();
    await this.worker?.dispose();
    await unregisterOwner(this.dir, this.owner).catch(() => undefined);
  }

  /** The sessions matching `query`, newest first, up to `limit`, each with its first matches. */
  async search(query: ParsedQuery, options: SearchOptions = {}): Promise<SearchResult> {
    const limit = options.limit ?? 50;
    const perSession = options.matchesPerSession ?? 20;
    const result: SearchResult = { sessions: [], complete: true, searched: 0 };
    if (query.terms.length === 0) return result;
    await this.refresh().catch((error: unknown) => this.options.log?.warn(`Search index: could not read its manifest: ${(error as Error).message}`));
    await this.loadBlooms();
    const agents = options.agents && new Set(options.agents);
    const candidates = [...this.entries.entries()].filter(([, e]) => (!agents || agents.has(e.agent)) && (!options.inScope || options.inScope(e.cwd)) && passes(e, query.filters, options.now ?? Date.now()));
    result.searched = candidates.length;
    candidates.sort(([, a], [, b]) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
    let sliceStart = performance.now();
    for (const [key, entry] of candidates) {
      if (options.isCancelled?.()) break;
      const blooms = this.blooms.get(entry.file);
      if (!blooms) continue;
      const wanted = candidateBlocks(blooms, query.terms);
      if (!wanted) continue;
      if (result.sessions.length >= limit) {
        result.complete = false;
        break;
      }
      // Each session in its own guard: a damaged one is dropped (and indexed again), the others answer.
      let found: SessionResult | undefined;
      try {
        found = this.verify(entry, wanted, query, perSession);
      } catch (error) {
        this.damaged(key, entry, error);
      }
      if (found) result.sessions.push(found);
      // Long searches leave the event loop room every few milliseconds.
      if (performance.now() - sliceStart > 8) {
        await yieldNow();
        sliceStart = performance.now();
      }
    }
    return result;
  }

  /** A session whose file is gone or damaged: its entry leaves (here and, with the next write, on disk), logged once. */
  private damaged(key: string, entry: Entry, error: unknown): void {
    if (this.entries.get(key) !== entry) return;
    const missing = (error as NodeJS.ErrnoException)?.code === 'ENOENT';
    if (!this.reported.has(entry.file)) {
      this.reported.add(entry.file);
      this.options.log?.warn(`Search index: ${missing ? `${entry.file} is missing` : `${entry.file} is damaged (${(error as Error)?.message ?? error})`}; session ${entry.sessionId} of ${entry.agent} is left out and will be indexed again.`);
    }
    this.entries.delete(key);
    this.blooms.delete(entry.file);
    this.changes.drop(key, entry.file);
    // Damaged, it is of no use to any window; the manifest no longer names it after the next write.
    if (!missing) this.unlink(entry.file);
    for (const listener of this.dropListeners) listener(publicEntry(entry));
    this.changed();
  }

  private verify(entry: Entry, blocks: number[], query: ParsedQuery, perSession: number): SessionResult | undefined {
    // Synchronous: a block is read from the page cache in microseconds; the search yields between sessions.
    const fd = openSync(join(this.dir, entry.file), 'r');
    try {
      const found = matchSession(blocks, query, perSession, (b) => {
        const ref = entry.blocks[b];
        const buffer = Buffer.allocUnsafe(ref.len);
        if (readSync(fd, buffer, 0, ref.len, ref.off) < ref.len) throw new Error('the file is shorter than its blocks');
        return decodeBlock(buffer);
      });
      return found && { session: publicEntry(entry), ...found };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Reads the filters of every session that has none loaded yet. Synchronous reads from the page
   * cache, a few milliseconds of them per task: three awaited thread-pool round trips per file
   * (open, read, close) made this wait on a loaded machine's scheduler 3,000 times for 1,000 sessions.
   */
  private loadBlooms(): Promise<void> {
    return (this.bloomsLoading ??= this.readBlooms().finally(() => (this.bloomsLoading = undefined)));
  }

  private async readBlooms(): Promise<void> {
    let sliceStart = performance.now();
    for (const [key, entry] of [...this.entries]) {
      if (this.blooms.has(entry.file) || this.entries.get(key) !== entry) continue;
      const total = entry.blocks.reduce((n, b) => n + b.bloomLen, 0);
      try {
        const buffer = new Uint8Array(total);
        if (total > 0) {
          const fd = openSync(join(this.dir, entry.file), 'r');
          try {
            if (readSync(fd, buffer, 0, total, 0) < total) throw new Error('the file is shorter than its filters');
          } finally {
            closeSync(fd);
          }
        }
        this.blooms.set(entry.file, entry.blocks.map((b) => buffer.subarray(b.bloomOff, b.bloomOff + b.bloomLen)));
      } catch (error) {
        this.damaged(key, entry, error);
      }
      if (performance.now() - sliceStart > 8) {
        await yieldNow();
        sliceStart = performance.now();
      }
    }
  }

  private changed(): void {
    this.scheduleWrite();
    for (const listener of this.listeners) listener();
  }

  private scheduleWrite(delay = 300): void {
    if (this.manifestTimer) return;
    this.manifestTimer = setTimeout(() => {
      this.manifestTimer = undefined;
      this.manifestWrite = this.manifestWrite.then(() => this.writeManifest());
    }, delay);
  }

  /** This window's changes applied to the manifest on disk, under the lock (windows.ts). */
  private async writeManifest(): Promise<void> {
    if (this.changes.empty && !this.rewrite) return;
    let release: (() => Promise<void>) | undefined;
    try {
      release = await acquireLock(this.dir, this.owner);
      const read = await readManifest(this.dir);
      const disk = read.kind === 'ok' ? read.entries : new Map<string, Entry>();
      const written = this.changes.snapshot();
      const merged = merge(disk, written);
      await this.writeManifestFile({ version: FORMAT_VERSION, sessions: [...merged.entries.values()] });
      this.stamp = await stampOf(join(this.dir, MANIFEST));
      this.changes.settle(written);
      // What this window changed while the manifest was written stays on top of what was written.
      this.adopt(merge(merged.entries, this.changes).entries, merged.entries);
      this.rewrite = false;
      // A file another window still has open may not go yet (Windows): it is a stray for the next open.
      for (const file of [...merged.orphans, ...merged.losers]) await rm(join(this.dir, file), { force: true }).catch(() => undefined);
      this.writeFailureSaid = false;
      this.fullSaid = false;
      for (const listener of this.listeners) listener();
    } catch (error) {
      // The changes stay: the next change, or this retry, writes them.
      if (error instanceof LockBusyError) this.scheduleWrite(2_000);
      else if (isDiskFull(error)) this.full();
      else if (!this.writeFailureSaid) {
        this.writeFailureSaid = true;
        this.options.log?.warn(`Search index: could not write its manifest: ${(error as Error).message}`);
      }
    } finally {
      await release?.().catch(() => undefined);
    }
  }

  private async writeManifestFile(manifest: Manifest): Promise<void> {
    const temp = join(this.dir, `${MANIFEST}.${this.owner}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await writeFile(temp, JSON.stringify(manifest), { mode: FILE_MODE });
      await rename(temp, join(this.dir, MANIFEST));
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
  }
}

function publicEntry(entry: Entry): IndexedSession {
  const { file: _file, blocks: _blocks, ...session } = entry;
  return session;
}

