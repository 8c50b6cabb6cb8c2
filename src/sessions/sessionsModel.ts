// The sessions model: per agent and folder, the Active and Archived lists as the agent's
// `session/list` returns them, with cursor paging, local moves after archive/unarchive/delete,
// and live `session_info_update`s. The agent stays the source of truth: a refresh replaces
// everything with what it lists.
//
// The model is the one source of every fact about a session: whatever taught it (a write's
// outcome, the live list, a `session_info_update`, a -32002, a re-list), it fires one event, and
// transcripts, search, pins and the tree follow those events. Its parts, each in its own module
// with the small interface it needs from the model declared there: the lists and their paging
// (`sessionList.ts`), the live subscriptions (`liveUpdates.ts`), the status checks
// (`statusChecks.ts`) and the writes (`sessionWrites.ts`). The model holds the lists and applies
// facts to them (`move`, `remove`), so the events fire in one place.
import type { AcpClient } from '../acp/client';
import type { ForkPoint, SessionInfo } from '../acp/types';
import type { AgentRegistry } from './agentRegistry';
import { Emitter, type Disposable, type Event } from './events';
import { forgetRealPaths, sameFolder } from './folders';
import { updatedAtMs } from './format';
import { LiveUpdates, type LiveUpdatesOwner } from './liveUpdates';
import { titleOf, type BulkProgress, type ListAllProgress, type ModelLog, type Section, type SessionOutcome, type SessionScope } from './modelTypes';
import { listAllSessions, listKey, SessionList, type SessionListOwner } from './sessionList';
import { SessionWrites, type WritesOwner } from './sessionWrites';
import { checkAfterLoad, checkStatus, type StatusOwner } from './statusChecks';

// Moved into the parts; the rest of the code imports them from here.
export { SessionList } from './sessionList';
export {
  CapabilityMissingError,
  isAuthRequired,
  ListCancelledError,
  type BulkProgress,
  type ListAllProgress,
  type ListStatus,
  type Section,
  type SessionOutcome,
  type SessionScope,
} from './modelTypes';
// In src/acp/errors.ts, a module without state, so that the search bundle imports it from there.
export { isResourceNotFound } from '../acp/errors';

export interface SessionsChange {
  agent: string;
  /** The list that changed; undefined when the whole agent changed. */
  list?: SessionList;
}

/** What {@link SessionsModel.onDidDelete} tells. */
export interface SessionDeleted {
  agent: string;
  sessionId: string;
  /** `deleted`: the user deleted it here; `gone`: the agent no longer has it, by no act here. */
  how: 'deleted' | 'gone';
}

export interface SessionsModelOptions {
  /** How many sessions a list shows before "Load more" (the agent pages as it likes). */
  pageSize?: number;
  scope?: SessionScope;
  log?: { warn(message: string): void; debug?(message: string): void };
}

export class SessionsModel implements Disposable {
  private readonly lists = new Map<string, SessionList>();
  private readonly onDidChangeEmitter = new Emitter<SessionsChange>();
  readonly onDidChange: Event<SessionsChange> = this.onDidChangeEmitter.event;

  private readonly onDidArchiveEmitter = new Emitter<{ agent: string; sessionId: string; archived: boolean }>();
  /**
   * A session was archived (`archived: true`) or unarchived, whether or not a loaded list holds
   * it: by {@link archive} or {@link unarchive} here (one or a clean-up run), by a
   * `session_info_update` that names `archived`, or by the agent's live list (an entry with the
   * flag). It may repeat the state the model held: every change the model applies to a session
   * that carries the flag (a rename, a new date) fires it too. Search changes its filter, not its
   * text.
   */
  readonly onDidArchive: Event<{ agent: string; sessionId: string; archived: boolean }> = this.onDidArchiveEmitter.event;

  private readonly onDidRenameEmitter = new Emitter<{ agent: string; sessionId: string; title: string | undefined }>();
  /**
   * A session's title changed (`title` undefined: the agent cleared it): by {@link rename} here
   * (always once it is done, with the title the agent stored, whether or not a list holds the
   * session), by a `session_info_update` that names a title (`null` clears it), or by the
   * agent's live list or a re-list that brings another title for a session a loaded list holds.
   * Those fire only when the title differs from the one the model held.
   */
  readonly onDidRename: Event<{ agent: string; sessionId: string; title: string | undefined }> = this.onDidRenameEmitter.event;

