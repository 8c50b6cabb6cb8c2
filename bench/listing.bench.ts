// Figure 5, listing: 10,000 sessions over 3 folders at 100 per page, from expanding the Active
// section to having every page in the sessions model by repeated Load more. Floor: the same
// `session/list` requests sent raw over the pipe to the same reference agent.
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { ensureSessionStore } from './generate';
import { DATA_DIR, ROOT, log, report, scale, silentLogger, spawnNode, stop } from './lib';
import { writeSession } from '../test/agent/store';
import { AgentRegistry } from '../src/sessions/agentRegistry';
import { SessionsModel } from '../src/sessions/sessionsModel';

const AGENT = join(ROOT, 'out/test/agent/agent.mjs');
const PAGE = 100;

/** Raw JSON-RPC over the agent's pipes: one request at a time, JSON.parse of each line. */
function rawConnection(store: string) {
  const child = spawnNode(AGENT, ['--store', store, '--page-size', String(PAGE)]);
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const waiting = new Map<number, (message: { result?: any; error?: any }) => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    pending += decoder.write(chunk);
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const message = JSON.parse(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      if (message.id !== undefined) waiting.get(message.id)?.(message);
    }
  });
  let nextId = 0;
  return {
    child,
    request(method: string, params: unknown): Promise<any> {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, (m) => (m.error ? reject(new Error(`${method}: ${JSON.stringify(m.error)}`)) : resolve(m.result)));
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      });
    },
  };
}

async function floor(store: string, expected: number): Promise<{ ms: number; pages: number }> {
  const raw = rawConnection(store);
  const init = await raw.request('initialize', { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'bench-floor', version: '1' } });
  const archive = init.agentCapabilities?.sessionCapabilities?.archive != null;
  const t0 = performance.now();
  let cursor: string | undefined;
  let sessions = 0;
  let pages = 0;
  do {
    const params: Record<string, unknown> = {};
    if (archive) params.archived = 'exclude';
    if (cursor !== undefined) params.cursor = cursor;
    const page = await raw.request('session/list', params);
    sessions += page.sessions.length;
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor !== undefined);
  const ms = performance.now() - t0;
  await stop(raw.child);
  if (sessions !== expected) throw new Error(`floor: listed ${sessions} of ${expected} sessions`);
  return { ms, pages };
}

async function ours(store: string, expected: number): Promise<{ ms: number; pages: number }> {
  const registry = new AgentRegistry({ start: { clientInfo: { name: 'acp-sessions-bench', version: '1.0.0' }, log: silentLogger, defaultCwd: ROOT } });
  registry.setConfigs([{ name: 'bench', command: process.execPath, args: [AGENT, '--store', store, '--page-size', String(PAGE)] }]);
  try {
    await registry.getClient('bench');
    const model = new SessionsModel(registry, { pageSize: PAGE, scope: { kind: 'all' } });
    const list = model.list('bench', 'active', undefined);
    let pages = 0;
    const t0 = performance.now();
    await list.load();
    pages++;
    while (list.hasMore) {
      await list.loadMore();
      pages++;
      if (list.error) throw list.error;
    }
    const ms = performance.now() - t0;
    if (list.status !== 'loaded') throw new Error(`ours: list ended ${list.status}: ${String(list.error)}`);
    if (list.sessions.length !== expected) throw new Error(`ours: listed ${list.sessions.length} of ${expected} sessions`);
    model.dispose();
    return { ms, pages };
  } finally {
    await registry.dispose();
  }
}

async function main() {
  const count = Math.round(10_000 * scale());
  const store = await ensureSessionStore(join(DATA_DIR, `store${count}`), count, writeSession as never);
  const f = await floor(store, count);
  const o = await ours(store, count);
  log(`listing: floor ${f.ms.toFixed(0)} ms (${f.pages} pages), ours ${o.ms.toFixed(0)} ms (${o.pages} loads)`);
  report([
    {
      figure: '5',
      name: `listing ${count.toLocaleString('en')} sessions, ${PAGE}/page`,
      value: o.ms,
      unit: 'ms',
      floor: f.ms,
      goal: 1.2,
      goalOn: 'ratio',
      detail: { pages: f.pages, 'model loads': o.pages },
    },
  ]);
}

await main();
