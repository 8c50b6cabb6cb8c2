// What the panel posts to its webview and when (src/transcript/feed.ts, shared with the
// benchmarks): nothing before `ready`, a snapshot of the row count and the rows where the
// webview starts on `ready`, then one batched update per window carrying only the changes to
// the rows the webview holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebviewFeed, WINDOW_ROWS } from '../../src/transcript/feed';
import type { HostToWebview, TranscriptHeader } from '../../src/transcript/protocol';
import { Timeline } from '../../src/transcript/timeline';

const agent = (t: string, messageId = 'm1') => ({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: t } });

function setup() {
  const posted: HostToWebview[] = [];
  let loading = true;
  const header = (): TranscriptHeader => ({
    agentName: 'a', sessionId: 's', cwd: '/w', title: 't', archived: false, loading, updateCount: timeline.updateCount, live: false, notices: [],
  });
  const feed: WebviewFeed = new WebviewFeed({ post: (m) => posted.push(structuredClone(m)), header, timeline: () => timeline, loading: () => loading });
  const timeline: Timeline = new Timeline(feed.collector);
  return { posted, feed, timeline, stopLoading: () => (loading = false) };
}

/** Resolves after the feed's batching window has passed. */
const nextWindow = () => new Promise((resolve) => setTimeout(resolve, 50));

test('nothing is posted before the webview is ready, and ready brings the row count and the first rows', async () => {
  const { posted, feed, timeline } = setup();
  for (let i = 0; i < 100; i++) timeline.apply(agent(`c${i} `, `m${i % 3}`));
  await nextWindow();
  assert.deepEqual(posted, []);
  feed.setReady();
  assert.equal(posted.length, 1);
  const snapshot = posted[0] as HostToWebview;
  assert.equal(snapshot.type, 'snapshot');
  assert.equal(snapshot.type === 'snapshot' && snapshot.count, 3);
  assert.deepEqual(snapshot.type === 'snapshot' && snapshot.entities, structuredClone(timeline.entities));
  feed.dispose();
});

test('a long session sends a window, not the session: the start, a remembered row, or the end', () => {
  const { posted, feed, timeline } = setup();
  for (let i = 0; i < 5000; i++) timeline.apply(agent(`row ${i}`, `m${i}`));
  feed.setReady();
  const first = posted[0];
  assert.ok(first.type === 'snapshot');
  assert.equal(first.count, 5000);
  assert.equal(first.start, 0);
  assert.equal(first.entities.length, WINDOW_ROWS);
  feed.setReady({ key: timeline.entities[3000].key });
  const around = posted[1];
  assert.ok(around.type === 'snapshot');
  assert.ok(around.start <= 3000 && around.start + around.entities.length > 3000, 'the remembered row is among the rows sent');
  feed.setReady({ end: true });
  const end = posted[2];
  assert.ok(end.type === 'snapshot');
  assert.equal(end.start + end.entities.length, 5000, 'the last row is sent');
  feed.dispose();
});

test('updates carry the count and only the changes to the rows the webview holds; a tail follows new rows', async () => {
  const { posted, feed, timeline, stopLoading } = setup();
  stopLoading();
  for (let i = 0; i < 1000; i++) timeline.apply(agent(`row ${i}`, `m${i}`));
  feed.setReady();
  feed.range(100, 200, false);
  const rows = posted[1];
  assert.ok(rows.type === 'rows');
  assert.equal(rows.start, 100);
  assert.equal(rows.entities[0].key, timeline.entities[100].key);
  // A change to a held row goes; one outside does not; a new row beyond the window only counts.
  timeline.apply(agent(' more', 'm150'));
  timeline.apply(agent(' more', 'm900'));
  timeline.apply(agent('new', 'm1000'));
  await nextWindow();
  const update = posted[2];
  assert.ok(update.type === 'update');
  assert.equal(update.count, 1001);
  assert.deepEqual(update.patches, [{ op: 'append', key: timeline.entities[150].key, text: ' more' }]);
  // Following the end: new rows come whole, with their index.
  feed.range(0, 50, true);
  const tail = posted[3];
  assert.ok(tail.type === 'rows');
  assert.equal(tail.start + tail.entities.length, 1001);
  timeline.apply(agent('newest', 'm1001'));
  await nextWindow();
  const next = posted[4];
  assert.ok(next.type === 'update');
  assert.equal(next.count, 1002);
  assert.deepEqual(next.patches.map((p) => p.op === 'upsert' && p.index), [1001]);
  feed.dispose();
});

test('a burst of updates after ready is posted as one update message, with the header while loading', async () => {
  const { posted, feed, timeline } = setup();
  feed.setReady();
  for (let i = 0; i < 5000; i++) timeline.apply(agent('x'));
  await nextWindow();
  assert.equal(posted.length, 2);
  const update = posted[1];
  assert.equal(update.type, 'update');
  assert.equal(update.type === 'update' && update.header?.updateCount, 5000);
  feed.dispose();
});

test('after the replay an idle flush posts nothing, and a header-only change posts the header', async () => {
  const { posted, feed, stopLoading } = setup();
  feed.setReady();
  stopLoading();
  feed.flush();
  assert.equal(posted.length, 1);
  feed.collector.markState();
  feed.flush();
  assert.equal(posted.length, 2);
  assert.deepEqual(posted[1].type === 'update' && posted[1].patches, []);
  assert.equal(posted[1].type === 'update' && posted[1].header?.loading, false);
  feed.dispose();
});

test('changes while the webview is discarded are not posted; the next ready snapshot carries them', async () => {
  const { posted, feed, timeline } = setup();
  feed.setReady();
  feed.setNotReady();
  timeline.apply(agent('hidden'));
  await nextWindow();
  assert.equal(posted.length, 1);
  feed.setReady();
  assert.equal(posted.length, 2);
  assert.equal(posted[1].type === 'snapshot' && posted[1].entities.length, 1);
  feed.dispose();
});
