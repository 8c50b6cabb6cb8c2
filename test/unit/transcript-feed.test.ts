// What the panel posts to its webview and when (src/transcript/feed.ts, shared with the
// benchmarks): nothing before `ready`, a snapshot on `ready`, then one batched update per window.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebviewFeed } from '../../src/transcript/feed';
import type { HostToWebview, TranscriptHeader } from '../../src/transcript/protocol';
import { Timeline } from '../../src/transcript/timeline';

const agent = (t: string, messageId = 'm1') => ({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: t } });

function setup() {
  const posted: HostToWebview[] = [];
  let loading = true;
  const header = (): TranscriptHeader => ({
    agentName: 'a', sessionId: 's', cwd: '/w', title: 't', archived: false, loading, updateCount: timeline.updateCount, live: false, notices: [],
  });
  const feed: WebviewFeed = new WebviewFeed({ post: (m) => posted.push(structuredClone(m)), header, entities: () => timeline.entities, loading: () => loading });
  const timeline: Timeline = new Timeline(feed.collector);
  return { posted, feed, timeline, stopLoading: () => (loading = false) };
}

/** Resolves after the feed's batching window has passed. */
const nextWindow = () => new Promise((resolve) => setTimeout(resolve, 50));

test('nothing is posted before the webview is ready, and ready brings a snapshot of everything so far', async () => {
  const { posted, feed, timeline } = setup();
  for (let i = 0; i < 100; i++) timeline.apply(agent(`c${i} `, `m${i % 3}`));
  await nextWindow();
  assert.deepEqual(posted, []);
  feed.setReady();
  assert.equal(posted.length, 1);
  assert.equal((posted[0] as HostToWebview).type, 'snapshot');
  const snapshot = posted[0] as HostToWebview;
  assert.deepEqual(snapshot.type === 'snapshot' && snapshot.entities, structuredClone(timeline.entities));
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
