// Walking a transcript: the user's prompts found on the timeline, stepping from the row in view,
// and the times the agent or a live update gave them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { promptAt, promptsOf, PromptTimes, stepPrompt, updateTime } from '../../src/transcript/prompts';
import { Timeline } from '../../src/transcript/timeline';

const text = (t: string) => ({ type: 'text', text: t });

function timelineOf(updates: Record<string, unknown>[], times?: PromptTimes, live = false, now = 0): Timeline {
  const t = new Timeline();
  for (const u of updates) {
    t.apply(u);
    times?.note(u as { sessionUpdate?: string }, t.entities, live, now);
  }
  return t;
}

test('prompts are the user messages, in timeline order, as one line of text each', () => {
  const t = timelineOf([
    { sessionUpdate: 'user_message_chunk', messageId: 'u1', content: text('First\nquestion') },
    { sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: text('answer') },
    { sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Read' },
    { sessionUpdate: 'user_message_chunk', messageId: 'u2', content: text('Second') },
    { sessionUpdate: 'user_message_chunk', messageId: 'u2', content: text(' part') },
  ]);
  const prompts = promptsOf(t.entities);
  assert.deepEqual(prompts.map((p) => [p.index, p.text]), [[0, 'First question'], [3, 'Second part']]);
});

test('Next goes to the first prompt below the row in view, Previous to the last one above; nothing past either end', () => {
  const prompts = [{ index: 2 }, { index: 5 }, { index: 9 }];
  assert.equal(stepPrompt(prompts, 0, 1), 2);
  assert.equal(stepPrompt(prompts, 2, 1), 5);
  assert.equal(stepPrompt(prompts, 9, 1), undefined);
  assert.equal(stepPrompt(prompts, 9, -1), 5);
  assert.equal(stepPrompt(prompts, 6, -1), 5);
  assert.equal(stepPrompt(prompts, 2, -1), undefined);
  assert.equal(stepPrompt([], 0, 1), undefined);
});

test('a prompt\'s time is the agent\'s own (_meta.timestamp or createdAt), else its live arrival; a replayed prompt without one has none', () => {
  const times = new PromptTimes();
  const t = timelineOf([
    { sessionUpdate: 'user_message_chunk', messageId: 'u1', content: text('timed'), _meta: { timestamp: '2026-05-01T10:00:00Z' } },
    { sessionUpdate: 'user_message_chunk', messageId: 'u2', content: text('untimed') },
    { sessionUpdate: 'user_message_chunk', messageId: 'u3', content: text('epoch'), _meta: { createdAt: 1_780_000_000_000 } },
  ], times);
  t.apply({ sessionUpdate: 'user_message_chunk', messageId: 'u4', content: text('live') });
  times.note({ sessionUpdate: 'user_message_chunk' }, t.entities, true, 1_790_000_000_000);
  const prompts = promptsOf(t.entities, times.times);
  assert.deepEqual(prompts.map((p) => p.at), [Date.parse('2026-05-01T10:00:00Z'), undefined, 1_780_000_000_000, 1_790_000_000_000]);
});

test('times of the wrong type or implausible size are no time', () => {
  for (const meta of [{ timestamp: 'yesterday' }, { timestamp: 12 }, { createdAt: {} }, { timestamp: 1e20 }, null, 'x']) {
    assert.equal(updateTime({ _meta: meta }), undefined, JSON.stringify(meta));
  }
});

test('Go to Prompt… starts at the prompt at or above the row being read, else the first', () => {
  const prompts = [{ index: 0 }, { index: 13 }, { index: 26 }];
  assert.deepEqual([0, 5, 12, 13, 20, 26, 40].map((row) => promptAt(prompts, row)), [0, 0, 0, 1, 1, 2, 2]);
  assert.equal(promptAt([{ index: 4 }, { index: 9 }], 2), 0, 'above the first prompt: the first');
  assert.equal(promptAt([], 3), 0);
});
