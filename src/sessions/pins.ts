// Pinned sessions: per agent and session id, kept across restarts and shared by every window of the
// profile. A pin remembers the session's folder and title, so a pinned session the agent no longer
// lists can still be shown, as gone, instead of vanishing.
//
// One small file per pin in a folder of the extension's global storage, not one array in the
// global state: VS Code keeps an extension's whole global state as one value that the last window
// to write replaces, so a window whose copy was a moment old brought back a pin another window had
// just removed. Here a pin is a file created, and an unpin a file removed, so two windows never
// write the same thing; the title it last had is a file of its own beside it, so keeping a title
// fresh can never bring back a removed pin. Each window follows the folder. Plain Node (no `vscode`).
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionInfo } from '../acp/types';

export interface Pin {
  agent: string;
  sessionId: string;
  cwd: string;
  title?: string;
  /** Milliseconds since the epoch. */
  pinnedAt: number;
}

/** The global-state key of the array older versions kept (read once, moved into the folder). */
export const PINS_KEY = 'acpSessions.pins';

/** The part of a `vscode.Memento` that the move from the older array needs. */
export interface LegacyPinStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

/** A pin's file is `<hash>.pin`, its remembered title `<hash>.title`; nothing else is read. */
const FILE = /^([0-9a-f]{40})\.(pin|title)$/;
/** A pin file larger than this is not one of ours (an agent's title or folder can be long: the old array kept them whole too). */
const MAX_FILE = 8 * 1024 * 1024;

interface Listener {
  (): void;
}

export class Pins {
  private readonly listeners = new Set<Listener>();
  private pins = new Map<string, Pin>();
  private watcher: FSWatcher | undefined;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;

  /** Follows the folder for other windows' changes, and reads it now (a few small files). */
  constructor(private readonly dir: string, options: { legacy?: LegacyPinStore; follow?: boolean } = {}) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      // Unwritable storage: no pins are kept, nothing breaks.
    }
    // Followed before the read: another window's pin in between is not missed.
    if (options.follow !== false) this.follow();
    this.pins = this.read();
    if (options.legacy) void this.moveLegacy(options.legacy);
  }

  /** Every pin, in the order pinned (oldest first). */
  all(): Pin[] {
    return [...this.pins.values()].sort((a, b) => a.pinnedAt - b.pinnedAt || a.agent.localeCompare(b.agent) || a.sessionId.localeCompare(b.sessionId));
  }

  /** The pins of one agent. */
  of(agent: string): Pin[] {
    return this.all().filter((p) => p.agent === agent);
  }

  isPinned(agent: string, sessionId: string): boolean {
    return this.pins.has(pinKey(agent, sessionId));
  }

  async pin(agent: string, sessions: readonly SessionInfo[], now = Date.now()): Promise<void> {
    let changed = false;
    for (const s of sessions) {
      const key = pinKey(agent, s.sessionId);
      if (this.pins.has(key)) continue;
      const pin: Pin = { agent, sessionId: s.sessionId, cwd: s.cwd, ...(s.title ? { title: s.title } : {}), pinnedAt: now };
      await this.write(`${key}.pin`, pin);
      this.pins.set(key, pin);
      changed = true;
    }
    if (changed) this.fire();
  }

  async unpin(agent: string, sessionIds: readonly string[]): Promise<void> {
    let changed = false;
    for (const sessionId of sessionIds) {
      const key = pinKey(agent, sessionId);
      await rm(join(this.dir, `${key}.pin`), { force: true });
      await rm(join(this.dir, `${key}.title`), { force: true });
      changed = this.pins.delete(key) || changed;
    }
    if (changed) this.fire();
  }

  /** Keeps a pinned session's title as the agent lists it now (shown if it goes): only titles that changed are written. */
  async remember(agent: string, sessions: readonly SessionInfo[]): Promise<void> {
    for (const s of sessions) {
      const key = pinKey(agent, s.sessionId);
      const pin = this.pins.get(key);
      if (!pin || !s.title || s.title === pin.title) continue;
      pin.title = s.title;
      await this.write(`${key}.title`, { title: s.title });
    }
  }

  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  dispose(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.listeners.clear();
  }

  /** Reads the folder again now (what the watcher does for another window's change); fires when it changed. */
  reload(): void {
    const next = this.read();
    const same = next.size === this.pins.size && [...next].every(([k, p]) => {
      const q = this.pins.get(k);
      return q !== undefined && q.title === p.title && q.cwd === p.cwd && q.pinnedAt === p.pinnedAt;
    });
    this.pins = next;
    if (!same) this.fire();
  }

  private follow(): void {
    try {
      this.watcher = watch(this.dir, { persistent: false }, () => {
        // A burst of changes (a pin and its title) is read once.
        if (this.reloadTimer) clearTimeout(this.reloadTimer);
        this.reloadTimer = setTimeout(() => this.reload(), 50);
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // No watching here: this window's own changes still show.
    }
  }

  private read(): Map<string, Pin> {
    const pins = new Map<string, Pin>();
    const titles = new Map<string, string>();
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return pins;
    }
    for (const name of names) {
      const match = FILE.exec(name);
      if (!match) continue;
      const value = readSmallJson(join(this.dir, name));
      if (match[2] === 'pin' && isPin(value) && pinKey(value.agent, value.sessionId) === match[1]) pins.set(match[1], value);
      else if (match[2] === 'title' && typeof (value as { title?: unknown } | undefined)?.title === 'string') titles.set(match[1], (value as { title: string }).title);
    }
    for (const [key, title] of titles) {
      const pin = pins.get(key);
      if (pin) pin.title = title;
    }
    return pins;
  }

  /** Atomically (a temporary file renamed over it), readable by this user only. */
  private async write(name: string, value: unknown): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temp = join(this.dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await writeFile(temp, JSON.stringify(value), { mode: 0o600 });
      await rename(temp, join(this.dir, name));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** Moves the pins older versions kept in the global state into the folder, once. */
  private async moveLegacy(legacy: LegacyPinStore): Promise<void> {
    const raw = legacy.get<unknown>(PINS_KEY);
    if (raw === undefined) return;
    const old = Array.isArray(raw) ? raw.filter(isPin) : [];
    for (const [agent, group] of groupByAgent(old)) {
      for (const pin of group) {
        if (this.isPinned(agent, pin.sessionId)) continue;
        await this.pin(agent, [{ sessionId: pin.sessionId, cwd: pin.cwd, title: pin.title ?? null }], pin.pinnedAt);
      }
    }
    await chmod(this.dir, 0o700).catch(() => undefined);
    await legacy.update(PINS_KEY, undefined);
  }

  private fire(): void {
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

/** The file name's stem for a pin: a hash, so no agent name or id reaches the file system as a path. */
function pinKey(agent: string, sessionId: string): string {
  return createHash('sha1').update(JSON.stringify([agent, sessionId])).digest('hex');
}

function readSmallJson(path: string): unknown {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.size <= MAX_FILE ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
  } catch {
    return undefined;
  }
}

function groupByAgent(pins: readonly Pin[]): Map<string, Pin[]> {
  const groups = new Map<string, Pin[]>();
  for (const p of pins) groups.set(p.agent, [...(groups.get(p.agent) ?? []), p]);
  return groups;
}

function isPin(value: unknown): value is Pin {
  const p = value as Partial<Pin> | null;
  return !!p && typeof p === 'object' && typeof p.agent === 'string' && typeof p.sessionId === 'string' && typeof p.cwd === 'string' &&
    (p.title === undefined || typeof p.title === 'string') && typeof p.pinnedAt === 'number';
}
