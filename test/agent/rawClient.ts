// A minimal raw NDJSON JSON-RPC driver for the reference agent, used by its own unit tests so
// they exercise the agent as a real child process without depending on our src/acp client.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** out/test/agent/agent.mjs, found from the bundled test in out/test/unit/. */
export const AGENT_PATH = fileURLToPath(new URL('../agent/agent.mjs', import.meta.url));

export interface RpcResponse {
  id: number | string | null;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

export interface RpcNotification {
  method: string;
  params: any;
}

/** Everything the agent wrote to stdout, in order. */
export type StdoutEntry = { kind: 'response'; message: RpcResponse } | { kind: 'notification'; message: RpcNotification } | { kind: 'request'; message: any } | { kind: 'malformed'; line: string };

export class RawAgent {
  readonly stdout: StdoutEntry[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcessWithoutNullStreams;
  private nextId = 1;
  private readonly pending = new Map<number | string, (response: RpcResponse) => void>();
  private readonly waiters: Array<() => void> = [];
  private buffer = '';

  private constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [AGENT_PATH, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onStdout(chunk));
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
      this.wake();
    });
    this.child.stdin.on('error', () => undefined); // the agent may exit on purpose (--exit-at)
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => {
      for (const [, resolve] of this.pending) resolve({ id: null, error: { code: 0, message: 'agent exited' } });
      this.pending.clear();
      this.wake();
    });
  }

  static start(args: string[], env: NodeJS.ProcessEnv = {}): RawAgent {
    return new RawAgent(args, env);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private onStdout(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      if (!line.trim()) continue;
      let message: any;
      try {
        message = JSON.parse(line);
      } catch {
        this.stdout.push({ kind: 'malformed', line });
        continue;
      }
      if ('method' in message && 'id' in message) this.stdout.push({ kind: 'request', message });
      else if ('method' in message) this.stdout.push({ kind: 'notification', message });
      else {
        this.stdout.push({ kind: 'response', message });
        this.pending.get(message.id)?.(message);
        this.pending.delete(message.id);
      }
    }
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `condition` holds (checked after each stdout/stderr chunk and on exit). */
  async until(condition: () => boolean): Promise<void> {
    while (!condition()) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        if (condition()) return;
        throw new Error(`agent exited before the condition held; stderr:\n${this.stderr}`);
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  send(message: unknown): void {
    this.child.stdin.write(JSON.stringify(message) + '\n');
  }

  sendLine(line: string): void {
    this.child.stdin.write(line + '\n');
  }

  /** Sends a request; resolves with the whole response (result or error). */
  request(method: string, params?: unknown): Promise<RpcResponse> & { id: number } {
    const id = this.nextId++;
    const promise = new Promise<RpcResponse>((resolve) => this.pending.set(id, resolve)) as Promise<RpcResponse> & { id: number };
    promise.id = id;
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return promise;
  }

  /** Sends a request and returns its result; throws with the error's code and message otherwise. */
  async call(method: string, params?: unknown): Promise<any> {
    const response = await this.request(method, params);
    if (response.error) throw Object.assign(new Error(`${method}: ${response.error.code} ${response.error.message}`), { code: response.error.code });
    return response.result;
  }

  async initialize(params: Record<string, unknown> = { protocolVersion: 1, clientCapabilities: { session: { compaction: {} } }, clientInfo: { name: 'agent-tests', version: '0' } }): Promise<any> {
    return this.call('initialize', params);
  }

  /** `session/update` notifications received so far (optionally for one session). */
  updates(sessionId?: string): any[] {
    return this.stdout
      .filter((e): e is { kind: 'notification'; message: RpcNotification } => e.kind === 'notification' && e.message.method === 'session/update')
      .filter((e) => sessionId === undefined || e.message.params.sessionId === sessionId)
      .map((e) => e.message.params.update);
  }

  /** Closes stdin and waits for the agent to exit (killing it if it does not). */
  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      const result = await this.exited;
      clearTimeout(timer);
      return result;
    }
    return this.exited;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

/** Every page of `session/list` for `params`, following cursors. */
export async function listAll(agent: RawAgent, params: Record<string, unknown> = {}): Promise<any[]> {
  const sessions: any[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const result = await agent.call('session/list', { ...params, ...(cursor ? { cursor } : {}) });
    sessions.push(...result.sessions);
    cursor = result.nextCursor ?? undefined;
    if (!cursor) return sessions;
  }
  throw new Error('session/list never ended');
}
