// Feeds the search index: every replay a transcript received (off the path that shows it), and,
// one agent at a time and one session at a time, the sessions not indexed yet, loaded here only
// where loading has no effect the user would notice (measured per agent; see the README's
// compatibility table), or when the user asked for it. A running session, or one a transcript
// tab holds, is never loaded. Also says, per agent, what is indexed and what is not, and why, for
// the folders the Sessions view shows (its scope): a session of another folder is neither counted
// nor offered nor loaded. Plain TS (no `vscode`).
import type { SessionInfo } from '../acp/types';
import type { AgentRegistry } from '../sessions/agentRegistry';
import { isResourceNotFound } from '../acp/errors';
import { linesIn } from '../acp/lineParse';
import type { SessionsModel } from '../sessions/sessionsModel';
import type { Entity } from '../transcript/model';
import type { ReplayRows, ReplayTimelines } from '../transcript/replayTimelines';
import { loadEffect, type LoadEffect } from '../sessions/loadEffects';
import { IndexDiskFullError, type IndexedSession, type SearchIndex, type SessionMeta } from './searchIndex';

// What a load changes, per agent: shared with kept copies (src/sessions/loadEffects.ts).
export { loadEffect, type LoadEffect } from '../sessions/loadEffects';

export interface AgentCoverage {
  agent: string;
  /** Sessions the agent lists (Active and Archived) in the Sessions view's scope, when listed; undefined before or on failure. */
  listed?: number;
  /** Listed sessions whose text is indexed as of their date. */
  indexed: number;
  /** Listed, indexed, but the agent's date moved since (re-indexed in the background where loads are free). */
  stale: SessionInfo[];
  /** Listed and not indexed. */
  missing: SessionInfo[];
  /** Left alone: running, or open in a transcript tab. */
  busy: number;
  /** The agent cannot replay sessions (no loadSession): nothing of it can be indexed. */
  noLoad: boolean;
  effect: LoadEffect;
  /** Why it could not be listed. */
  error?: string;
}

export interface IndexRun {
  isCancelled(): boolean;
  progress?(done: number, total: number, session: SessionInfo): void;
}

export interface IndexerOptions {
  index: SearchIndex;
  agents: AgentRegistry;
  model: SessionsModel;
  /** Whether a transcript tab shows the session (its replay will index it). */
  isOpen(agent: string, sessionId: string): boolean;
  /** Whether a copy of the session is kept here: its entry stays once the agent no longer lists it (Kept Here). */
  kept?(agent: string, sessionId: string): boolean;
  log: { info(m: string): void; warn(m: string): void };
  /**
   * Where a loaded session's rows are kept while it is indexed (the transcripts' folder, whose
   * stale files activation removes): a batch at a time is in the heap, as for a transcript.
   * Undefined, or a file that cannot be made: the rows stay in memory.
   */
  spillDir?: string;
  /**
   * What makes a loaded replay's rows (src/transcript/replayTimelines.ts, handed over by the
   * transcripts' bundle so that this one carries no reducer); undefined while it cannot be had.
   */
  timelines(): ReplayTimelines | undefined;
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

export class SearchIndexer {
  /** Replays to index, one at a time after the transcript has shown. */
  private queue: Promise<void> = Promise.resolve();
  private readonly coverageByAgent = new Map<string, AgentCoverage>();
  /** Sessions the agent no longer has: a replay or load of them still on its way is not indexed. */
  private readonly gone = new Set<string>();

  constructor(private readonly options: IndexerOptions) {
    // A session whose file was found damaged or gone is no longer indexed: the coverage says so, and the next survey indexes it again.
    options.index.onDidDrop((session) => this.dropped(session));
  }

  /** A transcript's replay ended: its text is indexed later, in slices (the tab is not kept waiting). */
  replayed(agent: string, session: SessionInfo & { archived: boolean }, batches: AsyncIterable<readonly Entity[]>): Promise<void> {
    const meta = metaOf(agent, session, session.archived);
    // Begun at once, not behind other work: the batches are read from the tab's file, which goes
    // when the tab closes. Each batch waits for the encoder, so only one is held at a time.
    const run = yieldNow().then(async () => {
      if (this.isGone(agent, session.sessionId)) return;
      await this.options.index.indexBatches(meta, batches);
      // Counted once its text is written, not before: a failed write leaves it missing.
      const known = this.coverageByAgent.get(agent);
      if (known && this.options.index.get(agent, session.sessionId)) this.recount(known, session.sessionId, session.updatedAt ?? undefined);
    }).catch((error: unknown) => {
      // A full disk is said once by the index, not once per session.
      if (!(error instanceof IndexDiskFullError)) this.options.log.warn(`[${agent}] Search index: could not index ${session.sessionId}: ${(error as Error)?.message ?? error}`);
    });
    return run;
  }

