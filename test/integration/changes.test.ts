// What a session changed (issue 34, item 4), in the real extension host against the reference
// agent: nothing is known of a session until a replay of it was received (its tooltip says so,
// never "0 files"); opening its transcript, or indexing it for search, counts the files its tool
// calls wrote, which its row's tooltip then names (and, with acpSessions.showChanges, its
// description); the transcript's header lists them, and each opens as a read-only diff of virtual
// documents or as the file itself, with nothing written.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { SessionUpdate } from '../../src/acp/types';
import type { AcpSessionsApi } from '../../src/extension';
import { writeSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, closeAllTranscripts, config, configureAgent, hoveredItem, removeTempDirs, sessionRow, tempDir, until, workspaceFolder } from './support';

let api: AcpSessionsApi;
let counter = 0;

const u = (update: Record<string, unknown>) => update as unknown as SessionUpdate;

function edit(id: string, path: string, oldText: string | null, newText: string): SessionUpdate[] {
  return [
    u({ sessionUpdate: 'tool_call', toolCallId: id, title: `Edit ${path}`, kind: 'edit', status: 'pending', locations: [{ path }] }),
    u({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'diff', path, oldText, newText }] }),
  ];
}

function record(sessionId: string, updates: SessionUpdate[]): StoredSession {
  return {
    sessionId,
    cwd: workspaceFolder(),
    title: `Changes ${sessionId}`,
    updatedAt: new Date(Date.now() - 60_000).toISOString(),
    archived: false,
    deleted: false,
    updates: [u({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'please change things' } }), ...updates],
  };
}

async function agentWith(records: StoredSession[]): Promise<string> {
  const store = tempDir('acp-changes-');
  for (const r of records) await writeSession(store, r);
  const agent = await configureAgent(api, `Changes agent ${++counter}`, process.execPath, [agentScript, '--store', store]);
  for (const r of records) await until(`${r.sessionId} is in the tree`, () => sessionRow(api, r.sessionId));
  return agent;
}

async function item(sessionId: string): Promise<vscode.TreeItem> {
  const node = await sessionRow(api, sessionId);
  assert.ok(node, `${sessionId} has a row`);
  return hoveredItem(api, node);
}

function tooltipText(item: vscode.TreeItem): string {
  const value = typeof item.tooltip === 'string' ? item.tooltip : (item.tooltip?.value ?? '');
  return value.replace(/&nbsp;/g, ' ').replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

/** The diff editor in front, as its two sides' URIs. */
function activeDiff(): { original: vscode.Uri; modified: vscode.Uri } | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputTextDiff ? input : undefined;
}

