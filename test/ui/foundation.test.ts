// The foundation as a person sees it: the ACP Sessions activity bar entry, the Sessions view
// and its "no agent" welcome, the palette commands, and that a workspace cannot add an agent.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot, startWorkbench } from './harness';

const NO_AGENT = 'No agent is configured yet';

test('the ACP Sessions activity bar entry opens the Sessions view, which explains that no agent is configured', async () => {
  const wb = await startWorkbench();
  try {
    const view = await wb.openSessionsView();
    await view.getByText(NO_AGENT).waitFor();
    assert.ok(await view.getByRole('button', { name: 'Add Agent…' }).isVisible());
    assert.ok(await view.getByRole('button', { name: 'Open Settings' }).isVisible());
    await wb.screenshot('sessions-view-no-agent');
  } finally {
    await wb.close();
  }
});

test('an agent in the user settings is listed in place of the "no agent" welcome', async () => {
  const store = mkdtempSync(join(tmpdir(), 'acp-ui-store-'));
  const wb = await startWorkbench({
    agents: [{ name: 'Reference Agent', command: process.execPath, args: [join(repoRoot(), 'out', 'test', 'agent', 'agent.mjs'), '--store', store] }],
  });
  try {
    const view = await wb.openSessionsView();
    await view.locator('.monaco-list-row', { hasText: 'Reference Agent' }).first().waitFor();
    assert.equal(await view.getByText(NO_AGENT).count(), 0);
    await wb.screenshot('sessions-view-one-agent');
  } finally {
    await wb.close();
    rmSync(store, { recursive: true, force: true });
  }
});

test('an agent named in a workspace\'s .vscode/settings.json is not configured', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'acp-ui-workspace-'));
  mkdirSync(join(folder, '.vscode'));
  writeFileSync(join(folder, '.vscode', 'settings.json'), JSON.stringify({
    'acpSessions.agents': [{ name: 'From the workspace', command: '/bin/sh', args: ['-c', 'exit 0'] }],
  }));
  const wb = await startWorkbench({ folders: [folder] });
  try {
    const view = await wb.openSessionsView();
    await view.getByText(NO_AGENT).waitFor();
    assert.equal(await view.getByText('From the workspace').count(), 0);
    await wb.screenshot('workspace-agent-ignored');
  } finally {
    await wb.close();
    rmSync(folder, { recursive: true, force: true });
  }
});

test('"ACP Sessions: Show Log" from the palette shows the ACP Sessions output', async () => {
  const wb = await startWorkbench();
  try {
    await wb.runCommand('ACP Sessions: Show Log');
    const panel = wb.page.locator('.part.panel');
    // The output view names the channel it shows in its channel picker.
    const picker = panel.locator('select.monaco-select-box, .monaco-select-box').filter({ hasText: 'ACP Sessions' }).first();
    await wb.until('the Output view shows the ACP Sessions channel', () => picker.isVisible());
    await wb.screenshot('show-log');
  } finally {
    await wb.close();
  }
});

test('"ACP Sessions: Configure Agents" opens the settings editor on acpSessions.agents, where it can be set', async () => {
  const wb = await startWorkbench();
  try {
    await wb.runCommand('ACP Sessions: Configure Agents');
    const editor = wb.page.locator('.settings-editor');
    // The setting is machine-scoped: in this remote window it is listed on the Remote tab.
    await editor.getByText('The ACP agents to start', { exact: false }).first().waitFor();
    await editor.getByText('1 Setting Found').waitFor();
    await wb.screenshot('configure-agents');
  } finally {
    await wb.close();
  }
});
