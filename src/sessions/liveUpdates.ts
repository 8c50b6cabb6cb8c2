// Live subscriptions: what the agent tells the model without being asked. Per listed session, its
// `session/update`s (a `session_info_update` retitles, redates or archives it in place); per
// folder, where the agent serves it, the live session list (sessions another process creates,
// retitles, archives or deletes). Each subscription is tied to one client and ends with it. The
// model applies what arrives (`LiveUpdatesOwner`): this part only listens and translates.
import type { AcpClient } from '../acp/client';
import { messageOf } from '../acp/errors';
import type { SessionInfo, SessionListChange, SessionUpdate } from '../acp/types';
import type { AgentRegistry } from './agentRegistry';
import type { Disposable } from './events';
import type { ModelLog } from './modelTypes';

/** What the live subscriptions need from the model that owns them. */
export interface LiveUpdatesOwner {
  readonly registry: Pick<AgentRegistry, 'connectedClient'>;
  readonly log: ModelLog;
  /** The sessions each list of the agent holds (a session no list shows needs no updates). */
  listedIds(agent: string): Set<string>;
  /** A session some loaded list holds, as the model knows it. */
  find(agent: string, sessionId: string): { session: SessionInfo } | undefined;
  /** Puts what the agent now says about a session into the lists (and fires what changed). */
  move(agent: string, session: SessionInfo): void;
  /** The agent no longer has the session. */
  remove(agent: string, sessionId: string, how: 'gone'): void;
  /** A live list change was applied. */
  liveChanged(change: { agent: string; sessions: string[]; removed: string[] }): void;
}

/** An agent's live list subscriptions: per folder, the subscription id once the agent answered. */
interface LiveLists {
  client: AcpClient;
  byCwd: Map<string, Promise<string | undefined>>;
  listener: Disposable;
}

export class LiveUpdates implements Disposable {
  /** Live `session/update` subscriptions per agent, per listed session, tied to one client. */
  private readonly subscriptions = new Map<string, { client: AcpClient; bySession: Map<string, Disposable> }>();
  /** Live list subscriptions per agent (where it serves them): per folder, tied to one client. */
  private readonly live = new Map<string, LiveLists>();

  /** The last live list subscription asked for (tests wait for it instead of sleeping). */
  lastLiveSubscription: Promise<void> = Promise.resolve();

  constructor(private readonly owner: LiveUpdatesOwner) {}

  /** Subscribes to live updates of listed sessions (once per session and client). */
  track(agent: string, client: AcpClient, sessions: readonly SessionInfo[]): void {
    let entry = this.subscriptions.get(agent);
    if (entry && entry.client !== client) {
      this.untrack(agent);
      entry = undefined;
    }
    if (!entry) {
      entry = { client, bySession: new Map() };
      this.subscriptions.set(agent, entry);
    }
    for (const session of sessions) {
      if (entry.bySession.has(session.sessionId)) continue;
      const sessionId = session.sessionId;
      entry.bySession.set(
        sessionId,
        // Info updates of a replay count too (a load may bring a newer title).
        client.onSessionUpdate(sessionId, (update) => this.sessionUpdated(agent, sessionId, update), { replays: true }),
      );
    }
    // A session no list shows any more gets no updates (sessionUpdated ignores it): unsubscribe.
    const listed = this.owner.listedIds(agent);
    for (const sessionId of [...entry.bySession.keys()]) if (!listed.has(sessionId)) this.untrack(agent, sessionId);
  }

  /** Ends the live updates of one session of an agent, or of all its sessions. */
  untrack(agent: string, sessionId?: string): void {
    const entry = this.subscriptions.get(agent);
    if (!entry) return;
    if (sessionId !== undefined) {
      entry.bySession.get(sessionId)?.dispose();
      entry.bySession.delete(sessionId);
      return;
    }
    for (const d of entry.bySession.values()) d.dispose();
    this.subscriptions.delete(agent);
  }

  /** How many sessions of `agent` have a live-update subscription. */
  trackedSessionCount(agent: string): number {
    return this.subscriptions.get(agent)?.bySession.size ?? 0;
  }

