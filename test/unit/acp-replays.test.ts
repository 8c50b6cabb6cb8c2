// Whose updates are whose: a load's replay goes to that load alone (an open transcript's live
// listener must not take in a replay another part of the extension asked for, such as Search's
// background indexing), and two loads of one session take turns so that each gets its own replay
// once. The reference agent, as a real process over real pipes, replays slowly enough that the
// loads overlap.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { CancellationTokenSource } from 'vscode-jsonrpc';
import { RequestCancelledError } from '../../src/acp/errors';
import type { SessionUpdate } from '../../src/acp/types';
import { storedSession, writeAll } from '../agent/fixtures';
import { referenceAgent, rejection, startClient, tempDir, waitFor } from './acp-helpers';

const CWD = '/work/project-a';
const PARTS = 10;

async function slowAgent(t: { after(fn: () => void): void }) {
  const dir = join(tempDir(t), 'store');
  const replay = Array.from({ length: PARTS }, (_, i) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `part ${i}` } }));
  await writeAll(dir, [storedSession('s1', { updates: replay })]);
  return startClient(t, referenceAgent(dir, ['--replay-delay', '20']));
}

const texts = (updates: SessionUpdate[]) => updates.map((u) => ((u as { content?: { text?: string } }).content?.text));
const expected = Array.from({ length: PARTS }, (_, i) => `part ${i}`);

test('a load\'s replay goes to the load, and to listeners that ask for replays, never to a live listener of the session', async (t) => {
  const { client } = await slowAgent(t);
  const live: SessionUpdate[] = [];
  const withReplays: SessionUpdate[] = [];
  const replayed: SessionUpdate[] = [];
  client.onSessionUpdate('s1', (u) => live.push(u));
  client.onSessionUpdate('s1', (u) => withReplays.push(u), { replays: true });
  await client.loadSession('s1', CWD, (u) => replayed.push(u));
  assert.deepEqual(texts(replayed), expected);
  assert.deepEqual(texts(withReplays), expected);
  assert.deepEqual(live, [], 'the open transcript took in none of the replay');
});

test('two loads of one session at once take turns: each gets its replay once, in order', async (t) => {
  const { client } = await slowAgent(t);
  const first: SessionUpdate[] = [];
  const second: SessionUpdate[] = [];
  const one = client.loadSession('s1', CWD, (u) => first.push(u));
  await waitFor(() => first.length > 0, 'the first replay has begun');
  await Promise.all([one, client.loadSession('s1', CWD, (u) => second.push(u))]);
  assert.deepEqual(texts(first), expected);
  assert.deepEqual(texts(second), expected);
});

test('a load cancelled while it waits for its turn fails as cancelled, sends nothing, and the load before it completes', async (t) => {
  const { client } = await slowAgent(t);
  const first: SessionUpdate[] = [];
  const waiting: SessionUpdate[] = [];
  const one = client.loadSession('s1', CWD, (u) => first.push(u));
  await waitFor(() => first.length > 0, 'the first replay has begun');
  const source = new CancellationTokenSource();
  const two = client.loadSession('s1', CWD, (u) => waiting.push(u), source.token);
  source.cancel();
  assert.ok((await rejection(two)) instanceof RequestCancelledError);
  await one;
  assert.deepEqual(texts(first), expected);
  assert.deepEqual(waiting, []);
  // The turn was passed on: a later load runs.
  const third: SessionUpdate[] = [];
  await client.loadSession('s1', CWD, (u) => third.push(u));
  assert.deepEqual(texts(third), expected);
});
