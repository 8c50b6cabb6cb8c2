// The timeline reducer's rules for messages, thoughts, tool calls, plans, session state and
// unknown or malformed updates. Compaction rules are in transcript-compaction.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MessageEntity, PlanEntity, ToolCallEntity, UnknownEntity } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';

const text = (t: string) => ({ type: 'text', text: t });
const agent = (t: string, messageId?: string) => ({ sessionUpdate: 'agent_message_chunk', content: text(t), ...(messageId ? { messageId } : {}) });
const user = (t: string, messageId?: string) => ({ sessionUpdate: 'user_message_chunk', content: text(t), ...(messageId ? { messageId } : {}) });
const thought = (t: string) => ({ sessionUpdate: 'agent_thought_chunk', content: text(t) });

function run(...updates: unknown[]): Timeline {
  const timeline = new Timeline();
  for (const u of updates) timeline.apply(u);
  return timeline;
}

const texts = (t: Timeline) => t.entities.map((e) => `${e.kind}:${'parts' in e ? e.parts.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('') : ''}`);

test('adjacent chunks without messageId join into one message', () => {
  const t = run(agent('Hel'), agent('lo'), agent(' world'));
  assert.deepEqual(texts(t), ['agent_message:Hello world']);
});

test('chunks of another role or a thought in between start a new message', () => {
  const t = run(user('Hi'), agent('A'), thought('hmm'), agent('B'), user('again'));
  assert.deepEqual(texts(t), ['user_message:Hi', 'agent_message:A', 'thought:hmm', 'agent_message:B', 'user_message:again']);
});

