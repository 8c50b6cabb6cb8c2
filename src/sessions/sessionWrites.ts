// The writes: archive, unarchive, rename, delete and fork, each gated by the capability it needs (nothing
// is sent without it), one request at a time in the caller's order, each session's outcome
// reported as it is known. A -32002 means the agent no longer has the session. The model applies
// each outcome to its lists and fires its events (`WritesOwner`); this part only asks the agent.
import { isResourceNotFound, messageOf } from '../acp/errors';
import type { ForkPoint, SessionInfo } from '../acp/types';
import type { AgentRegistry } from './agentRegistry';
import { CapabilityMissingError, isAuthRequired, type BulkProgress, type ModelLog, type SessionOutcome } from './modelTypes';

/** What the writes need from the model that owns the lists. */
export interface WritesOwner {
  readonly registry: Pick<AgentRegistry, 'getClient' | 'reportAuthenticationRequired' | 'connectedClient'>;
  readonly log: ModelLog;
  /** A session some loaded list holds, as the model knows it. */
  find(agent: string, sessionId: string): { session: SessionInfo } | undefined;
  /** The agent archived or unarchived the session (`session`: as known before the request). */
  archived(agent: string, sessionId: string, archived: boolean, session: SessionInfo | undefined): void;
  /** The agent stored `title` for the session. */
  renamed(agent: string, sessionId: string, title: string): void;
  /** The agent no longer has the session (deleted, or it answered -32002). */
  remove(agent: string, sessionId: string, how: 'deleted' | 'gone'): void;
  /** A session new to the lists, or changed: each list that covers it shows it. */
  move(agent: string, session: SessionInfo): void;
  /** Lists the agent's lists again in the background, after writes that reached it. */
  revalidate(agent: string): void;
}

export class SessionWrites {
  constructor(private readonly owner: WritesOwner) {}

  /** Archives or unarchives sessions. */
  async setArchived(agent: string, sessionIds: readonly string[], archived: boolean, progress?: BulkProgress): Promise<SessionOutcome[]> {
    const client = await this.owner.registry.getClient(agent);
    const what = archived ? 'archive sessions' : 'unarchive sessions';
    if (!client.capabilities.archive) throw new CapabilityMissingError(agent, 'archive', what);
    return this.eachSession(agent, sessionIds, progress, async (sessionId, session) => {
      if (archived) await client.archiveSession(sessionId);
      else await client.unarchiveSession(sessionId);
      this.owner.archived(agent, sessionId, archived, session);
    });
  }

  /** Renames a session (`session/set_title`); done, the outcome carries the title the agent stored. */
  async rename(agent: string, sessionId: string, title: string): Promise<SessionOutcome> {
    const client = await this.owner.registry.getClient(agent);
    if (!client.capabilities.title) throw new CapabilityMissingError(agent, 'title', 'rename sessions');
    const session = this.owner.find(agent, sessionId)?.session;
    try {
      const stored = await client.setSessionTitle(sessionId, title);
      this.owner.renamed(agent, sessionId, stored);
      return { agent, sessionId, session, status: 'done', title: stored };
    } catch (error) {
      return this.failure(agent, sessionId, session, error);
    }
  }

