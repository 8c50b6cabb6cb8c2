// Fork from Here (issue 34, item 5): the fork point a transcript row names (src/transcript/
// forkPoint.ts), `session/fork` with it (src/acp/client.ts, the point as claude-agent-acp and
// codex-acp read it), the reference agent's fork, and the sessions model, which lists the new
// session at once, forked from its origin. The reference agent runs as a real process.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { airForkMeta } from '../../src/acp/jetbrainsAir';
import type { SessionUpdate } from '../../src/acp/types';
import { forkPointAt, isForkable } from '../../src/transcript/forkPoint';
import { Timeline } from '../../src/transcript/timeline';
import { readSession } from '../agent/store';
import { storedSession, writeAll } from '../agent/fixtures';
import { capturedMessages, referenceAgent, rejection, startClient, teed, tempDir } from './acp-helpers';
import { cleanUpAfterEach, record, setupModel, store, until } from './sessionsFixture';

cleanUpAfterEach();

const CWD = '/work/project-a';
const chunk = (kind: string, messageId: string | undefined, text: string) => ({ sessionUpdate: kind, ...(messageId ? { messageId } : {}), content: { type: 'text', text } }) as unknown as SessionUpdate;
const sha = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

/** Two turns whose agent answers read the same ("Done."), a thought and a message without an id. */
const CONVERSATION: SessionUpdate[] = [
  chunk('user_message_chunk', 'u1', 'First: bump the version'),
  chunk('agent_thought_chunk', 't1', 'thinking'),
  chunk('agent_message_chunk', 'a1', 'Do'),
  chunk('agent_message_chunk', 'a1', 'ne.'),
  chunk('user_message_chunk', 'u2', 'Second: write the changelog'),
  chunk('agent_message_chunk', 'a2', 'Done.'),
  chunk('user_message_chunk', undefined, 'Third, without an id'),
  chunk('agent_message_chunk', 'a3', 'All finished.'),
];

/** Each message's text in order: the chunks of one message joined, as the line worker merges them (both paths read the same). */
const texts = (updates: readonly SessionUpdate[]) => {
  const out: (string | undefined)[] = [];
  let last: string | undefined;
  for (const u of updates) {
    const { content, messageId } = u as { content?: { text?: string }; messageId?: string };
    const key = messageId === undefined ? undefined : `${u.sessionUpdate}\u0000${messageId}`;
    if (key !== undefined && key === last) out[out.length - 1] = (out[out.length - 1] ?? '') + (content?.text ?? '');
    else out.push(content?.text);
    last = key;
  }
  return out;
};

test('the fork point of a row: a prompt by its id; an agent message by its id, its text\'s fingerprint and which message with that text it is; nothing else', () => {
  const timeline = new Timeline();
  for (const u of CONVERSATION) timeline.apply(u);
  const rows = timeline.entities;
  const at = (kind: string, id?: string) => rows.findIndex((e) => e.kind === kind && (e as { messageId?: string }).messageId === id);
  assert.deepEqual(forkPointAt(timeline.rows, at('user_message', 'u1')), { messageId: 'u1' });
  assert.deepEqual(forkPointAt(timeline.rows, at('agent_message', 'a1')), { messageId: 'a1', messageFingerprint: sha('Done.'), messageOccurrence: 1 });
  assert.deepEqual(forkPointAt(timeline.rows, at('agent_message', 'a2')), { messageId: 'a2', messageFingerprint: sha('Done.'), messageOccurrence: 2 });
  assert.equal(forkPointAt(timeline.rows, at('thought', 't1')), undefined, 'a thought is no fork point');
  assert.equal(forkPointAt(timeline.rows, at('user_message', undefined)), undefined, 'a prompt without an id cannot be named to the agent');
  assert.equal(forkPointAt(timeline.rows, 99), undefined);
  assert.equal(isForkable({ kind: 'agent_message', messageId: '  ' }), false);
});

