// Transcripts inside a real VS Code extension host: a seeded store served by the reference
// agent (a real process, configured in USER settings), opened from the Sessions tree; the
// panel's state is read from the host's timeline through the extension's API, never by sleeping.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { readReplay } from '../../src/transcript/replayFile';
import type { ExportResult } from '../../src/ui/transcripts/exportSessions';
import { seedStore, type SeedResult } from '../agent/seed';
import { markSessionDeleted, readSession, writeSession } from '../agent/store';
import type { SessionUpdate } from '../../src/acp/types';
import { Timeline } from '../../src/transcript/timeline';
import {
  activateExtension,
  agentScript,
  closeAllTranscripts,
  capturingArgs,
  config,
  configureAgent,
  openTranscriptTabs,
  removeTempDirs,
  tempDir,
  transcriptTabs,
  until,
  workspaceFolder,
} from './support';

let api: AcpSessionsApi;
let counter = 0;

async function seeded(): Promise<{ store: string; seed: SeedResult }> {
  const store = tempDir('acp-transcript-it-');
  const seed = await seedStore({ store, folders: [workspaceFolder()], count: 12, seed: 3 });
  return { store, seed };
}

/**
 * Configures a fresh reference agent. With `capture`, a small tee process in front of it
 * appends every line the client sends to that file, so a test can see what went over the wire.
 */
async function useAgent(store: string, flags: string[] = [], capture?: string): Promise<string> {
  const name = `Transcript agent ${++counter}`;
  let command = process.execPath;
  let args = [agentScript, '--store', store, ...flags];
  if (capture) args = capturingArgs(capture, args);
  return configureAgent(api, name, command, args);
}

/** The tree node of a session, once the tree has listed it. */
async function sessionNode(agentName: string, sessionId: string): Promise<unknown> {
  const view = api.sessions.view;
  const find = async (parent?: unknown): Promise<unknown> => {
    for (const node of (await view.getChildren(parent as never)) ?? []) {
      const n = node as { session?: { sessionId: string }; agent?: string };
      if (n.session?.sessionId === sessionId && n.agent === agentName) return node;
      const item = await view.getTreeItem(node);
      if (item.collapsibleState) {
        const found = await find(node);
        if (found) return found;
      }
    }
    return undefined;
  };
  return until(`session ${sessionId} is in the tree`, () => find());
}