  /**
   * Forks a session (`session/fork`) in its own folder, ending at `point` where given. Done, the
   * outcome carries the new session as the agent lists it, which every list that covers it shows at
   * once; where the agent does not list it yet, as the client knows it (the origin's folder, forked
   * from it). Nothing is forked of a session that is not listed or is archived.
   */
  async fork(agent: string, sessionId: string, point?: ForkPoint): Promise<SessionOutcome> {
    const client = await this.owner.registry.getClient(agent);
    if (!client.capabilities.fork) throw new CapabilityMissingError(agent, 'fork', 'fork sessions');
    const session = this.owner.find(agent, sessionId)?.session;
    if (!session) return { agent, sessionId, session, status: 'failed', error: new Error(`session ${sessionId} is not listed`) };
    if (session.archived === true) return { agent, sessionId, session, status: 'failed', error: new Error(`session ${sessionId} is archived: unarchive it first`) };
    let forkId: string;
    try {
      forkId = (await client.forkSession(sessionId, session.cwd, { point })).sessionId;
    } catch (error) {
      return this.failure(agent, sessionId, session, error);
    }
    let listed: SessionInfo | undefined;
    try {
      listed = client.capabilities.batchGet
        ? (await client.getSessions([forkId])).find((s) => s.sessionId === forkId)
        : client.capabilities.list
          ? (await client.listSessions({ cwd: session.cwd, ...(client.capabilities.archive ? { archived: 'exclude' as const } : {}) })).sessions.find((s) => s.sessionId === forkId)
          : undefined;
    } catch (error) {
      this.owner.log?.warn(`Listing "${agent}" after forking session ${sessionId} failed: ${messageOf(error)}`);
    }
    const base: SessionInfo = listed ?? { sessionId: forkId, cwd: session.cwd, title: null, updatedAt: new Date().toISOString(), ...(session.archived === false ? { archived: false } : {}) };
    const forked: SessionInfo = base.details?.forkedFrom ? base : { ...base, details: { ...base.details, forkedFrom: sessionId } };
    if (this.owner.registry.connectedClient(agent) === client) this.owner.move(agent, forked);
    return { agent, sessionId, session, status: 'done', forked };
  }

  /** Deletes sessions. Cancelled: the rest are not sent. */
  async delete(agent: string, sessionIds: readonly string[], progress?: BulkProgress): Promise<SessionOutcome[]> {
    const client = await this.owner.registry.getClient(agent);
    if (!client.capabilities.delete) throw new CapabilityMissingError(agent, 'delete', 'delete sessions');
    return this.eachSession(agent, sessionIds, progress, async (sessionId) => {
      await client.deleteSession(sessionId);
      this.owner.remove(agent, sessionId, 'deleted');
    }, 'deleted');
  }

  /**
   * Applies `change` to each session in turn (one request at a time, in the caller's order),
   * reporting each outcome as it is known; a cancel leaves the rest unsent.
   */
  private async eachSession(
    agent: string,
    sessionIds: readonly string[],
    progress: BulkProgress | undefined,
    change: (sessionId: string, session: SessionInfo | undefined) => Promise<void>,
    /** What a -32002 answer means here: the session is gone, or (a delete) deleted as asked. */
    goneAs: 'deleted' | 'gone' = 'gone',
  ): Promise<SessionOutcome[]> {
    const outcomes: SessionOutcome[] = [];
    for (const sessionId of sessionIds) {
      if (progress?.isCancelled?.()) break;
      const session = this.owner.find(agent, sessionId)?.session;
      try {
        await change(sessionId, session);
        outcomes.push({ agent, sessionId, session, status: 'done' });
      } catch (error) {
        outcomes.push(this.failure(agent, sessionId, session, error, goneAs));
      }
      progress?.onOutcome?.(outcomes[outcomes.length - 1]);
    }
    // After a change the local move is already on screen; listing again in the background keeps
    // the cursor chains right (an agent's cursor may count positions that just moved).
    if (outcomes.some((o) => o.status !== 'failed')) this.owner.revalidate(agent);
    return outcomes;
  }

  private failure(agent: string, sessionId: string, session: SessionInfo | undefined, error: unknown, goneAs: 'deleted' | 'gone' = 'gone'): SessionOutcome {
    if (isResourceNotFound(error)) {
      // -32002: the agent no longer knows the session, so no list may keep showing it.
      this.owner.remove(agent, sessionId, goneAs);
      return { agent, sessionId, session, status: 'gone', error };
    }
    if (isAuthRequired(error)) this.owner.registry.reportAuthenticationRequired(agent, messageOf(error));
    this.owner.log?.warn(`Operation on session ${sessionId} of "${agent}" failed: ${messageOf(error)}`);
    return { agent, sessionId, session, status: 'failed', error };
  }
}
