// Subagent lineage: `subagent_update` rows in a replay, the parent named in list entries, the
// checks at the acp boundary, and how the tree nests children under their parent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcpClient } from '../../src/acp/client';
import type { SessionInfo } from '../../src/acp/types';
import { checkSessionInfo, checkSessionUpdate, Problems, subagentParentOf } from '../../src/acp/validate';
import { LearnedFacts, nestSubagents } from '../../src/sessions/lineage';
import type { SubagentEntity } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { seedStore } from '../agent/seed';
import { RawAgent } from '../agent/rawClient';
import { CapturingLog, CLIENT_INFO, referenceAgent, tempDir } from './acp-helpers';

const subagents = (t: Timeline) => t.entities.filter((e): e is SubagentEntity => e.kind === 'subagent');

test('subagent_update: one row per child, where first announced; later updates patch it (omitted keeps, null clears)', () => {
  const t = new Timeline();
  t.apply({ sessionUpdate: 'subagent_update', sessionId: 'c1', title: 'Writer', description: 'Drafts notes', state: { state: 'running' } });
  t.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'meanwhile' } });
  t.apply({ sessionUpdate: 'subagent_update', sessionId: 'c1', description: null, state: { state: 'idle' } });
  t.apply({ sessionUpdate: 'subagent_update', sessionId: 'c2' });
  assert.deepEqual(t.entities.map((e) => e.kind), ['subagent', 'agent_message', 'subagent']);
  assert.deepEqual(subagents(t).map(({ sessionId, title, description, state }) => ({ sessionId, title, description, state })), [
    { sessionId: 'c1', title: 'Writer', description: undefined, state: 'idle' },
    { sessionId: 'c2', title: undefined, description: undefined, state: undefined },
  ]);
});

test('a subagent_update without a sessionId is shown as an update that could not be applied', () => {
  const t = new Timeline();
  t.apply({ sessionUpdate: 'subagent_update', title: 'orphan' });
  assert.equal(t.entities[0].kind, 'unknown');
});

test('session_message: an upsert by messageId whose chunks append and whose content replaces; null clears', () => {
  const t = new Timeline();
  const text = (s: string) => ({ type: 'text', text: s });
  t.apply({ sessionUpdate: 'session_message', messageId: 'm1', senderSessionId: 'p', recipientSessionId: 'c1', content: [text('Draft the ')] });
  t.apply({ sessionUpdate: 'session_message_chunk', messageId: 'm1', content: text('notes.') });
  t.apply({ sessionUpdate: 'session_message_chunk', messageId: 'm2', content: text('Done.') });
  t.apply({ sessionUpdate: 'session_message', messageId: 'm2', senderSessionId: 'c1', recipientSessionId: null });
  const [m1, m2] = t.entities as Array<{ kind: string; parts: { text?: string }[]; senderSessionId?: string; recipientSessionId?: string }>;
  assert.deepEqual([m1.kind, m1.parts.map((p) => p.text).join(''), m1.senderSessionId, m1.recipientSessionId], ['session_message', 'Draft the notes.', 'p', 'c1']);
  assert.deepEqual([m2.parts.map((p) => p.text).join(''), m2.senderSessionId, m2.recipientSessionId], ['Done.', 'c1', undefined]);
  t.apply({ sessionUpdate: 'session_message', messageId: 'm1', content: null });
  assert.deepEqual(m1.parts, []);
  t.apply({ sessionUpdate: 'session_message', content: [] });
  assert.equal(t.entities.at(-1)!.kind, 'unknown', 'no messageId: shown as an update that could not be applied');
});

test('the acp boundary drops subagent_update fields of the wrong type and says so', () => {
  const problems = new Problems();
  const checked = checkSessionUpdate({ sessionUpdate: 'subagent_update', sessionId: 'c1', title: 42, cwd: ['/x'], state: 'running', extra: 1 } as never, problems) as unknown as Record<string, unknown>;
  assert.deepEqual(checked, { sessionUpdate: 'subagent_update', sessionId: 'c1', extra: 1 }, 'unknown fields pass, bad ones are dropped (= unchanged)');
  assert.match(problems.toString(), /title of type number.*cwd of type array.*state without a string state/);
});

