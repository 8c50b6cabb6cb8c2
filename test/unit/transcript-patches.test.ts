// The host's patch batching: what the webview receives for a burst of updates.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PatchCollector } from '../../src/transcript/patches';
import type { Entity } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { applyPatches } from './transcript-helpers';

const text = (t: string) => ({ type: 'text', text: t });
const agent = (t: string, messageId?: string) => ({ sessionUpdate: 'agent_message_chunk', content: text(t), ...(messageId ? { messageId } : {}) });

function setup() {
  const collector = new PatchCollector();
  const timeline = new Timeline(collector);
  return { collector, timeline };
}

test('a new entity and the chunks after it in the same batch become one upsert', () => {
  const { collector, timeline } = setup();
  for (let i = 0; i < 1000; i++) timeline.apply(agent(`c${i} `));
  const { patches } = collector.drain();
  assert.equal(patches.length, 1);
  assert.equal(patches[0].op, 'upsert');
});

test('chunks to an entity the webview already has become one joined append per entity', () => {
  const { collector, timeline } = setup();
  timeline.apply(agent('a', 'm1'));
  timeline.apply({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'k', content: text('s') });
  collector.drain();
  for (let i = 0; i < 500; i++) {
    timeline.apply(agent('x', 'm1'));
    timeline.apply({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'k', content: text('y') });
  }
  const { patches } = collector.drain();
  assert.deepEqual(patches, [
    { op: 'append', key: timeline.entities[0].key, text: 'x'.repeat(500) },
    { op: 'append', key: timeline.entities[1].key, text: 'y'.repeat(500) },
  ]);
});

test('a status change after appends in one batch sends the whole entity once', () => {
  const { collector, timeline } = setup();
  timeline.apply({ sessionUpdate: 'compaction_update', compactionId: 'k', status: 'in_progress' });
  collector.drain();
  timeline.apply({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'k', content: text('abc') });
  timeline.apply({ sessionUpdate: 'compaction_update', compactionId: 'k', status: 'completed' });
  const { patches } = collector.drain();
  assert.equal(patches.length, 1);
  assert.equal(patches[0].op, 'upsert');
});

test('new entities arrive in timeline order within a batch', () => {
  const { collector, timeline } = setup();
  timeline.apply(agent('a', 'm1'));
  collector.drain();
  timeline.apply({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'T' });
  timeline.apply(agent('more', 'm1'));
  timeline.apply({ sessionUpdate: 'compaction_update', compactionId: 'k', status: 'completed' });
  const { patches } = collector.drain();
  const created = patches.filter((p) => p.op === 'upsert').map((p) => (p.op === 'upsert' ? p.entity.kind : ''));
  assert.deepEqual(created, ['tool_call', 'compaction']);
});

test('an entity created and removed in the same batch is never sent', () => {
  const { collector, timeline } = setup();
  timeline.apply({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'p', entries: [] } });
  timeline.apply({ sessionUpdate: 'plan_removed', planId: 'p' });
  assert.deepEqual(collector.drain().patches, []);
});

test('session state changes mark the header changed without a patch', () => {
  const { collector, timeline } = setup();
  timeline.apply({ sessionUpdate: 'usage_update', used: 1, size: 2 });
  assert.deepEqual(collector.drain(), { patches: [], stateChanged: true });
});

test('onPending fires once per batch, on the first change after a drain', () => {
  const { collector, timeline } = setup();
  let fired = 0;
  collector.onPending = () => fired++;
  timeline.apply(agent('a'));
  timeline.apply(agent('b'));
  timeline.apply({ sessionUpdate: 'usage_update', used: 1, size: 2 });
  assert.equal(fired, 1);
  collector.drain();
  timeline.apply(agent('c'));
  assert.equal(fired, 2);
});

test('patches applied batch by batch rebuild exactly the host timeline', () => {
  const { collector, timeline } = setup();
  const rows = new Map<string, Entity>();
  const stream: unknown[] = [];
  for (let i = 0; i < 300; i++) {
    stream.push(agent(`m${i % 7} `, i % 3 ? `id${Math.floor(i / 10)}` : undefined));
    if (i % 25 === 0) stream.push({ sessionUpdate: 'compaction_update', compactionId: `k${i}`, status: 'in_progress' });
    if (i % 25 === 5) stream.push({ sessionUpdate: 'compaction_summary_chunk', compactionId: `k${i - 5}`, content: text(`s${i}`) });
    if (i % 25 === 9) stream.push({ sessionUpdate: 'compaction_update', compactionId: `k${i - 9}`, status: 'completed' });
    if (i % 40 === 0) stream.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'image', mimeType: 'image/png', data: 'AA' } });
  }
  stream.forEach((u, i) => {
    timeline.apply(u);
    if (i % 13 === 0) applyPatches(rows, collector.drain().patches);
  });
  applyPatches(rows, collector.drain().patches);
  assert.deepEqual([...rows.values()], structuredClone(timeline.entities));
});
