// The live session lists one connection holds (JetBrains AIR's list subscriptions, the wire form
// in jetbrainsAir.ts): subscribing and unsubscribing, and each change the agent sends, checked
// and delivered in order to the subscriptions this client holds, including a change that comes
// before its subscription's answer. They end with the agent's process.
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import { AcpError, ErrorCodes } from './errors';
import { AIR_METHODS, readAirListChanges, readAirSubscriptionId } from './jetbrainsAir';
import { Problems } from './validate';
import type { Logger, SessionInfo, SessionListChange } from './types';

/** What the subscriptions need of the client that holds them. */
export interface ListSubscriptionsOwner {
  readonly name: string;
  readonly log: Logger;
  /** False once the connection ended, or when the agent offers no live list: changes are then ignored. */
  takesListChanges(): boolean;
  request<R>(method: string, params: object): Promise<R>;
  /** Reads list entries as every list answer's are (checked, with their archive flag, state and details). */
  readEntries(entries: readonly unknown[], filter: 'include', problems: Problems): SessionInfo[];
  /** One warning for everything fixed in one message. */
  warnProblems(what: string, problems: Problems): void;
}

/** One connection's live list subscriptions and their changes. */
export class ListSubscriptions {
  private readonly changeEmitter = new Emitter<SessionListChange>();
  /** Live list subscriptions this connection holds (they end with the process). */
  private readonly subscriptions = new Set<string>();
  /** Subscribe requests not answered yet: a change for an id not known yet waits for them in `earlyChanges`. */
  private subscribing = 0;
  private earlyChanges: SessionListChange[] = [];

  /** The changes of the subscriptions held, in the order the agent sent them. */
  readonly onDidChange: Event<SessionListChange> = this.changeEmitter.event;

  constructor(private readonly owner: ListSubscriptionsOwner) {}

  /** Subscribes to the live list of `cwd`; resolves with the subscription id. */
  async subscribe(cwd: string): Promise<string> {
    this.subscribing++;
    let subscriptionId: string | undefined;
    try {
      const result = await this.owner.request<unknown>(AIR_METHODS.subscribe, { cwd });
      subscriptionId = readAirSubscriptionId(result);
      if (subscriptionId === undefined) {
        throw new AcpError(ErrorCodes.InternalError, AIR_METHODS.subscribe, 'the agent answered without a subscriptionId');
      }
      this.subscriptions.add(subscriptionId);
      return subscriptionId;
    } finally {
      this.subscribing--;
      this.releaseEarlyChanges();
    }
  }

  /** Ends a subscription (idempotent; nothing to do for one this connection does not hold). */
  async unsubscribe(subscriptionId: string): Promise<void> {
    if (!this.subscriptions.delete(subscriptionId)) return;
    await this.owner.request(AIR_METHODS.unsubscribe, { subscriptionId });
  }

  /** A `_session/list/changes` notification: checked, and delivered when the subscription is ours. */
  onChanges(params: unknown): void {
    if (!this.owner.takesListChanges()) return;
    const problems = new Problems();
    try {
      const changes = readAirListChanges(params, problems);
      if (!changes) return;
      const change: SessionListChange = {
        subscriptionId: changes.subscriptionId,
        // Any archive state: an entry's own `archived` says which.
        sessions: this.owner.readEntries(changes.sessions, 'include', problems),
        removed: changes.removed,
      };
      if (this.subscriptions.has(change.subscriptionId)) this.fire(change);
      else if (this.subscribing > 0) this.earlyChanges.push(change);
      else this.owner.log.debug(`[${this.owner.name}] Ignored a list change of a subscription this client does not hold.`);
    } finally {
      this.owner.warnProblems(AIR_METHODS.changes, problems);
    }
  }

  /** The connection ended: its subscriptions with it. */
  clear(): void {
    this.subscriptions.clear();
    this.earlyChanges = [];
  }

  /** The client is disposed and its process gone: no change fires again. */
  dispose(): void {
    this.changeEmitter.dispose();
  }

  /**
   * Changes that came before their subscription's answer: delivered once it is known (after the
   * subscriber's own continuation ran, so it knows the id), the rest dropped when no subscribe is left.
   */
  private releaseEarlyChanges(): void {
    if (this.earlyChanges.length === 0) return;
    const ready = this.earlyChanges.filter((c) => this.subscriptions.has(c.subscriptionId));
    this.earlyChanges = this.subscribing > 0 ? this.earlyChanges.filter((c) => !this.subscriptions.has(c.subscriptionId)) : [];
    if (ready.length > 0) setImmediate(() => ready.forEach((change) => this.subscriptions.has(change.subscriptionId) && this.fire(change)));
  }

  private fire(change: SessionListChange): void {
    try {
      this.changeEmitter.fire(change);
    } catch (error) {
      this.owner.log.error(`[${this.owner.name}] A session list listener failed: ${(error as Error)?.stack ?? error}`);
    }
  }
}
