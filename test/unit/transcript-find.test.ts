// Find in the host's timeline (src/transcript/find.ts): every row is searched, whatever the
// webview holds; the answer names the match to show (row and occurrence) and the count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TranscriptFind, countMatches, keptWords, occurrences, searchText } from '../../src/transcript/find';
import type { HostToWebview } from '../../src/transcript/protocol';
import { Timeline } from '../../src/transcript/timeline';

type Found = Extract<HostToWebview, { type: 'found' }>;

function session(rows: number) {
  const timeline = new Timeline();
  for (let i = 0; i < rows; i++) {
    timeline.apply({ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: i % 1000 === 7 ? `Row ${i}: the Needle, and a needle again.` : `row ${i} hay` } });
  }
  timeline.apply({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed' });
  timeline.apply({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: { type: 'text', text: 'summary with a NEEDLE' } });
  return timeline;
}

/** Runs a find to its end and returns the answers. */
async function run(finder: TranscriptFind, answers: Found[], seq: number, query: string, step: 0 | 1 | -1, from: number): Promise<Found[]> {
  const before = answers.length;
  finder.find(seq, query, step, from);
  const deadline = Date.now() + 30_000;
  while (!answers.slice(before).some((a) => a.done)) {
    assert.ok(Date.now() < deadline, `the search for ${query} ended within 30 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return answers.slice(before);
}

test('matches are counted over the whole timeline, ignoring case, and the first one from the given row is shown', async () => {
  const timeline = session(20_000);
  const answers: Found[] = [];
  const finder = new TranscriptFind(() => timeline.entities, (m) => answers.push(m as Found));
  const all = await run(finder, answers, 1, 'needle', 0, 5000);
  const last = all[all.length - 1];
  assert.equal(last.total, 20 * 2 + 1);
  // Row 5007 holds the first match at or after row 5000: matches 11 and 12 (two per row before it).
  assert.equal(last.index, 5007);
  assert.equal(last.current, 11);
  assert.equal(last.occurrence, 0);
  assert.equal(last.key, timeline.entities[5007].key);
  // Next: the second match of the same row; previous from there goes back.
  const next = await run(finder, answers, 2, 'needle', 1, 0);
  assert.deepEqual([next[0].index, next[0].occurrence, next[0].current], [5007, 1, 12]);
  const back = await run(finder, answers, 3, 'needle', -1, 0);
  assert.deepEqual([back[0].index, back[0].occurrence, back[0].current], [5007, 0, 11]);
  finder.cancel();
});

test('the search yields: other work runs between its slices', async () => {
  const timeline = session(200_000);
  const answers: Found[] = [];
  const finder = new TranscriptFind(() => timeline.entities, (m) => answers.push(m as Found));
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const all = await run(finder, answers, 1, 'needle', 0, 0);
  clearInterval(timer);
  assert.ok(ticks > 1, `timers ran during the search (${ticks})`);
  assert.equal(all[all.length - 1].total, 200 * 2 + 1);
});

test('a compaction summary and a query with no match', async () => {
  const timeline = session(10);
  const compaction = timeline.entities[timeline.entities.length - 1];
  assert.match(searchText(compaction), /summary with a NEEDLE/);
  assert.equal(countMatches('aaaa', 'aa'), 2);
  const answers: Found[] = [];
  const finder = new TranscriptFind(() => timeline.entities, (m) => answers.push(m as Found));
  const none = await run(finder, answers, 1, 'absent words', 0, 0);
  assert.deepEqual([none[0].total, none[0].current, none[0].index], [0, 0, -1]);
});

test('with words (a match of Search Sessions), each of them is found, leftmost first, longest where two start together', async () => {
  assert.deepEqual([...occurrences('the orbital relay, a relay', ['relay', 'orbital'])], [[4, 11], [12, 17], [21, 26]]);
  assert.deepEqual([...occurrences('relays', ['relay', 'relays'])], [[0, 6]], 'the longer of two at one place, never both');
  assert.deepEqual([...occurrences('abc', [''])], [], 'an empty word finds nothing');
  assert.equal(countMatches('Orbital RELAY relay', ['orbital', 'relay']), 3);
  assert.deepEqual(keptWords(['Orbital', 'orbital', 7, ' ', 'RELAY']), ['orbital', 'relay'], 'strings only, lower case, each once');
  assert.equal(keptWords('orbital'), undefined);
  const timeline = new Timeline();
  for (const [i, t] of ['Plan the orbital relay.', 'nothing here', 'the relay again', 'orbital at last'].entries()) {
    timeline.apply({ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: t } });
  }
  const answers: Found[] = [];
  const finder = new TranscriptFind(() => timeline.entities, (m) => answers.push(m as Found));
  finder.find(1, 'orbital relay', 0, 0, ['orbital', 'relay']);
  const deadline = Date.now() + 30_000;
  while (!answers.some((a) => a.done)) {
    assert.ok(Date.now() < deadline, 'the search ended within 30 s');
    await new Promise((r) => setTimeout(r, 5));
  }
  const last = answers[answers.length - 1];
  assert.deepEqual([last.total, last.current, last.index, last.occurrence], [4, 1, 0, 0]);
  const steps: number[][] = [];
  for (let i = 0; i < 3; i++) {
    finder.find(2 + i, 'orbital relay', 1, 0, ['orbital', 'relay']);
    const a = answers[answers.length - 1];
    steps.push([a.current, a.index, a.occurrence]);
  }
  assert.deepEqual(steps, [[2, 0, 1], [3, 2, 0], [4, 3, 0]], 'Enter steps through both words, in order');
  // The same query as one string is another search: the words together occur once.
  finder.find(9, 'orbital relay', 1, 0);
  while (!(answers[answers.length - 1].seq === 9 && answers[answers.length - 1].done)) await new Promise((r) => setTimeout(r, 5));
  assert.equal(answers[answers.length - 1].total, 1);
});