suite('What a session changed', () => {
  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
    // Nothing loads a session in the background here: what is known comes from the replays the tests ask for.
    await config().update('search.backgroundIndexing', false, vscode.ConfigurationTarget.Global);
  });

  teardown(async () => {
    await closeAllTranscripts(api);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await config().update('showChanges', undefined, vscode.ConfigurationTarget.Global);
    await config().update('search.backgroundIndexing', false, vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async () => {
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    await config().update('search.backgroundIndexing', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('unknown until a replay: then the tooltip names the files, the description shows the figure with showChanges, the header lists them; each opens read-only with nothing written', async () => {
    const folder = workspaceFolder();
    const app = join(folder, 'changes-src', 'app.ts');
    const notes = join(folder, 'changes-src', 'notes.md');
    mkdirSync(join(folder, 'changes-src'), { recursive: true });
    writeFileSync(app, 'export const version = 2;\nexport const name = "app";\n');
    const agent = await agentWith([record('chg1', [
      ...edit('t1', app, 'export const version = 1;\n', 'export const version = 2;\nexport const name = "app";\n'),
      ...edit('t2', notes, null, '# Notes\n\n[click](command:workbench.action.quit) **bold**\n'),
      ...edit('t3', app, 'export const version = 2;\nexport const name = "app";\n', 'export const version = 2;\nexport const name = "app";\n'),
    ])]);
    const before = await item('chg1');
    assert.match(tooltipText(before), /Changes: not known yet\. Open it to see what it changed\./);
    assert.doesNotMatch(tooltipText(before), /0 files/);

    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionRow(api, 'chg1'));
    const state = await api.transcripts.whenLoaded(agent, 'chg1');
    assert.deepEqual(state.changes, {
      files: [
        { shown: join('changes-src', 'app.ts'), added: 2, removed: 1, linesKnown: true, diff: true },
        { shown: join('changes-src', 'notes.md'), added: 3, removed: 0, linesKnown: true, diff: true },
      ],
      total: 2,
      added: 5,
      removed: 1,
    });
    await until('the tree knows what chg1 changed', () => api.sessions.changes.get(agent, 'chg1'));
    const after = await until('the row\'s tooltip names the files', async () => {
      const i = await item('chg1');
      return /Changes: 2 files, \+5 −1/.test(tooltipText(i)) && i;
    });
    const tip = tooltipText(after);
    assert.match(tip, /• changes-src\/app\.ts \(\+2 −1\)/);
    assert.match(tip, /• changes-src\/notes\.md \(\+3 −0\)/);
    // The agent's text is escaped whole: no link of it survives in the Markdown.
    assert.doesNotMatch((after.tooltip as vscode.MarkdownString).value, /\]\(command:/);
    assert.doesNotMatch(String(after.description), /files/, 'the description shows it only with acpSessions.showChanges');
    await config().update('showChanges', true, vscode.ConfigurationTarget.Global);
    await until('the description shows the figure', async () => String((await item('chg1')).description).includes('2 files, +5 −1'));

    // The header's first file: its diff, from the session's first old text to its last new text.
    api.transcripts.receiveFromWebview(agent, 'chg1', { type: 'openChange', index: 0, target: 'diff' });
    const diff = await until('a diff editor shows app.ts', () => activeDiff());
    assert.equal(diff.original.scheme, 'acp-sessions-diff');
    assert.equal(diff.modified.scheme, 'acp-sessions-diff');
    assert.equal((await vscode.workspace.openTextDocument(diff.original)).getText(), 'export const version = 1;\n');
    assert.equal((await vscode.workspace.openTextDocument(diff.modified)).getText(), 'export const version = 2;\nexport const name = "app";\n');
    assert.match(vscode.window.tabGroups.activeTabGroup.activeTab?.label ?? '', /read-only/);
    // Nothing was written: the file is as it was, and the one the session created is not there.
    assert.equal(readFileSync(app, 'utf8'), 'export const version = 2;\nexport const name = "app";\n');
    assert.equal(existsSync(notes), false);

    // The file itself.
    api.transcripts.receiveFromWebview(agent, 'chg1', { type: 'openChange', index: 0, target: 'file' });
    await until('app.ts itself is open', () => vscode.window.activeTextEditor?.document.uri.fsPath === app);
    // A path the host does not list is refused (the webview names a place, never a path).
    api.transcripts.receiveFromWebview(agent, 'chg1', { type: 'openChange', index: 7, target: 'diff' });
    api.transcripts.receiveFromWebview(agent, 'chg1', { type: 'openChange', index: -1, target: 'file' } as never);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, app);
  });

  test('a path from the agent is plain text: no link, emphasis or element of it in the tooltip or the header', async () => {
    const hostile = join(workspaceFolder(), '[run](command:workbench.action.quit) **bold** <img src=x onerror=alert(1)> $(zap).ts');
    const agent = await agentWith([record('chg4', edit('t1', hostile, null, 'x\n'))]);
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionRow(api, 'chg4'));
    const state = await api.transcripts.whenLoaded(agent, 'chg4');
    assert.equal(state.changes?.files[0].shown, '[run](command:workbench.action.quit) **bold** <img src=x onerror=alert(1)> $(zap).ts', 'the header gets the text as it is (the page sets it as text)');
    const tip = await until('the tooltip names the file', async () => {
      const t = (await item('chg4')).tooltip as vscode.MarkdownString;
      return t.value.includes('bold') && t;
    });
    assert.ok(!tip.isTrusted && !tip.supportHtml && !tip.supportThemeIcons);
    assert.doesNotMatch(tip.value, /\]\(command:/, 'no link survives');
    assert.doesNotMatch(tip.value, /(^|[^\\])\*\*bold/, 'no emphasis survives');
    assert.doesNotMatch(tip.value, /(^|[^\\])<img/, 'no element survives');
    assert.match(tooltipText((await item('chg4'))), /• \[run\]\(command:workbench\.action\.quit\) \*\*bold\*\* <img src=x onerror=alert\(1\)> \$\(zap\)\.ts \(\+1 −0\)/);
  });

  test('a session indexed for search (never opened) gets its changes from that replay; a session whose replay wrote nothing says so', async () => {
    const folder = workspaceFolder();
    const agent = await agentWith([
      record('chg2', edit('t1', join(folder, 'lib.ts'), 'a\nb\n', 'a\nB\n')),
      record('chg3', []),
    ]);
    // The reference agent's loads change nothing: in the background, search indexes what it lists.
    await config().update('search.backgroundIndexing', true, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('acpSessions.search.refresh');
    await until('both sessions are indexed', async () => (await api.search.ready).index.sessions(agent).length === 2, 30_000);
    await until('chg2\'s changes are known', () => api.sessions.changes.get(agent, 'chg2'));
    await until('the tooltip says what chg2 changed', async () => /Changes: 1 file, \+1 −1/.test(tooltipText(await item('chg2'))));
    await until('the tooltip says chg3 changed nothing', async () => /Changes: no files changed/.test(tooltipText(await item('chg3'))));
  });
});
