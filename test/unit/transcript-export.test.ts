// "Export as Markdown" writes the host timeline, compaction summaries included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timelineToMarkdown } from '../../src/transcript/export';
import { Timeline } from '../../src/transcript/timeline';

const text = (t: string) => ({ type: 'text', text: t });
const header = { title: 'Fix\nthe bug', agentName: 'Ref', sessionId: 's1', cwd: '/w', updatedAt: '2026-01-01T00:00:00Z', archived: true };

test('the export holds messages, tool calls, plans and every compaction with its summary or error', () => {
  const t = new Timeline();
  for (const u of [
    { sessionUpdate: 'user_message_chunk', content: text('Please fix it') },
    { sessionUpdate: 'agent_thought_chunk', content: text('thinking') },
    { sessionUpdate: 'agent_message_chunk', content: text('**Done**') },
    { sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Edit a.ts', status: 'completed', locations: [{ path: '/w/a.ts', line: 2 }] },
    { sessionUpdate: 'plan', entries: [{ content: 'step', priority: 'high', status: 'completed' }] },
    { sessionUpdate: 'compaction_update', compactionId: 'k1', status: 'completed', summary: [text('## Retained\nline two')] },
    { sessionUpdate: 'compaction_update', compactionId: 'k2', status: 'failed', error: 'too big' },
    { sessionUpdate: 'compaction_update', compactionId: 'k3', status: '_vendor' },
  ]) t.apply(u);
  const md = timelineToMarkdown(header, t.entities, t.state);
  assert.match(md, /^# Fix the bug\n/);
  assert.match(md, /- Archived/);
  assert.match(md, /## User\n\nPlease fix it/);
  assert.match(md, /> thinking/);
  assert.match(md, /\*\*Done\*\*/);
  assert.match(md, /### Tool: Edit a.ts \(completed\)\n\n- `\/w\/a.ts:2`/);
  assert.match(md, /- \[x\] step/);
  assert.match(md, /### Context compaction \(completed\)\n\n> ## Retained\n> line two/);
  assert.match(md, /### Context compaction \(failed\)\n\nError: too big/);
  assert.match(md, /### Context compaction \(_vendor\)/);
});

test('a code fence in exported JSON is longer than any backtick run inside it', () => {
  const t = new Timeline();
  t.apply({ sessionUpdate: 'mystery', text: '```` fence' });
  const md = timelineToMarkdown(header, t.entities);
  assert.match(md, /`````json\n/);
});
