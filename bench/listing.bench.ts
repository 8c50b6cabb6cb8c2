// Figure 5, listing: 10,000 sessions over 3 folders at 100 per page, from expanding the Active
// section to having every page in the sessions model by repeated Load more. Floor: the same
// `session/list` requests sent raw over the pipe to the same reference agent.
// Also (issue 33) the same listing with 1,000 kept copies on disk, 900 of sessions the agent
// lists and 100 of sessions it no longer has: the copies' folder scanned (each trailer) from when
// the agent is started, as at activation (what is left of the scan then counts), Kept Here deciding which copies the agent no longer has, and on every change what
// the tree reads of them (an agent's children and tooltip, its Kept Here section and rows);
// until every page is in and Kept Here holds the 100. Its floor: the same listing without copies
// in the same run (ABBA: without, with, with, without; three times, medians).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { ensureSessionStore, LIST_FOLDERS, makeText, prng } from './generate';
import { DATA_DIR, ROOT, args, deadline, log, median, report, scale, silentLogger, spawnNode, stop } from './lib';
import { writeSession } from '../test/agent/store';
import { AgentRegistry } from '../src/sessions/agentRegistry';
import { SessionsModel } from '../src/sessions/sessionsModel';
import { KeptStore } from '../src/keep/keptStore';
import { KeptHere } from '../src/keep/keptHere';
import { keptPath, KeptWriter } from '../src/keep/keptFile';

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

const KEPT = 1000;
const KEPT_GONE = 100;

/**
 * 1,000 kept copies of the agent `bench`: the first 900 of its sessions, and 100 it does not
 * have; of ordinary sizes, 200 to 5,600 updates of seeded text (5 to 140 KB on disk, 70 MB in all).
 */
async function ensureKeptCopies(dir: string, count: number): Promise<string> {
  const marker = join(dir, `.bench-kept-${KEPT}-${count}-v2`);
  if (existsSync(marker)) return dir;
  mkdirSync(dir, { recursive: true });
  const listed = Math.min(count, KEPT - KEPT_GONE);
  const ids = [
    ...Array.from({ length: listed }, (_, i) => `sess_${String(i).padStart(5, '0')}`),
    ...Array.from({ length: KEPT - listed }, (_, i) => `gone_${String(i).padStart(5, '0')}`),
  ];
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const rand = prng(33);
  for (let i = 0; i < ids.length; i += 16) {
    await Promise.all(ids.slice(i, i + 16).map(async (sessionId, j) => {
      const writer = new KeptWriter(keptPath(dir, 'bench', sessionId));
      const updates = 200 + ((i + j) % 10) * 600;
      for (let k = 0; k < updates; k++) {
        writer.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', messageId: `m${Math.floor(k / 20)}`, content: { type: 'text', text: makeText(rand, 40, 200) } } } }));
      }
      const cwd = LIST_FOLDERS[(i + j) % LIST_FOLDERS.length];
      await writer.finish({ agentName: 'bench', sessionId, cwd, title: `Kept ${sessionId}`, updatedAt: new Date(Date.UTC(2024, 0, 1) + (i + j) * 60_000).toISOString() }, async () => true);
    }));
  }
  writeFileSync(marker, new Date().toISOString());
  return dir;
}

interface Ours {
  ms: number;
  pages: number;
  requests: number;
  /** With copies: the sessions Kept Here shows, the scan's time and the tree's reads of Kept Here. */
  keptHere?: number;
  scanMs?: number;
  /** From the scan's start to the agent's answer to initialize (the scan runs meanwhile, as at activation). */
  agentStartMs?: number;
  treeReads?: number;
  treeReadMs?: number;
}

