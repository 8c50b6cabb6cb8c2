// A kind, status or alias is a string from outside (an agent's update, a search the user types):
// looked up in a table of ours, only the table's own names may match. An object's lookup also
// finds what every object has (`constructor`, `toString`, `__proto__`): a function, or the
// prototype, taken for a message role or a merged kind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePiece } from '../../src/acp/lineParse';
import { parseQuery } from '../../src/search/query';
import { Timeline } from '../../src/transcript/timeline';

const OWN_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

test('an update kind named like an object\'s own property is an unknown update, as any other unknown kind', () => {
  const timeline = new Timeline();
  for (const kind of OWN_NAMES) timeline.apply({ sessionUpdate: kind, content: { type: 'text', text: `a kind named ${kind}` } });
  timeline.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a message' } });
  const entities = timeline.entities;
  assert.deepEqual(entities.map((e) => [e.kind, 'sessionUpdate' in e ? e.sessionUpdate : undefined]), [...OWN_NAMES.map((kind) => ['unknown', kind]), ['agent_message', undefined]]);
  // Nothing in them that a structured clone (the line worker's messages, a spill file) cannot copy.
  assert.deepEqual(structuredClone(entities), entities);
});

test('the line worker merges the chunks of the four chunk kinds only: chunks of a kind named constructor stay one update each', () => {
  const line = (kind: string, text: string) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: kind, content: { type: 'text', text } } } });
  for (const kind of OWN_NAMES) {
    const piece = parsePiece(new TextEncoder().encode([line(kind, 'one'), line(kind, 'two')].join('\n')), true);
    assert.deepEqual(piece.entries.map((e) => (e.t === 0 ? e.lines : -1)), [1, 1], kind);
  }
  const merged = parsePiece(new TextEncoder().encode([line('agent_message_chunk', 'one'), line('agent_message_chunk', 'two')].join('\n')), true);
  assert.deepEqual(merged.entries.map((e) => (e.t === 0 ? e.lines : -1)), [2]);
});

test('a search for in:constructor is an unknown filter, told as such, not a filter on a function', () => {
  for (const name of OWN_NAMES) {
    const parsed = parseQuery(`in:${name} words`);
    assert.deepEqual(parsed.unknown, [`in:${name}`]);
    assert.equal(parsed.filters.where, undefined);
  }
  assert.deepEqual(parseQuery('in:thoughts words').filters.where, ['thoughts']);
});
