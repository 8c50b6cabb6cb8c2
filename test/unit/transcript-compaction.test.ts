// Compaction entities, following the compaction RFD to the letter: one rule a test, then
// each case of the RFD's "Preview validation" list that the reducer owns, named after it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { partsText, type CompactionEntity, type MessageEntity } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';

const text = (t: string) => ({ type: 'text', text: t });
const update = (compactionId: string, status: string, patch: Record<string, unknown> = {}) => ({ sessionUpdate: 'compaction_update', compactionId, status, ...patch });
const chunk = (compactionId: string, t: string, meta?: unknown) => ({ sessionUpdate: 'compaction_summary_chunk', compactionId, content: text(t), ...(meta !== undefined ? { _meta: meta } : {}) });
const agent = (t: string) => ({ sessionUpdate: 'agent_message_chunk', content: text(t) });

function run(...updates: unknown[]): Timeline {
  const timeline = new Timeline();
  for (const u of updates) timeline.apply(u);
  return timeline;
}
function compaction(t: Timeline, id = 'cmp_001'): CompactionEntity {
  const c = t.compaction(id);
  assert.ok(c, `compaction ${id} exists`);
  return c;
}
const summary = (t: Timeline, id = 'cmp_001') => partsText(compaction(t, id).summary);

// --- rules ---------------------------------------------------------------------------------

test('the first compaction_update for an id creates one entity in_progress, then applies the update', () => {
  const t = run(update('cmp_001', 'completed'));
  assert.equal(t.entities.length, 1);
  const c = compaction(t);
  assert.equal(c.status, 'completed');
  assert.deepEqual(c.summary, []);
  assert.equal(c.error, undefined);
  assert.equal(c.meta, undefined);
});

test('a summary chunk for an unseen id creates the entity in_progress holding that chunk', () => {
  const t = run(chunk('cmp_001', '## Retained'));
  assert.equal(compaction(t).status, 'in_progress');
  assert.equal(summary(t), '## Retained');
});

test('later updates and chunks for an id patch the same entity in place', () => {
  const t = run(update('cmp_001', 'in_progress'), chunk('cmp_001', 'a'), update('cmp_001', 'completed'));
  assert.equal(t.entities.length, 1);
  assert.equal(compaction(t).status, 'completed');
  assert.equal(compaction(t).key, t.entities[0].key);
});

test('the first notification fixes the position: after earlier content, before content first seen later', () => {
  const t = run(agent('before'), update('cmp_001', 'in_progress'), agent('after'), chunk('cmp_001', 'x'), update('cmp_001', 'completed'), agent(' more'));
  assert.deepEqual(t.entities.map((e) => e.kind), ['agent_message', 'compaction', 'agent_message']);
  assert.equal(partsText((t.entities[2] as MessageEntity).parts), 'after more');
});

test('a chunk first seen after other content places the compaction there', () => {
  const t = run(agent('before'), chunk('cmp_001', 's'), agent('after'));
  assert.deepEqual(t.entities.map((e) => e.kind), ['agent_message', 'compaction', 'agent_message']);
});

test('summary chunks append in receive order', () => {
  const t = run(chunk('cmp_001', 'one '), chunk('cmp_001', 'two '), chunk('cmp_001', 'three'));
  assert.equal(summary(t), 'one two three');
});

test('an omitted summary leaves the accumulated summary unchanged', () => {
  const t = run(chunk('cmp_001', 'kept'), update('cmp_001', 'completed'));
  assert.equal(summary(t), 'kept');
});

test('summary null clears the accumulated summary', () => {
  const t = run(chunk('cmp_001', 'gone'), update('cmp_001', 'in_progress', { summary: null }));
  assert.deepEqual(compaction(t).summary, []);
});

test('summary [] clears the accumulated summary', () => {
  const t = run(chunk('cmp_001', 'gone'), update('cmp_001', 'in_progress', { summary: [] }));
  assert.deepEqual(compaction(t).summary, []);
});

test('a concrete summary replaces everything accumulated from earlier updates and chunks', () => {
  const t = run(update('cmp_001', 'in_progress', { summary: [text('from update ')] }), chunk('cmp_001', 'from chunk'), update('cmp_001', 'completed', { summary: [text('Final.')] }));
  assert.equal(summary(t), 'Final.');
});

test('chunks after a replacement append to the replacement', () => {
  const t = run(chunk('cmp_001', 'old'), update('cmp_001', 'in_progress', { summary: [text('new')] }), chunk('cmp_001', ' + more'));
  assert.equal(summary(t), 'new + more');
});

