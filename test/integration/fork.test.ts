// Fork from Here (issue 34, item 5), in the real extension host against the reference agent: a
// transcript of a session the agent can fork offers it; forking at a prompt makes a new session
// that ends at that prompt, which the tree shows nested under its origin, which opens, and which
// is offered to resume in a terminal; a refusal is said in the agent's words as plain text; it is
// not offered where the agent cannot fork, nor for an archived session.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SessionUpdate } from '../../src/acp/types';
import type { AcpSessionsApi } from '../../src/extension';
import { writeSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, closeAllTranscripts, config, removeTempDirs, sessionRow, tempDir, until, workspaceFolder } from './support';

let api: AcpSessionsApi;
let counter = 0;

const chunk = (kind: string, messageId: string, text: string) => ({ sessionUpdate: kind, messageId, content: { type: 'text', text } }) as unknown as SessionUpdate;

function record(sessionId: string, extra: Partial<StoredSession> = {}): StoredSession {
  return {
    sessionId,
    cwd: workspaceFolder(),
    title: `Fork origin ${sessionId}`,
    updatedAt: new Date(Date.now() - 60_000).toISOString(),
    archived: false,
    deleted: false,
    updates: [
      chunk('user_message_chunk', 'u1', 'first prompt'),
      chunk('agent_message_chunk', 'a1', 'first answer'),
      chunk('user_message_chunk', 'u2', 'second prompt'),
      chunk('agent_message_chunk', 'a2', 'second answer'),
    ],
    ...extra,
  };
}

/** The reference agent over a store of `records`, with a resume command, as the one configured agent. */
async function agentWith(records: StoredSession[], flags: string[] = []): Promise<string> {
  const store = tempDir('acp-fork-');
  for (const r of records) await writeSession(store, r);
  const name = `Fork agent ${++counter}`;
  await config().update('agents', [{ name, command: process.execPath, args: [agentScript, '--store', store, ...flags], resume: ['echo', 'resume', '${sessionId}'] }], vscode.ConfigurationTarget.Global);
  await until(`agent "${name}" is configured`, () => api.agents.agents.some((a) => a.name === name));
  for (const r of records.filter((r) => !r.archived)) await until(`${r.sessionId} is in the tree`, () => sessionRow(api, r.sessionId));
  return name;
}

async function open(agent: string, sessionId: string) {
  const row = await sessionRow(api, sessionId);
  assert.ok(row, `${sessionId} has a row`);
  await vscode.commands.executeCommand('acpSessions.openTranscript', row);
  return api.transcripts.whenLoaded(agent, sessionId);
}

suite('Fork from Here', () => {
  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
  });

  teardown(async () => {
    await closeAllTranscripts(api);
    api.sessions.messages.clear();
  });

  suiteTeardown(async () => {
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('on a prompt: the fork ends at that prompt, is nested under its origin, opens, and Resume in Terminal is offered', async () => {
    const agent = await agentWith([record('origin1')]);
    const state = await open(agent, 'origin1');
    assert.equal(state.canFork, true);
    const prompt = state.prompts.find((p) => p.text === 'second prompt');
    assert.ok(prompt);
    const shown = api.sessions.messages.shown.length;
    api.transcripts.receiveFromWebview(agent, 'origin1', { type: 'forkFromHere', key: prompt.key });
    const fork = await until('the fork is listed', () => api.sessions.model.allLists(agent).flatMap((l) => l.sessions).find((s) => s.details?.forkedFrom === 'origin1'));
    // Nested under its origin in the tree.
    const origin = await sessionRow(api, 'origin1');
    const children = await api.sessions.view.getChildren(origin as never);
    assert.deepEqual(children?.map((c) => (c as { session?: { sessionId?: string } }).session?.sessionId), [fork.sessionId]);
    const forkItem = api.sessions.view.getTreeItem(children![0] as never);
    assert.equal((forkItem.iconPath as vscode.ThemeIcon).id, 'repo-forked');
    // It opens, and replays up to the fork point.
    const forkState = await until('the fork\'s transcript has loaded', () => api.transcripts.getState(agent, fork.sessionId)?.loaded && api.transcripts.getState(agent, fork.sessionId));
    assert.deepEqual(forkState.prompts.map((p) => p.text), ['first prompt', 'second prompt']);
    assert.equal(forkState.kinds.agent_message, 1, 'the answer after the fork point is not in the fork');
    const offer = await until('Resume in Terminal is offered', () => api.sessions.messages.shown.slice(shown).find((m) => /was forked into a new session/.test(m.text)));
    assert.deepEqual(offer.actions, ['Resume in Terminal']);
  });

  test('refused by the agent: said in its words, as plain text; nothing new is listed', async () => {
    const agent = await agentWith([record('origin2')], ['--fail', 'session/fork=-32603']);
    const state = await open(agent, 'origin2');
    const shown = api.sessions.messages.shown.length;
    api.transcripts.receiveFromWebview(agent, 'origin2', { type: 'forkFromHere', key: state.prompts[0].key });
    const error = await until('the refusal is shown', () => api.sessions.messages.shown.slice(shown).find((m) => m.severity === 'error'));
    assert.match(error.text, /Could not fork "Fork origin origin2": .*session\/fork failed on purpose/);
    assert.equal(api.sessions.model.allLists(agent).flatMap((l) => l.sessions).filter((s) => s.details?.forkedFrom).length, 0);
  });

  test('not offered where the agent cannot fork, nor for an archived session; a row that is no message is refused', async () => {
    const noFork = await agentWith([record('origin3')], ['--no-fork']);
    assert.equal((await open(noFork, 'origin3')).canFork, false);
    api.transcripts.receiveFromWebview(noFork, 'origin3', { type: 'forkFromHere', key: 'e0' });
    await closeAllTranscripts(api);
    const agent = await agentWith([record('origin4'), record('archived1', { archived: true })]);
    // The archived session, opened from its section.
    await api.sessions.model.list(agent, 'archived', workspaceFolder()).load();
    const archivedRow = await until('archived1 is in Archived', async () => sessionRow(api, 'archived1'));
    await vscode.commands.executeCommand('acpSessions.openTranscript', archivedRow);
    const archived = await api.transcripts.whenLoaded(agent, 'archived1');
    assert.equal(archived.archived, true);
    assert.equal(archived.canFork, false);
    // A key of a row that is not a prompt or a named agent message forks nothing (refused before anything is sent).
    const state = await open(agent, 'origin4');
    api.transcripts.receiveFromWebview(agent, 'origin4', { type: 'forkFromHere', key: 'no-such-row' });
    assert.equal(state.canFork, true);
    assert.equal(api.sessions.model.allLists(agent).flatMap((l) => l.sessions).filter((s) => s.details?.forkedFrom).length, 0);
  });
});
