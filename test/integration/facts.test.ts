// One fact about a session reaches every surface the same way, whoever caused it (DESIGN.md "How
// facts travel"): the sessions model fires onDidDelete, onDidArchive or onDidRename, and the open
// transcript, the search index and the pins follow. Each test makes a session pinned, indexed and
// open in a transcript (where the cause allows), then causes the fact one way: another process
// deletes it and the agent's live list drops it; the agent answers a load with -32002; a Clean Up
// run deletes or archives it; another process renames it. Nothing here tells a feature directly.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SessionUpdate } from '../../src/acp/types';
import type { AcpSessionsApi } from '../../src/extension';
import { markSessionDeleted, readSession, updateSession, writeSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, closeAllTranscripts, config, configureAgent, removeTempDirs, sessionRow, tempDir, until, workspaceFolder } from './support';

let api: AcpSessionsApi;
let counter = 0;

const said = (text: string): SessionUpdate => ({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text } }) as SessionUpdate;

function record(sessionId: string, word: string, extra: Partial<StoredSession> = {}): StoredSession {
  return {
    sessionId,
    cwd: workspaceFolder(),
    title: `Facts ${sessionId}`,
    updatedAt: new Date(Date.now() - 60_000).toISOString(),
    archived: false,
    deleted: false,
    updates: [said(`the ${word} was here`)],
    ...extra,
  };
}

/** A store of `records`, its agent, every session indexed (Search's Refresh) and in the tree. */
async function agentWith(records: StoredSession[], flags: string[] = []): Promise<{ store: string; agent: string }> {
  const store = tempDir('acp-facts-');
  for (const r of records) await writeSession(store, r);
  const agent = await configureAgent(api, `Facts agent ${++counter}`, process.execPath, [agentScript, '--store', store, ...flags]);
  for (const r of records) await until(`${r.sessionId} is in the tree`, () => sessionRow(api, r.sessionId));
  await vscode.commands.executeCommand('acpSessions.search.refresh');
  await until('every session is indexed', async () => indexed(agent).then((ids) => ids.length === records.length && ids));
  return { store, agent };
}

async function indexed(agent: string): Promise<string[]> {
  return (await api.search.ready).index.sessions(agent).map((s) => s.sessionId).sort();
}

async function pin(agent: string, sessionId: string): Promise<void> {
  await vscode.commands.executeCommand('acpSessions.pin', await sessionRow(api, sessionId));
  await until(`${sessionId} is pinned`, () => api.sessions.pins?.isPinned(agent, sessionId));
}

async function openTranscript(agent: string, sessionId: string): Promise<void> {
  await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionRow(api, sessionId));
  await api.transcripts.whenLoaded(agent, sessionId);
}

/** The three surfaces that follow a delete: the tab says so, the index and the pins let it go. */
async function everySurfaceLetGo(agent: string, sessionId: string, kept: string[], transcriptOpen = true): Promise<void> {
  if (transcriptOpen) await until('the transcript says its session is deleted', () => api.transcripts.getState(agent, sessionId)?.deleted, 30_000);
  await until(`${sessionId} left the index`, async () => (await indexed(agent)).join() === kept.join(), 30_000);
  await until(`${sessionId} is no longer pinned`, () => api.sessions.pins?.isPinned(agent, sessionId) === false, 30_000);
  await until(`${sessionId} left the tree`, () => api.sessions.model.find(agent, sessionId) === undefined, 30_000);
}

