// Two observers of one replay as one (src/acp/replayObservers.ts), as the extension hands the
// client its kept copy's and its changes' observers: each hears every update; the line worker's
// sink, where one keeps lines, is that one's alone; one that fails stops alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bothObservers } from '../../src/acp/replayObservers';
import type { ReplayObserver, SessionUpdate } from '../../src/acp/types';

function observer(name: string, heard: string[], sink?: unknown): ReplayObserver {
  return {
    ...(sink !== undefined ? { sink, sunk: () => void heard.push(`${name} sunk`) } : {}),
    update: (update) => void heard.push(`${name} ${update.sessionUpdate}`),
    end: (ok) => void heard.push(`${name} end ${ok}`),
  };
}

test('both hear every update and the end; the sink is the one that keeps lines, told alone that the worker took it', () => {
  for (const keeperFirst of [true, false]) {
    const heard: string[] = [];
    const kept = observer('kept', heard, { path: '/k' });
    const changes = observer('changes', heard);
    const both = bothObservers(keeperFirst ? kept : changes, keeperFirst ? changes : kept, { error: () => assert.fail('nothing failed') })!;
    assert.deepEqual(both.sink, { path: '/k' });
    both.sunk!(Promise.resolve());
    both.update({ sessionUpdate: 'agent_message_chunk' } as SessionUpdate, undefined);
    both.end(true);
    const [first, second] = keeperFirst ? ['kept', 'changes'] : ['changes', 'kept'];
    assert.deepEqual(heard, ['kept sunk', `${first} agent_message_chunk`, `${second} agent_message_chunk`, `${first} end true`, `${second} end true`]);
  }
});

test('without an observer that keeps lines there is no sink; one that fails ends as failed, the other whole', () => {
  const heard: string[] = [];
  const errors: string[] = [];
  const failing: ReplayObserver = { update: () => { throw new Error('boom'); }, end: (ok) => void heard.push(`failing end ${ok}`) };
  const both = bothObservers(failing, observer('changes', heard), { error: (m) => errors.push(m) })!;
  assert.equal(both.sink, undefined);
  both.update({ sessionUpdate: 'plan' } as SessionUpdate, undefined);
  both.update({ sessionUpdate: 'plan' } as SessionUpdate, undefined);
  both.end(true);
  assert.deepEqual(heard, ['changes plan', 'changes plan', 'failing end false', 'changes end true']);
  assert.equal(errors.length, 1, 'the failure is logged once');
});
