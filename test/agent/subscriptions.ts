// Live session lists of the reference agent (--air-index), as claude-agent-acp serves
// `_session/list/subscribe`: one watch of the store directory (so a write by ANY process sharing
// the store counts, not only this one's), events coalesced, and per subscription the rows of its
// cwd in every archive state compared with what it was last sent. New or changed rows go out in
// `sessions`, deleted or vanished ones in `removed`. Subscribe sends nothing: the rows as they are
// then are the baseline. Unlike claude, a change of `updatedAt` alone counts as a change.
import { randomUUID } from 'node:crypto';
import { type FSWatcher, mkdirSync, watch } from 'node:fs';
import type { ListedSession } from './sessions';
import type { StoredSession } from './store';

/** Events are coalesced for this long after the last one (claude: 150 ms, at most 1 s). */
const DEBOUNCE_MS = 50;
const MAX_WAIT_MS = 500;

export interface ListSubscriptionsDeps {
  store: string;
  /** Every stored session, tombstones included. */
  read(): Promise<StoredSession[]>;
  /** The list entry of a stored session, as `session/list` gives it to this client. */
  row(session: StoredSession): ListedSession;
  notify(params: { subscriptionId: string; sessions: ListedSession[]; removed: string[] }): Promise<void>;
  log(message: string): void;
}

interface Subscription {
  id: string;
  cwd: string;
  /** What it was last told of each session: the row's JSON. */
  sent: Map<string, string>;
}

export class ListSubscriptions {
  private readonly subscriptions = new Map<string, Subscription>();
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private maxWait: NodeJS.Timeout | undefined;
  /** One scan at a time; an event during a scan asks for another one after it. */
  private scanning: Promise<void> | undefined;
  private rescan = false;

  constructor(private readonly deps: ListSubscriptionsDeps) {}

  /** Subscribes to the sessions of `cwd`; changes are tracked from the answer on. */
  async subscribe(cwd: string): Promise<string> {
    this.startWatching();
    const subscription: Subscription = { id: randomUUID(), cwd, sent: new Map() };
    for (const session of await this.deps.read()) {
      if (!session.deleted && session.cwd === cwd) subscription.sent.set(session.sessionId, JSON.stringify(this.deps.row(session)));
    }
    this.subscriptions.set(subscription.id, subscription);
    return subscription.id;
  }

  /** Idempotent: an unknown id is no error. */
  unsubscribe(subscriptionId: string): void {
    this.subscriptions.delete(subscriptionId);
    if (this.subscriptions.size === 0) this.stopWatching();
  }

  /** A change this process made: scanned at once (after the current burst), not on the watcher's word. */
  changed(): void {
    if (this.subscriptions.size > 0) this.schedule();
  }

  dispose(): void {
    this.subscriptions.clear();
    this.stopWatching();
  }

  private startWatching(): void {
    if (this.watcher) return;
    // A store nobody wrote yet: watched from now on, as claude watches a project directory once it exists.
    mkdirSync(this.deps.store, { recursive: true });
    this.watcher = watch(this.deps.store, { persistent: false }, () => this.schedule());
    this.watcher.on('error', (error) => this.deps.log(`store watch failed: ${error.message}`));
  }

  private stopWatching(): void {
    this.watcher?.close();
    this.watcher = undefined;
    clearTimeout(this.debounce);
    clearTimeout(this.maxWait);
    this.debounce = this.maxWait = undefined;
  }

  private schedule(): void {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.fire(), DEBOUNCE_MS);
    this.maxWait ??= setTimeout(() => this.fire(), MAX_WAIT_MS);
  }

  private fire(): void {
    clearTimeout(this.debounce);
    clearTimeout(this.maxWait);
    this.debounce = this.maxWait = undefined;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = this.scan()
      .catch((error) => this.deps.log(`list changes failed: ${(error as Error)?.stack ?? error}`))
      .finally(() => {
        this.scanning = undefined;
        if (this.rescan) {
          this.rescan = false;
          this.fire();
        }
      });
  }

  private async scan(): Promise<void> {
    if (this.subscriptions.size === 0) return;
    const stored = await this.deps.read();
    for (const subscription of [...this.subscriptions.values()]) {
      const sessions: ListedSession[] = [];
      const present = new Set<string>();
      for (const session of stored) {
        if (session.deleted || session.cwd !== subscription.cwd) continue;
        present.add(session.sessionId);
        const row = this.deps.row(session);
        const json = JSON.stringify(row);
        if (subscription.sent.get(session.sessionId) === json) continue;
        subscription.sent.set(session.sessionId, json);
        sessions.push(row);
      }
      const removed = [...subscription.sent.keys()].filter((id) => !present.has(id));
      for (const id of removed) subscription.sent.delete(id);
      if (sessions.length === 0 && removed.length === 0) continue;
      // Unsubscribed while the store was read: nothing more for it.
      if (!this.subscriptions.has(subscription.id)) continue;
      await this.deps.notify({ subscriptionId: subscription.id, sessions, removed });
    }
  }
}