  private readonly onDidDeleteEmitter = new Emitter<SessionDeleted>();
  /**
   * A session the agent no longer has: deleted by {@link delete} here (one or a clean-up run;
   * `how: 'deleted'`, also when the agent answered -32002 to that delete), or gone without the
   * user asking here (`how: 'gone'`): answered -32002 to another write here or elsewhere
   * ({@link sessionNotFound}: a transcript's load), or removed by the agent's live list. Fires
   * whether or not a list showed it (search drops its text; a kept copy goes only when deleted).
   */
  readonly onDidDelete: Event<SessionDeleted> = this.onDidDeleteEmitter.event;

  private readonly onDidRefreshEmitter = new Emitter<{ agent?: string }>();
  /** The user asked for a refresh (of one agent, or all): what was learned from elsewhere is read again. */
  readonly onDidRefresh: Event<{ agent?: string }> = this.onDidRefreshEmitter.event;

  private readonly onDidLiveChangeEmitter = new Emitter<{ agent: string; sessions: string[]; removed: string[] }>();
  /** Fires after a live list change was applied (tests wait for it instead of sleeping). */
  readonly onDidLiveChange = this.onDidLiveChangeEmitter.event;

  private readonly registrySubscriptions: Disposable[] = [];
  /** Each agent's slot in the registry when its lists were made (a new slot is a reconfigured agent). */
  private readonly slots = new Map<string, unknown>();
  pageSize: number;
  private currentScope: SessionScope;
  readonly log: ModelLog;
  /** What the parts may ask of the model (see each part's interface). */
  private readonly owner: SessionListOwner & LiveUpdatesOwner & StatusOwner & WritesOwner;
  private readonly live: LiveUpdates;
  private readonly writes: SessionWrites;

  /** The last round of `session/status` requests (tests wait for it instead of sleeping). */
  lastStatusCheck: Promise<void> = Promise.resolve();
  /** The background re-list after the last operation (tests wait for it instead of sleeping). */
  lastRevalidation: Promise<void> = Promise.resolve();

  constructor(
    readonly registry: AgentRegistry,
    options: SessionsModelOptions = {},
  ) {
    this.pageSize = Math.max(1, options.pageSize ?? 50);
    this.currentScope = options.scope ?? { kind: 'all' };
    this.log = options.log;
    const model = this;
    this.owner = {
      registry,
      log: this.log,
      get pageSize() {
        return model.pageSize;
      },
      find: (agent, sessionId) => this.find(agent, sessionId),
      held: (agent) => {
        const held = new Map<string, SessionInfo>();
        for (const list of this.allLists(agent)) for (const session of list.sessions) if (!held.has(session.sessionId)) held.set(session.sessionId, session);
        return held;
      },
      allLists: (agent) => this.allLists(agent),
      listedIds: (agent) => new Set(this.allLists(agent).flatMap((l) => l.sessions.map((s) => s.sessionId))),
      changed: (list) => this.changed(list),
      loaded: (list, client, sessions) => this.loaded(list, client, sessions),
      titleChanged: (agent, sessionId, title) => this.onDidRenameEmitter.fire({ agent, sessionId, title }),
      move: (agent, session) => this.move(agent, session),
      remove: (agent, sessionId, how) => this.remove(agent, sessionId, how),
      liveChanged: (change) => this.onDidLiveChangeEmitter.fire(change),
      archived: (agent, sessionId, archived, session) => {
        if (session) this.move(agent, { ...session, archived });
        // Also for a session no loaded list holds (a collapsed Archived section is not listed).
        else this.onDidArchiveEmitter.fire({ agent, sessionId, archived });
      },
      renamed: (agent, sessionId, title) => this.renamed(agent, sessionId, title),
      revalidate: (agent) => {
        this.lastRevalidation = Promise.all(this.allLists(agent).map((l) => l.reload())).then(() => undefined);
      },
    };
    this.live = new LiveUpdates(this.owner);
    this.writes = new SessionWrites(this.owner);
    for (const agent of registry.agents) this.slots.set(agent.name, agent);
    this.registrySubscriptions.push(
      registry.onDidChangeState((agent) => this.agentStateChanged(agent.name)),
      registry.onDidChangeAgents(() => this.agentsChanged()),
    );
  }

  get scope(): SessionScope {
    return this.currentScope;
  }

