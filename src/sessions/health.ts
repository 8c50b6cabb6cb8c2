// Session health: a session whose folder no longer exists, or whose last load failed, has a
// problem the tree marks and the clean-up can select. Load failures (and when a folder was
// first found missing) are remembered across restarts in a memento (VS Code's globalState).
// Nothing is loaded to learn any of this: folders are checked with a stat, loads are recorded
// when the user opened a transcript.
import { stat } from 'node:fs/promises';
import { AcpError, ErrorCodes, SessionInUseError } from '../acp/errors';
import type { SessionInfo } from '../acp/types';
import { Emitter, type Disposable, type Event } from './events';

export type ProblemKind = 'missingFolder' | 'loadFailed';

export interface SessionProblem {
  kind: ProblemKind;
  /** loadFailed: the error as the agent (or the client) worded it; missingFolder: the folder. */
  detail: string;
  /** When it was seen (ms since the epoch). */
  since: number;
}

/** The part of VS Code's Memento this needs (globalState). */
export interface HealthMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

interface Stored {
  loadFailures: Record<string, { detail: string; since: number }>;
  missingFolders: Record<string, number>;
}

export const HEALTH_STATE_KEY = 'acpSessions.sessionHealth';
/** Load failures kept at most (the oldest go first): the memento is not a database. */
const MAX_LOAD_FAILURES = 2000;

export interface SessionHealthOptions {
  /** Whether a folder exists; defaults to a stat (a path that is not a directory counts as gone). */
  folderExists?(path: string): Promise<boolean>;
  now?(): number;
}

export class SessionHealth implements Disposable {
  private readonly loadFailures: Map<string, { detail: string; since: number }>;
  private readonly missingSince: Map<string, number>;
  /** Folders checked this run: true exists, false gone; a pending check holds a promise. */
  private readonly checked = new Map<string, boolean | Promise<boolean>>();
  private readonly onDidChangeEmitter = new Emitter<void>();
  readonly onDidChange: Event<void> = this.onDidChangeEmitter.event;
  private readonly folderExistsFn: (path: string) => Promise<boolean>;
  private readonly now: () => number;

  constructor(
    private readonly memento: HealthMemento,
    options: SessionHealthOptions = {},
  ) {
    const stored = memento.get<Partial<Stored>>(HEALTH_STATE_KEY) ?? {};
    this.loadFailures = new Map(Object.entries(isRecord(stored.loadFailures) ? stored.loadFailures : {}).filter(([, v]) => isRecord(v) && typeof v.detail === 'string' && typeof v.since === 'number'));
    this.missingSince = new Map(Object.entries(isRecord(stored.missingFolders) ? stored.missingFolders : {}).filter(([, v]) => typeof v === 'number'));
    this.folderExistsFn = options.folderExists ?? directoryExists;
    this.now = options.now ?? Date.now;
  }

  /** The session's problem: a failed last load first (it says more), else a missing folder. */
  problemOf(agent: string, session: Pick<SessionInfo, 'sessionId' | 'cwd'>): SessionProblem | undefined {
    const failure = this.loadFailures.get(key(agent, session.sessionId));
    if (failure) return { kind: 'loadFailed', detail: failure.detail, since: failure.since };
    if (this.checked.get(session.cwd) === false) {
      return { kind: 'missingFolder', detail: session.cwd, since: this.missingSince.get(session.cwd) ?? this.now() };
    }
    return undefined;
  }

  /** False when the folder is known to be gone, true when it exists, undefined before a check. */
  folderExists(cwd: string): boolean | undefined {
    const known = this.checked.get(cwd);
    return typeof known === 'boolean' ? known : undefined;
  }

  /** Checks the folders of these sessions not yet checked this run; fires a change when any is gone. */
  async checkFolders(sessions: readonly Pick<SessionInfo, 'cwd'>[]): Promise<void> {
    const pending: Promise<boolean>[] = [];
    let changed = false;
    for (const cwd of new Set(sessions.map((s) => s.cwd))) {
      const known = this.checked.get(cwd);
      if (known instanceof Promise) pending.push(known);
      if (known !== undefined) continue;
      const check = this.folderExistsFn(cwd).catch(() => false).then((exists) => {
        this.checked.set(cwd, exists);
        if (!exists && !this.missingSince.has(cwd)) this.missingSince.set(cwd, this.now());
        if (exists && this.missingSince.delete(cwd)) changed = true;
        if (!exists) changed = true;
        return exists;
      });
      this.checked.set(cwd, check);
      pending.push(check);
    }
    if (pending.length === 0) return;
    await Promise.all(pending);
    if (changed) {
      await this.save();
      this.onDidChangeEmitter.fire();
    }
  }

  /** Forgets which folders were checked (a refresh looks again). */
  forgetFolders(): void {
    this.checked.clear();
  }

  /** Remembers that loading the session failed, and why. */
  async recordLoadFailure(agent: string, sessionId: string, detail: string): Promise<void> {
    const k = key(agent, sessionId);
    this.loadFailures.delete(k);
    this.loadFailures.set(k, { detail, since: this.now() });
    while (this.loadFailures.size > MAX_LOAD_FAILURES) this.loadFailures.delete(this.loadFailures.keys().next().value!);
    this.onDidChangeEmitter.fire();
    await this.save();
  }

  /** A load that worked clears what an earlier failure left. */
  async recordLoadSuccess(agent: string, sessionId: string): Promise<void> {
    if (!this.loadFailures.delete(key(agent, sessionId))) return;
    this.onDidChangeEmitter.fire();
    await this.save();
  }

  /** A deleted session's failure is of no use any more. */
  async forget(agent: string, sessionIds: readonly string[]): Promise<void> {
    let changed = false;
    for (const id of sessionIds) changed = this.loadFailures.delete(key(agent, id)) || changed;
    if (changed) await this.save();
  }

  dispose(): void {
    this.onDidChangeEmitter.dispose();
  }

  private save(): Promise<void> {
    const stored: Stored = { loadFailures: Object.fromEntries(this.loadFailures), missingFolders: Object.fromEntries(this.missingSince) };
    return Promise.resolve(this.memento.update(HEALTH_STATE_KEY, stored));
  }
}

/**
 * Whether a failed load says something about the session itself, to remember as its health: the
 * agent's own answer that it does not know it (-32002) or refuses it. A time-out, a crash, the
 * agent's internal error, a sign-in, a cancel or another process holding it say something about that moment only: a session
 * that loaded slowly on a busy machine must not be marked broken (and offered for deletion).
 * Nor does -32602: it says the request did not suit the agent (OpenCode answers it for a missing
 * `mcpServers`, Auggie for a session whose file it cannot find right now, with the session still
 * in its list), and OpenCode's -32603 "service failure" is its answer to an unknown id.
 */
export function isVerdictOnSession(error: unknown): boolean {
  // Another process holding the session says nothing about the session either.
  if (!(error instanceof AcpError) || error instanceof SessionInUseError) return false;
  const passing: number[] = [ErrorCodes.InternalError, ErrorCodes.InvalidParams, ErrorCodes.AuthRequired, ErrorCodes.RequestCancelled, ErrorCodes.MethodNotFound];
  return !passing.includes(error.code);
}

function key(agent: string, sessionId: string): string {
  return JSON.stringify([agent, sessionId]);
}

function isRecord(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function directoryExists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    // Only "not there" means gone; a folder we may not read still exists.
    const code = (error as { code?: string }).code;
    return !(code === 'ENOENT' || code === 'ENOTDIR');
  }
}