test('a summary of several blocks keeps non-text blocks as their own parts', () => {
  const t = run(update('cmp_001', 'completed', { summary: [text('a'), text('b'), { type: 'resource_link', uri: 'https://x.test/', name: 'x' }] }));
  assert.deepEqual(compaction(t).summary.map((p) => p.type), ['text', 'resource_link']);
  assert.equal(summary(t), 'ab[x (https://x.test/)]');
});

test('error: omitted leaves it, null clears it, a value replaces it', () => {
  const t = run(update('cmp_001', 'failed', { error: 'first' }), update('cmp_001', 'failed'));
  assert.equal(compaction(t).error, 'first');
  t.apply(update('cmp_001', 'failed', { error: 'second' }));
  assert.equal(compaction(t).error, 'second');
  t.apply(update('cmp_001', 'failed', { error: null }));
  assert.equal(compaction(t).error, undefined);
});

test('_meta: omitted leaves it, null clears it, a value replaces it', () => {
  const t = run(update('cmp_001', 'in_progress', { _meta: { a: 1 } }), update('cmp_001', 'in_progress'));
  assert.deepEqual(compaction(t).meta, { a: 1 });
  t.apply(update('cmp_001', 'completed', { _meta: { b: 2 } }));
  assert.deepEqual(compaction(t).meta, { b: 2 });
  t.apply(update('cmp_001', 'completed', { _meta: null }));
  assert.equal(compaction(t).meta, undefined);
});

test('a chunk _meta is scoped to the chunk and does not touch the entity _meta', () => {
  const t = run(update('cmp_001', 'in_progress', { _meta: { entity: true } }), chunk('cmp_001', 'x', { chunk: true }), chunk('cmp_001', 'y', null));
  assert.deepEqual(compaction(t).meta, { entity: true });
  assert.equal(summary(t), 'xy');
});

test('patch fields are independent of status: a terminal update may still clear or replace the summary', () => {
  const t = run(update('cmp_001', 'completed', { summary: [text('s')] }), update('cmp_001', 'completed', { summary: null }));
  assert.deepEqual(compaction(t).summary, []);
});

test('a status beginning with _ is kept verbatim', () => {
  const t = run(update('cmp_001', '_vendor_paused'));
  assert.equal(compaction(t).status, '_vendor_paused');
});

test('an unknown future status is kept verbatim', () => {
  const t = run(update('cmp_001', 'in_progress'), update('cmp_001', 'deferred'));
  assert.equal(compaction(t).status, 'deferred');
});

test('ids are opaque: different ids are different entities, in first-seen order', () => {
  const t = run(update('b', 'in_progress'), update('a', 'in_progress'), chunk('b', 'B'), chunk('a', 'A'));
  assert.deepEqual(t.entities.map((e) => (e as CompactionEntity).compactionId), ['b', 'a']);
  assert.equal(summary(t, 'a'), 'A');
  assert.equal(summary(t, 'b'), 'B');
});

test('a compaction_update without compactionId or status is shown as malformed, not applied', () => {
  const t = run({ sessionUpdate: 'compaction_update', status: 'completed' }, { sessionUpdate: 'compaction_update', compactionId: 'x', status: null }, { sessionUpdate: 'compaction_summary_chunk', compactionId: 'y' });
  assert.deepEqual(t.entities.map((e) => e.kind), ['unknown', 'unknown', 'unknown']);
  assert.equal(t.compaction('x'), undefined);
  assert.equal(t.compaction('y'), undefined);
});

// --- Preview validation (compaction RFD), the cases the timeline owns -----------------------

test('Preview validation: lifecycle transition to completed', () => {
  const t = run(update('cmp_001', 'in_progress'), update('cmp_001', 'completed', { summary: [text('Retained.')] }));
  assert.equal(compaction(t).status, 'completed');
  assert.equal(summary(t), 'Retained.');
});

test('Preview validation: lifecycle transition to failed', () => {
  const t = run(update('cmp_001', 'in_progress'), update('cmp_001', 'failed', { error: 'provider error' }));
  assert.equal(compaction(t).status, 'failed');
  assert.equal(compaction(t).error, 'provider error');
});

test('Preview validation: lifecycle transition to cancelled', () => {
  const t = run(update('cmp_001', 'in_progress'), update('cmp_001', 'cancelled', { error: 'user cancelled' }));
  assert.equal(compaction(t).status, 'cancelled');
  assert.equal(compaction(t).error, 'user cancelled');
});

test('Preview validation: runtimes that only expose completed compactions', () => {
  const t = run(agent('before'), update('cmp_001', 'completed', { summary: [text('All at once.')] }), agent('after'));
  assert.deepEqual(t.entities.map((e) => e.kind), ['agent_message', 'compaction', 'agent_message']);
  assert.equal(compaction(t).status, 'completed');
  assert.equal(summary(t), 'All at once.');
});

