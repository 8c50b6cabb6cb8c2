// Shared pieces of the figure programs: arguments, paths, result reporting, child processes.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';

/** Repository root: the bundles live in out/bench/, the sources in bench/. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DATA_DIR = join(ROOT, 'out/bench/data');

/** `--name=value` and `--flag` arguments. */
export function args(argv = process.argv.slice(2)): Map<string, string> {
  const map = new Map<string, string>();
  for (const a of argv) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
    if (m) map.set(m[1], m[2] ?? 'true');
  }
  return map;
}

/** Input scale: 1 for the figures, smaller for quick iteration (`--scale=0.1`). */
export function scale(): number {
  const s = Number(args().get('scale') ?? '1');
  if (!(s > 0 && s <= 1)) throw new Error(`--scale must be in (0, 1], got ${args().get('scale')}`);
  return s;
}

/**
 * One measured row of the table. `goalOn` says whether `goal` bounds the ratio to the floor or
 * the value itself; `lowerIsBetter` is the sense of the bound (value <= goal).
 */
export interface Measurement {
  figure: string;
  name: string;
  value: number;
  unit: string;
  floor?: number;
  /** The SDK's own client or another peer, measured in the same run. */
  peer?: number;
  peerName?: string;
  goal: number | null;
  goalOn: 'ratio' | 'value';
  /** Facts that explain the value (counts, bytes), shown in the notes. */
  detail?: Record<string, number | string>;
}

/** Figure programs end by printing their measurements as the last line of stdout. */
export function report(measurements: Measurement[]): void {
  process.stdout.write('\n' + JSON.stringify(measurements) + '\n');
}

/**
 * The fonts.conf the benchmarks' Chromium shows text with: the system's fonts plus Debian's CJK
 * and emoji fonts (test/host/setup.mjs ensureBenchFonts), as a desktop has; none with
 * `--system-fonts` (here: DejaVu only, so every CJK character and emoji goes through a font
 * lookup that finds nothing, 10 to 50 µs each).
 */
export async function benchFontconfig(): Promise<string | undefined> {
  if (args().has('system-fonts')) return undefined;
  const setup = await import(join(ROOT, 'test/host/setup.mjs'));
  return setup.ensureBenchFonts() as string;
}

/** Progress for a human; stdout is kept for the result. */
export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export const silentLogger = {
  trace() {},
  debug() {},
  info() {},
  warn(message: string, ...rest: unknown[]) {
    log(`warn: ${message} ${rest.map(String).join(' ')}`);
  },
  error(message: string, ...rest: unknown[]) {
    log(`error: ${message} ${rest.map(String).join(' ')}`);
  },
};

/** Spawns a node program with piped stdio; stderr is forwarded for diagnosis. */
export function spawnNode(script: string, scriptArgs: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [script, ...scriptArgs], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', (d) => process.stderr.write(d));
  return child;
}

/** Ends a child we started and waits for it to be gone. */
export async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
  await gone;
  clearTimeout(timer);
}

/**
 * CPU time (ms) of process `pid`, every thread, threads that have ended included: utime + stime of
 * Linux's /proc/<pid>/stat (the 12th and 13th fields after the command's closing parenthesis),
 * clock ticks of 10 ms. Throws where the process is gone.
 */
export function processCpuMs(pid: number | string): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** {@link processCpuMs} summed over every process whose command line (its arguments, NUL-separated) `matches`. */
export function processesCpuMs(matches: (cmdline: string) => boolean): number {
  let ms = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (matches(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) ms += processCpuMs(pid);
    } catch {
      // It ended meanwhile.
    }
  }
  return ms;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** `work`, or a failure that says what it waited for once `ms` have passed. */
export async function deadline<T>(what: string, ms: number, work: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s waiting until ${what}`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The ingest floor: `initialize`, then `session/load` sent raw to the agent `child`, its stdout
 * split into lines and each `JSON.parse`d, nothing else. The time from sending `session/load`
 * to its answer, and the notifications read by then (figures 1, 8 and 9).
 */
export async function ingestFloor(
  child: { stdin: Writable; stdout: Readable },
  load: { sessionId: string; cwd: string },
  waitMs: number,
  /** Keep each update's text, as any client that shows the session must (figure 1's second floor). */
  keepText = false,
): Promise<{ ms: number; notifications: number }> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let notifications = 0;
  const kept: unknown[] = [];
  let waiting: ((message: { id?: number; error?: unknown }) => void) | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    pending += decoder.write(chunk);
    let start = 0;
    let newline: number;
    while ((newline = pending.indexOf('\n', start)) >= 0) {
      const message = JSON.parse(pending.slice(start, newline));
      start = newline + 1;
      if (message.id !== undefined) {
        waiting?.(message);
      } else {
        notifications++;
        if (keepText) kept.push(message.params?.update?.content?.text);
      }
    }
    pending = pending.slice(start);
  });
  const request = (id: number, method: string, params: unknown) =>
    deadline(`the agent answered ${method}`, waitMs, () => new Promise<{ id?: number; error?: unknown }>((resolve) => {
      waiting = resolve;
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    }));
  await request(0, 'initialize', { protocolVersion: 1, clientCapabilities: { session: { compaction: {} } } });
  const t0 = performance.now();
  const answer = await request(1, 'session/load', { sessionId: load.sessionId, cwd: load.cwd, mcpServers: [] });
  const ms = performance.now() - t0;
  if (keepText && kept.length !== notifications) throw new Error(`the ingest floor kept ${kept.length} of ${notifications} texts`);
  if (answer.error) throw new Error(`the ingest floor's session/load failed: ${JSON.stringify(answer.error)}`);
  return { ms, notifications };
}
