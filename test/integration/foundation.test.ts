// The foundation, checked inside a real VS Code: the extension activates on demand, contributes
// its view container, view, commands and log channel, and ignores agents named by a workspace.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { writeReplay } from '../../src/transcript/replayFile';
import { readAgentConfigs, readRequestTimeout, readTraceLevel, watchTraceLevel } from '../../src/ui/common/settings';
import { closeAllTranscripts, until } from './support';

const EXTENSION_ID = 'acp-sessions.acp-sessions';

function extension(): vscode.Extension<AcpSessionsApi> {
  const ext = vscode.extensions.getExtension<AcpSessionsApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed in this VS Code`);
  return ext;
}

/** The agents the workspace's .vscode/settings.json tries to configure (the runner writes it). */
function workspaceAgents(): { folder: string; names: string[]; marker: string } {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(folder, 'the integration run opens a workspace folder');
  const settings = JSON.parse(readFileSync(join(folder, '.vscode', 'settings.json'), 'utf8'));
  const agents = settings['acpSessions.agents'] as Array<{ name: string }>;
  assert.ok(Array.isArray(agents) && agents.length > 0, 'the workspace settings name an agent');
  return { folder, names: agents.map((a) => a.name), marker: join(folder, 'workspace-agent-ran') };
}

suite('Foundation', () => {
  test('nothing activates the extension on startup', () => {
    assert.equal(extension().isActive, false);
  });

  test('opening the ACP Sessions container shows the Sessions view and activates the extension', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('workbench.view.extension.acpSessions'), 'the ACP Sessions view container exists');
    assert.ok(commands.includes('acpSessions.sessions.focus'), 'the view acpSessions.sessions exists');
    await vscode.commands.executeCommand('workbench.view.extension.acpSessions');
    await vscode.commands.executeCommand('acpSessions.sessions.focus');
    const api = await extension().activate();
    assert.equal(extension().isActive, true);
    assert.ok(api, 'activate() returns the extension API');
  });

  // Right after the activation above: no suite has opened a transcript or searched yet.
  test('activation reads neither dist/transcripts.js nor dist/search.js; an exported transcript and a search load them and work', async () => {
    const ext = extension();
    const api = await ext.activate();
    const loaded = (bundle: string) => require.cache[join(ext.extensionPath, 'dist', bundle)] !== undefined;
    assert.ok(loaded('extension.js'), 'the extension runs from dist/extension.js');
    assert.equal(loaded('transcripts.js'), false, 'activation did not load the transcripts bundle');
    assert.equal(loaded('search.js'), false, 'activation did not load the search bundle');

    const dir = mkdtempSync(join(tmpdir(), 'acp-foundation-'));
    try {
      const file = join(dir, 'replay.ndjson');
      const updates = [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hello from the replay' } }];
      writeFileSync(file, writeReplay({ agentName: 'exported-agent', sessionId: 'exported-1', cwd: dir, title: 'Exported', exportedAt: new Date().toISOString() }, updates as never));
      await vscode.commands.executeCommand('acpSessions.openExportedTranscript', vscode.Uri.file(file));
      assert.ok(loaded('transcripts.js'), 'opening a transcript loaded the transcripts bundle');
      const state = await until('the exported transcript shows its replay', () => {
        const s = api.transcripts.exportedState(file);
        return s && !s.loading && s.entityCount > 0 ? s : undefined;
      });
      assert.equal(state.exported, true);
      assert.equal(state.kinds.user_message, 1);
      await closeAllTranscripts(api);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    await vscode.commands.executeCommand('acpSessions.search', 'no such words anywhere');
    assert.ok(loaded('search.js'), 'searching loaded the search bundle');
    assert.equal(api.search.view.state.query, 'no such words anywhere');
    assert.equal(api.search.view.state.result?.sessions.length, 0);
    await vscode.commands.executeCommand('acpSessions.search.clear');
    await until('the query is cleared', () => api.search.view.state.query === '');
  });

  test('the commands of the foundation are registered', async () => {
    await extension().activate();
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['acpSessions.showLog', 'acpSessions.openSettings']) {
      assert.ok(commands.includes(id), `${id} is registered`);
    }
  });

  test('every command the manifest contributes is registered once the extension is active', async () => {
    const ext = extension();
    await ext.activate();
    const contributed = (ext.packageJSON.contributes.commands as Array<{ command: string }>).map((c) => c.command);
    assert.ok(contributed.length > 0, 'the manifest contributes commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], 'a menu or palette entry without a command would fail when clicked');
  });

  test('logs go to the "ACP Sessions" log output channel', async () => {
    const api = await extension().activate();
    assert.equal(api.log.name, 'ACP Sessions');
    // A LogOutputChannel has a level; a plain OutputChannel does not.
    assert.equal(typeof api.log.logLevel, 'number');
    await vscode.commands.executeCommand('acpSessions.showLog');
  });

  test('a workspace cannot set requestTimeout or trace.server; the timeout is clamped', async () => {
    const settings = JSON.parse(readFileSync(join(workspaceAgents().folder, '.vscode', 'settings.json'), 'utf8'));
    assert.equal(settings['acpSessions.requestTimeout'], 0, 'the workspace tries a timeout of 0');
    assert.equal(settings['acpSessions.trace.server'], 'verbose', 'the workspace tries to trace');
    assert.equal(readRequestTimeout(), 30_000);
    assert.equal(readTraceLevel(), 'off');
    // As the connections ask for it, with every piece of output: read again when the setting changes.
    const watched = watchTraceLevel();
    assert.equal(watched.current(), 'off');
    const config = vscode.workspace.getConfiguration('acpSessions');
    try {
      await config.update('requestTimeout', 5, vscode.ConfigurationTarget.Global);
      assert.equal(readRequestTimeout(), 1_000);
      await config.update('requestTimeout', 1e12, vscode.ConfigurationTarget.Global);
      assert.equal(readRequestTimeout(), 600_000);
      await config.update('trace.server', 'messages', vscode.ConfigurationTarget.Global);
      assert.equal(readTraceLevel(), 'messages', 'the user can trace');
      assert.equal(watched.current(), 'messages', 'a connection traces from the change on');
    } finally {
      await config.update('requestTimeout', undefined, vscode.ConfigurationTarget.Global);
      await config.update('trace.server', undefined, vscode.ConfigurationTarget.Global);
      watched.dispose();
    }
    assert.equal(readTraceLevel(), 'off');
  });

  test('agents in a workspace\'s .vscode/settings.json are ignored', async () => {
    const api = await extension().activate();
    const { names, marker } = workspaceAgents();
    const inspected = vscode.workspace.getConfiguration('acpSessions').inspect<Array<{ name: string }>>('agents');
    const effective = vscode.workspace.getConfiguration('acpSessions').get<Array<{ name: string }>>('agents') ?? [];
    for (const name of names) {
      assert.ok(!effective.some((a) => a.name === name), `the effective setting does not contain ${name}`);
      assert.ok(!readAgentConfigs().some((a) => a.name === name), `the extension does not configure ${name}`);
      assert.ok(!(inspected?.globalValue ?? []).some((a) => a.name === name), `${name} is not a user setting`);
      assert.ok(!api.agents.agents.some((a) => a.name === name), `the agent registry has no ${name}`);
    }
    // The view was opened above, which is when configured agents are started.
    await vscode.commands.executeCommand('workbench.view.extension.acpSessions');
    assert.equal(existsSync(marker), false, 'the program named by the workspace never ran');
  });
});