suite('Transcript', () => {
  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
  });

  teardown(() => closeAllTranscripts(api));

  suiteTeardown(async () => {
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('an agent that marks the end of its replay: the transcript is whole at the mark, and nothing counts as late', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store, ['--air-index']);
    const id = seed.special.compactions;
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionNode(agent, id));
    const state = await api.transcripts.whenLoaded(agent, id);
    assert.equal(state.replayEnd, 'marker');
    assert.equal(state.lateUpdates, 0);
    assert.equal(state.updateCount, seed.sessions.find((s) => s.sessionId === id)!.updates.length, 'the mark itself is no update of the transcript');
  });

  test('an agent that answers before its replay ends (as Gemini): every update still shows, and the header says how many came after the answer', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store, ['--answer-after', '3']);
    const id = seed.special.compactions;
    const stored = seed.sessions.find((s) => s.sessionId === id)!;
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionNode(agent, id));
    const answered = await api.transcripts.whenLoaded(agent, id);
    assert.equal(answered.replayEnd, 'answer');
    const state = await until('every replayed update arrived', () => {
      const now = api.transcripts.getState(agent, id);
      return now && now.updateCount === stored.updates.length ? now : undefined;
    });
    const conversation = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan']);
    const late = stored.updates.slice(3).filter((u) => conversation.has(u.sessionUpdate)).length;
    assert.ok(late > 0, 'the seeded session has conversation after its third update');
    assert.equal(state.lateUpdates, late);
    assert.equal(state.compactions.length, 9, 'nothing was lost between the answer and the live subscription');
  });

  test('opening a seeded session from the tree shows its whole transcript with every compaction', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store);
    const id = seed.special.compactions;
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionNode(agent, id));
    const state = await api.transcripts.whenLoaded(agent, id);
    assert.equal(state.loading, false);
    assert.equal(state.problem, undefined);
    assert.equal(state.title, 'Long refactor with several context compactions');
    assert.deepEqual(
      state.compactions.map((c) => c.status),
      ['completed', 'completed', 'completed', 'completed', 'failed', 'cancelled', '_vendor_status', 'completed', 'completed'],
    );
    assert.match(state.compactions[0].summary, /Retained context after module 1/);
    assert.match(state.compactions[4].error ?? '', /rate limit/);
    assert.equal(state.kinds.unknown, 2);
    assert.ok((state.kinds.tool_call ?? 0) >= 9 && (state.kinds.agent_message ?? 0) >= 9 && state.kinds.user_message === 1);
    const stored = seed.sessions.find((s) => s.sessionId === id)!;
    assert.equal(state.updateCount, stored.updates.length);
    assert.equal(state.live, true, 'live updates are applied after the replay');
    const tabs = await openTranscriptTabs(api);
    assert.equal(tabs.length, 1);
    assert.equal(tabs[0].label, 'Long refactor with several context compactions');
  });

  test('a session longer than the first screen is reduced off the extension host\'s thread and taken over whole: the same rows, prompts and their times, changes and export as its updates make (fallback run: reduced here)', async () => {
    const store = tempDir('acp-transcript-reduced-');
    const id = 'long-reduced';
    const updates: SessionUpdate[] = [];
    const base = Date.parse('2026-02-01T10:00:00Z');
    for (let turn = 0; turn < 150; turn++) {
      updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `question ${turn}` }, _meta: { timestamp: base + turn * 60_000 } } as SessionUpdate);
      for (let chunk = 0; chunk < 4; chunk++) updates.push({ sessionUpdate: 'agent_message_chunk', messageId: `m${turn}`, content: { type: 'text', text: `answer ${turn} part ${chunk}. ` } } as SessionUpdate);
      updates.push({ sessionUpdate: 'tool_call', toolCallId: `t${turn}`, title: `Edit file${turn}.ts`, kind: 'edit', status: 'in_progress', content: [{ type: 'diff', path: join(workspaceFolder(), `file${turn}.ts`), oldText: 'a', newText: 'a\nb' }] } as SessionUpdate);
    }
    // Late words for rows of the first screen: the worker applies them after the preview ended.
    updates.push({ sessionUpdate: 'tool_call_update', toolCallId: 't0', status: 'completed' } as SessionUpdate);
    updates.push({ sessionUpdate: 'agent_message_chunk', messageId: 'm0', content: { type: 'text', text: 'and a late postscript' } } as SessionUpdate);
    for (let turn = 1; turn < 150; turn++) updates.push({ sessionUpdate: 'tool_call_update', toolCallId: `t${turn}`, status: 'completed' } as SessionUpdate);
    await writeSession(store, { sessionId: id, cwd: workspaceFolder(), title: 'Long and reduced', updatedAt: new Date(Date.now() - 60_000).toISOString(), archived: false, deleted: false, updates });
    const agent = await useAgent(store);
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionNode(agent, id));
    const state = await api.transcripts.whenLoaded(agent, id);
    assert.equal(state.problem, undefined);
    assert.equal(state.rowsFrom, process.env.ACP_SESSIONS_LINE_WORKER === 'off' ? 'host' : 'worker');
    // What the same updates make on this thread, as the reducer makes them.
    const expected = new Timeline();
    for (const update of updates) expected.apply(update);
    assert.equal(state.entityCount, expected.rows.length);
    assert.equal(state.updateCount, updates.length);
    assert.deepEqual(state.kinds, { user_message: 150, agent_message: 150, tool_call: 150 });
    assert.deepEqual(
      state.prompts.map((p) => p.at),
      updates.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => (u as unknown as { _meta: { timestamp: number } })._meta.timestamp),
      'every prompt has the time its update told, those the worker reduced too',
    );
    assert.equal(state.changes?.total, 150, 'every completed edit counts');
    await until('the transcript tab is active', () => transcriptTabs()[0]?.isActive);
    await vscode.commands.executeCommand('acpSessions.transcript.exportMarkdown');
    const editor = await until('an exported Markdown editor is active', () =>
      vscode.window.activeTextEditor?.document.languageId === 'markdown' ? vscode.window.activeTextEditor : undefined,
    );
    const text = editor.document.getText();
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    assert.match(text, /answer 0 part 3\. and a late postscript/, 'a late chunk of a first-screen message is in it');
    assert.match(text, /answer 149 part 3\./);
    assert.equal(text.match(/question \d+/g)?.length, 150);
    const folder = tempDir('acp-export-reduced-');
    const result = await vscode.commands.executeCommand<ExportResult>('acpSessions.exportSessions', { agent, rule: { titlePattern: 'Long and reduced' }, folder });
    assert.deepEqual(result.failed, []);
    assert.deepEqual(readReplay(readFileSync(result.written[0].replay, 'utf8')).updates, JSON.parse(JSON.stringify(updates)), 'the tab kept every update as the agent sent it');
    // Its Markdown is written from the tab's own rows (not reduced again on the host's thread): what Export as Markdown showed.
    assert.equal(result.written[0].rowsFrom, state.rowsFrom);
    const markdown = readFileSync(result.written[0].markdown, 'utf8');
    assert.equal(markdown.slice(markdown.indexOf('\n## ')), text.slice(text.indexOf('\n## ')));
  });

  test('a transcript replays once its page said ready; one covered by another tab before its page loaded replays at once, whole', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store);
    const [covered, front] = [seed.special.compactions, seed.special.long];
    // Both tabs in one go: the second covers the first before the first's page can load (a
    // webview loads over many of the workbench's tasks; the second tab is shown in this one).
    const info = (id: string) => {
      const stored = seed.sessions.find((s) => s.sessionId === id)!;
      return { sessionId: id, cwd: stored.cwd, title: stored.title ?? null, updatedAt: stored.updatedAt };
    };
    const opening = [api.transcripts.open(agent, info(covered)), api.transcripts.open(agent, info(front))];
    await Promise.all(opening);
    const first = await api.transcripts.whenLoaded(agent, covered);
    const second = await api.transcripts.whenLoaded(agent, front);
    assert.equal(first.replayWaitedFor, 'hidden', 'the covered tab did not wait for a page that loads only when it is shown');
    assert.equal(second.replayWaitedFor, 'ready', 'the tab in front replayed once its page said ready');
    assert.equal(first.visible, false);
    assert.equal(first.problem, undefined);
    assert.equal(first.updateCount, seed.sessions.find((s) => s.sessionId === covered)!.updates.length);
    assert.equal(second.updateCount, seed.sessions.find((s) => s.sessionId === front)!.updates.length);
  });

  test('opening the same session again reveals its tab instead of opening another', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store);
    const node = await sessionNode(agent, seed.special.long);
    await vscode.commands.executeCommand('acpSessions.openTranscript', node);
    await api.transcripts.whenLoaded(agent, seed.special.long);
    await vscode.commands.executeCommand('workbench.action.files.newUntitledFile');
    await vscode.commands.executeCommand('acpSessions.openTranscript', node);
    assert.equal(api.transcripts.openCount, 1);
    assert.equal((await openTranscriptTabs(api)).length, 1);
    await until('the transcript tab is active again', () => transcriptTabs()[0]?.isActive);
  });

  test('Export as Markdown opens an untitled Markdown editor with the compaction summaries', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store);
    const id = seed.special.compactions;
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionNode(agent, id));
    await api.transcripts.whenLoaded(agent, id);
    await until('the transcript tab is active', () => transcriptTabs()[0]?.isActive);
    await vscode.commands.executeCommand('acpSessions.transcript.exportMarkdown');
    const editor = await until('an exported Markdown editor is active', () =>
      vscode.window.activeTextEditor?.document.languageId === 'markdown' ? vscode.window.activeTextEditor : undefined,
    );
    const text = editor.document.getText();
    assert.equal(editor.document.isUntitled, true);
    assert.match(text, /^# Long refactor with several context compactions/);
    assert.match(text, /### Context compaction \(completed\)\n\n> ## Retained context after module 1/);
    assert.match(text, /### Context compaction \(failed\)\n\nError: .*rate limit/);
    assert.match(text, /### Context compaction \(\\_vendor\\_status\)/);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test('Export Sessions of an open transcript writes the updates its tab received (kept as the agent\'s lines), without loading the session again', async () => {
    const { store, seed } = await seeded();
    const capture = join(tempDir('acp-transcript-it-'), 'sent.ndjson');
    const agent = await useAgent(store, [], capture);
    const id = seed.special.compactions;
    const stored = seed.sessions.find((s) => s.sessionId === id)!;
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionNode(agent, id));
    await api.transcripts.whenLoaded(agent, id);
    const folder = tempDir('acp-export-it-');
    const result = await vscode.commands.executeCommand<ExportResult>('acpSessions.exportSessions', { agent, rule: { titlePattern: stored.title }, folder });
    assert.deepEqual(result.failed, []);
    assert.deepEqual(result.written.map((w) => w.sessionId), [id]);
    const exported = readReplay(readFileSync(result.written[0].replay, 'utf8'));
    assert.equal(exported.skipped, 0);
    assert.deepEqual(exported.updates, JSON.parse(JSON.stringify(stored.updates)));
    const loads = readFileSync(capture, 'utf8').split('\n').filter((line) => line.includes('"session/load"'));
    assert.equal(loads.length, 1, 'the tab\'s updates were written: the session was not loaded again');
  });

  test('an agent without loadSession gets an explanation, not an empty page', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store, ['--no-load']);
    const session = seed.sessions.find((s) => s.sessionId === seed.special.long)!;
    await api.transcripts.open(agent, { sessionId: session.sessionId, cwd: session.cwd, title: session.title });
    const state = await api.transcripts.whenLoaded(agent, session.sessionId);
    assert.equal(state.problem?.kind, 'no-load');
    assert.match(state.problem!.message, /does not advertise loadSession/);
    assert.equal(state.entityCount, 0);
  });

  test('an archived session the agent refuses to replay says so and offers Unarchive and Open', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store, ['--fail', 'session/load=-32602']);
    const session = seed.sessions.find((s) => s.archived)!;
    await api.transcripts.open(agent, { sessionId: session.sessionId, cwd: session.cwd, title: session.title, archived: true } as never);
    const state = await api.transcripts.whenLoaded(agent, session.sessionId);
    assert.equal(state.archived, true);
    assert.equal(state.problem?.kind, 'archived-refused');
    assert.deepEqual(state.problem?.actions, ['unarchiveAndOpen', 'showLog']);
    assert.match(state.problem!.message, /failed on purpose/);
  });

  test('an agent that crashes while an archived session replays offers to try again, not to unarchive', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store, ['--exit-at', 'load-mid']);
    const session = seed.sessions.find((s) => s.archived)!;
    await api.transcripts.open(agent, { sessionId: session.sessionId, cwd: session.cwd, title: session.title, archived: true } as never);
    const state = await api.transcripts.whenLoaded(agent, session.sessionId);
    assert.equal(state.archived, true);
    assert.notEqual(state.problem?.kind, 'archived-refused');
    assert.deepEqual(state.problem?.actions, ['retry', 'showLog']);
    assert.match(state.problem!.message, /disconnected/);
  });

  test('a failed replay of an active session keeps what arrived and offers to try again', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store, ['--fail', 'session/load=-32603']);
    const session = seed.sessions.find((s) => s.sessionId === seed.special.long)!;
    await api.transcripts.open(agent, { sessionId: session.sessionId, cwd: session.cwd, title: session.title });
    const state = await api.transcripts.whenLoaded(agent, session.sessionId);
    assert.equal(state.problem?.kind, 'load-failed');
    assert.deepEqual(state.problem?.actions, ['retry', 'showLog']);
  });

  test('a session the agent does not have (-32002, none of its lists holds it) is not found: the title says so, nothing that needs it is offered', async () => {
    const { store } = await seeded();
    const agent = await useAgent(store);
    await api.transcripts.open(agent, { sessionId: 'sess_made_up', cwd: workspaceFolder(), title: null, updatedAt: null });
    const state = await api.transcripts.whenLoaded(agent, 'sess_made_up');
    assert.equal(state.notFound, true);
    assert.equal(state.title, 'Session not found (…ade_up)');
    assert.equal(state.problem?.kind, 'load-failed');
    assert.deepEqual(state.problem?.actions, ['showLog'], 'no Try Again: the agent said it has no such session');
    assert.match(state.problem!.message, /does not have this session/);
  });

  test('a refused load of a session no list holds is not found too, and may be tried again; one the tree lists is not', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store, ['--fail', 'session/load=-32603']);
    await api.transcripts.open(agent, { sessionId: 'sess_unlisted', cwd: workspaceFolder(), title: 'A linked title', updatedAt: null });
    const unlisted = await api.transcripts.whenLoaded(agent, 'sess_unlisted');
    assert.equal(unlisted.notFound, true);
    assert.equal(unlisted.title, 'A linked title (not found)');
    assert.deepEqual(unlisted.problem?.actions, ['retry', 'showLog']);
    assert.match(unlisted.problem!.message, /does not list this session and could not load it/);
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionNode(agent, seed.special.long));
    const listed = await api.transcripts.whenLoaded(agent, seed.special.long);
    assert.equal(listed.notFound, false);
    assert.equal(listed.problem?.kind, 'load-failed');
    assert.doesNotMatch(listed.title, /not found/);
  });

  test('archiving an open session marks its transcript archived and stops live updates', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store);
    const id = seed.special.long;
    const node = await sessionNode(agent, id);
    await vscode.commands.executeCommand('acpSessions.openTranscript', node);
    assert.equal((await api.transcripts.whenLoaded(agent, id)).live, true);
    await vscode.commands.executeCommand('acpSessions.archive', node);
    const state = await until('the transcript is archived', () => {
      const s = api.transcripts.getState(agent, id);
      return s?.archived ? s : undefined;
    });
    assert.equal(state.live, false);
    api.transcripts.setArchived(agent, id, false);
    assert.equal(api.transcripts.getState(agent, id)?.archived, false);
    assert.equal(api.transcripts.getState(agent, id)?.live, true, 'unarchived: live updates apply again');
  });

  test('a transcript whose session is deleted from the tree says so and follows no more live updates', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store);
    const id = seed.special.long;
    const node = await sessionNode(agent, id);
    await vscode.commands.executeCommand('acpSessions.openTranscript', node);
    assert.equal((await api.transcripts.whenLoaded(agent, id)).live, true);
    api.sessions.messages.answerNextModal('Delete');
    await vscode.commands.executeCommand('acpSessions.delete', node);
    const state = await until('the transcript says its session is deleted', () => {
      const s = api.transcripts.getState(agent, id);
      return s?.deleted ? s : undefined;
    });
    assert.equal(state.live, false, 'no more live updates');
    assert.equal((await readSession(store, id))?.deleted, true);
  });

  test('a transcript whose session another process deletes says so once the agent\'s live list drops it', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store, ['--air-index']);
    const id = seed.special.long;
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionNode(agent, id));
    assert.equal((await api.transcripts.whenLoaded(agent, id)).live, true);
    assert.equal(await markSessionDeleted(store, id), true);
    const state = await until('the transcript says its session is deleted', () => {
      const s = api.transcripts.getState(agent, id);
      return s?.deleted ? s : undefined;
    }, 30_000);
    assert.equal(state.live, false);
  });

  test('a transcript whose load the agent answers -32002 (deleted behind the tree\'s back) says so, and the tree drops the row', async () => {
    const { store, seed } = await seeded();
    const agent = await useAgent(store);
    const id = seed.special.long;
    const node = await sessionNode(agent, id);
    // Another process deletes it; this agent has no live list, so the tree still shows it.
    assert.equal(await markSessionDeleted(store, id), true);
    assert.ok(api.sessions.model.find(agent, id), 'still listed before the load');
    await vscode.commands.executeCommand('acpSessions.openTranscript', node);
    const state = await api.transcripts.whenLoaded(agent, id);
    assert.equal(state.problem?.kind, 'load-failed');
    await until('the transcript says its session is deleted', () => api.transcripts.getState(agent, id)?.deleted);
    await until('the tree dropped the row', () => api.sessions.model.find(agent, id) === undefined);
  });

  test('a transcript whose archived session Clean Up deletes says so', async () => {
    const { store, seed } = await seeded();
    const target = seed.sessions.find((s) => s.archived && s.title)!;
    assert.ok(target, 'the seed has a titled archived session');
    const agent = await useAgent(store);
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionNode(agent, target.sessionId));
    await api.transcripts.whenLoaded(agent, target.sessionId);
    api.sessions.messages.answerNextModal('Delete');
    const pattern = target.title!.replace(/[*?]/g, '?');
    await vscode.commands.executeCommand('acpSessions.cleanUp', { agent, action: 'delete', rule: { titlePattern: pattern } });
    await until('the transcript says its session is deleted', () => api.transcripts.getState(agent, target.sessionId)?.deleted);
    assert.equal((await readSession(store, target.sessionId))?.deleted, true);
  });

  test('closing the tab closes the session on the agent', async () => {
    const { store, seed } = await seeded();
    const capture = join(tempDir('acp-transcript-capture-'), 'client-to-agent.ndjson');
    const agent = await useAgent(store, [], capture);
    const id = seed.special.long;
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionNode(agent, id));
    await api.transcripts.whenLoaded(agent, id);
    await closeAllTranscripts(api);
    assert.equal(api.transcripts.getState(agent, id), undefined);
    const sent = await until('session/close was sent', () => {
      const lines = readFileSync(capture, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      return lines.find((m) => m.method === 'session/close');
    });
    assert.deepEqual(sent.params, { sessionId: id });
  });
});
