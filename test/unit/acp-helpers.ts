// Shared by the acp-*.test.ts files: real agent processes, a capturing log, temp stores.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AcpClient } from '../../src/acp/client';
import type { AcpClientOptions, AgentConfig, Logger } from '../../src/acp/types';

/** The reference agent, built by `node esbuild.mjs --tests --only=test/agent`. */
export const AGENT = fileURLToPath(new URL('../agent/agent.mjs', import.meta.url));

export const CLIENT_INFO = { name: 'acp-sessions-tests', version: '0.0.0' };

export interface LogEntry {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

/** A Logger that keeps every entry, to assert what the client reported. */
export class CapturingLog implements Logger {
  readonly entries: LogEntry[] = [];
  trace(message: string): void {
    this.entries.push({ level: 'trace', message });
  }
  debug(message: string): void {
    this.entries.push({ level: 'debug', message });
  }
  info(message: string): void {
    this.entries.push({ level: 'info', message });
  }
  warn(message: string): void {
    this.entries.push({ level: 'warn', message });
  }
  error(message: string): void {
    this.entries.push({ level: 'error', message });
  }
  at(level: LogEntry['level']): string[] {
    return this.entries.filter((e) => e.level === level).map((e) => e.message);
  }
  text(): string {
    return this.entries.map((e) => `${e.level}: ${e.message}`).join('\n');
  }
}

/** A fresh temp directory, removed after the test. */
export function tempDir(t: { after(fn: () => void): void }, prefix = 'acp-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The reference agent on `store` with extra flags. */
export function referenceAgent(store: string, flags: string[] = [], extra: Partial<AgentConfig> = {}): AgentConfig {
  return { name: 'reference', command: process.execPath, args: [AGENT, '--store', store, ...flags], ...extra };
}

/**
 * Wraps an agent in a real tee process that appends every byte the client writes to
 * `captureFile` before passing it on, so tests can check exactly what went over the wire.
 */
export function teed(config: AgentConfig, captureFile: string): AgentConfig {
  writeFileSync(captureFile, '');
  const tee = `
    const { spawn } = require('node:child_process');
    const { appendFileSync } = require('node:fs');
    const [capture, command, ...args] = process.argv.slice(1);
    const child = spawn(command, args, { stdio: ['pipe', 'inherit', 'inherit'] });
    process.stdin.on('data', (chunk) => { appendFileSync(capture, chunk); child.stdin.write(chunk); });
    process.stdin.on('end', () => child.stdin.end());
    child.stdin.on('error', () => {});
    for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => child.kill(s));
    child.on('exit', (code, signal) => process.exit(code ?? 1));
  `;
  return { ...config, command: process.execPath, args: ['-e', tee, captureFile, config.command, ...(config.args ?? [])] };
}

/** The JSON messages in a capture file, one per line. */
export function capturedMessages(captureFile: string): Record<string, unknown>[] {
  return readFileSync(captureFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * A tiny scripted ACP agent (`node -e`) for conditions the reference agent cannot produce.
 * `body` runs with `send(message)`, `handlers[method] = (message) => ...` and `onResponse(message)`.
 * Without a handler for `initialize` it answers v1 with `session/list` advertised.
 */
export function scriptedAgent(name: string, body: string): AgentConfig {
  const script = `
    const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
    const handlers = {};
    let onResponse = () => {};
    handlers.initialize = (m) => send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {} } } } });
    let buffered = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (text) => {
      buffered += text;
      let i;
      while ((i = buffered.indexOf('\\n')) !== -1) {
        const m = JSON.parse(buffered.slice(0, i));
        buffered = buffered.slice(i + 1);
        if (m.method === undefined) onResponse(m);
        else if (handlers[m.method]) handlers[m.method](m);
        else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no ' + m.method } });
      }
    });
    ${body}
  `;
  return { name, command: process.execPath, args: ['-e', script] };
}

/** The line worker as the test build writes it (out/src/transcript/lineWorkerMain.mjs). */
export const LINE_WORKER = fileURLToPath(new URL('../../src/transcript/lineWorkerMain.mjs', import.meta.url));

/**
 * Starts a client and disposes it after the test. `ACP_TEST_LINE_WORKER=on` runs every such client
 * on the line worker (the extension's path; unset, the unit layer runs them on the fallback path).
 */
export async function startClient(
  t: { after(fn: () => Promise<void> | void): void },
  config: AgentConfig,
  options: Partial<AcpClientOptions> = {},
): Promise<{ client: AcpClient; log: CapturingLog }> {
  const log = (options.log as CapturingLog | undefined) ?? new CapturingLog();
  const worker = process.env.ACP_TEST_LINE_WORKER === 'on' ? { lineWorker: LINE_WORKER } : {};
  const client = await AcpClient.start(config, { clientInfo: CLIENT_INFO, log, ...worker, ...options });
  t.after(() => client.dispose());
  return { client, log };
}

/** True while a process with this id exists (a zombie counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True while a process with this id exists and is not a zombie: an orphaned grandchild is
 * reparented to PID 1, which in some containers never reaps it, yet it runs nothing any more.
 */
export function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false; // gone between the two looks
  }
}

/** The rest of the agent's stderr line that starts with `prefix`, as the client logged it. */
export function stderrLine(log: CapturingLog, agent: string, prefix: string): string | undefined {
  const start = `[${agent}] ${prefix}`;
  return log.at('info').find((m) => m.startsWith(start))?.slice(start.length);
}

/** Polls until `probe` returns something truthy; gives up after 10 s so a broken rule fails instead of hanging. */
export async function waitFor<T>(probe: () => T | undefined | false, what = probe.toString()): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const value = probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`condition not reached within 10 s: ${what}`);
}

/** The promise's value, or a failure naming `what` when it takes longer than `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Awaits a promise that must reject, and returns what it rejected with. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