async function ours(store: string, expected: number, keptDir?: string): Promise<Ours> {
  const registry = new AgentRegistry({ start: { clientInfo: { name: 'acp-sessions-bench', version: '1.0.0' }, log: silentLogger, defaultCwd: ROOT } });
  registry.setConfigs([{ name: 'bench', command: process.execPath, args: [AGENT, '--store', store, '--page-size', String(PAGE)] }]);
  try {
    // As at activation: the copies' folder is read as the agents start (createKeptStore, then the agents).
    const kept = keptDir === undefined ? undefined : new KeptStore({ root: keptDir, mode: () => 'read', budgetBytes: () => 512 * 1048576, facts: () => undefined, log: silentLogger });
    const scanStart = performance.now();
    let scanMs: number | undefined;
    const scanned = kept?.scan().then(() => (scanMs = performance.now() - scanStart));
    const client = await registry.getClient('bench');
    const agentStartMs = performance.now() - scanStart;
    // Every `session/list` the agent answers (the lists' and any full listing's).
    let requests = 0;
    const listSessions = client.listSessions.bind(client);
    client.listSessions = (...a) => {
      requests++;
      return listSessions(...a);
    };
    const model = new SessionsModel(registry, { pageSize: PAGE, scope: { kind: 'all' } });
    const list = model.list('bench', 'active', undefined);
    const here = kept && new KeptHere(kept, model, silentLogger);
    // What the tree reads of Kept Here on each refresh of an agent whose Kept Here is expanded:
    // the agent's children and tooltip, the section's item and children.
    let treeReads = 0;
    let treeReadMs = 0;
    const readTree = () => {
      if (!kept || !here) return;
      const t = performance.now();
      here.sessions('bench');
      kept.damaged('bench');
      kept.usage('bench');
      here.sessions('bench');
      here.sessions('bench');
      kept.damaged('bench');
      here.sessions('bench');
      kept.damaged('bench');
      treeReadMs += performance.now() - t;
      treeReads++;
    };
    const subscriptions = [model.onDidChange(readTree), ...(here ? [here.onDidChange(readTree)] : [])];
    const keptGone = KEPT - Math.min(expected, KEPT - KEPT_GONE);
    const keptShown = here && new Promise<void>((resolve) => {
      const check = () => here.sessions('bench').length >= keptGone && resolve();
      subscriptions.push(here.onDidChange(check));
    });
    let pages = 0;
    const t0 = performance.now();
    await list.load();
    pages++;
    while (list.hasMore) {
      await list.loadMore();
      pages++;
      if (list.error) throw list.error;
    }
    if (keptShown) await deadline(`Kept Here showed the ${keptGone} copies of sessions the agent no longer has`, 120_000, () => Promise.all([keptShown, scanned]));
    const ms = performance.now() - t0;
    if (list.status !== 'loaded') throw new Error(`ours: list ended ${list.status}: ${String(list.error)}`);
    if (list.sessions.length !== expected) throw new Error(`ours: listed ${list.sessions.length} of ${expected} sessions`);
    const keptHere = here?.sessions('bench').length;
    for (const s of subscriptions) s.dispose();
    here?.dispose();
    kept?.dispose();
    model.dispose();
    return { ms, pages, requests, keptHere, scanMs, agentStartMs, treeReads, treeReadMs };
  } finally {
    await registry.dispose();
  }
}

async function main() {
  const count = Math.round(10_000 * scale());
  const store = await ensureSessionStore(join(DATA_DIR, `store${count}`), count, writeSession as never);
  const keptDir = await ensureKeptCopies(join(DATA_DIR, `kept${KEPT}-${count}`), count);
  // `node --cpu-prof out/bench/listing.bench.mjs --variant=with` (or without): that listing alone, three times, no figure.
  const variant = args().get('variant');
  if (variant) {
    for (let i = 0; i < 3; i++) {
      const r = await ours(store, count, variant === 'with' ? keptDir : undefined);
      log(`listing ${variant} kept copies: ${r.ms.toFixed(0)} ms, ${r.requests} session/list requests`);
    }
    return;
  }
  // An unmeasured round first: a process's first listing (its JIT, the agent's reads of the
  // store) took 2.8 s where the next took 1.0 s, which flattered every side measured after it.
  const warm = await floor(store, count);
  const f = await floor(store, count);
  // ABBA, so that neither side has the warmer half of the run (`--pairs=N`: N such quartets).
  const pairs = Number(args().get('pairs') ?? 3);
  const without: Ours[] = [];
  const withCopies: Ours[] = [];
  for (let i = 0; i < pairs; i++) {
    // A hang guard per listing (not a speed limit).
    const listing = (kept?: string) => deadline(`a listing of ${count} sessions ${kept ? 'with' : 'without'} kept copies ended`, 300_000, () => ours(store, count, kept));
    without.push(await listing());
    withCopies.push(await listing(keptDir));
    withCopies.push(await listing(keptDir));
    without.push(await listing());
  }
  // Medians: on a shared machine one listing of the same kind took 1.5 to 4.2 s within a run.
  const mid = (xs: Ours[], key: 'ms' | 'scanMs' | 'treeReadMs' | 'agentStartMs') => median(xs.map((x) => x[key]!));
  const o = { ms: mid(without, 'ms'), pages: without[0].pages };
  const k = { ...withCopies[withCopies.length - 1], ms: mid(withCopies, 'ms'), scanMs: mid(withCopies, 'scanMs'), treeReadMs: mid(withCopies, 'treeReadMs'), agentStartMs: mid(withCopies, 'agentStartMs') };
  const list = (xs: Ours[]) => xs.map((x) => x.ms.toFixed(0)).join(', ');
  log(`listing: floor ${f.ms.toFixed(0)} ms (${f.pages} pages; unmeasured first round ${warm.ms.toFixed(0)} ms), ours ${list(without)} ms (${o.pages} loads), with ${KEPT} kept copies ${list(withCopies)} ms (scan ${k.scanMs.toFixed(0)} ms while the agent started in ${k.agentStartMs.toFixed(0)} ms, without copies ${mid(without, 'agentStartMs').toFixed(0)} ms; ${k.treeReads} tree reads ${k.treeReadMs.toFixed(1)} ms, Kept Here ${k.keptHere})`);
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
    {
      figure: '5',
      name: `listing with ${KEPT.toLocaleString('en')} kept copies and Kept Here`,
      value: k.ms,
      unit: 'ms',
      floor: o.ms,
      goal: 1.1,
      goalOn: 'ratio',
      detail: { 'Kept Here sessions': k.keptHere!, 'scan of the copies ms': Math.round(k.scanMs), 'agent start with the scan ms': Math.round(k.agentStartMs), 'agent start without ms': Math.round(mid(without, 'agentStartMs')), 'tree reads': k.treeReads!, 'tree reads ms': +k.treeReadMs.toFixed(1) },
    },
  ]);
}

await main();
