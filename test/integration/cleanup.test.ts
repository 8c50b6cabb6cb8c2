// Clean Up Sessions… and session health inside the real extension host, against the reference
// agent as a real process: a rule's run archives exactly what the store says it selects, one
// Undo restores them all, Delete takes archived sessions only and only after the modal, the
// vendor extension's seam works the same, and missing folders and failed loads are marked in
// the tree, shown alone by the Problems filter and selectable by the clean-up.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import type { CleanupResult } from '../../src/ui/sessions/cleanup';
import { seedMany } from '../agent/seed';
import { readSession, updateSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, closeAllTranscripts, config, configureAgent, removeTempDirs, tempDir, until, workspaceFolder } from './support';

const DAY = 86_400_000;
const GONE = ['/acp-sessions-it/gone-a', '/acp-sessions-it/gone-b'];

let api: AcpSessionsApi;
let counter = 0;

async function bulkStore(count: number): Promise<{ store: string; sessions: StoredSession[] }> {
  const store = tempDir('acp-cleanup-it-');
  const sessions = await seedMany({ store, count, folders: [workspaceFolder()], missingFolders: GONE, days: 90, seed: 7 });
  return { store, sessions };
}

function useAgent(store: string, flags: string[] = []): Promise<string> {
  return configureAgent(api, `Cleanup ${++counter}`, process.execPath, [agentScript, '--store', store, '--page-size', '9', ...flags]);
}

const ids = (list: readonly { sessionId: string }[]) => list.map((s) => s.sessionId).sort();
const olderThan = (s: StoredSession, days: number) => Date.now() - Date.parse(s.updatedAt) > days * DAY;

async function cleanUp(request: unknown): Promise<CleanupResult> {
  return (await vscode.commands.executeCommand('acpSessions.cleanUp', request)) as CleanupResult;
}

async function storeState(store: string, sessions: readonly StoredSession[]): Promise<Map<string, StoredSession>> {
  const state = new Map<string, StoredSession>();
  for (const s of sessions) state.set(s.sessionId, (await readSession(store, s.sessionId))!);
  return state;
}

/** The session rows the tree shows (walked through the view's own data provider), by id. */
async function sessionRows(): Promise<Map<string, vscode.TreeItem>> {
  const provider = api.sessions.view;
  const found = new Map<string, vscode.TreeItem>();
  let loading = false;
  const walk = async (node?: any): Promise<void> => {
    for (const child of (await provider.getChildren(node)) ?? []) {
      const item = await provider.getTreeItem(child);
      if (item.contextValue === 'message:loading') loading = true;
      if ((child as any).session) found.set((child as any).session.sessionId, item);
      if (item.collapsibleState !== vscode.TreeItemCollapsibleState.None) await walk(child);
    }
  };
  await walk();
  return loading ? new Map() : found;
}

