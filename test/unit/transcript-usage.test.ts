// Context use along the transcript: every usage_update kept in order where it came, and the
// series the header's sparkline draws, with each compaction and the figures around it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcpClient } from '../../src/acp/client';
import { Timeline } from '../../src/transcript/timeline';
import { usageSeries } from '../../src/transcript/usage';
import { seedStore } from '../agent/seed';
import { CapturingLog, CLIENT_INFO, referenceAgent, tempDir } from './acp-helpers';

const usage = (used: number, size = 1000) => ({ sessionUpdate: 'usage_update', used, size });
const agent = (text: string) => ({ sessionUpdate: 'agent_message_chunk', messageId: text, content: { type: 'text', text } });
const compaction = (compactionId: string, status = 'completed') => ({ sessionUpdate: 'compaction_update', compactionId, status });

function run(...updates: unknown[]): Timeline {
  const timeline = new Timeline();
  for (const u of updates) timeline.apply(u);
  return timeline;
}

const seriesOf = (t: Timeline, max?: number) => usageSeries(t.state.usageHistory, t.compactionsInOrder(), t.created, max);

test('every usage_update is kept in order, at the place along the transcript where it came', () => {
  const t = run(usage(100), agent('a'), usage(300), agent('b'), agent('c'), usage(250));
  assert.deepEqual(t.state.usageHistory, [
    { at: 0, used: 100, size: 1000 },
    { at: 1, used: 300, size: 1000 },
    { at: 3, used: 250, size: 1000 },
  ]);
  assert.deepEqual(t.state.usage, { used: 250, size: 1000 }, 'the header still shows the last one');
});

test('a malformed usage_update is shown as an unknown row and never enters the series', () => {
  const t = run(usage(100), { sessionUpdate: 'usage_update', used: '5', size: 1000 }, { sessionUpdate: 'usage_update', used: -1, size: 1000 });
  assert.equal(t.state.usageHistory.length, 1);
  assert.deepEqual(t.entities.map((e) => e.kind), ['unknown', 'unknown']);
});

test('each compaction is marked where its row is, with the last figure before it and the first after it', () => {
  const t = run(agent('a'), usage(900), compaction('c1'), usage(200), agent('b'), usage(950), compaction('c2', 'failed'), agent('c'), usage(940));
  const series = seriesOf(t)!;
  assert.equal(series.total, t.created);
  assert.deepEqual(series.points.map((p) => p.used), [900, 200, 950, 940]);
  assert.deepEqual(
    series.marks.map((m) => ({ key: m.key, id: m.compactionId, status: m.status, at: m.at, before: m.before?.used, after: m.after?.used })),
    [
      { key: t.compaction('c1')!.key, id: 'c1', status: 'completed', at: 1, before: 900, after: 200 },
      { key: t.compaction('c2')!.key, id: 'c2', status: 'failed', at: 3, before: 950, after: 940 },
    ],
  );
});

test('a compaction with no figure after it (before the next one) claims nothing it freed', () => {
  const t = run(usage(900), compaction('c1'), compaction('c2'), usage(100));
  const [first, second] = seriesOf(t)!.marks;
  assert.equal(first.before?.used, 900);
  assert.equal(first.after, undefined, 'the figure after c2 is not c1\'s');
  assert.equal(second.before?.used, 900);
  assert.equal(second.after?.used, 100);
});

test('no usage_update: no series (nothing is estimated)', () => {
  assert.equal(seriesOf(run(agent('a'), compaction('c1'))), undefined);
});

test('a long series keeps only the agent\'s own figures, every peak and drop, and ends on the last', () => {
  const updates: unknown[] = [];
  for (let i = 0; i < 5000; i++) updates.push(usage(i % 500 === 499 ? 990 : (i % 500) + 10), agent(`m${i}`));
  const t = run(...updates);
  const series = seriesOf(t, 101)!;
  assert.ok(series.points.length <= 101, `${series.points.length} points`);
  const said = new Set(t.state.usageHistory);
  assert.ok(series.points.every((p) => said.has(p)), 'every point is one the agent sent');
  assert.equal(series.points.filter((p) => p.used === 990).length, 10, 'each of the ten peaks is kept');
  assert.equal(series.points.at(-1), t.state.usageHistory.at(-1));
  assert.deepEqual(series.points.map((p) => p.at), [...series.points.map((p) => p.at)].sort((a, b) => a - b), 'in order');
});

test('the seeded compaction showcase replays its figures: each compaction frees what the agent said', async (t) => {
  const store = tempDir(t, 'usage-store-');
  const folder = tempDir(t, 'usage-folder-');
  const seed = await seedStore({ store, folders: [folder], count: 10, seed: 7, now: new Date('2026-03-01T12:00:00Z') });
  const client = await AcpClient.start(referenceAgent(store), { clientInfo: CLIENT_INFO, log: new CapturingLog() });
  t.after(() => client.dispose());
  const timeline = new Timeline();
  await client.loadSession(seed.special.compactions, folder, (u) => timeline.apply(u));
  const series = seriesOf(timeline)!;
  const stored = seed.sessions.find((s) => s.sessionId === seed.special.compactions)!.updates.filter((u) => u.sessionUpdate === 'usage_update') as unknown as { used: number }[];
  assert.deepEqual(series.points.map((p) => p.used), stored.map((u) => u.used));
  assert.equal(series.marks.length, 9);
  for (const mark of series.marks) {
    assert.ok(mark.before && mark.after, `${mark.compactionId} has figures on both sides`);
    assert.ok(mark.before.used >= 190_000 && mark.after.used < 31_000, `${mark.compactionId}: ${mark.before.used} → ${mark.after.used}`);
  }
});
