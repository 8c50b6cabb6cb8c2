// The kept copies of one profile: every replay the extension receives is written, as it comes,
// into a copy of its session (keptFile.ts) in a folder of the extension's global storage, which
// every window of the profile shares. Where the line worker reduces the replay, it writes the
// copy's body from its own bytes (`sink`: the host thread copies none of the lines) and this
// store puts it in place. The store knows what is on disk (a scan reads each copy's
// trailer, never its body), makes a copy of a replay when the mode and the budget allow and the
// session moved since its copy, and deletes copies when the user deletes here. Two windows never
// spoil each other's work: each writes under a name of its own and renames, a newer copy is never
// replaced by an older one, and a delete leaves a mark that a copy begun before it does not pass;
// the check of what is in place and the rename (or the delete) are one step under a lock.
// Plain Node, no `vscode`.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { ReplayObserver, SessionUpdate } from '../acp/types';
import { Emitter, type Disposable, type Event } from '../sessions/events';
import { agentFolder, gonePath, isKeptName, isTemporaryName, keptPath, KeptWriter, keptBodyOf, placeKept, readKeptMeta, withKeptLock, type KeptBody, type KeptFacts, type KeptMeta, type KeptSinkSpec } from './keptFile';

export type KeepMode = 'read' | 'expiring' | 'off';

/** A copy on disk, as its trailer says. */
export interface KeptCopy {
  meta: KeptMeta;
  path: string;
  /** Its size on disk. */
  bytes: number;
}

/** A file in the copies folder that does not read as a whole copy. */
export interface DamagedCopy {
  path: string;
  /** The folder of the agent it was filed under (see `agentFolder`). */
  folder: string;
  reason: string;
  bytes: number;
}

export interface KeptStoreOptions {
  /** The copies' folder (created `0700` when the first copy is written). */
  root: string;
  mode: () => KeepMode;
  /** The budget in bytes: at it no new copy is made (an existing one is still brought up to date). */
  budgetBytes: () => number;
  /** What the sessions model knows of a session when its replay starts and ends. */
  facts: (agent: string, sessionId: string) => Partial<Pick<KeptFacts, 'title' | 'updatedAt' | 'archived' | 'cwd'>> | undefined;
  log: { warn(message: string): void; info?(message: string): void };
  /** Told when a copy's lock is held by another (see `withKeptLock`): tests drive the order with it. */
  onLockBusy?: () => void;
}

/** A temporary file older than this is a window's that closed mid-write: a scan removes it. */
const STALE_TEMPORARY_MS = 24 * 3600_000;

export class KeptStore implements Disposable {
  private readonly copies = new Map<string, Map<string, KeptCopy>>();
  private readonly damagedFiles = new Map<string, DamagedCopy>();
  private readonly writing = new Set<string>();
  /** Each agent's copies, newest session first, until its copies change (the tree reads them on every refresh). */
  private readonly sorted = new Map<string, readonly KeptCopy[]>();
  private readonly onDidChangeEmitter = new Emitter<{ agent?: string }>();
  /** The copies of an agent (or all) changed: a copy was made, deleted, or a scan read the folder. */
  readonly onDidChange: Event<{ agent?: string }> = this.onDidChangeEmitter.event;
  /** The last copy's write (tests wait for it instead of sleeping). */
  lastWrite: Promise<unknown> = Promise.resolve();
  /** The last scan (tests and the tree wait for it). */
  scanned: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(private readonly options: KeptStoreOptions) {}

  get root(): string {
    return this.options.root;
  }

  /** Reads the folder again (another window may have written or deleted copies). */
  scan(): Promise<void> {
    const run = this.scanned.catch(() => undefined).then(() => this.readFolder());
    this.scanned = run;
    return run;
  }

  get(agent: string, sessionId: string): KeptCopy | undefined {
    return this.copies.get(agent)?.get(sessionId);
  }

  /** The copies of `agent`, newest session first. */
  of(agent: string): readonly KeptCopy[] {
    let sorted = this.sorted.get(agent);
    if (!sorted) {
      // ISO dates: their code units sort as their times do (no locale's collation needed).
      const when = (c: KeptCopy) => c.meta.updatedAt ?? c.meta.keptAt;
      sorted = [...(this.copies.get(agent)?.values() ?? [])].sort((a, b) => (when(a) < when(b) ? 1 : when(a) > when(b) ? -1 : 0));
      this.sorted.set(agent, sorted);
    }
    return sorted;
  }

  /** Every copy, of every agent. */
  all(): KeptCopy[] {
    return [...this.copies.values()].flatMap((m) => [...m.values()]);
  }