  /**
   * Subscribes to the live list of the folder (once per folder and client), where the agent
   * serves it: sessions another process creates, retitles, archives or deletes there show
   * without a Refresh. The "all folders" scope has none (the agents need a folder).
   */
  subscribeLive(agent: string, client: AcpClient, cwd: string | undefined): void {
    if (cwd === undefined || !client.capabilities.listSubscribe || !client.isConnected) return;
    let entry = this.live.get(agent);
    if (entry && entry.client !== client) {
      this.unsubscribeLive(agent);
      entry = undefined;
    }
    if (!entry) {
      const created: LiveLists = { client, byCwd: new Map(), listener: client.onDidChangeSessionList((change) => this.liveChange(agent, created, change)) };
      entry = created;
      this.live.set(agent, entry);
    }
    if (entry.byCwd.has(cwd)) return;
    const subscribed = entry;
    const pending = client.subscribeSessionList(cwd).then(
      (id) => {
        // Unsubscribed (scope changed, agent stopped) while the answer was on its way.
        if (this.live.get(agent) !== subscribed || subscribed.byCwd.get(cwd) !== pending) void client.unsubscribeSessionList(id).catch(() => undefined);
        return id;
      },
      (error: unknown) => {
        this.owner.log?.warn(`Subscribing to the live list of "${agent}" for ${cwd} failed: ${messageOf(error)}; Refresh shows what changed.`);
        if (subscribed.byCwd.get(cwd) === pending) subscribed.byCwd.delete(cwd);
        return undefined;
      },
    );
    subscribed.byCwd.set(cwd, pending);
    this.lastLiveSubscription = pending.then(() => undefined);
  }

  /** The folders of `agent` with a live list subscription (asked for or answered). */
  liveFolders(agent: string): string[] {
    return [...(this.live.get(agent)?.byCwd.keys() ?? [])];
  }

  /** Ends the live list subscriptions of folders no longer listed. */
  keepFolders(cwds: ReadonlySet<string | undefined>): void {
    for (const [agent, entry] of [...this.live]) {
      for (const cwd of [...entry.byCwd.keys()]) if (!cwds.has(cwd)) this.unsubscribeLive(agent, cwd);
    }
  }

  /** The agent's connected client is now `client` (or none): subscriptions of another one end with it. */
  clientChanged(agent: string, client: AcpClient | undefined): void {
    if (this.subscriptions.get(agent)?.client !== client) this.untrack(agent);
    // A live list ends with its process; the lists listed again from the new one subscribe anew.
    if (this.live.get(agent) && this.live.get(agent)!.client !== client) this.unsubscribeLive(agent);
  }

  /** Ends every subscription of an agent (removed or reconfigured). */
  dropAgent(agent: string): void {
    this.untrack(agent);
    this.unsubscribeLive(agent);
  }

  dispose(): void {
    for (const agent of [...this.subscriptions.keys()]) this.untrack(agent);
    for (const agent of [...this.live.keys()]) this.unsubscribeLive(agent);
  }

  /** Ends the live list subscriptions of an agent (of one folder, or all). Nothing is sent to a process that is gone. */
  private unsubscribeLive(agent: string, cwd?: string): void {
    const entry = this.live.get(agent);
    if (!entry) return;
    const folders = cwd === undefined ? [...entry.byCwd.keys()] : [cwd];
    for (const folder of folders) {
      const pending = entry.byCwd.get(folder);
      entry.byCwd.delete(folder);
      if (entry.client.isConnected) void pending?.then((id) => (id === undefined ? undefined : entry.client.unsubscribeSessionList(id))).catch(() => undefined);
    }
    if (cwd === undefined || entry.byCwd.size === 0) {
      entry.listener.dispose();
      this.live.delete(agent);
    }
  }

  /**
   * A live list change: each session named is updated in place, moved between the sections or,
   * new, put in the lists of its folder; each removed one leaves every list.
   */
  private liveChange(agent: string, entry: LiveLists, change: SessionListChange): void {
    if (this.live.get(agent) !== entry || this.owner.registry.connectedClient(agent) !== entry.client) return;
    for (const session of change.sessions) this.owner.move(agent, session);
    for (const sessionId of change.removed) this.owner.remove(agent, sessionId, 'gone');
    this.owner.liveChanged({ agent, sessions: change.sessions.map((s) => s.sessionId), removed: change.removed });
  }

  /** A `session_info_update` of a listed session: what it names changes, in place. */
  private sessionUpdated(agent: string, sessionId: string, update: SessionUpdate): void {
    if (update.sessionUpdate !== 'session_info_update') return;
    const found = this.owner.find(agent, sessionId);
    if (!found) return;
    const info = update as { title?: string | null; updatedAt?: string | null; archived?: boolean | null };
    const next: SessionInfo = { ...found.session };
    // Omitted: unchanged; null: cleared (title, updatedAt); `archived: null` changes nothing.
    if (info.title !== undefined) next.title = info.title;
    if (info.updatedAt !== undefined) next.updatedAt = info.updatedAt;
    if (typeof info.archived === 'boolean') next.archived = info.archived;
    this.owner.move(agent, next);
  }
}