  /** Changes the folders listed; lists of other folders are dropped. */
  setScope(scope: SessionScope): void {
    this.currentScope = scope;
    const cwds = new Set(this.cwds());
    for (const [key, list] of this.lists) {
      if (!cwds.has(list.cwd)) {
        list.reset();
        this.lists.delete(key);
      }
    }
    this.live.keepFolders(cwds);
    for (const agent of this.registry.agents) this.onDidChangeEmitter.fire({ agent: agent.name });
  }

  /** Whether a session of folder `cwd` is in the current scope, the folder however the agent spells it (Search counts and searches only those). */
  inScope(cwd: unknown): boolean {
    return this.currentScope.kind === 'all' || (typeof cwd === 'string' && this.currentScope.folders.some((folder) => sameFolder(folder, cwd)));
  }

  /** The `cwd` of each list per section under the current scope (undefined: every folder). */
  cwds(): (string | undefined)[] {
    return this.currentScope.kind === 'all' ? [undefined] : [...this.currentScope.folders];
  }

  /** The sections the agent has: Archived only with `sessionCapabilities.archive`. */
  sections(agent: string): Section[] {
    const capabilities = this.registry.agent(agent)?.capabilities;
    return capabilities?.archive ? ['active', 'archived'] : ['active'];
  }

  /** The list for one agent, section and folder (created idle on first use). */
  list(agent: string, section: Section, cwd: string | undefined): SessionList {
    const key = listKey(agent, section, cwd);
    let list = this.lists.get(key);
    if (!list) {
      list = new SessionList(this.owner, agent, section, cwd);
      this.lists.set(key, list);
    }
    return list;
  }

  /** Every list that exists, optionally of one agent. */
  allLists(agent?: string): SessionList[] {
    return [...this.lists.values()].filter((l) => agent === undefined || l.agent === agent);
  }

  /** A loaded session and the list it is in. */
  find(agent: string, sessionId: string): { session: SessionInfo; list: SessionList } | undefined {
    for (const list of this.allLists(agent)) {
      const session = list.sessions.find((s) => s.sessionId === sessionId);
      if (session) return { session, list };
    }
    return undefined;
  }

  /**
   * Lists again from the agent. A failed, unsupported or signed-out agent is restarted at once
   * (no back-off: the user asked); for a running one every loaded list is re-listed.
   */
  async refresh(agentName?: string): Promise<void> {
    const agents = this.registry.agents.filter((a) => agentName === undefined || a.name === agentName);
    forgetRealPaths();
    this.onDidRefreshEmitter.fire({ agent: agentName });
    await Promise.all(
      agents.map(async (agent) => {
        if (agent.state.kind === 'connected') {
          // The user asked: sessions whose dates changed since take their places now.
          await Promise.all(this.allLists(agent.name).map((l) => l.reload(true)));
          return;
        }
        if (agent.state.kind === 'starting') return;
        // Lists are kept: once the agent runs, they are listed again (see agentStateChanged),
        // and as the user asked, in the agent's order.
        await this.registry.restart(agent.name).catch(() => undefined);
        if (this.registry.connectedClient(agent.name)) await Promise.all(this.allLists(agent.name).map((l) => l.reload(true)));
      }),
    );
  }

  /**
   * Every session of one section of an agent, all folders, following `session/list` cursors to
   * the end without touching the tree's lists (clean-up). Throws when cancelled or on failure.
   */
  listAll(agent: string, section: Section, progress: ListAllProgress = {}): Promise<SessionInfo[]> {
    return listAllSessions(this.registry, agent, section, progress);
  }

  /** Archives sessions; each that succeeds moves from Active to Archived at once. */
  archive(agent: string, sessionIds: readonly string[], progress?: BulkProgress): Promise<SessionOutcome[]> {
    return this.writes.setArchived(agent, sessionIds, true, progress);
  }

  /** Unarchives sessions; each that succeeds moves from Archived to Active at once. */
  unarchive(agent: string, sessionIds: readonly string[], progress?: BulkProgress): Promise<SessionOutcome[]> {
    return this.writes.setArchived(agent, sessionIds, false, progress);
  }

  /** Renames a session (`session/set_title`); on success every list shows the agent's stored title at once. */
  rename(agent: string, sessionId: string, title: string): Promise<SessionOutcome> {
    return this.writes.rename(agent, sessionId, title);
  }

  /**
   * Forks a listed, unarchived session (`session/fork`) ending at `point`; done, the new session is
   * in every list that covers it at once, forked from its origin (the outcome's `forked`).
   */
  fork(agent: string, sessionId: string, point?: ForkPoint): Promise<SessionOutcome> {
    return this.writes.fork(agent, sessionId, point);
  }

