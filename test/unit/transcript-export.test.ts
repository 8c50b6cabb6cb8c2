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
  assert.match(md, /### Tool: Edit a\\\.ts \(completed\)\n\n- `\/w\/a.ts:2`/);
  assert.match(md, /- \[x\] step/);
  assert.match(md, /### Context compaction \(completed\)\n\n> ## Retained\n> line two/);
  assert.match(md, /### Context compaction \(failed\)\n\nError: too big/);
  assert.match(md, /### Context compaction \(\\_vendor\)/);
});

test('a code fence in exported JSON is longer than any backtick run inside it', () => {
  const t = new Timeline();
  t.apply({ sessionUpdate: 'mystery', text: '```` fence' });
  const md = timelineToMarkdown(header, t.entities);
  assert.match(md, /`````json\n/);
});

test('hostile strings in the fields that are not Markdown export as text: no link, autolink, image or HTML in a preview', async () => {
  const { hostileStrings } = await import('../hostile/corpus');
  const { default: MarkdownIt } = await import('markdown-it');
  // VS Code's Markdown preview is markdown-it with linkify on; HTML on here is stricter still.
  const preview = new MarkdownIt({ html: true, linkify: true });
  let tried = 0;
  for (const { kind, text: s } of hostileStrings()) {
    const t = new Timeline();
    for (const u of [
      { sessionUpdate: 'tool_call', toolCallId: 'c', title: s, status: 'failed', locations: [{ path: s, line: 2 }], content: [{ type: 'diff', path: s, oldText: 'a', newText: 'b' }] },
      { sessionUpdate: 'plan', entries: [{ content: s, priority: 'high', status: 'pending' }] },
      { sessionUpdate: 'compaction_update', compactionId: 'k', status: 'failed', error: s },
    ]) t.apply(u);
    const md = timelineToMarkdown({ title: s, agentName: s, sessionId: s, cwd: s, updatedAt: s }, t.entities, t.state);
    tried++;
    const tags = new Set([...preview.render(md).matchAll(/<([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1].toLowerCase()));
    const live = [...tags].filter((tag) => !['h1', 'h3', 'ul', 'li', 'p', 'code', 'pre'].includes(tag));
    assert.deepEqual(live, [], `${kind}: ${JSON.stringify(s.slice(0, 80))}`);
  }
  console.log(`hostile strings tried through the exported Markdown: ${tried} (8 fields each); live links or HTML: 0`);
});