test('Preview validation: summary chunk ordering and first-seen ID initialization', () => {
  const t = run(chunk('cmp_001', '1'), chunk('cmp_001', '2'), update('cmp_001', 'in_progress'), chunk('cmp_001', '3'));
  assert.equal(t.entities.length, 1);
  assert.equal(compaction(t).status, 'in_progress');
  assert.equal(summary(t), '123');
});

test('Preview validation: authoritative replacement and clearing', () => {
  const t = run(chunk('cmp_001', 'draft'), update('cmp_001', 'in_progress', { summary: [text('auth')] }));
  assert.equal(summary(t), 'auth');
  t.apply(update('cmp_001', 'in_progress', { summary: [] }));
  assert.equal(summary(t), '');
  t.apply(chunk('cmp_001', 'again'));
  t.apply(update('cmp_001', 'completed', { summary: null }));
  assert.equal(summary(t), '');
});

test('Preview validation: completion with an omitted summary', () => {
  const t = run(update('cmp_001', 'in_progress'), chunk('cmp_001', 'streamed '), chunk('cmp_001', 'summary'), update('cmp_001', 'completed'));
  assert.equal(compaction(t).status, 'completed');
  assert.equal(summary(t), 'streamed summary');
});

test('Preview validation: chunks after terminal updates', () => {
  const t = run(update('cmp_001', 'completed', { summary: [text('done')] }), chunk('cmp_001', ' + late'));
  assert.equal(compaction(t).status, 'completed');
  assert.equal(summary(t), 'done + late');
});

test('Preview validation: failure after partial output', () => {
  const t = run(update('cmp_001', 'in_progress'), chunk('cmp_001', 'partial'), update('cmp_001', 'failed', { error: 'context too large' }));
  assert.equal(compaction(t).status, 'failed');
  assert.equal(compaction(t).error, 'context too large');
  assert.equal(summary(t), 'partial');
});

test('Preview validation: cancellation after partial output', () => {
  const t = run(update('cmp_001', 'in_progress'), chunk('cmp_001', 'partial'), update('cmp_001', 'cancelled'));
  assert.equal(compaction(t).status, 'cancelled');
  assert.equal(summary(t), 'partial');
});

test('Preview validation: history replay without duplicating accumulated summary content after reconnecting', () => {
  // Live: the client holds a streamed summary. After reconnecting the agent replays the same
  // compaction with an authoritative summary: the held entity ends with one copy, in place.
  const live = run(agent('hi'), update('cmp_001', 'in_progress'), chunk('cmp_001', 'Retained '), chunk('cmp_001', 'context.'));
  const replay = [update('cmp_001', 'in_progress'), update('cmp_001', 'completed', { summary: [text('Retained context.')] })];
  for (const u of replay) live.apply(u);
  assert.equal(summary(live), 'Retained context.');
  assert.equal(live.entities.filter((e) => e.kind === 'compaction').length, 1);
  // A rebuilt transcript (what the panel does on reload) holds the same single copy.
  const rebuilt = run(agent('hi'), ...replay);
  assert.equal(summary(rebuilt), 'Retained context.');
});

test('Preview validation: v1 message chunks without IDs on either side of a compaction boundary', () => {
  const t = run(agent('before '), agent('boundary'), update('cmp_001', 'completed', { summary: [text('s')] }), agent('after '), agent('boundary'));
  assert.deepEqual(t.entities.map((e) => e.kind), ['agent_message', 'compaction', 'agent_message']);
  assert.equal(partsText((t.entities[0] as MessageEntity).parts), 'before boundary');
  assert.equal(partsText((t.entities[2] as MessageEntity).parts), 'after boundary');
});

test('Preview validation: unknown statuses', () => {
  const t = run(update('cmp_001', 'in_progress'), chunk('cmp_001', 'x'), update('cmp_001', '_acme_deferred'), update('cmp_002', 'paused_for_review'));
  assert.equal(compaction(t).status, '_acme_deferred');
  assert.equal(summary(t), 'x');
  assert.equal(compaction(t, 'cmp_002').status, 'paused_for_review');
});

test('Preview validation: safe omission of summaries that cannot be exposed to the user', () => {
  const t = run(update('cmp_001', 'in_progress'), update('cmp_001', 'completed'));
  assert.equal(compaction(t).status, 'completed');
  assert.deepEqual(compaction(t).summary, []);
  assert.equal(compaction(t).error, undefined);
});
