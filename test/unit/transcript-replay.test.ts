// Real replays: the reference agent as a child process, our ACP client, the timeline reducer.
// The RFD's Preview validation cases that need an agent and a wire are here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcpClient } from '../../src/acp/client';
import { partsText, type CompactionEntity, type Entity } from '../../src/transcript/model';
import { PatchCollector } from '../../src/transcript/patches';
import { Timeline } from '../../src/transcript/timeline';
import { seedStore, type SeedResult } from '../agent/seed';
import { RawAgent } from '../agent/rawClient';
import { CapturingLog, CLIENT_INFO, referenceAgent, tempDir } from './acp-helpers';
import { applyPatches } from './transcript-helpers';

async function seeded(t: { after(fn: () => void): void }): Promise<{ store: string; folder: string; seed: SeedResult }> {
  const store = tempDir(t, 'transcript-store-');
  const folder = tempDir(t, 'transcript-folder-');
  const seed = await seedStore({ store, folders: [folder], count: 10, seed: 7, now: new Date('2026-03-01T12:00:00Z') });
  return { store, folder, seed };
}

async function start(t: { after(fn: () => Promise<void> | void): void }, store: string, flags: string[] = [], protocol: 1 | 2 = 1): Promise<AcpClient> {
  const client = await AcpClient.start(referenceAgent(store, flags, { protocol }), { clientInfo: CLIENT_INFO, log: new CapturingLog() });
  t.after(() => client.dispose());
  return client;
}

async function replay(client: AcpClient, sessionId: string, cwd: string, timeline = new Timeline()): Promise<Timeline> {
  await client.loadSession(sessionId, cwd, (u) => timeline.apply(u));
  return timeline;
}

function storedTimeline(seed: SeedResult, sessionId: string): Timeline {
  const timeline = new Timeline();
  for (const u of seed.sessions.find((s) => s.sessionId === sessionId)!.updates) timeline.apply(u);
  return timeline;
}

const compactions = (t: Timeline) => t.entities.filter((e): e is CompactionEntity => e.kind === 'compaction');

test('a replay through the client builds the same timeline as the stored updates', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const client = await start(t, store);
  for (const sessionId of [seed.special.compactions, seed.special.long, seed.special.hostile]) {
    const replayed = await replay(client, sessionId, folder);
    assert.deepEqual(replayed.entities, storedTimeline(seed, sessionId).entities, sessionId);
  }
});

test('the compaction showcase replays one row per compaction, each kind in its final state', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const client = await start(t, store);
  const timeline = await replay(client, seed.special.compactions, folder);
  const rows = compactions(timeline);
  assert.deepEqual(rows.map((c) => c.status), ['completed', 'completed', 'completed', 'completed', 'failed', 'cancelled', '_vendor_status', 'completed', 'completed']);
  const [streamed, completedOnly, replacement, clear, failed, cancelled, unknown, afterTerminal, nullSummary] = rows;
  assert.match(partsText(streamed.summary), /^## Retained context after module 1/);
  assert.match(partsText(completedOnly.summary), /^## Retained context after module 2/);
  assert.doesNotMatch(partsText(replacement.summary), /Draft/, 'the replacement replaced the draft');
  assert.deepEqual(clear.summary, []);
  assert.match(failed.error ?? '', /rate limit/);
  assert.ok(partsText(failed.summary).length > 0, 'partial output kept on failure');
  assert.ok(partsText(cancelled.summary).length > 0, 'partial output kept on cancellation');
  assert.deepEqual(unknown.meta, { vendor: { phase: 'offloading to cold storage' } });
  assert.match(partsText(afterTerminal.summary), /Addendum streamed after completion/);
  assert.deepEqual(nullSummary.summary, []);
  assert.deepEqual(nullSummary.meta, { reason: 'summary unavailable' });
});

test('each compaction row stands where it was first seen, between the messages around it', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const client = await start(t, store);
  const timeline = await replay(client, seed.special.compactions, folder);
  timeline.entities.forEach((entity, index) => {
    if (entity.kind !== 'compaction') return;
    const before = timeline.entities[index - 1];
    assert.equal(before.kind, 'agent_message');
    assert.match(partsText('parts' in before ? before.parts : []), /is converted/);
  });
});