test('chunks with the same messageId join the same message even when not adjacent', () => {
  const t = run(agent('one ', 'm1'), { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Read' }, agent('two', 'm1'));
  assert.deepEqual(texts(t), ['agent_message:one two', 'tool_call:']);
});

test('a changed messageId starts a new message even when adjacent', () => {
  const t = run(agent('a', 'm1'), agent('b', 'm2'), agent('c', 'm2'));
  assert.deepEqual(texts(t), ['agent_message:a', 'agent_message:bc']);
  assert.equal((t.entities[1] as MessageEntity).messageId, 'm2');
});

test('user and agent messages with the same messageId stay separate', () => {
  const t = run(user('q', 'x'), agent('a', 'x'));
  assert.deepEqual(texts(t), ['user_message:q', 'agent_message:a']);
});

test('a non-text block becomes its own part and text after it starts a new text part', () => {
  const t = run(agent('see '), { sessionUpdate: 'agent_message_chunk', content: { type: 'image', mimeType: 'image/png', data: 'AAAA' } }, agent('above'));
  const message = t.entities[0] as MessageEntity;
  assert.deepEqual(message.parts.map((p) => p.type), ['text', 'image', 'text']);
});

test('an unknown content block type is kept as an unknown part, not dropped', () => {
  const t = run({ sessionUpdate: 'agent_message_chunk', content: { type: 'hologram', beam: 1 } });
  const part = (t.entities[0] as MessageEntity).parts[0];
  assert.equal(part.type, 'unknown');
  assert.equal(part.type === 'unknown' && part.blockType, 'hologram');
  assert.match(part.type === 'unknown' ? part.json : '', /beam/);
});

test('tool_call creates a tool call and tool_call_update patches its status, title, content and locations', () => {
  const t = run(
    { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Reading', kind: 'read', status: 'pending' },
    { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' },
    {
      sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', title: 'Read file.ts',
      content: [{ type: 'content', content: text('42 lines') }, { type: 'diff', path: '/a.ts', oldText: 'x', newText: 'y' }],
      locations: [{ path: '/a.ts', line: 3 }],
    },
  );
  assert.equal(t.entities.length, 1);
  const call = t.entities[0] as ToolCallEntity;
  assert.equal(call.status, 'completed');
  assert.equal(call.title, 'Read file.ts');
  assert.equal(call.toolKind, 'read');
  assert.deepEqual(call.content.map((c) => c.type), ['content', 'diff']);
  assert.deepEqual(call.locations, [{ path: '/a.ts', line: 3 }]);
});

test('tool_call_update fields that are omitted or null leave the call unchanged', () => {
  const t = run(
    { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Run', status: 'in_progress', content: [{ type: 'content', content: text('out') }] },
    { sessionUpdate: 'tool_call_update', toolCallId: 'c1', title: null, status: null, content: null },
  );
  const call = t.entities[0] as ToolCallEntity;
  assert.equal(call.title, 'Run');
  assert.equal(call.status, 'in_progress');
  assert.equal(call.content.length, 1);
});

test('tool_call_update for a call never announced creates it rather than dropping it', () => {
  const t = run({ sessionUpdate: 'tool_call_update', toolCallId: 'ghost', status: 'failed' });
  const call = t.entities[0] as ToolCallEntity;
  assert.equal(call.kind, 'tool_call');
  assert.equal(call.status, 'failed');
  assert.equal(call.title, 'ghost');
});

test('a tool call stays where it was first seen when updated later', () => {
  const t = run({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'T' }, agent('after'), { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed' });
  assert.deepEqual(t.entities.map((e) => e.kind), ['tool_call', 'agent_message']);
});

test('a plan replaces the current turn plan in place', () => {
  const t = run(
    user('do it'),
    { sessionUpdate: 'plan', entries: [{ content: 'step 1', priority: 'high', status: 'pending' }] },
    agent('working'),
    { sessionUpdate: 'plan', entries: [{ content: 'step 1', priority: 'high', status: 'completed' }, { content: 'step 2', priority: 'low', status: 'pending' }] },
  );
  assert.deepEqual(t.entities.map((e) => e.kind), ['user_message', 'plan', 'agent_message']);
  assert.deepEqual((t.entities[1] as PlanEntity).entries.map((e) => e.status), ['completed', 'pending']);
});

test('a plan after a new user message starts a new plan entity', () => {
  const t = run(
    { sessionUpdate: 'plan', entries: [{ content: 'a', priority: 'high', status: 'completed' }] },
    user('next'),
    { sessionUpdate: 'plan', entries: [{ content: 'b', priority: 'high', status: 'pending' }] },
  );
  assert.deepEqual(t.entities.map((e) => e.kind), ['plan', 'user_message', 'plan']);
});

test('plan_update addresses a plan by planId and plan_removed removes it', () => {
  const t = run(
    { sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'p1', entries: [{ content: 'x', priority: 'low', status: 'pending' }] } },
    agent('hi'),
    { sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'p1', entries: [{ content: 'x', priority: 'low', status: 'completed' }] } },
  );
  assert.deepEqual(t.entities.map((e) => e.kind), ['plan', 'agent_message']);
  assert.equal((t.entities[0] as PlanEntity).entries[0].status, 'completed');
  t.apply({ sessionUpdate: 'plan_removed', planId: 'p1' });
  assert.deepEqual(t.entities.map((e) => e.kind), ['agent_message']);
});

test('usage_update, notice, session_info_update and mode changes are session state, not entities', () => {
  const t = run(
    { sessionUpdate: 'usage_update', used: 53000, size: 200000, cost: { amount: 0.05, currency: 'USD' } },
    { sessionUpdate: 'notice', severity: 'warning', title: 'Rate limited', description: 'slow down' },
    { sessionUpdate: 'session_info_update', title: 'Fix the bug', updatedAt: '2026-01-01T00:00:00Z', archived: true },
    { sessionUpdate: 'current_mode_update', currentModeId: 'plan' },
    { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'web', description: 'x' }] },
  );
  assert.equal(t.entities.length, 0);
  assert.deepEqual(t.state.usage, { used: 53000, size: 200000, cost: { amount: 0.05, currency: 'USD' } });
  assert.deepEqual(t.state.notices, [{ severity: 'warning', title: 'Rate limited', description: 'slow down' }]);
  assert.equal(t.state.title, 'Fix the bug');
  assert.equal(t.state.archived, true);
  assert.equal(t.state.currentModeId, 'plan');
  assert.deepEqual(t.state.availableCommands, ['web']);
});

test('session_info_update with omitted or null fields leaves them unchanged', () => {
  const t = run({ sessionUpdate: 'session_info_update', title: 'T', archived: true }, { sessionUpdate: 'session_info_update', title: null, archived: null });
  assert.equal(t.state.title, 'T');
  assert.equal(t.state.archived, true);
});

test('an unknown update kind is shown as a generic entity with its JSON, not dropped', () => {
  const t = run({ sessionUpdate: 'hologram_update', beam: 'on' });
  const entity = t.entities[0] as UnknownEntity;
  assert.equal(entity.kind, 'unknown');
  assert.equal(entity.sessionUpdate, 'hologram_update');
  assert.equal(entity.problem, undefined);
  assert.match(entity.json, /"beam": "on"/);
});

test('a malformed known update becomes a generic entity that says what is wrong', () => {
  const t = run({ sessionUpdate: 'agent_message_chunk' }, { sessionUpdate: 'tool_call', title: 'no id' }, 'not an object');
  assert.deepEqual(t.entities.map((e) => e.kind), ['unknown', 'unknown', 'unknown']);
  assert.match((t.entities[0] as UnknownEntity).problem!, /content/);
  assert.match((t.entities[1] as UnknownEntity).problem!, /toolCallId/);
  assert.match((t.entities[2] as UnknownEntity).problem!, /sessionUpdate/);
  assert.equal(t.updateCount, 3);
});

test('entity keys are unique and the same for the same stream', () => {
  const stream = [user('q'), agent('a'), { sessionUpdate: 'tool_call', toolCallId: 'c', title: 't' }, { sessionUpdate: 'compaction_update', compactionId: 'k', status: 'completed' }];
  const a = run(...stream).entities.map((e) => e.key);
  const b = run(...stream).entities.map((e) => e.key);
  assert.equal(new Set(a).size, a.length);
  assert.deepEqual(a, b);
});