  /** Files filed under `agent` that do not read as whole copies. */
  damaged(agent: string): DamagedCopy[] {
    const folder = agentFolder(this.options.root, agent);
    return [...this.damagedFiles.values()].filter((d) => d.folder === folder);
  }

  /** How many copies, and their bytes on disk (of one agent, or all). */
  usage(agent?: string): { count: number; bytes: number } {
    const copies = agent === undefined ? this.all() : this.of(agent);
    return { count: copies.length, bytes: copies.reduce((sum, c) => sum + c.bytes, 0) };
  }

  /**
   * The observer of one replay (AcpClientOptions.replays): a copy is made unless the mode is off,
   * one is being made already, the session's copy is as new as the session, or the budget is
   * spent (a session with a copy is still brought up to date).
   */
  observe(agent: string, sessionId: string, cwd: string): ReplayObserver | undefined {
    if (this.disposed || this.options.mode() === 'off') return undefined;
    const key = `${agent}\u0000${sessionId}`;
    if (this.writing.has(key)) return undefined;
    const existing = this.get(agent, sessionId);
    const facts = this.options.facts(agent, sessionId);
    if (existing && facts?.updatedAt && existing.meta.updatedAt === facts.updatedAt) return undefined;
    if (!existing && this.usage().bytes >= this.options.budgetBytes()) return undefined;
    this.writing.add(key);
    const path = keptPath(this.options.root, agent, sessionId);
    // Made with the first update this thread keeps: none where the line worker writes the body (`sunk`).
    let writer: KeptWriter | undefined;
    let sunk: Promise<unknown> | undefined;
    return {
      sink: { path } satisfies KeptSinkSpec,
      sunk: (written: Promise<unknown>) => {
        sunk = written;
      },
      update: (update: SessionUpdate, line: Uint8Array | undefined) => {
        if (sunk) return;
        (writer ??= new KeptWriter(path)).push(line ?? JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } }));
      },
      end: (ok: boolean) => {
        if (!ok) {
          this.writing.delete(key);
          // The worker drops its body with the reduction; one it ended anyway (the load failed after) goes here.
          this.lastWrite = writer?.abort() ?? sunk?.then((result) => fs.rm(keptBodyOf(result, path).tmp, { force: true }), () => undefined).catch(() => undefined) ?? Promise.resolve();
          return;
        }
        const body = sunk ? sunk.then((result) => keptBodyOf(result, path)) : (writer ??= new KeptWriter(path)).endBody();
        const done = this.finish(agent, sessionId, cwd, body).finally(() => this.writing.delete(key));
        this.lastWrite = done;
      },
    };
  }

  private async finish(agent: string, sessionId: string, cwd: string, written: Promise<KeptBody>): Promise<void> {
    const known = this.options.facts(agent, sessionId) ?? {};
    const facts: KeptFacts = { agentName: agent, sessionId, cwd: known.cwd ?? cwd, title: known.title, updatedAt: known.updatedAt, archived: known.archived };
    try {
      const body = await written;
      const meta = await placeKept(body, facts, async (existing, startedAt) => {
        if (await goneSince(body.path, startedAt)) return false;
        return !existing || !isNewer(existing.updatedAt, facts.updatedAt);
      }, this.options.onLockBusy);
      if (!meta || this.disposed) return;
      const bytes = (await fs.stat(body.path)).size;
      this.put({ meta, path: body.path, bytes });
      this.damagedFiles.delete(body.path);
      this.onDidChangeEmitter.fire({ agent });
    } catch (error) {
      this.options.log.warn(`[${agent}] Could not keep a copy of session ${JSON.stringify(sessionId.slice(0, 200))}: ${(error as Error)?.message ?? error}`);
    }
  }

  /**
   * Deletes the copies of these sessions (the user deleted them here): a mark is left first so a
   * copy another window is writing of one of them is not put in place after.
   */
  async delete(agent: string, sessionIds: readonly string[]): Promise<void> {
    let changed = false;
    for (const sessionId of sessionIds) {
      const path = keptPath(this.options.root, agent, sessionId);
      try {
        await fs.mkdir(agentFolder(this.options.root, agent), { recursive: true, mode: 0o700 });
        // Under the copy's lock: a copy another window checked a moment ago is not renamed in after.
        await withKeptLock(path, async () => {
          await fs.writeFile(gonePath(path), '', { mode: 0o600 });
          await fs.rm(path, { force: true });
        }, this.options.onLockBusy);
      } catch (error) {
        this.options.log.warn(`[${agent}] Could not delete the kept copy of session ${JSON.stringify(sessionId.slice(0, 200))}: ${(error as Error)?.message ?? error}`);
        continue;
      }
      if (this.copies.get(agent)?.delete(sessionId)) {
        this.sorted.delete(agent);
        changed = true;
      }
      changed = this.damagedFiles.delete(path) || changed;
    }
    if (changed) this.onDidChangeEmitter.fire({ agent });
  }

  /** Removes a damaged file. */
  async deleteDamaged(path: string): Promise<void> {
    const damaged = this.damagedFiles.get(path);
    if (!damaged) return;
    await fs.rm(path, { force: true });
    this.damagedFiles.delete(path);
    this.onDidChangeEmitter.fire({});
  }

  /** Marks a copy that failed when read to its end as damaged (its body broke gzip's check). */
  markDamaged(copy: KeptCopy, reason: string): void {
    const map = this.copies.get(copy.meta.agentName);
    if (map?.get(copy.meta.sessionId)?.path !== copy.path) return;
    map.delete(copy.meta.sessionId);
    this.sorted.delete(copy.meta.agentName);
    this.damagedFiles.set(copy.path, { path: copy.path, folder: agentFolder(this.options.root, copy.meta.agentName), reason, bytes: copy.bytes });
    this.onDidChangeEmitter.fire({ agent: copy.meta.agentName });
  }

  dispose(): void {
    this.disposed = true;
    this.onDidChangeEmitter.dispose();
  }

  private put(copy: KeptCopy): void {
    let map = this.copies.get(copy.meta.agentName);
    if (!map) this.copies.set(copy.meta.agentName, (map = new Map()));
    map.set(copy.meta.sessionId, copy);
    this.sorted.delete(copy.meta.agentName);
  }

  private async readFolder(): Promise<void> {
    const started = new Date().toISOString();
    const copies = new Map<string, Map<string, KeptCopy>>();
    const damaged = new Map<string, DamagedCopy>();
    let folders: string[];
    try {
      folders = (await fs.readdir(this.options.root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => join(this.options.root, e.name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.options.log.warn(`Could not read the kept copies in ${this.options.root}: ${(error as Error).message}`);
      folders = [];
    }
    const now = Date.now();
    for (const folder of folders) {
      let names: string[];
      try {
        names = await fs.readdir(folder);
      } catch {
        continue;
      }
      await Promise.all(
        names.map(async (name) => {
          const path = join(folder, name);
          if (isTemporaryName(name)) {
            // A window's copy under way, or one that window never finished (closed, crashed).
            const stat = await fs.stat(path).catch(() => undefined);
            if (stat && now - stat.mtimeMs > STALE_TEMPORARY_MS) await fs.rm(path, { force: true }).catch(() => undefined);
            return;
          }
          if (!isKeptName(name)) return;
          try {
            const { meta, size } = await readKeptMeta(path);
            // Filed under another agent's folder or name: not this file's to say.
            if (keptPath(this.options.root, meta.agentName, meta.sessionId) !== path) throw new Error('it is not filed under its own session');
            let map = copies.get(meta.agentName);
            if (!map) copies.set(meta.agentName, (map = new Map()));
            map.set(meta.sessionId, { meta, path, bytes: size });
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
            const bytes = (await fs.stat(path).catch(() => undefined))?.size ?? 0;
            damaged.set(path, { path, folder, reason: (error as Error)?.message ?? String(error), bytes });
          }
        }),
      );
    }
    if (this.disposed) return;
    // A copy this window put in place while the folder was read is kept, whether the read saw it or not.
    for (const copy of this.all()) {
      if (copy.meta.keptAt < started) continue;
      let map = copies.get(copy.meta.agentName);
      if (!map) copies.set(copy.meta.agentName, (map = new Map()));
      if (!map.has(copy.meta.sessionId)) map.set(copy.meta.sessionId, copy);
    }
    this.copies.clear();
    this.sorted.clear();
    for (const [agent, map] of copies) this.copies.set(agent, map);
    this.damagedFiles.clear();
    for (const [path, d] of damaged) this.damagedFiles.set(path, d);
    this.onDidChangeEmitter.fire({});
  }
}

/** Whether a delete here left its mark after `since` (ms). */
async function goneSince(path: string, since: number): Promise<boolean> {
  const stat = await fs.stat(gonePath(path)).catch(() => undefined);
  return !!stat && stat.mtimeMs >= since - 1000;
}

/** Whether ISO date `a` is later than `b` (where either is unknown, neither is). */
function isNewer(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const am = Date.parse(a);
  const bm = Date.parse(b);
  return Number.isFinite(am) && Number.isFinite(bm) && am > bm;
}
