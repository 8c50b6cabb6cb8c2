// Code spans in a tool's title (Auggie 0.36.0 titles its tools "Run `ls src`"): read as code
// spans and nothing else, shown as code in the transcript (test/ui/transcript.test.ts), as text
// without the backticks where nothing is formatted (find, Search Sessions, a diff tab's title),
// and as a Markdown code span in the export, the rest of the title still literal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordsOf } from '../../src/search/records';
import { timelineToMarkdown } from '../../src/transcript/export';
import { searchText } from '../../src/transcript/find';
import { codeSpans, withoutCodeTicks } from '../../src/transcript/inlineCode';
import type { Entity } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';

const code = (text: string) => ({ code: true, text });
const literal = (text: string) => ({ code: false, text });

test('a title is cut into literal text and code spans as CommonMark reads code spans', () => {
  assert.deepEqual(codeSpans('Run `ls src`'), [literal('Run '), code('ls src')]);
  assert.deepEqual(codeSpans('`a` and `b`'), [code('a'), literal(' and '), code('b')]);
  // A longer run holds a shorter one; one space each side is stripped when both are there.
  assert.deepEqual(codeSpans('Run `` echo `x` ``'), [literal('Run '), code('echo `x`')]);
  assert.deepEqual(codeSpans('`  two  `'), [code(' two ')]);
  assert.deepEqual(codeSpans('` `'), [code(' ')], 'all spaces: kept');
  // A run nothing closes is literal, and a later span still is one.
  assert.deepEqual(codeSpans('Unclosed ` tick'), [literal('Unclosed ` tick')]);
  assert.deepEqual(codeSpans('a `` b `c`'), [literal('a `` b '), code('c')]);
  assert.deepEqual(codeSpans('a ``` b ``'), [literal('a ``` b ``')], 'runs of other lengths do not close each other');
  // Only code spans: emphasis, links and HTML stay as typed.
  assert.deepEqual(codeSpans('**bold** [docs](https://example.com) <b>x</b>'), [literal('**bold** [docs](https://example.com) <b>x</b>')]);
  assert.deepEqual(codeSpans('`a\nb`'), [code('a b')]);
  assert.deepEqual(codeSpans(''), []);
  assert.equal(withoutCodeTicks('Run `ls src` in `/w`'), 'Run ls src in /w');
  assert.equal(withoutCodeTicks('2 ` 3'), '2 ` 3');
  // A long title: a run nothing closes before 20,000 spans of another length.
  const long = 'a ` b' + ' ``c``'.repeat(20_000);
  assert.equal(withoutCodeTicks(long), 'a ` b' + ' c'.repeat(20_000));
  assert.equal(codeSpans(long).filter((p) => p.code).length, 20_000);
});

function toolTimeline(title: string): Timeline {
  const timeline = new Timeline();
  timeline.apply({ sessionUpdate: 'tool_call', toolCallId: 't1', title, kind: 'execute', status: 'completed' });
  return timeline;
}

test('find and Search Sessions read a tool title as shown: code spans without their backticks', () => {
  const timeline = toolTimeline('Run `ls src`');
  const tool = timeline.entities.find((e: Entity) => e.kind === 'tool_call')!;
  assert.match(searchText(tool), /^Run ls src\n/);
  assert.doesNotMatch(searchText(tool), /`/);
  assert.deepEqual(recordsOf(timeline.entities).map((r) => [r.where, r.text.split('\n')[0]]), [['tools', 'Run ls src']]);
});

test('the export writes a tool title\'s code spans as code spans, and the rest of it literal', () => {
  const md = (title: string) => timelineToMarkdown({ title: 'T', agentName: 'Auggie', sessionId: 's1', cwd: '/w' }, toolTimeline(title).entities);
  assert.match(md('Run `ls src`'), /### Tool: Run `ls src` \(completed\)/);
  // A span holding backticks gets a longer fence; the literal rest is escaped (no link, no HTML).
  assert.match(md('Run `` echo `x` `` then [docs](https://example.com) <b>'), /### Tool: Run `` echo `x` `` then \\\[docs\\\]\(https\\:\/\/example\\\.com\) \\<b\\> \(completed\)/);
  assert.match(md('Unclosed ` tick'), /### Tool: Unclosed \\` tick \(completed\)/);
});