  /** Deletes sessions; each that succeeds disappears from every list. Cancelled: the rest are not sent. */
  delete(agent: string, sessionIds: readonly string[], progress?: BulkProgress): Promise<SessionOutcome[]> {
    return this.writes.delete(agent, sessionIds, progress);
  }

  /**
   * The agent answered -32002 about a session outside this model's writes (a transcript's load):
   * it no longer has it, so every list drops it and whoever follows the model hears of it.
   */
  sessionNotFound(agent: string, sessionId: string): void {
    this.remove(agent, sessionId, 'gone');
  }

  /**
   * Asks `session/status` of each session (no side effects; a few at a time) and shows the
   * answers in every list, in place. -32002 leaves a session as it is (the next list says whether
   * it is gone); another failure stops asking this round, with one warning.
   */
  checkStatus(agent: string, client: AcpClient, sessionIds: readonly string[]): Promise<void> {
    return checkStatus(this.owner, agent, client, sessionIds);
  }

  /**
   * After a transcript's `session/load`: whether the load resumed the session (its date became
   * now), shown in its row in place (see statusChecks.ts).
   */
  checkAfterLoad(agent: string, before: SessionInfo): Promise<{ resumed: boolean; session?: SessionInfo }> {
    return checkAfterLoad(this.owner, agent, before);
  }

  /** The last live list subscription asked for (tests wait for it instead of sleeping). */
  get lastLiveSubscription(): Promise<void> {
    return this.live.lastLiveSubscription;
  }

  /** @internal the folders of `agent` with a live list subscription (asked for or answered). */
  liveFolders(agent: string): string[] {
    return this.live.liveFolders(agent);
  }

  /** @internal how many sessions of `agent` have a live-update subscription. */
  trackedSessionCount(agent: string): number {
    return this.live.trackedSessionCount(agent);
  }

  dispose(): void {
    for (const d of this.registrySubscriptions) d.dispose();
    this.live.dispose();
    for (const list of this.lists.values()) list.reset();
    this.lists.clear();
    this.onDidChangeEmitter.dispose();
    this.onDidLiveChangeEmitter.dispose();
    this.onDidDeleteEmitter.dispose();
    this.onDidArchiveEmitter.dispose();
    this.onDidRenameEmitter.dispose();
    this.onDidRefreshEmitter.dispose();
  }

  /** A list changed. */
  private changed(list: SessionList): void {
    this.onDidChangeEmitter.fire({ agent: list.agent, list });
  }

  /** A list was loaded from `client`: its sessions and folder get live updates, then their status. */
  private loaded(list: SessionList, client: AcpClient, sessions: readonly SessionInfo[]): void {
    this.dedupeSections(list);
    this.live.track(list.agent, client, sessions);
    this.live.subscribeLive(list.agent, client, list.cwd);
    this.changed(list);
    if (client.capabilities.sessionState === 'status') {
      this.lastStatusCheck = this.checkStatus(list.agent, client, sessions.map((s) => s.sessionId));
    }
  }

  /**
   * A session never shows in both sections: where an agent ignores the `archived` filter and its
   * entries carry no flag to tell (both lists then hold every session), Active keeps it. (Entries
   * with a flag are sorted by it as they are listed, see SessionList.)
   */
  private dedupeSections(loaded: SessionList): void {
    const lists = this.allLists(loaded.agent).filter((l) => l.status === 'loaded');
    const active = lists.filter((l) => l.section === 'active');
    const archived = lists.filter((l) => l.section === 'archived');
    if (active.length === 0 || archived.length === 0) return;
    const held = new Set(active.flatMap((l) => l.sessions.map((s) => s.sessionId)));
    let moved = 0;
    for (const list of archived) {
      const kept = list.sessions.filter((s) => !list.flagFromSection.has(s.sessionId) || !held.has(s.sessionId));
      if (kept.length === list.sessions.length) continue;
      moved += list.sessions.length - kept.length;
      list.sessions = kept;
      if (list !== loaded) this.changed(list);
    }
    if (moved > 0) this.log?.warn(`"${loaded.agent}" listed ${moved} sessions both with and without archived: "only", without saying which they are; they are shown under Active only.`);
  }

