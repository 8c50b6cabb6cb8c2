// Pinned sessions: per agent and session id, kept in the extension's global state across restarts.
// A pin remembers the session's folder and title, so a pinned session the agent no longer lists
// can still be shown, as gone, instead of vanishing. Plain Node (a Memento-like store, no `vscode`).
import type { SessionInfo } from '../acp/types';

export interface Pin {
  agent: string;
  sessionId: string;
  cwd: string;
  title?: string;
  /** Milliseconds since the epoch. */
  pinnedAt: number;
}

/** The part of a `vscode.Memento` pins use. */
export interface PinStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

export const PINS_KEY = 'acpSessions.pins';

interface Listener {
  (): void;
}

export class Pins {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly store: PinStore) {}

  /** Every pin, in the order pinned (oldest first); malformed entries are left out. */
  all(): Pin[] {
    const raw = this.store.get<unknown>(PINS_KEY);
    if (!Array.isArray(raw)) return [];
    return raw.filter(isPin);
  }

  /** The pins of one agent. */
  of(agent: string): Pin[] {
    return this.all().filter((p) => p.agent === agent);
  }

  isPinned(agent: string, sessionId: string): boolean {
    return this.all().some((p) => p.agent === agent && p.sessionId === sessionId);
  }

  async pin(agent: string, sessions: readonly SessionInfo[], now = Date.now()): Promise<void> {
    const pins = this.all();
    for (const s of sessions) {
      if (pins.some((p) => p.agent === agent && p.sessionId === s.sessionId)) continue;
      pins.push({ agent, sessionId: s.sessionId, cwd: s.cwd, ...(s.title ? { title: s.title } : {}), pinnedAt: now });
    }
    await this.save(pins);
  }

  async unpin(agent: string, sessionIds: readonly string[]): Promise<void> {
    const drop = new Set(sessionIds);
    const pins = this.all();
    const kept = pins.filter((p) => p.agent !== agent || !drop.has(p.sessionId));
    if (kept.length !== pins.length) await this.save(kept);
  }

  /** Keeps a pinned session's title as the agent lists it now (shown if it goes). */
  async remember(agent: string, sessions: readonly SessionInfo[]): Promise<void> {
    const pins = this.all();
    let changed = false;
    for (const pin of pins) {
      if (pin.agent !== agent) continue;
      const s = sessions.find((x) => x.sessionId === pin.sessionId);
      if (s?.title && s.title !== pin.title) {
        pin.title = s.title;
        changed = true;
      }
    }
    if (changed) await this.store.update(PINS_KEY, pins);
  }

  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private async save(pins: Pin[]): Promise<void> {
    await this.store.update(PINS_KEY, pins);
    for (const l of [...this.listeners]) l();
  }
}

/** Pinned sessions first, each group in the order given (the agent's order holds within it). */
export function pinnedFirst<T extends { sessionId: string }>(sessions: readonly T[], isPinned: (sessionId: string) => boolean): T[] {
  const pinned: T[] = [];
  const rest: T[] = [];
  for (const s of sessions) (isPinned(s.sessionId) ? pinned : rest).push(s);
  return [...pinned, ...rest];
}

function isPin(value: unknown): value is Pin {
  const p = value as Partial<Pin> | null;
  return !!p && typeof p === 'object' && typeof p.agent === 'string' && typeof p.sessionId === 'string' && typeof p.cwd === 'string' &&
    (p.title === undefined || typeof p.title === 'string') && typeof p.pinnedAt === 'number';
}