test('a list entry names its parent in _meta.parentSessionId; a parent of the wrong type is dropped and reported', () => {
  const problems = new Problems();
  const child = checkSessionInfo({ sessionId: 'c', cwd: '/w', _meta: { parentSessionId: 'p', other: true } }, problems)!;
  assert.equal(subagentParentOf(child), 'p');
  const bad = checkSessionInfo({ sessionId: 'd', cwd: '/w', _meta: { parentSessionId: { id: 'p' }, other: true } }, problems)!;
  assert.equal(subagentParentOf(bad), undefined);
  assert.deepEqual(bad._meta, { other: true });
  assert.match(problems.toString(), /_meta\.parentSessionId of type object/);
  assert.equal(subagentParentOf({ sessionId: 's', cwd: '/w', _meta: { parentSessionId: 's' } } as SessionInfo), undefined, 'never its own parent');
});

const info = (sessionId: string, parent?: string): SessionInfo => ({ sessionId, cwd: '/w', ...(parent ? { _meta: { parentSessionId: parent } } : {}) });

test('the tree nests children under a listed parent, keeps an unlisted parent\'s child at the top, and survives cycles', () => {
  const sessions = [info('p'), info('c1', 'p'), info('g', 'c1'), info('c2', 'p'), info('lost', 'gone'), info('x', 'y'), info('y', 'x')];
  const nested = nestSubagents(sessions, subagentParentOf, true);
  assert.deepEqual(nested.roots.map((s) => s.sessionId), ['p', 'lost', 'x', 'y']);
  assert.deepEqual([...nested.children].map(([parent, children]) => [parent, children.map((c) => c.sessionId)]), [['p', ['c1', 'c2']], ['c1', ['g']]]);
});

test('with subagents hidden, every session known to be a subagent is left out', () => {
  const nested = nestSubagents([info('p'), info('c1', 'p'), info('lost', 'gone')], subagentParentOf, false);
  assert.deepEqual(nested.roots.map((s) => s.sessionId), ['p']);
  assert.equal(nested.children.size, 0);
});

test('lineage a parent\'s replay announced nests its children too, without loading them', () => {
  const learned = new LearnedFacts();
  learned.learned('a', 'p', { subagents: ['c1'], usage: { used: 5, size: 10 } });
  assert.equal(learned.parentOf('a', info('c1')), 'p');
  assert.equal(learned.parentOf('b', info('c1')), undefined, 'per agent');
  assert.deepEqual(learned.usage('a', 'p'), { used: 5, size: 10 });
  assert.equal(learned.parentOf('a', info('c1', 'q')), 'q', 'the list entry\'s word wins');
});

async function family(t: { after(fn: () => void): void }) {
  const store = tempDir(t, 'lineage-store-');
  const folder = tempDir(t, 'lineage-folder-');
  const seed = await seedStore({ store, folders: [folder], count: 8, seed: 3, now: new Date('2026-03-01T12:00:00Z'), subagents: true });
  return { store, folder, seed, parent: seed.subagents!.parent, children: seed.subagents!.children };
}

test('reference agent: children are listed with their parent in _meta, and the parent\'s replay announces them', async (t) => {
  const { store, folder, parent, children } = await family(t);
  const client = await AcpClient.start(referenceAgent(store), { clientInfo: CLIENT_INFO, log: new CapturingLog() });
  t.after(() => client.dispose());
  const { sessions } = await client.listSessions({ cwd: folder });
  assert.deepEqual(children.map((id) => subagentParentOf(sessions.find((s) => s.sessionId === id)!)), [parent, parent]);
  assert.equal(subagentParentOf(sessions.find((s) => s.sessionId === parent)!), undefined);
  const timeline = new Timeline();
  await client.loadSession(parent, folder, (u) => timeline.apply(u));
  assert.deepEqual(subagents(timeline).map((s) => [s.sessionId, s.title, s.state]), [[children[0], 'Changelog writer', 'idle'], [children[1], 'Test runner', 'idle']]);
  assert.deepEqual(timeline.state.usageHistory.map((u) => u.used), [12_000, 64_000, 71_000]);
});

test('reference agent: a client that did not advertise subagents gets no subagent_update in the replay', async (t) => {
  const { store, folder, parent } = await family(t);
  const agent = RawAgent.start(['--store', store]);
  t.after(() => agent.close());
  await agent.initialize();
  await agent.call('session/load', { sessionId: parent, cwd: folder, mcpServers: [] });
  const kinds = agent.updates(parent).map((u) => u.sessionUpdate);
  assert.ok(kinds.includes('usage_update'), 'the replay ran');
  assert.ok(!kinds.includes('subagent_update'));
});
