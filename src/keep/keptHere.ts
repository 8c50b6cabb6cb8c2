// Which kept copies are of sessions the agent no longer has: those the tree shows in Kept Here.
// The agent's list stays the truth about what it has, so a copy is shown only once the agent said
// the session is gone: its live list removed it, it answered -32002 about it, or a full listing
// does not hold it: the tree's own lists of the copy's folder when they are loaded to their last
// page (Active and Archived), else every page of each section, every folder, asked while no list
// of the agent is paging (only for copies in the view's scope). A copy of a session any
// loaded list shows is never in Kept Here, and until a listing decided, a copy is in neither place
// (never shown as if the agent had it, never as lost while it may not be). A delete here deletes
// the copy too; a session gone by no act here keeps it. Plain TS, no `vscode`.
import type { AgentRegistry } from '../sessions/agentRegistry';
import { Emitter, type Disposable, type Event } from '../sessions/events';
import type { SessionInfo } from '../acp/types';
import type { Section, SessionDeleted, SessionList, SessionsModel } from '../sessions/sessionsModel';
import type { KeptCopy, KeptStore } from './keptStore';

/** What Kept Here needs of the sessions model. */
export type KeptHereModel = Pick<SessionsModel, 'allLists' | 'listAll' | 'inScope' | 'onDidDelete' | 'onDidChange' | 'onDidRefresh'> & {
  readonly registry: Pick<AgentRegistry, 'connectedClient' | 'agent'>;
};

/**
 * How long after a list changed the copies are checked against the lists: the next turn of the
 * event loop (the changes of one turn are one check). While a list of the agent is loading, a
 * check does nothing: the list's next change brings it back, so paging costs no check.
 */
const CHECK_DELAY_MS = 0;

/** The ids of a list's sessions, per array (a list replaces its array on every change, never edits it). */
const idsOfSessions = new WeakMap<readonly SessionInfo[], Set<string>>();

function idsOf(list: SessionList): Set<string> {
  let ids = idsOfSessions.get(list.sessions);
  if (!ids) idsOfSessions.set(list.sessions, (ids = new Set(list.sessions.map((s) => s.sessionId))));
  return ids;
}