suite('Facts reach every surface through the sessions model', () => {
  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
  });

  teardown(async () => {
    await closeAllTranscripts(api);
    await config().update('keep.mode', undefined, vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async () => {
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('deleted by another process, dropped by the agent\'s live list: the open transcript says so, the index and the pins let it go', async () => {
    await config().update('keep.mode', 'off', vscode.ConfigurationTarget.Global);
    const { store, agent } = await agentWith([record('live1', 'heron'), record('live2', 'heron')], ['--air-index']);
    await until('the live list of the folder is subscribed', () => api.sessions.model.liveFolders(agent).length > 0);
    await api.sessions.model.lastLiveSubscription;
    await pin(agent, 'live1');
    await openTranscript(agent, 'live1');
    assert.ok(await markSessionDeleted(store, 'live1'), 'another process deletes live1');
    await everySurfaceLetGo(agent, 'live1', ['live2']);
  });

  test('answered -32002 when its transcript loads (deleted behind the tree\'s back): the tab says so, the index and the pins let it go', async () => {
    await config().update('keep.mode', 'off', vscode.ConfigurationTarget.Global);
    const { store, agent } = await agentWith([record('gone1', 'ibis'), record('gone2', 'ibis')]);
    await pin(agent, 'gone1');
    // This agent has no live list: the tree still shows it after another process deletes it.
    assert.ok(await markSessionDeleted(store, 'gone1'));
    assert.ok(api.sessions.model.find(agent, 'gone1'), 'still listed before the load');
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionRow(api, 'gone1'));
    assert.equal((await api.transcripts.whenLoaded(agent, 'gone1')).problem?.kind, 'load-failed');
    await everySurfaceLetGo(agent, 'gone1', ['gone2']);
  });

  test('with a copy kept, dropped by the agent\'s live list: the session stays found and shows under Kept Here, and opens from its copy', async () => {
    const { store, agent } = await agentWith([record('kept1', 'egret'), record('kept2', 'egret')], ['--air-index']);
    await until('the live list of the folder is subscribed', () => api.sessions.model.liveFolders(agent).length > 0);
    await api.sessions.model.lastLiveSubscription;
    await openTranscript(agent, 'kept1');
    await until('kept1 has a kept copy', () => api.sessions.kept.store.get(agent, 'kept1') !== undefined, 30_000);
    await until('kept1 is indexed', async () => (await indexed(agent)).includes('kept1'), 30_000);
    assert.ok(await markSessionDeleted(store, 'kept1'), 'another process deletes kept1');
    await until('kept1 left the tree\'s lists', () => api.sessions.model.find(agent, 'kept1') === undefined, 30_000);
    await until('kept1 is under Kept Here', () => api.sessions.kept.here.isKeptOnly(agent, 'kept1'), 30_000);
    assert.ok((await indexed(agent)).includes('kept1'), 'still found by search');
    await closeAllTranscripts(api);
    // Show Kept Copies (the walkthrough's link) counts it, and says it is the last copy.
    const shown = api.sessions.messages.shown.length;
    void vscode.commands.executeCommand('acpSessions.showKeptCopies');
    const usage = await until('Show Kept Copies says what is kept', () => api.sessions.messages.shown.slice(shown).find((m) => /have a copy kept here/.test(m.text)));
    const { kept } = api.sessions;
    const onlyHere = [...new Set(kept.store.all().map((c) => c.meta.agentName))].reduce((n, a) => n + kept.here.sessions(a).length, 0);
    assert.ok(kept.here.sessions(agent).some((c) => c.meta.sessionId === 'kept1'));
    assert.match(usage.text, new RegExp(`^${kept.store.usage().count} sessions have a copy kept here.* ${onlyHere} of them are under Kept Here`));
    api.sessions.messages.choose(usage, undefined);
    // Clean Up selects kept copies by its rules: the one that matches goes, and search lets it go.
    api.sessions.messages.answerNextModal('Delete');
    const run = (await vscode.commands.executeCommand('acpSessions.cleanUp', { agent, action: 'kept', rule: { titlePattern: 'Facts kept?' } })) as { keptDeleted?: number };
    assert.equal(run.keptDeleted, 1);
    assert.equal(api.sessions.kept.store.get(agent, 'kept1'), undefined, 'its copy is deleted');
    assert.equal(api.sessions.kept.here.isKeptOnly(agent, 'kept1'), false);
    await until('kept1 left the index', async () => (await indexed(agent)).join() === 'kept2', 30_000);
  });

  test('deleted by a Clean Up run: the open transcript says so, the index and the pins let it go', async () => {
    // Clean Up deletes archived sessions only; Pin acts in Active only (issue 32), so clean1 is
    // pinned there, then archived (a pinned session stays pinned in Archived).
    const { store, agent } = await agentWith([record('clean1', 'stork'), record('keep1', 'stork', { title: 'Kept', archived: true })]);
    await pin(agent, 'clean1');
    await vscode.commands.executeCommand('acpSessions.archive', await sessionRow(api, 'clean1'));
    await until('clean1 is in Archived', async () => ((await sessionRow(api, 'clean1')) as { section?: string } | undefined)?.section === 'archived');
    await openTranscript(agent, 'clean1');
    api.sessions.messages.answerNextModal('Delete');
    await vscode.commands.executeCommand('acpSessions.cleanUp', { agent, action: 'delete', rule: { titlePattern: 'Facts clean1' } });
    assert.equal((await readSession(store, 'clean1'))?.deleted, true);
    await everySurfaceLetGo(agent, 'clean1', ['keep1']);
  });

  test('archived by a Clean Up run: the open transcript shows it archived and the index files it as archived', async () => {
    const { agent } = await agentWith([record('arch1', 'crane'), record('arch2', 'crane', { title: 'Not this one' })]);
    await openTranscript(agent, 'arch1');
    assert.equal(api.transcripts.getState(agent, 'arch1')?.archived, false);
    await vscode.commands.executeCommand('acpSessions.cleanUp', { agent, action: 'archive', rule: { titlePattern: 'Facts arch1' } });
    await until('the transcript shows it archived', () => api.transcripts.getState(agent, 'arch1')?.archived);
    const archived = async () => (await api.search.ready).index.sessions(agent).find((s) => s.sessionId === 'arch1')?.archived;
    await until('the index files it as archived', archived);
    assert.equal((await api.search.ready).index.sessions(agent).find((s) => s.sessionId === 'arch2')?.archived, false, 'the other session is untouched');
  });

  test('renamed by another process, the agent\'s live list bringing the new title: the open transcript takes it', async () => {
    const { store, agent } = await agentWith([record('name1', 'egret')], ['--air-index']);
    await until('the live list of the folder is subscribed', () => api.sessions.model.liveFolders(agent).length > 0);
    await api.sessions.model.lastLiveSubscription;
    await openTranscript(agent, 'name1');
    assert.equal(api.transcripts.getState(agent, 'name1')?.title, 'Facts name1');
    await updateSession(store, 'name1', (r) => ({ ...r, title: 'Renamed elsewhere', updatedAt: new Date().toISOString() }));
    await until('the tree shows the new title', () => api.sessions.model.find(agent, 'name1')?.session.title === 'Renamed elsewhere', 30_000);
    await until('the transcript takes the new title', () => api.transcripts.getState(agent, 'name1')?.title === 'Renamed elsewhere', 30_000);
  });
});
