// Subagent lineage and last figures in the Sessions tree, inside a real VS Code extension host
// against the reference agent: children named in list entries nest (collapsed) under their
// parent without anything being loaded; a parent's replay nests the children it announced; the
// tooltip of an opened session shows the agent's last figures; acpSessions.showSubagents hides
// children. Agent text (ids, currency) stays plain in tooltips.
import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { writeSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, closeAllTranscripts, config, configureAgent, hoveredItem, removeTempDirs, tempDir, until, workspaceFolder } from './support';

const HOSTILE_PARENT = '[Undo](command:workbench.action.files.newUntitledFile) <img src=x>';
const HOSTILE_CURRENCY = '[x](command:a)';

let api: AcpSessionsApi;
let agent: string;

function stored(sessionId: string, title: string, minutesAgo: number, extra: Partial<StoredSession> = {}): StoredSession {
  return {
    sessionId,
    cwd: workspaceFolder(),
    title,
    updatedAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
    archived: false,
    deleted: false,
    updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: title } }],
    ...extra,
  };
}

interface Row {
  node: { session?: { sessionId: string }; agent?: string; parent?: { session?: { sessionId: string } } };
  item: vscode.TreeItem;
}

/** Every row of this agent's sessions, walked through the view's own data provider (collapsed ones too). */
async function rows(parent?: unknown): Promise<Row[]> {
  const view = api.sessions.view;
  const out: Row[] = [];
  for (const node of (await view.getChildren(parent as never)) ?? []) {
    const item = await hoveredItem(api, node);
    out.push({ node: node as Row['node'], item });
    if (item.collapsibleState !== vscode.TreeItemCollapsibleState.None) out.push(...(await rows(node)));
  }
  return out;
}

async function sessionRows(): Promise<Map<string, Row>> {
  return until('the tree lists the sessions', async () => {
    const found = (await rows()).filter((r) => r.node.agent === agent && r.node.session);
    return found.length ? new Map(found.map((r) => [r.node.session!.sessionId, r])) : undefined;
  });
}

const parentOf = (row: Row | undefined) => row?.node.parent?.session?.sessionId;
const tooltipOf = (row: Row | undefined) => (row?.item.tooltip as vscode.MarkdownString | undefined)?.value ?? '';

suite('Subagent lineage in the Sessions tree', () => {
  suiteSetup(async () => {
    api = await activateExtension();
    const store = tempDir('acp-subagents-it-');
    const parentUpdates = [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Split the work.' } },
      { sessionUpdate: 'subagent_update', sessionId: 'child-listed', title: 'Listed child', state: { state: 'idle' } },
      { sessionUpdate: 'subagent_update', sessionId: 'child-announced', title: 'Announced child' },
      { sessionUpdate: 'usage_update', used: 1234, size: 5000, cost: { amount: 1.5, currency: HOSTILE_CURRENCY } },
    ];
    for (const s of [
      stored('parent', 'Parent session', 1, { updates: parentUpdates }),
      stored('child-listed', 'Listed child', 2, { parentSessionId: 'parent' }),
      stored('child-announced', 'Announced child', 3),
      stored(HOSTILE_PARENT, 'Hostile parent', 4),
      stored('child-of-hostile', 'Child of a hostile id', 5, { parentSessionId: HOSTILE_PARENT }),
    ]) {
      await writeSession(store, s);
    }
    agent = await configureAgent(api, 'Subagents agent', process.execPath, [agentScript, '--store', store]);
  });

  suiteTeardown(async () => {
    await closeAllTranscripts(api);
    await config().update('showSubagents', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('children named in their list entries nest under the parent, collapsed, before anything is opened', async () => {
    const all = await until('the listed child is nested', async () => {
      const r = await sessionRows();
      return parentOf(r.get('child-listed')) === 'parent' ? r : undefined;
    });
    assert.equal(api.transcripts.openCount, 0, 'no transcript was opened to find children');
    assert.equal(all.get('parent')!.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    assert.equal(parentOf(all.get('child-announced')), undefined, 'a child only its parent\'s replay names stays at the top until that replay is seen');
    assert.equal(parentOf(all.get('child-of-hostile')), HOSTILE_PARENT);
    const tooltip = tooltipOf(all.get('child-of-hostile'));
    assert.match(tooltip, /Subagent of: /);
    const html = new MarkdownIt({ html: true, linkify: true }).render(tooltip);
    assert.doesNotMatch(html, /<a |<img/, 'the parent\'s id shows as text');
  });

  test('opening the parent nests the children its replay announced, and its tooltip shows the last figures', async () => {
    await api.transcripts.open(agent, { sessionId: 'parent', cwd: workspaceFolder(), title: 'Parent session' });
    const state = await api.transcripts.whenLoaded(agent, 'parent');
    assert.deepEqual(state.subagents.map((s) => s.sessionId), ['child-listed', 'child-announced']);
    assert.equal(state.usageCount, 1);
    const all = await until('the announced child is nested', async () => {
      const r = await sessionRows();
      return parentOf(r.get('child-announced')) === 'parent' ? r : undefined;
    });
    const tooltip = tooltipOf(all.get('parent'));
    // Markdown-escaped, as all agent text in tooltips.
    assert.ok(tooltip.includes('Context: 1\\,234 \\/ 5\\,000 tokens · 1\\.50 \\[x\\]\\(command\\:a\\)'), tooltip);
    assert.doesNotMatch(new MarkdownIt({ html: true, linkify: true }).render(tooltip), /<a /, 'the currency shows as text');
    assert.equal(tooltipOf(all.get('child-listed')).includes('Context:'), false, 'no figures for a session never opened');
  });

  test('acpSessions.showSubagents off leaves subagent sessions out; on brings them back', async () => {
    await config().update('showSubagents', false, vscode.ConfigurationTarget.Global);
    const hidden = await until('the children are hidden', async () => {
      const r = await sessionRows();
      return !r.has('child-listed') && !r.has('child-announced') && !r.has('child-of-hostile') ? r : undefined;
    });
    assert.equal(hidden.get('parent')!.item.collapsibleState, vscode.TreeItemCollapsibleState.None);
    await config().update('showSubagents', true, vscode.ConfigurationTarget.Global);
    await until('the children are back', async () => parentOf((await sessionRows()).get('child-listed')) === 'parent');
  });
});