export class KeptHere implements Disposable {
  /** Per agent: the sessions the agent said are gone, and those a full listing found. */
  private readonly gone = new Map<string, Set<string>>();
  private readonly listed = new Map<string, Set<string>>();
  private readonly checks = new Map<string, Promise<void>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly subscriptions: Disposable[] = [];
  private readonly onDidChangeEmitter = new Emitter<{ agent?: string }>();
  /** What Kept Here shows changed (for an agent, or all). */
  readonly onDidChange: Event<{ agent?: string }> = this.onDidChangeEmitter.event;
  /** The last check against a full listing (tests wait for it). */
  lastCheck: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: KeptStore,
    private readonly model: KeptHereModel,
    private readonly log: { warn(message: string): void },
  ) {
    this.subscriptions.push(
      model.onDidDelete((e) => this.deleted(e)),
      model.onDidChange((change) => {
        // A whole agent changed (a restart): what a listing found is asked again.
        if (!change.list) this.listed.delete(change.agent);
        this.schedule(change.agent);
      }),
      // The user asked to look again: the listing is asked again, and the copies' folder read
      // again (other windows write and delete; a file may have been cut or removed).
      model.onDidRefresh(({ agent }) => {
        if (agent === undefined) this.listed.clear();
        else this.listed.delete(agent);
        void store.scan();
      }),
      store.onDidChange(({ agent }) => {
        if (agent) this.schedule(agent);
        else for (const copy of store.all()) this.schedule(copy.meta.agentName);
        this.onDidChangeEmitter.fire({ agent });
      }),
    );
  }

  /** The copies of `agent` in the Sessions view's scope whose session the agent no longer has. */
  sessions(agent: string): KeptCopy[] {
    const gone = this.gone.get(agent);
    if (!gone || gone.size === 0) return [];
    const shown = this.shown(agent);
    return this.store.of(agent).filter((c) => gone.has(c.meta.sessionId) && !shown(c.meta.sessionId) && this.model.inScope(c.meta.cwd));
  }

  /** Whether `sessionId` of `agent` is a kept copy of a session the agent no longer has. */
  isKeptOnly(agent: string, sessionId: string): boolean {
    return this.sessions(agent).some((c) => c.meta.sessionId === sessionId);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    for (const t of this.timers.values()) clearTimeout(t);
    this.onDidChangeEmitter.dispose();
  }

  private deleted(e: SessionDeleted): void {
    if (e.how === 'deleted') {
      // Delete means delete: the copy goes with the session.
      void this.store.delete(e.agent, [e.sessionId]);
      return;
    }
    this.listed.get(e.agent)?.delete(e.sessionId);
    this.goneSet(e.agent).add(e.sessionId);
    if (this.store.get(e.agent, e.sessionId)) this.onDidChangeEmitter.fire({ agent: e.agent });
  }

  private goneSet(agent: string): Set<string> {
    let set = this.gone.get(agent);
    if (!set) this.gone.set(agent, (set = new Set()));
    return set;
  }

  /** Whether a loaded list of `agent` shows a session (the tree reads this on every refresh: no list is copied). */
  private shown(agent: string): (sessionId: string) => boolean {
    const lists = this.model.allLists(agent);
    return (sessionId) => lists.some((l) => idsOf(l).has(sessionId));
  }

  private schedule(agent: string): void {
    if (this.timers.has(agent) || this.store.of(agent).length === 0) return;
    this.timers.set(
      agent,
      setTimeout(() => {
        this.timers.delete(agent);
        this.lastCheck = this.check(agent);
      }, CHECK_DELAY_MS),
    );
  }

  /**
   * Decides, for each copy of `agent` no list shows and no earlier check placed, whether the agent
   * still has its session: from the loaded lists when they are whole, else from a full listing.
   */
  private check(agent: string): Promise<void> {
    const running = this.checks.get(agent);
    if (running) return running.then(() => this.check(agent));
    const run = this.decide(agent).finally(() => this.checks.delete(agent));
    this.checks.set(agent, run);
    return run;
  }

  private async decide(agent: string): Promise<void> {
    const client = this.model.registry.connectedClient(agent);
    if (!client?.capabilities.list) return;
    const lists = this.model.allLists(agent);
    if (lists.some((l) => l.busy)) return;
    const shown = this.shown(agent);
    const gone = this.goneSet(agent);
    // Listed again (restored elsewhere, or a -32002 that was wrong): the list wins.
    let changed = false;
    for (const id of [...gone]) {
      if (!shown(id)) continue;
      gone.delete(id);
      changed = true;
    }
    const listed = this.listed.get(agent);
    const open = this.store.of(agent).filter((c) => !shown(c.meta.sessionId) && !gone.has(c.meta.sessionId) && !listed?.has(c.meta.sessionId));
    const sections: Section[] = client.capabilities.archive ? ['active', 'archived'] : ['active'];
    // Where every section's list of the copy's folder is loaded to its last page from this
    // client, those lists are a full listing of it: no request is needed.
    const whole = (section: Section, cwd: string) =>
      lists.some((l) => l.section === section && l.status === 'loaded' && !l.hasMore && !l.busy && l.loadedFrom === client && l.covers({ cwd }));
    // The rest need the other sections listed in full: only for copies the view would show.
    const undecided: { copy: KeptCopy; sections: Section[] }[] = [];
    const missing = new Set<Section>();
    for (const copy of open) {
      const need = sections.filter((section) => !whole(section, copy.meta.cwd));
      if (need.length === 0) {
        gone.add(copy.meta.sessionId);
        changed = true;
        continue;
      }
      undecided.push({ copy, sections: need });
      if (this.model.inScope(copy.meta.cwd)) for (const section of need) missing.add(section);
    }
    if (missing.size === 0) {
      if (changed) this.onDidChangeEmitter.fire({ agent });
      return;
    }
    const held = new Set<string>();
    try {
      for (const section of missing) for (const session of await this.model.listAll(agent, section)) held.add(session.sessionId);
    } catch (error) {
      this.log.warn(`[${agent}] Could not list every session to see which kept copies the agent no longer has: ${(error as Error)?.message ?? error}`);
      if (changed) this.onDidChangeEmitter.fire({ agent });
      return;
    }
    this.listed.set(agent, held);
    for (const { copy, sections: need } of undecided) {
      if (need.every((section) => missing.has(section)) && !held.has(copy.meta.sessionId)) gone.add(copy.meta.sessionId);
    }
    this.onDidChangeEmitter.fire({ agent });
  }
}