  /** A rename is done: every list shows the stored title, and the event fires once, held or not. */
  private renamed(agent: string, sessionId: string, title: string): void {
    const current = this.find(agent, sessionId)?.session;
    if (current) this.move(agent, { ...current, title }, false);
    this.onDidRenameEmitter.fire({ agent, sessionId, title });
  }

  /**
   * Puts the session into the lists of its (new) section and out of the others. A list that
   * holds it keeps it in place, however the agent spells its folder now; only a list that does
   * not hold it yet asks whether its folder is this one. A title other than the one held fires
   * onDidRename, unless the caller fires it (`announceTitle` false).
   */
  private move(agent: string, session: SessionInfo, announceTitle = true): void {
    if (typeof session.archived === 'boolean') this.onDidArchiveEmitter.fire({ agent, sessionId: session.sessionId, archived: session.archived });
    const held = announceTitle ? this.find(agent, session.sessionId)?.session : undefined;
    const lists = this.allLists(agent);
    // Without the flag, the section it is listed in says where it is (a rename keeps it there).
    const holder = lists.find((l) => l.sessions.some((s) => s.sessionId === session.sessionId));
    const section: Section = typeof session.archived === 'boolean' ? (session.archived ? 'archived' : 'active') : holder?.section ?? 'active';
    for (const list of lists) {
      const index = list.sessions.findIndex((s) => s.sessionId === session.sessionId);
      if (list.section !== section) {
        if (index >= 0) {
          list.sessions = list.sessions.filter((_, i) => i !== index);
          this.changed(list);
        }
        continue;
      }
      const next = [...list.sessions];
      if (index >= 0) next[index] = session;
      else if (list.status === 'loaded' && list.covers(session) && !belongsAfterLoadedPages(list, session)) next.push(session);
      else continue;
      list.setSessions(next);
      this.changed(list);
    }
    const client = this.registry.connectedClient(agent);
    if (client) this.live.track(agent, client, [session]);
    if (held && titleOf(held) !== titleOf(session)) this.onDidRenameEmitter.fire({ agent, sessionId: session.sessionId, title: titleOf(session) });
  }

  private remove(agent: string, sessionId: string, how: SessionDeleted['how']): void {
    this.onDidDeleteEmitter.fire({ agent, sessionId, how });
    for (const list of this.allLists(agent)) {
      const next = list.sessions.filter((s) => s.sessionId !== sessionId);
      if (next.length !== list.sessions.length) {
        list.sessions = next;
        this.changed(list);
      }
    }
    this.live.untrack(agent, sessionId);
  }

  private agentStateChanged(agent: string): void {
    const state = this.registry.agent(agent)?.state;
    if (!state) return;
    if (state.kind === 'starting' || state.kind === 'needsAuthentication') {
      this.onDidChangeEmitter.fire({ agent });
      return;
    }
    const client = this.registry.connectedClient(agent);
    this.live.clientChanged(agent, client);
    // Content from another (dead) client is stale, but what the reader had (Load more pages, the
    // order seen) stays on screen: once connected again, each list is listed again as deep as it
    // was, in the background, and sessions keep their places.
    if (client) {
      for (const list of this.allLists(agent)) {
        if (list.busy || list.status === 'idle' || list.loadedFrom === client) continue;
        this.lastRevalidation = list.reload();
      }
    }
    this.onDidChangeEmitter.fire({ agent });
  }

  private agentsChanged(): void {
    for (const agent of new Set(this.allLists().map((l) => l.agent))) {
      // A removed or reconfigured agent (a new slot: another command, another store) lists
      // other sessions: its old lists go. A restart after a crash keeps its slot and its lists.
      const slot = this.registry.agent(agent);
      if (!slot || this.slots.get(agent) !== slot) this.dropAgent(agent);
    }
    this.slots.clear();
    for (const agent of this.registry.agents) this.slots.set(agent.name, agent);
  }

  private dropAgent(agent: string): void {
    for (const list of this.allLists(agent)) {
      list.reset();
      this.lists.delete(list.id);
    }
    this.live.dropAgent(agent);
  }
}

/**
 * A session older than everything loaded, while more pages remain, arrives with a later page;
 * inserting it now would duplicate it then.
 */
function belongsAfterLoadedPages(list: SessionList, session: SessionInfo): boolean {
  if (!list.hasMore || list.sessions.length === 0) return false;
  const last = list.placeTime(list.sessions[list.sessions.length - 1]);
  const ms = updatedAtMs(session);
  return last !== undefined && (ms === undefined || ms < last);
}
