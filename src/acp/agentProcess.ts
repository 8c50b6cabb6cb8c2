// The agent's operating-system process: spawned without a shell in its own process group, its
// stderr logged (bounded) and kept as a tail for error messages, its end observed, and stopped
// as a whole group. Knows nothing of JSON-RPC: the client reads and writes `stdout` and `stdin`.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { spawnCommand } from './command';
import { AgentStartError } from './errors';
import type { AgentConfig, Logger } from './types';

/** Lines of the agent's stderr kept for error messages. */
const STDERR_TAIL_LINES = 20;
/** Longest stderr line kept (and logged); a runaway line must not grow without bound. */
const STDERR_LINE_CHARS = 2_000;
/** Stderr lines logged per agent per second; more are counted and summed up in one line. */
const STDERR_LINES_PER_SECOND = 50;
/** How often the end of the agent's process group is checked while stopping it. */
const GROUP_POLL_MS = 20;

export interface AgentProcessOptions {
  log: Logger;
  /** How long `stop` waits after SIGTERM before SIGKILL, and how long a closed process may hold its pipes open. */
  killGraceMs: number;
  /** The working directory when the config names none. */
  defaultCwd?: string;
  /** Called once when the process is gone and its stderr read (or the grace after its exit passed). */
  onClosed: () => void;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class AgentProcess {
  readonly name: string;
  private readonly log: Logger;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly tail: string[] = [];
  private stderrPartial = '';
  /** The stderr rate limit: when the current one-second window started, lines logged and dropped in it. */
  private stderrWindow = { start: 0, logged: 0, dropped: 0 };
  private spawnError: Error | undefined;
  private exitStatus: ProcessExit | undefined;
  private readonly exited: Promise<void>;
  private markClosed!: () => void;
  private closeHandled = false;
  private stopping: Promise<void> | undefined;
  /** Resolves once the process is gone and its output read (see {@link AgentProcessOptions.onClosed}). */
  readonly closed: Promise<void>;

  /**
   * Spawns the agent. Throws an {@link AgentStartError} when its working directory does not
   * exist or its command is not found; a spawn that fails later (EACCES, ...) ends the process
   * as an exit would, and {@link describeEnd} names it.
   */
  constructor(
    private readonly config: AgentConfig,
    private readonly options: AgentProcessOptions,
  ) {
    this.name = config.name;
    this.log = options.log;
    const cwd = config.cwd ?? options.defaultCwd ?? homedir();
    if (!isDirectory(cwd)) {
      throw new AgentStartError(this.name, `its working directory "${cwd}" does not exist.`, []);
    }
    this.log.info(`[${this.name}] Starting ${[config.command, ...(config.args ?? [])].join(' ')} in ${cwd}`);
    const env = { ...process.env, ...config.env };
    const command = spawnCommand(config.command, config.args ?? [], env, cwd);
    if (!command) throw new AgentStartError(this.name, commandNotFound(config.command), []);
    this.child = spawn(command.file, command.args, {
      cwd,
      env,
      windowsVerbatimArguments: command.windowsVerbatimArguments,
      stdio: 'pipe',
      // Its own process group, so that stopping also stops what the agent started (npx, a CLI).
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
    this.child.on('error', (error) => {
      this.spawnError ??= error;
      this.log.error(`[${this.name}] ${error.message}`);
    });
    // Without these a write to a dead agent (EPIPE) would be an uncaught exception.
    this.child.stdin.on('error', (error) => this.log.debug(`[${this.name}] stdin: ${error.message}`));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text: string) => this.onStderr(text));
    this.child.stderr.on('error', () => undefined);
    this.child.on('exit', (code, signal) => {
      this.exitStatus = { code, signal };
      // 'close' waits for stdout and stderr too; if something the agent started holds them open, stop waiting.
      setTimeout(() => this.onClosed(), this.options.killGraceMs).unref();
    });
    this.child.on('close', (code, signal) => {
      this.exitStatus ??= { code, signal };
      this.onClosed();
    });
  }

  get stdout(): Readable {
    return this.child.stdout;
  }

  get stdin(): Writable {
    return this.child.stdin;
  }

  /** The process id (undefined if it never started). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How it ended, once it did. */
  get exit(): ProcessExit | undefined {
    return this.exitStatus;
  }

  /** The last lines of its stderr (a copy). */
  get stderrTail(): string[] {
    return [...this.tail];
  }

  /** Why the process ended (or closed its output), in one sentence; `when` says at what point. */
  describeEnd(when: string): string {
    const spawnError = this.spawnError as NodeJS.ErrnoException | undefined;
    if (spawnError) {
      if (spawnError.code === 'ENOENT') return commandNotFound(this.config.command);
      if (spawnError.code === 'EACCES') return `the command "${this.config.command}" is not executable (EACCES).`;
      return `the command "${this.config.command}" could not be run: ${spawnError.message}.`;
    }
    if (this.exitStatus?.code != null) return `it exited with code ${this.exitStatus.code} ${when}.`;
    if (this.exitStatus?.signal) return `it was killed by ${this.exitStatus.signal} ${when}.`;
    return `it closed its output ${when}.`;
  }

  /**
   * Closes the agent's input, then SIGTERM to its process group, then SIGKILL after the grace
   * period; resolves once the agent exited and its group is gone (the group only after a bounded
   * wait: an orphan nobody reaps still counts as a member). Also when the agent itself already
   * exited: what it started lives on in its group.
   */
  stop(): Promise<void> {
    if (this.child.pid === undefined) return Promise.resolve();
    this.stopping ??= this.stopGroup(this.child.pid);
    return this.stopping;
  }

  private async stopGroup(pid: number): Promise<void> {
    const graceMs = this.options.killGraceMs;
    if (!this.exitStatus) this.child.stdin.end();
    this.signal('SIGTERM');
    const deadline = Date.now() + graceMs;
    await Promise.race([this.exited, delay(graceMs, true)]);
    while (groupAlive(pid) && Date.now() < deadline) await delay(GROUP_POLL_MS, true);
    if (!this.exitStatus || groupAlive(pid)) {
      this.log.warn(`[${this.name}] Did not exit within ${graceMs} ms of SIGTERM; sending SIGKILL.`);
      this.signal('SIGKILL');
    }
    await this.exited;
    const killDeadline = Date.now() + graceMs;
    while (groupAlive(pid) && Date.now() < killDeadline) await delay(GROUP_POLL_MS, true);
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (process.platform !== 'win32') process.kill(-pid, signal);
      // A batch file's agent is a child of cmd.exe: the last resort ends the whole tree.
      else if (signal === 'SIGKILL') spawn('taskkill', ['/pid', String(pid), '/t', '/f'], { stdio: 'ignore', windowsHide: true }).on('error', () => this.child.kill(signal));
      else this.child.kill(signal);
    } catch {
      this.child.kill(signal);
    }
  }

