// Chaos mode of the reference agent (`--chaos-seed N`): faults drawn from the seed, injected
// where the agent handles requests (`guarded`), replays (`replay`) and writes stdout. Every
// draw is keyed by what it applies to (process number, method, params, occurrence, response
// id), not by a shared stream, so the same seed gives the same faults however the client's
// concurrent requests interleave. The process number is the count of earlier starts in
// `--chaos-log`: a restarted agent draws anew instead of repeating the fault that ended it.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import type { ChaosOptions, FaultKind } from './options';
import { prng } from './prng';

/** What the chaos mode does to one request, decided when it arrives. */
export interface RequestPlan {
  /** Answer with this error instead of running the handler (an error storm). */
  error?: number;
  delayMs?: number;
  /** On arrival (`list`, `archive`), after the store write (`archive`), or half-way through the replay (`load`). */
  crash?: boolean;
  hang?: boolean;
}

/** What the agent gives the chaos mode: its buffered stdout and a way to end itself. */
export interface ChaosIo {
  write(data: Uint8Array | string): void;
  /** Flushes stdout, then exits with code 3. */
  exit(why: string): never;
}

type MethodClass = 'list' | 'load' | 'archive';

const METHOD_CLASS: Record<string, MethodClass> = {
  'session/list': 'list',
  'session/load': 'load',
  'session/resume': 'load',
  'session/archive': 'archive',
  'session/unarchive': 'archive',
};

const RESPONSE_FAULTS: readonly FaultKind[] = ['malformed', 'oversized', 'duplicate', 'out-of-order', 'unknown-id'];
/** Per replayed update the rate is divided by this: a transcript has many updates. */
const UPDATE_RATE_DIVISOR = 10;
const FLOOD_LINES = 2_000;
const OUT_OF_ORDER_MAX_MS = 100;

