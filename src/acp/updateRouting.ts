// Where each `session/update` goes: to the load of its session under way (its replay), and to
// the session's live listeners; and the loads' turns, one load of a session at a time, since two
// replays at once could not be told apart. Sends nothing itself: the client hands each load the
// request that starts it (client.ts), and the connection the agent's lines (connection.ts).
import type { CancellationToken, Disposable } from 'vscode-jsonrpc/node';
import { ErrorCodes, RequestCancelledError } from './errors';
import { isAirReplayEnd } from './jetbrainsAir';
import { Problems, checkSessionUpdate, sessionNotificationOf } from './validate';
import type { AgentLines } from './ndjson';
import type { LoadSessionResult, Logger, Reduced, SessionUpdate, SessionUpdateListener } from './types';

/** What the routing needs of the connection the updates come from. */
export interface UpdateSource {
  readonly name: string;
  readonly log: Logger;
  /** Parses the agent's lines, each `session/update`'s params to `onUpdate` with the line's bytes. */
  drain(lines: AgentLines, onUpdate: (params: unknown, line: Uint8Array | undefined, reduced?: Reduced, count?: number) => void, onProgress?: (sessionId: string, progress: unknown) => void): void;
  /** One warning for everything fixed in one message. */
  warnProblems(what: string, problems: Problems): void;
}

/** A replay's request deadline, pushed back by each replayed update (connection.ts's `Deadline`). */
export interface ReplayDeadline {
  progress?: () => void;
}

/**
 * Updates kept for session ids nobody listens to while a fork is under way, at most this many in
 * all: OpenCode replays a fork's last 20 messages under the new id before the answer names it.
 */
const MAX_UNCLAIMED_UPDATES = 50_000;

/** Routes the agent's `session/update` notifications to loads and listeners. */
export class UpdateRouter {
  /** Per session, its listeners; replaced (never mutated) so that dispatch can iterate safely. */
  private readonly listeners = new Map<string, readonly { listener: SessionUpdateListener; replays: boolean }[]>();
  /** The load of a session under way: what arrives between its request and its answer is its replay. */
  private readonly loadsInFlight = new Map<string, SessionUpdateListener>();
  /** Loads of one session take turns (two replays at once could not be told apart): the last turn of each. */
  private readonly loadTurns = new Map<string, Promise<void>>();
  /** Per session being loaded, what to call when the agent marks the end of its replay. */
  private readonly replayEndWaiters = new Map<string, () => void>();
  /** `session/fork` requests under way: while any is, updates for sessions nobody listens to are kept. */
  private forksInFlight = 0;
  /** Those updates, per session id in arrival order, until a fork's answer names the id (or no fork is left). */
  private readonly unclaimed = new Map<string, { update: SessionUpdate; line: Uint8Array | undefined }[]>();
  private unclaimedCount = 0;
  private unclaimedDropped = 0;

  constructor(private readonly source: UpdateSource) {}

  /**
   * Runs one load of a session in its turn: `send` sends the request whose answer ends the
   * replay; every update in between goes to `onUpdate` and pushes `send`'s deadline back. Where
   * the agent marks the end of its replay, `onReplayEnd` runs when the mark arrives.
   */
  async load(
    sessionId: string,
    onUpdate: SessionUpdateListener,
    token: CancellationToken | undefined,
    onReplayEnd: (() => void) | undefined,
    send: (deadline: ReplayDeadline) => Promise<unknown>,
  ): Promise<LoadSessionResult> {
    const deadline: ReplayDeadline = {};
    let replayEnd: LoadSessionResult['replayEnd'] = 'answer';
    const onMarker = () => {
      if (replayEnd === 'marker') return;
      replayEnd = 'marker';
      try {
        onReplayEnd?.();
      } catch (error) {
        this.source.log.error(`[${this.source.name}] A replay-end listener failed: ${(error as Error)?.stack ?? error}`);
      }
    };
    // One load of a session at a time; a later one waits for its turn (or its cancellation).
    const previous = this.loadTurns.get(sessionId);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const turn = (previous ?? Promise.resolve()).then(() => mine);
    this.loadTurns.set(sessionId, turn);
    const replay: SessionUpdateListener = (update, line, reduced, count) => {
      deadline.progress?.();
      onUpdate(update, line, reduced, count);
    };
    try {
      if (previous) await untilTurn(previous, token, 'session/load');
      this.replayEndWaiters.set(sessionId, onMarker);
      this.loadsInFlight.set(sessionId, replay);
      await send(deadline);
    } finally {
      if (this.loadsInFlight.get(sessionId) === replay) this.loadsInFlight.delete(sessionId);
      if (this.replayEndWaiters.get(sessionId) === onMarker) this.replayEndWaiters.delete(sessionId);
      release();
      if (this.loadTurns.get(sessionId) === turn) this.loadTurns.delete(sessionId);
    }
    return { replayEnd };
  }

