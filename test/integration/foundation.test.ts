// The foundation, checked inside a real VS Code: the extension activates on demand, contributes
// its view container, view, commands and log channel, and ignores agents named by a workspace.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { readAgentConfigs, readRequestTimeout, readTraceLevel } from '../../src/ui/settings';

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
    const config = vscode.workspace.getConfiguration('acpSessions');
    try {
      await config.update('requestTimeout', 5, vscode.ConfigurationTarget.Global);
      assert.equal(readRequestTimeout(), 1_000);
      await config.update('requestTimeout', 1e12, vscode.ConfigurationTarget.Global);
      assert.equal(readRequestTimeout(), 600_000);
      await config.update('trace.server', 'messages', vscode.ConfigurationTarget.Global);
      assert.equal(readTraceLevel(), 'messages', 'the user can trace');
    } finally {
      await config.update('requestTimeout', undefined, vscode.ConfigurationTarget.Global);
      await config.update('trace.server', undefined, vscode.ConfigurationTarget.Global);
    }
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