  /** The last coverage computed for `agent`. */
  coverage(agent: string): AgentCoverage | undefined {
    return this.coverageByAgent.get(agent);
  }

  /**
   * Lists every session of the agent (Active and Archived, every folder), drops index entries of
   * sessions the agent no longer lists, updates titles and archive state, and says what of the
   * Sessions view's scope is not indexed.
   */
  async survey(agent: string, isCancelled: () => boolean = () => false): Promise<AgentCoverage> {
    const { agents, model, index } = this.options;
    // What other windows indexed or deleted since counts here too.
    await index.refresh().catch(() => undefined);
    const client = await agents.getClient(agent);
    const effect = loadEffect(client.agentInfo?.name);
    const coverage: AgentCoverage = { agent, indexed: 0, stale: [], missing: [], busy: 0, noLoad: !client.capabilities.loadSession, effect };
    try {
      const listed = [...(await model.listAll(agent, 'active', { isCancelled })).map((s) => ({ ...s, archived: false }))];
      if (client.capabilities.archive) listed.push(...(await model.listAll(agent, 'archived', { isCancelled })).map((s) => ({ ...s, archived: true })));
      coverage.listed = 0;
      const seen = new Set<string>();
      for (const session of listed) {
        seen.add(session.sessionId);
        this.gone.delete(`${agent}\u0000${session.sessionId}`);
        const entry = index.get(agent, session.sessionId);
        if (entry) index.updateMeta(agent, session.sessionId, { archived: session.archived, ...(typeof session.title === 'string' ? { title: session.title } : {}) });
        // Counted, offered and loaded only in the folders the Sessions view shows.
        if (!model.inScope(session.cwd)) continue;
        coverage.listed++;
        if (entry) {
          if ((session.updatedAt ?? undefined) === entry.updatedAt) {
            coverage.indexed++;
            continue;
          }
          coverage.stale.push(session);
        } else coverage.missing.push(session);
        if (session.state === 'running' || this.options.isOpen(agent, session.sessionId)) coverage.busy++;
      }
      // The lists above are of every folder (listAll has no cwd), whatever the Sessions view's
      // scope: a session of this agent they do not hold was deleted, wherever its folder is. (An
      // entry of another folder stays indexed, and is found once the scope holds its folder; so
      // does one whose copy is kept here, found as the Kept Here session it now is.)
      for (const entry of index.sessions(agent)) {
        if (!seen.has(entry.sessionId) && !this.options.kept?.(agent, entry.sessionId)) await this.removed(agent, entry.sessionId);
      }
    } catch (error) {
      coverage.error = (error as Error)?.message ?? String(error);
    }
    this.coverageByAgent.set(agent, coverage);
    return coverage;
  }

  /**
   * Loads and indexes `sessions` of `agent`, one at a time, skipping running ones and ones a tab
   * holds; closes each on the agent after its load where it can. Returns how many were indexed.
   */
  async indexSessions(agent: string, sessions: readonly SessionInfo[], run: IndexRun): Promise<number> {
    const { agents, index, log } = this.options;
    let done = 0;
    let indexed = 0;
    for (const session of sessions) {
      if (run.isCancelled()) break;
      run.progress?.(done, sessions.length, session);
      done++;
      if (session.state === 'running' || this.options.isOpen(agent, session.sessionId)) continue;
      const client = await agents.getClient(agent);
      if (!client.capabilities.loadSession) break;
      const timelines = this.options.timelines();
      if (!timelines) {
        log.warn(`[${agent}] Search index: ${session.sessionId} was not loaded: the transcripts' part of the extension could not be loaded.`);
        break;
      }
      // Reduced in the line worker where it runs (the rows come back as a file); else here, as they come.
      const fileProblem = (why: string) => log.warn(`Search index: ${why} for ${session.sessionId}; its rows stay in memory while it is indexed.`);
      let onHost: ReturnType<ReplayTimelines['onHost']> | undefined;
      let rows: ReplayRows | undefined;
      const spec = timelines.spec(this.options.spillDir, 'survey');
      try {
        try {
          const result = await client.loadSession(
            session.sessionId,
            session.cwd,
            (update, line, reduced) => {
              if (!reduced) (onHost ??= timelines.onHost(this.options.spillDir, 'survey', fileProblem)).apply(update, line ? linesIn(line) : 1);
            },
            undefined,
            { reduce: spec },
          );
          if (result.reduced) {
            const adopted = timelines.adopt(result.reduced);
            if (adopted.fileProblem) fileProblem(adopted.fileProblem);
            rows = adopted.rows;
          } else {
            rows = (onHost ??= timelines.onHost(undefined, 'survey', fileProblem)).rows;
          }
        } catch (error) {
          timelines.discard(spec);
          // -32002: the agent no longer has it; it leaves the index and the coverage alike.
          if (isResourceNotFound(error)) await this.removed(agent, session.sessionId);
          else log.warn(`[${agent}] Search index: session/load of ${session.sessionId} failed: ${(error as Error)?.message ?? error}`);
          continue;
        }
        if (client.capabilities.close && !this.options.isOpen(agent, session.sessionId)) {
          await client.closeSession(session.sessionId).catch((error: unknown) => log.warn(`[${agent}] session/close of ${session.sessionId} after indexing failed: ${(error as Error)?.message ?? error}`));
        }
        if (this.isGone(agent, session.sessionId)) continue;
        try {
          await index.indexBatches(metaOf(agent, session, (session as { archived?: boolean }).archived === true), rows.batches());
        } catch (error) {
          // A full disk fails every session after this one too (the index said so once).
          if (error instanceof IndexDiskFullError) break;
          log.warn(`[${agent}] Search index: could not index ${session.sessionId}: ${(error as Error)?.message ?? error}`);
          continue;
        }
      } finally {
        onHost?.rows.dispose();
        rows?.dispose();
      }
      indexed++;
      const known = this.coverageByAgent.get(agent);
      if (known) this.recount(known, session.sessionId, session.updatedAt ?? undefined);
      // Low priority: whatever else waits on the event loop goes first.
      await yieldNow();
    }
    run.progress?.(done, sessions.length, sessions[sessions.length - 1]);
    return indexed;
  }