  /**
   * Runs one `session/fork`: `send` sends it and resolves with the new session's id from the
   * answer. Updates that arrive meanwhile for a session nobody listens to are kept, since the
   * agent may send the new session's replay before the answer that names it (OpenCode); once
   * named, that session's kept updates go to `onUpdate` in order, and so does everything after
   * them until the returned subscription is disposed. Updates of other unnamed ids are dropped
   * when no fork is left under way.
   */
  async fork(onUpdate: SessionUpdateListener, send: () => Promise<string>): Promise<{ sessionId: string; subscription: Disposable }> {
    this.forksInFlight++;
    try {
      const sessionId = await send();
      const subscription = this.onSessionUpdate(sessionId, onUpdate, { replays: true });
      const kept = this.unclaimed.get(sessionId) ?? [];
      this.unclaimed.delete(sessionId);
      this.unclaimedCount -= kept.length;
      for (const { update, line } of kept) this.deliver(onUpdate, update, line);
      return { sessionId, subscription };
    } finally {
      if (--this.forksInFlight === 0) this.dropUnclaimed();
    }
  }

  private dropUnclaimed(): void {
    if (this.unclaimedCount > 0 || this.unclaimedDropped > 0) {
      this.source.log.debug(`[${this.source.name}] Dropped ${this.unclaimedCount + this.unclaimedDropped} session/update notifications of sessions no answer named.`);
    }
    this.unclaimed.clear();
    this.unclaimedCount = 0;
    this.unclaimedDropped = 0;
  }

