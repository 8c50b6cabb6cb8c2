// Read and unread: a session is unread when its agent has something newer than what the user last
// saw of it (its `lastTurnEndedAt` where the agent sends it, else its `updatedAt`, later than the
// moment its transcript was last shown here). The extension's own, per profile, in the global
// state; never written to an agent. A session first seen here counts as read (no wall of dots on
// first install): its first sighting records what it had then.
//
// The global state is one value per extension that every window of the profile writes whole, and
// VS Code hands each window the others' writes. So a write takes the value as it stands now and
// lays only this window's own changes over it, entry by entry, the later change winning: a window
// never brings back what another removed, nor undoes another's newer mark. Plain Node (no `vscode`).
import type { SessionInfo } from '../acp/types';

/** The global-state key. */
export const READ_STATE_KEY = 'acpSessions.readState';
/** Entries beyond this many go, the ones changed longest ago first (a session not touched for months). */
export const MAX_READ_ENTRIES = 20_000;

/** The part of a `vscode.Memento` the read state needs. */
export interface ReadStateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

/**
 * One session's entry, as stored: `[seen, changedAt, unread]`: what of the session the user has
 * seen (milliseconds: its activity, or the moment it was shown, whichever was later), when this
 * entry was last changed (to merge windows), and 1 when the user marked it unread by hand.
 * `seen: -1` with `unread: 2` is a removal (the session was deleted), kept until the next write.
 */
type Entry = [seen: number, changedAt: number, unread: 0 | 1 | 2];

/** What a session has that the user may not have seen: its last turn's end, else its date. */
export function activityOf(session: Pick<SessionInfo, 'updatedAt' | 'details'>): number | undefined {
  for (const value of [session.details?.lastTurnEndedAt, session.updatedAt]) {
    if (typeof value !== 'string') continue;
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  return undefined;
}

const keyOf = (agent: string, sessionId: string) => JSON.stringify([agent, sessionId]);

function isEntry(value: unknown): value is Entry {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    typeof value[0] === 'number' &&
    Number.isFinite(value[0]) &&
    typeof value[1] === 'number' &&
    Number.isFinite(value[1]) &&
    (value[2] === 0 || value[2] === 1 || value[2] === 2)
  );
}

export class ReadState {
  /** This window's changes not written yet, by key. */
  private readonly pending = new Map<string, Entry>();
  /** The stored value last parsed, and what it parsed to (re-parsed when another window wrote). */
  private parsedFrom: unknown;
  private parsed = new Map<string, Entry>();
  private writing: Promise<void> = Promise.resolve();
  private writeQueued = false;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly store: ReadStateStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Called when an entry changed here (the tree redraws the rows, the badge counts again). */
  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /**
   * Whether the session has something newer than the user saw. A session with no entry is read:
   * `sighted` records it as it is now, so that what comes later counts.
   */
  isUnread(agent: string, session: SessionInfo): boolean {
    const entry = this.entry(keyOf(agent, session.sessionId));
    if (!entry || entry[2] === 2) return false;
    if (entry[2] === 1) return true;
    const activity = activityOf(session);
    return activity !== undefined && activity > entry[0];
  }

  /** Whether the session has an entry (it was seen here before). */
  knows(agent: string, sessionId: string): boolean {
    const entry = this.entry(keyOf(agent, sessionId));
    return entry !== undefined && entry[2] !== 2;
  }

  /** First sightings of listed sessions: each one not known yet is recorded as read as it is now. */
  sighted(agent: string, sessions: readonly SessionInfo[]): void {
    const now = this.now();
    let changed = false;
    for (const session of sessions) {
      const key = keyOf(agent, session.sessionId);
      if (this.entry(key) && this.entry(key)![2] !== 2) continue;
      this.pending.set(key, [activityOf(session) ?? 0, now, 0]);
      changed = true;
    }
    // A first sighting changes nothing that shows: no redraw, only a write.
    if (changed) this.scheduleWrite();
  }

  /** The user saw the session as it is now (its transcript was shown): read. */
  markRead(agent: string, sessions: readonly SessionInfo[]): void {
    const now = this.now();
    for (const session of sessions) {
      this.pending.set(keyOf(agent, session.sessionId), [Math.max(now, activityOf(session) ?? 0), now, 0]);
    }
    this.changed(sessions.length);
  }

  /** Marked unread by hand: unread until its transcript is shown again or it is marked read. */
  markUnread(agent: string, sessions: readonly SessionInfo[]): void {
    const now = this.now();
    for (const session of sessions) {
      const key = keyOf(agent, session.sessionId);
      const seen = this.entry(key);
      this.pending.set(key, [seen && seen[2] !== 2 ? seen[0] : activityOf(session) ?? 0, now, 1]);
    }
    this.changed(sessions.length);
  }

  /** The agent no longer has these sessions (deleted here, elsewhere, or gone): their entries go. */
  forget(agent: string, sessionIds: readonly string[]): void {
    const now = this.now();
    let count = 0;
    for (const id of sessionIds) {
      const key = keyOf(agent, id);
      if (!this.entry(key)) continue;
      this.pending.set(key, [-1, now, 2]);
      count++;
    }
    this.changed(count);
  }

  /** Resolves once every change made so far is written. */
  flushed(): Promise<void> {
    return this.writing;
  }

  private changed(count: number): void {
    if (count === 0) return;
    this.scheduleWrite();
    for (const listener of this.listeners) listener();
  }

  /** This window's change if it has one, else the stored entry. */
  private entry(key: string): Entry | undefined {
    return this.pending.get(key) ?? this.stored().get(key);
  }

  private stored(): Map<string, Entry> {
    const value = this.store.get<unknown>(READ_STATE_KEY);
    if (value !== this.parsedFrom) {
      this.parsedFrom = value;
      this.parsed = new Map();
      // Whatever another window or version wrote: only well-formed entries are taken.
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        for (const [key, entry] of Object.entries(value)) if (isEntry(entry) && entry[2] !== 2) this.parsed.set(key, entry);
      }
    }
    return this.parsed;
  }

  /** One write at a time; changes made during one go into the next. */
  private scheduleWrite(): void {
    if (this.writeQueued) return;
    this.writeQueued = true;
    this.writing = this.writing.then(async () => {
      this.writeQueued = false;
      if (this.pending.size === 0) return;
      const merged = new Map(this.stored());
      const written = new Map(this.pending);
      for (const [key, mine] of written) {
        const theirs = merged.get(key);
        // The later change wins; a removal removes.
        if (theirs && theirs[1] > mine[1]) continue;
        if (mine[2] === 2) merged.delete(key);
        else merged.set(key, mine);
      }
      let entries = [...merged];
      if (entries.length > MAX_READ_ENTRIES) entries = entries.sort((a, b) => b[1][1] - a[1][1]).slice(0, MAX_READ_ENTRIES);
      const value = Object.fromEntries(entries);
      try {
        await this.store.update(READ_STATE_KEY, value);
      } catch {
        // Storage that cannot be written (a full disk): the changes stay pending for the next write.
        return;
      }
      // What was written is stored now; what changed meanwhile stays pending.
      for (const [key, entry] of written) if (this.pending.get(key) === entry) this.pending.delete(key);
    });
  }
}
