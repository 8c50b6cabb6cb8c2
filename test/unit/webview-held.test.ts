// The webview's window of held rows (src/webview/held.ts) against the host's feed
// (src/transcript/feed.ts): whatever the feed posts, the rows held are the host's rows at the
// same indices, and the ranges the window asks for are the ones the feed answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebviewFeed } from '../../src/transcript/feed';
import type { HostToWebview, TranscriptHeader } from '../../src/transcript/protocol';
import { Timeline } from '../../src/transcript/timeline';
import { HeldRows, type RangeRequest } from '../../src/webview/held';

const agent = (text: string, messageId: string) => ({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text } });

/** A host (timeline and feed) and a webview's held rows, joined as the panel joins them. */
function setup() {
  const posted: HostToWebview[] = [];
  const header = (): TranscriptHeader => ({ agentName: 'a', sessionId: 's', cwd: '/w', title: 't', archived: false, loading: false, updateCount: 0, live: false, notices: [] });
  const feed: WebviewFeed = new WebviewFeed({ post: (m) => posted.push(structuredClone(m)), header, timeline: () => timeline, loading: () => false });
  const timeline: Timeline = new Timeline(feed.collector);
  const held = new HeldRows();
  /** Applies what the feed posted since the last call, as the webview's frame does. */
  const deliver = () => {
    for (const message of posted.splice(0)) {
      if (message.type === 'snapshot') held.snapshot(message.count, message.start, message.entities, message.tail === true);
      else if (message.type === 'rows') held.rows(message.count, message.start, message.entities);
      else if (message.type === 'update') {
        held.setCount(message.count);
        for (const patch of message.patches) held.apply(patch);
      }
    }
  };
  /** Sends a range request to the feed, as the channel does. */
  const ask = (range: RangeRequest | undefined) => {
    assert.ok(range, 'the window asks for a range');
    feed.range(range.start, range.end, range.tail, { width: 800, height: 600 });
    deliver();
  };
  const sameAsHost = (what: string) => {
    assert.equal(held.count, timeline.entities.length, `${what}: the row count`);
    assert.deepEqual(held.entities, timeline.entities.slice(held.start, held.end), `${what}: rows ${held.start}-${held.end}`);
  };
  return { feed, timeline, held, deliver, ask, sameAsHost };
}

test('the rows held are the host\'s rows at the same indices, after a snapshot and after each update', () => {
  const { feed, timeline, held, deliver, sameAsHost } = setup();
  for (let i = 0; i < 5; i++) timeline.apply(agent(`first ${i} `, `m${i}`));
  feed.setReady(undefined, { width: 800, height: 600 });
  deliver();
  assert.equal(held.start, 0);
  sameAsHost('snapshot');
  // Text streams into held rows, and new rows join them while they are on screen.
  for (let i = 0; i < 40; i++) timeline.apply(agent(`more ${i} `, `m${i % 7}`));
  feed.flush();
  deliver();
  sameAsHost('after the stream');
  assert.ok(held.end > 5, 'new rows joined the held ones');
  feed.dispose();
});

test('a range the window asks for is what the feed answers, and it is asked once', () => {
  const { feed, timeline, held, deliver, ask, sameAsHost } = setup();
  for (let i = 0; i < 400; i++) timeline.apply(agent(`row ${i} `, `m${i}`));
  feed.setReady(undefined, { width: 800, height: 600 });
  deliver();
  assert.equal(held.ask(0, 3, false), undefined, 'rows held are not asked for');
  const range = held.ask(300, 310, false);
  assert.deepEqual(range, { start: 300, end: 310, tail: false });
  assert.equal(held.ask(302, 308, false), undefined, 'a range inside the one asked for waits for its answer');
  ask(range);
  assert.ok(held.start <= 300 && held.end >= 310, `held ${held.start}-${held.end}`);
  sameAsHost('the answer');
  // Changes to rows held go to the window; changes to others do not touch it.
  timeline.apply(agent(' changed', 'm305'));
  timeline.apply(agent(' elsewhere', 'm10'));
  feed.flush();
  deliver();
  sameAsHost('after changes');
  assert.match(JSON.stringify(held.at(305)), /changed/);
  feed.dispose();
});

test('following the end, the window holds the last rows as new ones arrive, as many as the host sent', () => {
  const { feed, timeline, held, deliver, ask, sameAsHost } = setup();
  for (let i = 0; i < 400; i++) timeline.apply(agent(`row ${i} `, `m${i}`));
  feed.setReady(undefined, { width: 800, height: 600 });
  deliver();
  ask(held.ask(390, 400, true));
  assert.equal(held.tail, true);
  assert.equal(held.end, 400);
  const size = held.entities.length;
  sameAsHost('the tail');
  for (let i = 400; i < 450; i++) timeline.apply(agent(`new ${i} `, `m${i}`));
  feed.flush();
  deliver();
  assert.equal(held.end, 450, 'the new rows are held');
  assert.equal(held.entities.length, size, 'the rows that left the tail were dropped');
  sameAsHost('after new rows');
  assert.equal(held.ask(445, 450, true), undefined, 'the tail is held: nothing to ask');
  feed.dispose();
});

test('a snapshot sent from the tail says so: the window follows the end without asking again', () => {
  const { feed, timeline, held, deliver, ask, sameAsHost } = setup();
  for (let i = 0; i < 400; i++) timeline.apply(agent(`row ${i} `, `m${i}`));
  feed.setReady(undefined, { width: 800, height: 600 });
  deliver();
  ask(held.ask(390, 400, true));
  // The host starts the webview over where it was (a reload of the session, a removed row).
  feed.snapshot();
  deliver();
  assert.equal(held.tail, true, 'the snapshot came from the tail');
  assert.equal(held.end, 400);
  sameAsHost('the tail snapshot');
  assert.equal(held.ask(395, 400, true), undefined, 'no range request to get back to the end');
  for (let i = 400; i < 420; i++) timeline.apply(agent(`new ${i} `, `m${i}`));
  feed.flush();
  deliver();
  assert.equal(held.end, 420);
  sameAsHost('after new rows');
  feed.dispose();
});