function tooltipText(item: vscode.TreeItem): string {
  const value = typeof item.tooltip === 'string' ? item.tooltip : (item.tooltip?.value ?? '');
  return value.replace(/&nbsp;/g, ' ').replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

const iconId = (item: vscode.TreeItem) => (item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined);

suite('Clean up and session health', () => {
  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'all', vscode.ConfigurationTarget.Global);
    await config().update('pageSize', 500, vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('acpSessions.showAllSessions');
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    await config().update('pageSize', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('an archive run selects exactly the active sessions the rule matches (every page), archives them in the store, and one Undo restores them all', async () => {
    const { store, sessions } = await bulkStore(60);
    const agent = await useAgent(store);
    const expected = ids(sessions.filter((s) => !s.archived && olderThan(s, 30)));
    assert.ok(expected.length > 9, 'more than one page of the agent is selected');
    const shown = api.sessions.messages.shown.length;
    const result = await cleanUp({ agent, rule: { olderThanDays: 30 } });
    assert.deepEqual(ids(result.selection!.selected.map((c) => c.session)), expected);
    assert.equal(result.done.length, expected.length);
    const after = await storeState(store, sessions);
    for (const s of sessions) assert.equal(after.get(s.sessionId)!.archived, s.archived || expected.includes(s.sessionId), s.sessionId);

    const summary = await until('the summary is shown', () => api.sessions.messages.shown.slice(shown).find((m) => m.actions.includes('Undo')));
    assert.equal(summary.text, `Archived ${expected.length} sessions.`);
    assert.equal(api.sessions.messages.shown.slice(shown).length, 1, 'one summary for the whole run');
    api.sessions.messages.choose(summary, 'Undo');
    await result.undone;
    const restored = await storeState(store, sessions);
    for (const s of sessions) assert.equal(restored.get(s.sessionId)!.archived, s.archived, `${s.sessionId} is as it was`);
  });

  test('a delete run asks in a modal, and then deletes archived sessions only; cancelled, it deletes nothing', async () => {
    const { store, sessions } = await bulkStore(40);
    const agent = await useAgent(store);
    const expected = ids(sessions.filter((s) => s.archived && olderThan(s, 10)));
    assert.ok(expected.length > 0);

    api.sessions.messages.answerNextModal(undefined);
    const cancelled = await cleanUp({ agent, action: 'delete', rule: { olderThanDays: 10 } });
    assert.equal(cancelled.stopped, 'cancelled');
    assert.ok([...(await storeState(store, sessions)).values()].every((s) => !s.deleted), 'nothing deleted');

    const shown = api.sessions.messages.shown.length;
    api.sessions.messages.answerNextModal('Delete');
    const result = await cleanUp({ agent, action: 'delete', rule: { olderThanDays: 10 } });
    const modal = api.sessions.messages.shown.slice(shown).find((m) => m.modal);
    assert.equal(modal?.text, `Delete ${expected.length} archived sessions?`);
    assert.deepEqual(ids(result.done), expected);
    const after = await storeState(store, sessions);
    for (const s of sessions) assert.equal(after.get(s.sessionId)!.deleted, expected.includes(s.sessionId), s.sessionId);
  });

  test('sessions the agent reports as running or waiting for the user (AIR state) match but are left alone', async () => {
    const { store, sessions } = await bulkStore(30);
    const matching = sessions.filter((s) => !s.archived && olderThan(s, 10));
    assert.ok(matching.length >= 3);
    const busy = new Map([[matching[0].sessionId, 'running'], [matching[1].sessionId, 'requires_action']]);
    for (const [id, state] of busy) await updateSession(store, id, (r) => ({ ...r, state }));
    const agent = await useAgent(store, ['--archive-extension', '--air-state']);
    const result = await cleanUp({ agent, rule: { olderThanDays: 10 } });
    assert.deepEqual(ids(result.selection!.running.map((c) => c.session)), [...busy.keys()].sort());
    assert.deepEqual(ids(result.done), ids(matching.filter((s) => !busy.has(s.sessionId))));
    const after = await storeState(store, sessions);
    for (const id of busy.keys()) assert.equal(after.get(id)!.archived, false, `${id} (busy) is still active`);
  });

  test('through the vendor extension (--archive-extension) a run archives the sessions of missing folders', async () => {
    const { store, sessions } = await bulkStore(30);
    const agent = await useAgent(store, ['--archive-extension']);
    const expected = ids(sessions.filter((s) => !s.archived && GONE.includes(s.cwd)));
    const result = await cleanUp({ agent, rule: { missingFolder: true } });
    assert.equal(api.agents.agent(agent)?.capabilities?.archiveMethod, 'jetbrains-air');
    assert.deepEqual(ids(result.done), expected);
    const after = await storeState(store, sessions);
    for (const s of sessions) assert.equal(after.get(s.sessionId)!.archived, s.archived || expected.includes(s.sessionId), s.sessionId);
  });

  test('a session whose folder is gone has a warning icon and a tooltip saying so; the Problems filter shows only such sessions', async () => {
    const { store, sessions } = await bulkStore(12);
    assert.ok(GONE.every((f) => !existsSync(f)));
    await useAgent(store);
    const gone = ids(sessions.filter((s) => GONE.includes(s.cwd)));
    const rows = await until('the tree marks the sessions of missing folders', async () => {
      const found = await sessionRows();
      return found.size === sessions.length && gone.every((id) => iconId(found.get(id)!) === 'warning') ? found : undefined;
    });
    const marked = [...rows].filter(([, item]) => iconId(item) === 'warning').map(([id]) => id).sort();
    assert.deepEqual(marked, gone, 'only those are marked');
    const goneSession = sessions.find((s) => GONE.includes(s.cwd))!;
    assert.match(tooltipText(rows.get(goneSession.sessionId)!), new RegExp(`Its folder no longer exists: ${goneSession.cwd} \\(found missing .*\\d`));
    assert.match(String(rows.get(goneSession.sessionId)!.contextValue), /:problem$/);

    await vscode.commands.executeCommand('acpSessions.showProblemsOnly');
    const filtered = await until('the Problems filter shows only marked sessions', async () => {
      const found = await sessionRows();
      return found.size === gone.length ? found : undefined;
    });
    assert.deepEqual([...filtered.keys()].sort(), gone);
    await vscode.commands.executeCommand('acpSessions.showAllSessions');
    await until('every session shows again', async () => (await sessionRows()).size === sessions.length);
  });

  test('a session whose load the agent refused is marked with the reason and date, remembered, and selected by "sessions with problems"', async () => {
    const { store, sessions } = await bulkStore(6);
    const agent = await useAgent(store, ['--fail', 'session/load=-32600']);
    const target = sessions.find((s) => !s.archived && !GONE.includes(s.cwd))!;
    await api.transcripts.open(agent, { sessionId: target.sessionId, cwd: target.cwd, title: target.title });
    const problem = await until('the failed load is recorded', () => api.sessions.health.problemOf(agent, target));
    assert.equal(problem.kind, 'loadFailed');
    assert.match(problem.detail, /session\/load failed on purpose/);
    const item = await until('the row is marked', async () => {
      const found = (await sessionRows()).get(target.sessionId);
      return found && iconId(found) === 'warning' ? found : undefined;
    });
    assert.match(tooltipText(item), /Its transcript failed to load on .*\d.*: .*session\/load failed on purpose/);
    await closeAllTranscripts(api);

    const result = await cleanUp({ agent, rule: { problems: true } });
    const expected = ids(sessions.filter((s) => !s.archived && (s.sessionId === target.sessionId || GONE.includes(s.cwd))));
    assert.deepEqual(ids(result.selection!.selected.map((c) => c.session)), expected);
  });

  test('a load that timed out, hit the agent\'s internal error or was answered -32602 leaves the session unmarked (a slow load is not a broken session)', async () => {
    // A one-second deadline for this test only (the next suites archive hundreds at once).
    await config().update('requestTimeout', 1000, vscode.ConfigurationTarget.Global);
    try {
      await loadsLeaveNoMark();
    } finally {
      await config().update('requestTimeout', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});

/** Opens a session whose load fails with -32603 or -32602 (OpenCode, Auggie), then one whose load times out: none is marked. */
async function loadsLeaveNoMark(): Promise<void> {
  for (const flags of [['--fail', 'session/load=-32603'], ['--fail', 'session/load=-32602'], ['--hang', 'session/load']]) {
    const { store, sessions } = await bulkStore(6);
    const agent = await useAgent(store, flags);
    const target = sessions.find((s) => !s.archived && !GONE.includes(s.cwd))!;
    await api.transcripts.open(agent, { sessionId: target.sessionId, cwd: target.cwd, title: target.title }).catch(() => undefined);
    // The health hook runs before the replay counts as done.
    const state = await api.transcripts.whenLoaded(agent, target.sessionId);
    assert.ok(state.problem, `the transcript shows the failure (${flags.join(' ')})`);
    assert.equal(api.sessions.health.problemOf(agent, target), undefined, `${flags.join(' ')}: not remembered as the session's health`);
    await closeAllTranscripts(api);
  }
}