  private onStderr(text: string): void {
    const lines = (this.stderrPartial + text).split('\n');
    this.stderrPartial = lines.pop()!.slice(0, STDERR_LINE_CHARS);
    for (const line of lines) this.stderrLine(line);
  }

  private stderrLine(raw: string): void {
    const line = raw.replace(/\r$/, '').slice(0, STDERR_LINE_CHARS);
    if (line === '') return;
    const now = Date.now();
    const window = this.stderrWindow;
    if (now - window.start >= 1000) {
      this.flushDroppedStderr();
      this.stderrWindow = { start: now, logged: 0, dropped: 0 };
    }
    // A flooding agent must not flood the log: the tail for error messages still keeps every line.
    if (this.stderrWindow.logged < STDERR_LINES_PER_SECOND) {
      this.stderrWindow.logged++;
      this.log.info(`[${this.name}] ${line}`);
    } else {
      this.stderrWindow.dropped++;
    }
    this.tail.push(line);
    if (this.tail.length > STDERR_TAIL_LINES) this.tail.shift();
  }

  private flushDroppedStderr(): void {
    const dropped = this.stderrWindow.dropped;
    if (dropped === 0) return;
    this.stderrWindow.dropped = 0;
    this.log.warn(`[${this.name}] ${dropped} more stderr line${dropped === 1 ? '' : 's'} not logged (more than ${STDERR_LINES_PER_SECOND} a second).`);
  }

  private onClosed(): void {
    if (this.closeHandled) return;
    this.closeHandled = true;
    if (this.stderrPartial) {
      this.stderrLine(this.stderrPartial);
      this.stderrPartial = '';
    }
    this.flushDroppedStderr();
    this.markClosed();
    this.options.onClosed();
  }
}

function commandNotFound(command: string): string {
  return `the command "${command}" was not found (is it installed and on the PATH?).`;
}

function isDirectory(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * True while a process of the group led by `pid` runs (POSIX; on Windows the tree is not
 * visible). On Linux zombies do not count: in containers whose PID 1 never reaps orphans they
 * stay in the group for good, yet run nothing.
 */
function groupAlive(pid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // ended while we looked
      }
      // After the command name in parentheses: state, ppid, pgrp.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pid && state !== 'Z') return true;
    }
    return false;
  } catch {
    return true; // no /proc to read: trust kill(0)
  }
}

/** `keepAlive`: the wait holds the event loop (stopping processes must finish before an exit). */
export function delay(ms: number, keepAlive = false): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (!keepAlive) timer.unref();
  });
}