test('session/fork sends the point as the JetBrains AIR fork point; the reference agent keeps the conversation up to that message and lists the fork with its origin', async (t) => {
  const dir = tempDir(t);
  const storeDir = join(dir, 'store');
  await writeAll(storeDir, [storedSession('s1', { updates: CONVERSATION as never })]);
  const capture = join(dir, 'sent.ndjson');
  const { client } = await startClient(t, teed(referenceAgent(storeDir), capture));
  assert.equal(client.capabilities.fork, true);
  const replayOf = async (sessionId: string) => {
    const got: SessionUpdate[] = [];
    await client.loadSession(sessionId, CWD, (u) => got.push(u));
    return got;
  };

  const atPrompt = await client.forkSession('s1', CWD, { point: { messageId: 'u2' } });
  assert.deepEqual(texts(await replayOf(atPrompt.sessionId)), texts(CONVERSATION.slice(0, 5)), 'ends at the second prompt');
  const sent = capturedMessages(capture).find((m) => m.method === 'session/fork') as { params: Record<string, unknown> };
  assert.deepEqual(sent.params, { sessionId: 's1', cwd: CWD, mcpServers: [], _meta: { jetbrains: { air: { fork: { version: 1, messageId: 'u2' } } } } });

  const atAnswer = await client.forkSession('s1', CWD, { point: { messageId: 'a1', messageFingerprint: sha('Done.'), messageOccurrence: 1 } });
  assert.deepEqual(texts(await replayOf(atAnswer.sessionId)), texts(CONVERSATION.slice(0, 4)), 'ends after the first answer\'s last chunk');
  // An id the agent no longer knows: the fingerprint and the occurrence find the second "Done.".
  const byText = await client.forkSession('s1', CWD, { point: { messageId: 'gone', messageFingerprint: sha('Done.'), messageOccurrence: 2 } });
  assert.deepEqual(texts(await replayOf(byText.sessionId)), texts(CONVERSATION.slice(0, 6)));
  const whole = await client.forkSession('s1', CWD);
  assert.deepEqual(texts(await replayOf(whole.sessionId)), texts(CONVERSATION), 'without a point, the whole session');

  const listed = (await client.listSessions({ cwd: CWD })).sessions;
  const fork = listed.find((s) => s.sessionId === atPrompt.sessionId);
  assert.equal(fork?.details?.forkedFrom, 's1', 'listed with its origin, as the agents with the AIR index list a fork');
  assert.equal(fork?.title, 'Session s1 (fork)');
  assert.equal((await readSession(storeDir, 's1'))?.updates.length, CONVERSATION.length, 'the origin is untouched');

  const missing = await rejection(client.forkSession('s1', CWD, { point: { messageId: 'nowhere' } }));
  assert.equal((missing as { code?: number }).code, -32602);
  assert.match(String((missing as Error).message), /Fork point message nowhere was not found in session s1/);
  assert.equal(((await rejection(client.forkSession('nope', CWD, { point: { messageId: 'u1' } }))) as { code?: number }).code, -32002);
});

test('the AIR fork point\'s wire form carries only what is known', () => {
  assert.deepEqual(airForkMeta({ messageId: 'm' }), { jetbrains: { air: { fork: { version: 1, messageId: 'm' } } } });
  assert.deepEqual(airForkMeta({ messageId: 'm', messageFingerprint: 'sha256:x', messageOccurrence: 3 }), { jetbrains: { air: { fork: { version: 1, messageId: 'm', messageFingerprint: 'sha256:x', messageOccurrence: 3 } } } });
});

test('an agent that does not advertise fork: nothing is sent, the client says which capability is missing', async (t) => {
  const storeDir = join(tempDir(t), 'store');
  await writeAll(storeDir, [storedSession('s1', { updates: CONVERSATION as never })]);
  const { client } = await startClient(t, referenceAgent(storeDir, ['--no-fork']));
  assert.equal(client.capabilities.fork, false);
  assert.match(String(((await rejection(client.forkSession('s1', CWD, { point: { messageId: 'u1' } }))) as Error).message), /sessionCapabilities\.fork/);
});

test('the sessions model forks a listed session: the new session is in its list at once, forked from its origin; an archived one is not forked', async () => {
  const ALPHA = '/projects/alpha';
  const dir = await store([record('o1', ALPHA, 1, { updates: CONVERSATION as never }), record('o2', ALPHA, 2, { archived: true })]);
  const { model } = setupModel(dir);
  const active = model.list('ref', 'active', ALPHA);
  await active.load();
  const archived = model.list('ref', 'archived', ALPHA);
  await archived.load();
  const outcome = await model.fork('ref', 'o1', { messageId: 'u1' });
  assert.equal(outcome.status, 'done');
  const forked = outcome.forked!;
  assert.equal(forked.details?.forkedFrom, 'o1');
  assert.equal(forked.cwd, ALPHA);
  await until('the fork is in Active', () => active.sessions.some((s) => s.sessionId === forked.sessionId));
  const stored = await readSession(dir, forked.sessionId);
  assert.deepEqual(texts(stored!.updates), ['First: bump the version']);
  const refused = await model.fork('ref', 'o2', { messageId: 'u1' });
  assert.equal(refused.status, 'failed');
  assert.match(String((refused.error as Error).message), /archived/);
  // What the agent refuses comes back as the outcome, with its words.
  const missing = await model.fork('ref', 'o1', { messageId: 'nowhere' });
  assert.equal(missing.status, 'failed');
  assert.match(String((missing.error as Error).message), /not found in session o1/);
});
