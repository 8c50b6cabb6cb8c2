// What the integration suites share: the extension's API, the reference agent configured in the
// USER settings, temporary folders, and waiting on conditions the extension makes true.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';

export const EXTENSION_ID = 'acp-sessions.acp-sessions';
const repoRoot = process.env.ACP_REPO_ROOT ?? join(__dirname, '..', '..', '..');
export const agentScript = join(repoRoot, 'out', 'test', 'agent', 'agent.mjs');

export function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('acpSessions');
}

/** Activates the extension (if it is not yet) and returns its API. */
export async function activateExtension(): Promise<AcpSessionsApi> {
  const ext = vscode.extensions.getExtension<AcpSessionsApi>(EXTENSION_ID);
  assert.ok(ext);
  return ext.activate();
}

export function workspaceFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(folder, 'the integration run opens a workspace folder');
  return folder;
}

const tempDirs: string[] = [];

/** A new temporary folder, removed by `removeTempDirs` (call it in suiteTeardown). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Waits for a condition the extension makes true (bounded: a hang guard, not a speed limit). */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Makes `{ name, command, args }` the one configured agent (a fresh name, so a fresh process)
 * and waits until the registry has it.
 */
export async function configureAgent(api: AcpSessionsApi, name: string, command: string, args: string[]): Promise<string> {
  await config().update('agents', [{ name, command, args }], vscode.ConfigurationTarget.Global);
  await until(`agent "${name}" is configured`, () => api.agents.agents.some((a) => a.name === name));
  return name;
}

export function transcriptTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('acpSessions.transcript'));
}

/** The transcript tabs, once the workbench's tab model has caught up with the open panels. */
export async function openTranscriptTabs(api: AcpSessionsApi): Promise<vscode.Tab[]> {
  return until('the tab model shows every open transcript', () => {
    const tabs = transcriptTabs();
    return tabs.length === api.transcripts.openCount ? tabs : undefined;
  });
}

export async function closeAllTranscripts(api: AcpSessionsApi): Promise<void> {
  const tabs = await openTranscriptTabs(api);
  if (tabs.length) await vscode.window.tabGroups.close(tabs);
  await until('every transcript is closed', () => api.transcripts.openCount === 0);
}

/**
 * Node arguments that run `args` (a node script and its flags) behind a small tee, which appends
 * every line the client sends to `capture`: what went over the wire, as the agent received it.
 */
export function capturingArgs(capture: string, args: string[]): string[] {
  writeFileSync(capture, '');
  const tee = `
    const { spawn } = require('node:child_process');
    const { appendFileSync } = require('node:fs');
    const [capture, ...rest] = process.argv.slice(1);
    const child = spawn(process.execPath, rest, { stdio: ['pipe', 'inherit', 'inherit'] });
    process.stdin.on('data', (c) => { appendFileSync(capture, c); child.stdin.write(c); });
    process.stdin.on('end', () => child.stdin.end());
    child.stdin.on('error', () => {});
    process.on('SIGTERM', () => child.kill('SIGTERM'));
    child.on('exit', (code) => process.exit(code ?? 1));`;
  return ['-e', tee, capture, ...args];
}

/** The Sessions tree's row of `sessionId`, found as VS Code would fetch it (which lists). */
export async function sessionRow(api: AcpSessionsApi, sessionId: string, parent?: unknown): Promise<unknown> {
  for (const node of (await api.sessions.view.getChildren(parent as never)) ?? []) {
    if ((node as { session?: { sessionId?: string } }).session?.sessionId === sessionId) return node;
    const below = await sessionRow(api, sessionId, node);
    if (below) return below;
  }
  return undefined;
}

/** A row of the Sessions tree: its node and its item. */
export interface TreeRow {
  node: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  item: vscode.TreeItem;
}

/**
 * A row's item as a user sees it on hover: VS Code asks the view for the tooltip of a row with
 * rows under it only then (resolveTreeItem), as it does here.
 */
export async function hoveredItem(api: AcpSessionsApi, node: unknown): Promise<vscode.TreeItem> {
  const view = api.sessions.view;
  return view.resolveTreeItem(await view.getTreeItem(node as never), node as never);
}

/** Every row of the Sessions tree with its item (as on hover), walked through the view's own data provider. */
export async function treeRows(api: AcpSessionsApi, parent?: unknown): Promise<TreeRow[]> {
  const view = api.sessions.view;
  const out: TreeRow[] = [];
  for (const node of (await view.getChildren(parent as never)) ?? []) {
    const item = await hoveredItem(api, node);
    out.push({ node, item });
    if (item.collapsibleState !== vscode.TreeItemCollapsibleState.None) out.push(...(await treeRows(api, node)));
  }
  return out;
}