  /** Adds a live listener of one session (see `AcpClient.onSessionUpdate`). */
  onSessionUpdate(sessionId: string, listener: SessionUpdateListener, options: { replays?: boolean } = {}): Disposable {
    const entry = { listener, replays: options.replays === true };
    this.listeners.set(sessionId, [...(this.listeners.get(sessionId) ?? []), entry]);
    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        const rest = (this.listeners.get(sessionId) ?? []).filter((l) => l !== entry);
        if (rest.length > 0) this.listeners.set(sessionId, rest);
        else this.listeners.delete(sessionId);
      },
    };
  }

  /** Parses the agent's lines and delivers each `session/update`, in order, to its session's listeners. */
  dispatch(lines: AgentLines): void {
    const problems = new Problems();
    try {
      this.source.drain(
        lines,
        (params, line, reduced, count) => this.dispatchUpdate(params, line, problems, reduced, count),
        (sessionId, progress) => this.deliverProgress(sessionId, progress),
      );
    } finally {
      this.source.warnProblems('session/update', problems);
    }
  }

  /** A reduction's progress (the line worker's), to the load of its session that asked for it. */
  private deliverProgress(sessionId: string, progress: unknown): void {
    const listener = this.progressListeners.get(sessionId);
    if (!listener) return;
    try {
      listener(progress);
    } catch (error) {
      this.source.log.error(`[${this.source.name}] A reduction's progress listener failed: ${(error as Error)?.stack ?? error}`);
    }
  }

  /** Per session whose load asked the line worker to reduce it, what to call with its progress. */
  readonly progressListeners = new Map<string, (progress: unknown) => void>();

  /** The connection ended: listeners and replay marks live as long as the agent's process. */
  clear(): void {
    this.listeners.clear();
    this.replayEndWaiters.clear();
    this.unclaimed.clear();
    this.unclaimedCount = 0;
  }

  /**
   * Delivers one update, with the agent's `line` it came from (its bytes) when checking it fixed
   * nothing: the listener that logs updates for an export copies those bytes instead of encoding
   * the parsed update again (an argument of the call, not state of the router that a later update
   * replaces, so no listener can take another update's line).
   */
  private dispatchUpdate(params: unknown, line: Uint8Array | undefined, problems: Problems, reduced?: Reduced, count?: number): void {
    const notification = sessionNotificationOf(params);
    if (!notification) {
      this.source.log.warn(
        `[${this.source.name}] Skipped a session/update without sessionId or update.sessionUpdate: ${JSON.stringify(params)?.slice(0, 200)}`,
      );
      return;
    }
    const { sessionId, update } = notification;
    if (isAirReplayEnd(update)) {
      // The end of a load's replay: told to the load, never delivered as an info update.
      this.replayEndWaiters.get(sessionId)?.();
      return;
    }
    const load = this.loadsInFlight.get(sessionId);
    const listeners = this.listeners.get(sessionId);
    if (load === undefined && listeners === undefined && this.forksInFlight === 0) return;
    const fixed = problems.count;
    const checked = checkSessionUpdate(update, problems);
    const raw = problems.count === fixed ? line : undefined;
    if (load === undefined && listeners === undefined) {
      // A reduced session is one a load asked for: nobody's fork names it.
      if (!reduced) this.keepUnclaimed(sessionId, checked, raw);
      return;
    }
    const rawCount = raw ? count : undefined;
    if (load) this.deliver(load, checked, raw, reduced, rawCount);
    if (listeners) for (let j = 0; j < listeners.length; j++) if (!load || listeners[j].replays) this.deliver(listeners[j].listener, checked, raw, reduced, rawCount);
  }

  /** An update of a session nobody listens to, while a fork may yet name it. */
  private keepUnclaimed(sessionId: string, update: SessionUpdate, line: Uint8Array | undefined): void {
    if (this.unclaimedCount >= MAX_UNCLAIMED_UPDATES) {
      if (this.unclaimedDropped++ === 0) this.source.log.warn(`[${this.source.name}] More than ${MAX_UNCLAIMED_UPDATES} updates of sessions not named yet arrived during a fork; the rest are dropped.`);
      return;
    }
    let list = this.unclaimed.get(sessionId);
    if (!list) this.unclaimed.set(sessionId, (list = []));
    // A line is the listener's for the call only (the reader's ring reuses its room): this one is kept, so copied.
    list.push({ update, line: line && new Uint8Array(line) });
    this.unclaimedCount++;
  }

  private deliver(listener: SessionUpdateListener, update: SessionUpdate, line: Uint8Array | undefined, reduced?: Reduced, count?: number): void {
    try {
      listener(update, line, reduced, count);
    } catch (error) {
      this.source.log.error(`[${this.source.name}] A session/update listener failed: ${(error as Error)?.stack ?? error}`);
    }
  }
}

/** Resolves when `previous` (an earlier load's turn) is over; rejects once `token` is cancelled. */
function untilTurn(previous: Promise<void>, token: CancellationToken | undefined, method: string): Promise<void> {
  if (token?.isCancellationRequested) return Promise.reject(new RequestCancelledError(ErrorCodes.RequestCancelled, method, 'cancelled before it was sent'));
  return new Promise<void>((resolve, reject) => {
    const cancelled = token?.onCancellationRequested(() => reject(new RequestCancelledError(ErrorCodes.RequestCancelled, method, 'cancelled before it was sent')));
    void previous.then(() => {
      cancelled?.dispose();
      resolve();
    });
  });
}
