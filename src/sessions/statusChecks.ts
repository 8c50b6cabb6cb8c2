// Status checks: questions the model asks an agent that change nothing there. `session/status` of
// listed sessions (the row's running or idle state, where the agent serves it), and after a
// transcript's `session/load`, whether the load resumed the session (its date became now). The
// answers go into the lists in place, through the little this part needs of the model
// (`StatusOwner`).
import type { AcpClient } from '../acp/client';
import { isResourceNotFound, messageOf } from '../acp/errors';
import type { ListSessionsParams, SessionInfo, SessionState } from '../acp/types';
import type { AgentRegistry } from './agentRegistry';
import { updatedAtMs } from './format';
import { withState, type ModelLog } from './modelTypes';
import type { SessionList } from './sessionList';

/** What the status checks need from the model that owns the lists. */
export interface StatusOwner {
  readonly registry: Pick<AgentRegistry, 'connectedClient'>;
  readonly log: ModelLog;
  /** Every list of the agent. */
  allLists(agent: string): SessionList[];
  /** A session some loaded list holds, as the model knows it. */
  find(agent: string, sessionId: string): { session: SessionInfo } | undefined;
  /** The list's content changed. */
  changed(list: SessionList): void;
  /** Puts what the agent now says about a session into the lists. */
  move(agent: string, session: SessionInfo): void;
}

/** `session/status` requests in flight at once per agent. */
const statusConcurrency = 4;

/**
 * Asks `session/status` of each session (no side effects; a few at a time) and shows the
 * answers in every list, in place. -32002 leaves a session as it is (the next list says whether
 * it is gone); another failure stops asking this round, with one warning.
 */
export async function checkStatus(owner: StatusOwner, agent: string, client: AcpClient, sessionIds: readonly string[]): Promise<void> {
  if (client.capabilities.sessionState !== 'status') return;
  const states = new Map<string, SessionState | undefined>();
  const queue = [...new Set(sessionIds)];
  let failure: unknown;
  const ask = async () => {
    for (let sessionId = queue.shift(); sessionId !== undefined && failure === undefined; sessionId = queue.shift()) {
      try {
        states.set(sessionId, await client.sessionStatus(sessionId));
      } catch (error) {
        if (!isResourceNotFound(error)) failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(statusConcurrency, queue.length) }, ask));
  if (failure !== undefined) owner.log?.warn(`Asking "${agent}" for the status of its sessions failed: ${messageOf(failure)}`);
  // A restarted agent's answers describe another process.
  if (owner.registry.connectedClient(agent) !== client) return;
  for (const list of owner.allLists(agent)) {
    let changed = false;
    const next = list.sessions.map((session) => {
      if (!states.has(session.sessionId) || session.state === states.get(session.sessionId)) return session;
      changed = true;
      return withState(session, states.get(session.sessionId));
    });
    if (changed) {
      list.sessions = next;
      owner.changed(list);
    }
  }
}

/**
 * After a transcript's `session/load`: what did the load do? Lists the first page of the
 * session's folder and section again (no side effects; a session the load made newest is on
 * it) and, with `session/status`, asks for its status. Some agents resume a session they load
 * (claude-agent-acp without the AIR index, codex-acp): its `updatedAt` becomes now, reported
 * as `resumed`. The row shows the new date and state in place: the order holds until an
 * explicit refresh, so the session the user just opened does not move under the cursor.
 */
export async function checkAfterLoad(owner: StatusOwner, agent: string, before: SessionInfo): Promise<{ resumed: boolean; session?: SessionInfo }> {
  const client = owner.registry.connectedClient(agent);
  if (!client?.capabilities.list) return { resumed: false };
  const params: ListSessionsParams = { cwd: before.cwd };
  if (client.capabilities.archive) params.archived = before.archived ? 'only' : 'exclude';
  let listed: SessionInfo | undefined;
  try {
    // Where the agent serves it, that one session by id: no folder is listed for it.
    listed = client.capabilities.batchGet
      ? (await client.getSessions([before.sessionId])).find((s) => s.sessionId === before.sessionId)
      : (await client.listSessions(params)).sessions.find((s) => s.sessionId === before.sessionId);
  } catch (error) {
    owner.log?.warn(`Listing "${agent}" after loading session ${before.sessionId} failed: ${messageOf(error)}`);
  }
  const was = updatedAtMs(before);
  const now = listed ? updatedAtMs(listed) : undefined;
  const resumed = was !== undefined && now !== undefined && now > was;
  // Only what the load changed: a live update during the replay may be newer than the list.
  const current = owner.find(agent, before.sessionId)?.session;
  if (listed && current && owner.registry.connectedClient(agent) === client) {
    let next = resumed ? { ...current, updatedAt: listed.updatedAt } : current;
    if (client.capabilities.sessionState === 'jetbrains-air') next = withState(next, listed.state);
    if (next !== current) owner.move(agent, next);
  }
  await checkStatus(owner, agent, client, [before.sessionId]);
  return { resumed, session: listed };
}