  /**
   * The session left the agent (deleted, or gone from its live list): its text leaves the index at
   * once, the coverage stops counting it, and a replay or load of it still on its way is dropped.
   */
  async removed(agent: string, sessionId: string): Promise<void> {
    this.gone.add(`${agent}\u0000${sessionId}`);
    const coverage = this.coverageByAgent.get(agent);
    if (coverage) {
      let counted = false;
      for (const list of [coverage.missing, coverage.stale]) {
        const i = list.findIndex((s) => s.sessionId === sessionId);
        if (i >= 0) {
          list.splice(i, 1);
          counted = true;
        }
      }
      const entry = this.options.index.get(agent, sessionId);
      if (!counted && entry && this.options.model.inScope(entry.cwd)) {
        coverage.indexed = Math.max(0, coverage.indexed - 1);
        counted = true;
      }
      if (counted && coverage.listed !== undefined) coverage.listed = Math.max(0, coverage.listed - 1);
    }
    await this.options.index.remove(agent, sessionId);
  }

  /** Entries of agents that are no longer configured leave the index. */
  pruneAgents(configured: readonly string[]): void {
    const names = new Set(configured);
    for (const agent of [...this.coverageByAgent.keys()]) if (!names.has(agent)) this.coverageByAgent.delete(agent);
    const removed = this.options.index.removeAgentsOtherThan(configured);
    if (removed > 0) this.options.log.info(`Search index: ${removed} sessions of agents no longer configured left the index.`);
  }

  private dropped(session: IndexedSession): void {
    const coverage = this.coverageByAgent.get(session.agent);
    if (!coverage || coverage.listed === undefined || !this.options.model.inScope(session.cwd)) return;
    if ([...coverage.missing, ...coverage.stale].some((s) => s.sessionId === session.sessionId)) return;
    coverage.indexed = Math.max(0, coverage.indexed - 1);
    coverage.missing.push({ sessionId: session.sessionId, cwd: session.cwd, title: session.title ?? null, updatedAt: session.updatedAt ?? null, archived: session.archived } as SessionInfo);
  }

  private isGone(agent: string, sessionId: string): boolean {
    return this.gone.has(`${agent}\u0000${sessionId}`);
  }

  /** Moves a session from missing or stale to indexed in a known coverage. */
  private recount(coverage: AgentCoverage, sessionId: string, updatedAt: string | undefined): void {
    for (const list of [coverage.missing, coverage.stale]) {
      const i = list.findIndex((s) => s.sessionId === sessionId);
      if (i >= 0 && (list[i].updatedAt ?? undefined) === updatedAt) {
        list.splice(i, 1);
        coverage.indexed++;
      }
    }
  }

  /** Waits until every replay handed over so far is indexed (tests, deactivate). */
  idle(): Promise<void> {
    return this.queue;
  }
}

function metaOf(agent: string, session: SessionInfo, archived: boolean): SessionMeta {
  const meta: SessionMeta = { agent, sessionId: session.sessionId, cwd: session.cwd, archived };
  if (typeof session.title === 'string' && session.title) meta.title = session.title;
  if (typeof session.updatedAt === 'string' && session.updatedAt) meta.updatedAt = session.updatedAt;
  return meta;
}