/** FNV-1a, 32 bits: turns a draw's key into a seed for prng(). */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Chaos {
  readonly processIndex: number;
  private readonly occurrences = new Map<string, number>();
  private storm: { code: number; left: number; kind: FaultKind } | undefined;
  /** A response held back (out-of-order) until the next message has been written. */
  private held: { data: Uint8Array | string; timer: NodeJS.Timeout } | undefined;
  private unknownIds = 0;

  constructor(
    private readonly options: ChaosOptions,
    private readonly io: ChaosIo,
  ) {
    this.processIndex = options.log ? countStarts(options.log) : 0;
    // A child of our own, as real agents have (npx, a CLI): a crash must not leave it running.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    child.on('error', () => undefined);
    this.record({ event: 'start', pid: process.pid, child: child.pid, seed: options.seed });
  }

  /** Decides a request's fault on arrival; error storms answer the next few requests too. */
  onRequest(method: string, params: unknown): RequestPlan {
    const methodClass = METHOD_CLASS[method];
    if (!methodClass) return {};
    if (this.storm) {
      const { code, kind } = this.storm;
      if (--this.storm.left <= 0) this.storm = undefined;
      this.record({ kind, method, storm: true });
      return { error: code };
    }
    const key = `request:${method}:${paramsKey(params)}`;
    const n = this.next(key);
    if (this.draw(`${key}#${n}`) >= this.options.rate) return {};
    const kinds = (['delay', 'error-32002', 'error-32603', 'stderr-flood', `crash-${methodClass}`, `hang-${methodClass}`] as FaultKind[]).filter((k) =>
      this.options.faults.has(k),
    );
    if (kinds.length === 0) return {};
    const kind = kinds[Math.floor(this.draw(`${key}#${n}:kind`) * kinds.length)];
    this.record({ kind, method });
    switch (kind) {
      case 'delay':
        return { delayMs: 50 + Math.floor(this.draw(`${key}#${n}:ms`) * 400) };
      case 'error-32002':
      case 'error-32603': {
        const code = kind === 'error-32002' ? -32002 : -32603;
        // A storm: this request and the next 1 to 4 answer the same error.
        const left = 1 + Math.floor(this.draw(`${key}#${n}:storm`) * 4);
        this.storm = { code, left, kind };
        return { error: code };
      }
      case 'stderr-flood':
        this.flood();
        return {};
      default:
        return kind.startsWith('crash-') ? { crash: true } : { hang: true };
    }
  }

  /** Ends the process as a crash would: what was written so far reaches the client. */
  crash(where: string): never {
    return this.io.exit(`chaos: crashing ${where}`);
  }

  /** Every line the agent writes to stdout passes here. */
  outgoing(data: Uint8Array | string): void {
    const message = parseLine(data);
    if (message && 'id' in message && !('method' in message)) this.response(data, message.id);
    else if (message?.method === 'session/update') this.update(data, message.params);
    else this.write(data);
  }

  private response(data: Uint8Array | string, id: unknown): void {
    const key = `response:${JSON.stringify(id)}`;
    const kinds = RESPONSE_FAULTS.filter((k) => this.options.faults.has(k));
    if (kinds.length === 0 || this.draw(key) >= this.options.rate / 2) return this.write(data);
    const kind = kinds[Math.floor(this.draw(`${key}:kind`) * kinds.length)];
    this.record({ kind, id });
    switch (kind) {
      case 'malformed':
        this.write('{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":{"sessions":[{"sessionId":\n');
        return this.write(data);
      case 'oversized':
        this.write('x'.repeat(this.options.oversizedBytes) + '\n');
        return this.write(data);
      case 'duplicate':
        this.write(data);
        return this.write(data);
      case 'unknown-id': {
        const unknown = 1_000_000 + this.unknownIds++;
        this.write(
          this.draw(`${key}:error`) < 0.5
            ? JSON.stringify({ jsonrpc: '2.0', id: unknown, result: { sessions: [] } }) + '\n'
            : JSON.stringify({ jsonrpc: '2.0', id: `chaos-${unknown}`, error: { code: -32603, message: 'chaos: an answer to nothing' } }) + '\n',
        );
        return this.write(data);
      }
      case 'out-of-order': {
        this.release();
        const ms = Math.floor(this.draw(`${key}:ms`) * OUT_OF_ORDER_MAX_MS);
        this.held = { data, timer: setTimeout(() => this.release(), ms) };
        return;
      }
    }
  }

  private update(data: Uint8Array | string, params: unknown): void {
    if (!this.options.faults.has('crash-stream')) return this.write(data);
    const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId;
    const key = `update:${String(sessionId)}`;
    const n = this.next(key);
    if (this.draw(`${key}#${n}`) >= this.options.rate / UPDATE_RATE_DIVISOR) return this.write(data);
    this.record({ kind: 'crash-stream', sessionId });
    // Half a line, then nothing: the client must not take the fragment for a message.
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    this.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
    this.crash('in the middle of a session/update line');
  }

  private write(data: Uint8Array | string): void {
    this.io.write(data);
    // An out-of-order response goes out right after the message that overtook it.
    if (this.held) this.release();
  }

  private release(): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    clearTimeout(held.timer);
    this.io.write(held.data);
  }

  private flood(): void {
    const line = 'chaos: stderr flood '.padEnd(120, '~');
    for (let i = 0; i < FLOOD_LINES; i++) process.stderr.write(`${line} ${i}\n`);
    process.stderr.write('chaos: one long stderr line ' + 'z'.repeat(256 * 1024) + '\n');
  }

  private next(key: string): number {
    const n = this.occurrences.get(key) ?? 0;
    this.occurrences.set(key, n + 1);
    return n;
  }

  private draw(key: string): number {
    return prng(hash(`${this.options.seed}:${this.processIndex}:${key}`))();
  }

  private record(entry: Record<string, unknown>): void {
    if (!this.options.log) return;
    // Synchronous: a crash right after must not lose the record of why.
    appendFileSync(this.options.log, JSON.stringify({ pid: process.pid, process: this.processIndex, ...entry }) + '\n');
  }
}

function countStarts(log: string): number {
  try {
    return readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('"event":"start"')).length;
  } catch {
    return 0;
  }
}

/**
 * What a request is known by across runs: its session, or its list filter and whether it is a
 * first or a further page. Not `cwd` or the cursor: both hold the test's temporary folder.
 */
function paramsKey(params: unknown): string {
  const p = (params ?? {}) as { sessionId?: unknown; archived?: unknown; cursor?: unknown };
  return JSON.stringify([p.sessionId ?? null, p.archived ?? null, p.cursor == null ? 'first page' : 'next page']);
}

function parseLine(data: Uint8Array | string): { id?: unknown; method?: unknown; params?: unknown } | undefined {
  try {
    const text = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
