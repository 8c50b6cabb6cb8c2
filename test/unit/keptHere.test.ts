// Kept Here against the reference agent: which copies are of sessions the agent no longer has,
// decided from the tree's own lists when they are loaded to their last page, else from a full
// listing sent only while no list of the agent is paging.
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { keptPath, KeptWriter } from '../../src/keep/keptFile';
import { KeptHere } from '../../src/keep/keptHere';
import { KeptStore } from '../../src/keep/keptStore';
import { AgentRegistry } from '../../src/sessions/agentRegistry';
import { SessionsModel } from '../../src/sessions/sessionsModel';
import { storedSession, writeAll } from '../agent/fixtures';
import { AGENT, CapturingLog, CLIENT_INFO, tempDir } from './acp-helpers';

const CWD = '/work/project-a';
const LISTED = Array.from({ length: 25 }, (_, i) => `s${String(i).padStart(2, '0')}`);
const GONE = ['gone-1', 'gone-2'];

/** An agent of 25 sessions at 10 a page, copies of 3 of them and of 2 it does not have; `session/list` counted. */
async function setUp(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  await writeAll(join(dir, 'store'), LISTED.map((id, i) => storedSession(id, { minutesAgo: i })));
  const root = join(dir, 'kept');
  for (const sessionId of [...LISTED.slice(0, 3), ...GONE]) {
    const writer = new KeptWriter(keptPath(root, 'ref', sessionId));
    writer.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer in ${sessionId}` } } } }));
    await writer.finish({ agentName: 'ref', sessionId, cwd: CWD, title: `Session ${sessionId}` }, async () => true);
  }
  const registry = new AgentRegistry({ start: { clientInfo: CLIENT_INFO, log: new CapturingLog(), defaultCwd: tmpdir(), killGraceMs: 500 } });
  registry.setConfigs([{ name: 'ref', command: process.execPath, args: [AGENT, '--store', join(dir, 'store'), '--page-size', '10'] }]);
  const client = await registry.getClient('ref');
  const requests: { paging: boolean }[] = [];
  const model = new SessionsModel(registry, { pageSize: 10 });
  const listSessions = client.listSessions.bind(client);
  client.listSessions = (...a) => {
    requests.push({ paging: model.allLists('ref').some((l) => l.busy) });
    return listSessions(...a);
  };
  const warnings: string[] = [];
  const store = new KeptStore({ root, mode: () => 'read', budgetBytes: () => 1 << 30, facts: () => undefined, log: { warn: (m) => warnings.push(m) } });
  await store.scan();
  const here = new KeptHere(store, model, { warn: (m) => warnings.push(m) });
  t.after(async () => {
    here.dispose();
    store.dispose();
    model.dispose();
    await registry.dispose();
  });
  /** Resolves once Kept Here shows `ids`, or fails after 20 s naming what it showed. */
  const shows = (ids: string[]) =>
    new Promise<void>((resolve, reject) => {
      const ids_ = () => here.sessions('ref').map((c) => c.meta.sessionId).sort();
      const timer = setTimeout(() => reject(new Error(`Kept Here showed ${JSON.stringify(ids_())} after 20 s, not ${JSON.stringify(ids)}`)), 20_000);
      const check = () => {
        if (JSON.stringify(ids_()) !== JSON.stringify([...ids].sort())) return;
        clearTimeout(timer);
        subscription.dispose();
        resolve();
      };
      const subscription = here.onDidChange(check);
      check();
    });
  return { model, here, requests, warnings, shows };
}

test('Kept Here decides from the lists loaded to their last page: no full listing is sent, none while a list pages', async (t) => {
  const { model, requests, warnings, shows } = await setUp(t);
  const active = model.list('ref', 'active', undefined);
  const archived = model.list('ref', 'archived', undefined);
  await Promise.all([active.load(), archived.load()]);
  while (active.hasMore) await active.loadMore();
  await shows(GONE);
  const own = active.listRequests + archived.listRequests;
  assert.equal(requests.length, own, `only the lists' own ${own} session/list requests were sent`);
  assert.deepEqual(warnings, []);
});

test('with only a first page loaded, the copies it does not show are decided by a full listing, sent while no list pages', async (t) => {
  const { model, here, requests, shows } = await setUp(t);
  const active = model.list('ref', 'active', undefined);
  await active.load();
  assert.ok(active.hasMore, 'the list has more pages');
  await shows(GONE);
  const own = active.listRequests;
  assert.ok(requests.length > own, 'a full listing was sent');
  assert.ok(requests.slice(own).every((r) => !r.paging), 'no request of the full listing went while a list was paging');
  assert.equal(here.isKeptOnly('ref', LISTED[2]), false, 'a copy of a session the agent has is not under Kept Here');
});