test('unknown update kinds in a replay become generic rows', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const client = await start(t, store);
  const timeline = await replay(client, seed.special.compactions, folder);
  const unknown = timeline.entities.filter((e) => e.kind === 'unknown').map((e) => (e.kind === 'unknown' ? e.sessionUpdate : ''));
  assert.deepEqual(unknown, ['checkpoint_created', '_acme_telemetry']);
});

test('patches drained at any point during a real replay rebuild exactly the timeline', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const client = await start(t, store);
  const collector = new PatchCollector();
  const timeline = new Timeline(collector);
  const rows = new Map<string, Entity>();
  let n = 0;
  await client.loadSession(seed.special.long, folder, (u) => {
    timeline.apply(u);
    if (++n % 17 === 0) applyPatches(rows, collector.drain().patches);
  });
  applyPatches(rows, collector.drain().patches);
  assert.deepEqual([...rows.values()], structuredClone(timeline.entities));
});

test('Preview validation: V1 capability enforcement for replay: our client advertises compaction and receives it', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const client = await start(t, store);
  const timeline = await replay(client, seed.special.compactions, folder);
  assert.equal(compactions(timeline).length, 9);
});

for (const [name, capabilities] of [
  ['omit the capability', { fs: { readTextFile: false, writeTextFile: false } }],
  ['send null', { session: { compaction: null } }],
] as const) {
  test(`Preview validation: V1 capability enforcement for replay: clients that ${name} receive no compaction updates`, async (t) => {
    const { store, folder, seed } = await seeded(t);
    const agent = RawAgent.start(['--store', store]);
    t.after(() => agent.close());
    await agent.initialize({ protocolVersion: 1, clientCapabilities: capabilities, clientInfo: { name: 'no-compaction', version: '0' } });
    await agent.call('session/load', { sessionId: seed.special.compactions, cwd: folder, mcpServers: [] });
    const kinds = agent.stdout.filter((e) => e.kind === 'notification').map((e) => (e.message as { params: { update: { sessionUpdate: string } } }).params.update.sessionUpdate);
    assert.ok(kinds.length > 0);
    assert.ok(!kinds.includes('compaction_update') && !kinds.includes('compaction_summary_chunk'), kinds.join(','));
    // The timeline of such a replay holds no compaction rows.
    const timeline = new Timeline();
    for (const e of agent.stdout) if (e.kind === 'notification') timeline.apply((e.message as { params: { update: unknown } }).params.update);
    assert.equal(compactions(timeline).length, 0);
  });
}

test('Preview validation: v2 updates build the same compaction rows as v1', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const v1 = await start(t, store);
  const v2 = await start(t, store, ['--v2'], 2);
  assert.equal(v2.protocolVersion, 2);
  const a = await replay(v1, seed.special.compactions, folder);
  const b = await replay(v2, seed.special.compactions, folder);
  assert.deepEqual(compactions(b), compactions(a));
});

test('Preview validation: history replay after reconnecting holds each summary once', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const first = await start(t, store);
  const before = await replay(first, seed.special.compactions, folder);
  await first.dispose();
  const second = await start(t, store);
  const after = await replay(second, seed.special.compactions, folder);
  assert.deepEqual(compactions(after), compactions(before));
  for (const c of compactions(after)) {
    const text = partsText(c.summary);
    const firstLine = text.split('\n')[0];
    if (firstLine) assert.equal(text.split(firstLine).length - 1, 1, `summary of ${c.compactionId} appears once`);
  }
});

test('hostile content replays verbatim: nothing is dropped or rewritten by the reducer', async (t) => {
  const { store, folder, seed } = await seeded(t);
  const client = await start(t, store);
  const timeline = await replay(client, seed.special.hostile, folder);
  assert.match(timeline.state.title ?? '', /<script>alert\("title"\)<\/script>/);
  const user = timeline.entities.find((e) => e.kind === 'user_message');
  assert.match(partsText(user && 'parts' in user ? user.parts : []), /<img src=x onerror=alert\(2\)>/);
  const compaction = compactions(timeline)[0];
  assert.equal(compaction.status, '<img src=x onerror=alert(24)>');
  assert.equal(compaction.error, '<script>alert(25)</script>');
});

