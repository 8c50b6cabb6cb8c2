// What the panel posts to its webview and when (src/transcript/feed.ts, shared with the
// benchmarks): nothing before `ready`, a snapshot of the row count and the rows where the
// webview starts on `ready`, then one batched update per window carrying only the changes to
// the rows the webview holds.
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { estimatedRowPx, FLUSH_MS, LOADING_FLUSH_MS, MARGIN_MAX_CHARS, WebviewFeed } from '../../src/transcript/feed';
import type { Entity } from '../../src/transcript/model';
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
const nextWindow = () => new Promise((resolve) => setTimeout(resolve, LOADING_FLUSH_MS + 50));

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
  assert.ok(first.entities.length > 10 && first.entities.length < 120, `a screen of short rows and a margin, not a fixed 120: ${first.entities.length}`);
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
  assert.ok(rows.start <= 100 && rows.start + rows.entities.length >= 200, 'the rows asked for, and a margin');
  assert.equal(rows.entities[100 - rows.start].key, timeline.entities[100].key);
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

const textOf = (entities: Entity[]) => entities.reduce((n, e) => n + JSON.stringify(e).length, 0);
const px = (entities: Entity[], width: number) => entities.reduce((n, e) => n + estimatedRowPx(e, width), 0);

test('a snapshot carries what the viewport shows and a margin bounded in characters, from the start, a remembered row or the end', () => {
  const { posted, feed, timeline } = setup();
  // 400 messages of 20,000 characters (a screen holds one or two), one of 200 KB in the middle.
  for (let i = 0; i < 400; i++) timeline.apply(agent((i === 200 ? 'h' : String(i % 10)).repeat(i === 200 ? 200_000 : 20_000), `m${i}`));
  const viewport = { width: 800, height: 600 };
  feed.setReady(undefined, viewport);
  const top = posted[0];
  assert.ok(top.type === 'snapshot');
  assert.equal(top.start, 0);
  assert.ok(px(top.entities, 800) >= 600, 'the rows sent fill the screen');
  assert.ok(textOf(top.entities) < 20_000 + 2 * MARGIN_MAX_CHARS + 20_000, `a screen and a margin, not 120 rows: ${textOf(top.entities)} characters in ${top.entities.length} rows`);
  // The remembered row is the 200 KB one: it is sent (it is on screen), but no margin of more of them.
  feed.setReady({ key: timeline.entities[200].key }, viewport);
  const around = posted[1];
  assert.ok(around.type === 'snapshot');
  assert.ok(around.start <= 200 && around.start + around.entities.length > 200, 'the remembered row is among the rows sent');
  assert.ok(textOf(around.entities) < 200_000 + 2 * MARGIN_MAX_CHARS + 40_000, `${textOf(around.entities)} characters`);
  feed.setReady({ end: true }, viewport);
  const end = posted[2];
  assert.ok(end.type === 'snapshot');
  assert.equal(end.start + end.entities.length, 400, 'the last row is sent');
  assert.ok(px(end.entities, 800) >= 600 && end.entities.length < 10, `${end.entities.length} rows`);
  assert.equal(end.tail, true, 'a snapshot from the end says so');
  assert.equal(top.tail, undefined);
  assert.equal(around.tail, undefined);
  feed.dispose();
});

test('a snapshot from the tail says so only when it carries rows for new ones to follow', () => {
  const { posted, feed, timeline } = setup();
  feed.setReady({ end: true });
  assert.ok(posted[0].type === 'snapshot' && posted[0].tail === undefined, 'an empty session: nothing to follow yet');
  timeline.apply(agent('one', 'm1'));
  feed.snapshot();
  const last = posted[posted.length - 1];
  assert.ok(last.type === 'snapshot' && last.tail === true && last.entities.length === 1);
  feed.dispose();
});

test('a taller viewport gets more rows; a range brings the rows asked for and a margin', () => {
  const { posted, feed, timeline, stopLoading } = setup();
  stopLoading();
  for (let i = 0; i < 2000; i++) timeline.apply(agent(`row ${i} `.repeat(40), `m${i}`));
  feed.setReady(undefined, { width: 800, height: 300 });
  feed.setReady(undefined, { width: 800, height: 3000 });
  const [small, tall] = posted;
  assert.ok(small.type === 'snapshot' && tall.type === 'snapshot');
  assert.ok(tall.entities.length > 3 * small.entities.length, `${small.entities.length} rows for 300 px, ${tall.entities.length} for 3000 px`);
  feed.range(1000, 1004, false, { width: 800, height: 300 });
  const rows = posted[2];
  assert.ok(rows.type === 'rows');
  assert.ok(rows.start < 1000 && rows.start + rows.entities.length > 1004, 'the rows asked for and a margin on each side');
  assert.ok(rows.entities.length < 40, `${rows.entities.length} rows`);
  // A range wider than a screen is sent whole (the webview builds what it asks for).
  feed.range(500, 700, false, { width: 800, height: 300 });
  const wide = posted[3];
  assert.ok(wide.type === 'rows' && wide.start <= 500 && wide.start + wide.entities.length >= 700);
  feed.dispose();
});

test('while the history is replayed, changes go at most once per LOADING_FLUSH_MS once the screen is filled; after it, once per frame', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { posted, feed, timeline, stopLoading } = setup();
    feed.setReady();
    // The first rows of an empty transcript fill the screen: they go within a frame.
    timeline.apply(agent('first', 'm0'));
    mock.timers.tick(FLUSH_MS);
    assert.equal(posted.length, 2, 'the first row goes at once');
    for (let i = 1; i < 200; i++) timeline.apply(agent(`row ${i} `.repeat(20), `m${i}`));
    mock.timers.tick(FLUSH_MS);
    assert.equal(posted.length, 3);
    // The screen is filled now: the replay's next rows wait for the slower window.
    timeline.apply(agent('a', 'm200'));
    mock.timers.tick(FLUSH_MS);
    assert.equal(posted.length, 3, 'nothing posted a frame after a change while loading');
    timeline.apply(agent('b', 'm201'));
    mock.timers.tick(LOADING_FLUSH_MS - FLUSH_MS);
    assert.equal(posted.length, 4, 'one update for both changes');
    assert.ok(posted[3].type === 'update' && posted[3].count === 202);
    stopLoading();
    timeline.apply(agent('c', 'm202'));
    mock.timers.tick(FLUSH_MS);
    assert.equal(posted.length, 5, 'after the replay, a change goes within a frame');
    feed.dispose();
  } finally {
    mock.timers.reset();
  }
});
