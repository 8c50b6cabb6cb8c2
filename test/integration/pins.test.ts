// Pins inside a real VS Code extension host, against the reference agent as a real process: a
// pinned session that the agent stops listing (deleted or expired outside this window) stays in
// the tree as a "gone" row until unpinned, also when it was the last session of its folder, and
// under the view's filters only where it belongs (a problem to see; neither unread nor waiting).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { markSessionDeleted, writeSession } from '../agent/store';
import { activateExtension, agentScript, config, configureAgent, removeTempDirs, tempDir, until, workspaceFolder, treeRows, type TreeRow } from './support';

let api: AcpSessionsApi;

type Row = TreeRow;
const walk = () => treeRows(api);

const label = (r: Row) => (typeof r.item.label === 'string' ? r.item.label : r.item.label?.label ?? '');

suite('Pins', () => {
  suiteSetup(async () => {
    api = await activateExtension();
  });

  suiteTeardown(async () => {
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('the only session of a folder, pinned and then deleted outside the window, shows as gone (not "No active sessions") until Unpin; Show Only Sessions with Problems lists it, Show Only Unread and Waiting hide it', async function () {
    this.timeout(60_000);
    const store = tempDir('acp-pins-');
    await writeSession(store, { sessionId: 'only', cwd: workspaceFolder(), title: 'The only one', updatedAt: new Date().toISOString(), archived: false, deleted: false, updates: [] });
    const agent = await configureAgent(api, 'Pinning agent', process.execPath, [agentScript, '--store', store]);
    const row = await until('the session is in the tree', async () => (await walk()).find((r) => r.node?.session?.sessionId === 'only' && r.node.agent === agent));
    await vscode.commands.executeCommand('acpSessions.pin', row.node);

    await markSessionDeleted(store, 'only');
    await vscode.commands.executeCommand('acpSessions.refresh');
    const gone = await until('the pin shows as gone', async () => {
      const rows = await walk();
      if (rows.some((r) => r.item.contextValue === 'message:loading')) return undefined;
      return rows.find((r) => r.item.contextValue === 'pin:gone' && r.node.agent === agent);
    });
    assert.equal(label(gone), 'The only one');
    assert.equal(gone.item.description, 'gone');
    // Under Show Only Sessions with Problems the gone pin is what there is to see; it is neither unread nor waiting.
    const labelsUnder = async (filter: string, what: string, expected: string) => {
      await vscode.commands.executeCommand(filter);
      return until(what, async () => {
        // The rows of the agent's Active section (one folder open: no folder rows).
        const rows = (await walk()).filter((r) => r.node.parent?.section === 'active' && r.node.parent.agent === agent);
        const labels = rows.map(label);
        return labels.length === 1 && labels[0] === expected && rows;
      });
    };
    try {
      await labelsUnder('acpSessions.showProblemsOnly', 'the gone pin is listed under Show Only Sessions with Problems', 'The only one');
      await labelsUnder('acpSessions.showUnreadOnly', 'under Show Only Unread the gone pin is hidden and the folder says it is empty', 'No active sessions in this folder');
      await labelsUnder('acpSessions.showWaitingOnly', 'under Show Only Waiting for You likewise', 'No active sessions in this folder');
    } finally {
      await vscode.commands.executeCommand('acpSessions.showAllSessions');
    }

    await vscode.commands.executeCommand('acpSessions.unpin', gone.node);
    const after = await until('Unpin removed the row and the section says it is empty', async () => {
      const rows = await walk();
      return rows.some((r) => r.item.contextValue === 'pin:gone') ? undefined : rows.some((r) => label(r) === 'No active sessions in this folder') && rows;
    });
    assert.ok(after);
  });
});
