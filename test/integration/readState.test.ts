// Read and unread inside a real VS Code extension host, against the reference agent as a real
// process: what the row's tooltip, words and decoration say; Mark All as Read on an agent's row;
// a session deleted is forgotten; a hostile session id reaches the decoration and back intact; what
// the view's badge counts and says under each `acpSessions.badge`. The browser side (the dot, the
// badge, the filters among 200) is test/ui/readState.test.ts; paging, pins and folder rows under
// the filters are test/ui/readFilters.test.ts.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { readSession, writeSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, config, configureAgent, removeTempDirs, tempDir, until, workspaceFolder, treeRows, type TreeRow } from './support';

let api: AcpSessionsApi;

type Row = TreeRow;
const walk = () => treeRows(api);

const record = (sessionId: string, title: string): StoredSession => ({
  sessionId,
  cwd: workspaceFolder(),
  title,
  updatedAt: new Date(Date.now() - 3_600_000).toISOString(),
  archived: false,
  deleted: false,
  updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `About ${title}` } }] as never,
});

async function rowOf(agent: string, sessionId: string): Promise<Row> {
  return until(`${sessionId} is in the tree`, async () => (await walk()).find((r) => r.node?.session?.sessionId === sessionId && r.node.agent === agent));
}

const tooltip = (r: Row) => (r.item.tooltip instanceof vscode.MarkdownString ? r.item.tooltip.value : String(r.item.tooltip ?? ''));

suite('Read and unread', () => {
  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async () => {
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    await config().update('badge', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('an updated session says it is unread in its tooltip, words and decoration; Mark All as Read on its agent clears it; a deleted session is forgotten', async function () {
    this.timeout(90_000);
    const store = tempDir('acp-read-');
    // An id and a title with what a URI and Markdown would take for their own.
    const odd = 'odd/id %2F?#[x](command:workbench.action.quit)';
    for (const r of [record('r1', 'Read one'), record('r2', 'Read two'), record(odd, '[x](command:workbench.action.quit) title')]) await writeSession(store, r);
    const agent = await configureAgent(api, 'Read agent', process.execPath, [agentScript, '--store', store, '--air-index']);
    const first = await rowOf(agent, 'r1');
    await until('the live list of the folder is subscribed', () => api.sessions.model.liveFolders(agent).length > 0);
    await api.sessions.model.lastLiveSubscription;
    assert.doesNotMatch(tooltip(first), /Unread/, 'first seen here: read');
    assert.doesNotMatch(first.item.contextValue ?? '', /:unread/);
    assert.equal(first.item.resourceUri, undefined, 'a read row carries no decoration');
    assert.equal(api.sessions.read.state.knows(agent, 'r1'), true, 'its first sighting is recorded');

    for (const id of ['r1', odd]) {
      const stored = (await readSession(store, id))!;
      await writeSession(store, { ...stored, updatedAt: new Date().toISOString() });
    }
    const unread = await until('r1 shows as unread', async () => {
      const r = await rowOf(agent, 'r1');
      return /:unread/.test(r.item.contextValue ?? '') && r;
    });
    assert.match(tooltip(unread), /Unread\\?: the agent has something newer/);
    assert.match(unread.item.accessibilityInformation?.label ?? '', /, unread,/);
    const decoration = await api.sessions.read.provideFileDecoration(unread.item.resourceUri!);
    assert.equal(decoration?.badge, '●');
    // The odd id's row carries it too: its URI leads back to exactly that session.
    const oddRow = await until('the odd session shows as unread', async () => {
      const r = await rowOf(agent, odd);
      return /:unread/.test(r.item.contextValue ?? '') && r;
    });
    assert.equal(oddRow.item.resourceUri?.scheme, 'acp-session-row');
    assert.equal((await api.sessions.read.provideFileDecoration(oddRow.item.resourceUri!))?.badge, '●');
    assert.equal(api.sessions.read.counts().unread >= 2, true);

    const agentRow = (await walk()).find((r) => r.node?.agent?.name === agent)!;
    assert.match(agentRow.item.contextValue ?? '', /^agent:connected/);
    await vscode.commands.executeCommand('acpSessions.markAllRead', agentRow.node);
    const cleared = await rowOf(agent, 'r1');
    assert.doesNotMatch(cleared.item.contextValue ?? '', /:unread/);
    // A read row has no decoration: the decoration the unread one had is gone too.
    assert.equal(cleared.item.resourceUri, undefined);
    assert.equal(await api.sessions.read.provideFileDecoration(unread.item.resourceUri!), undefined);
    assert.doesNotMatch((await rowOf(agent, odd)).item.contextValue ?? '', /:unread/);

    api.sessions.messages.answerNextModal('Delete');
    await vscode.commands.executeCommand('acpSessions.delete', (await rowOf(agent, 'r2')).node);
    await until('r2 is forgotten', () => !api.sessions.read.state.knows(agent, 'r2'));
  });

  test('acpSessions.badge counts waiting and unread, waiting only, unread only, or nothing; its tooltip names what it counts', async function () {
    this.timeout(90_000);
    const store = tempDir('acp-badge-');
    for (const r of [record('b-wait', 'Waits for you'), record('b-u1', 'Unread one'), record('b-u2', 'Unread two'), record('b-read', 'Stays read')]) await writeSession(store, r);
    const agent = await configureAgent(api, 'Badge agent', process.execPath, [agentScript, '--store', store, '--air-index']);
    await rowOf(agent, 'b-read');
    await until('the live list of the folder is subscribed', () => api.sessions.model.liveFolders(agent).length > 0);
    await api.sessions.model.lastLiveSubscription;
    const view = api.sessions.view.treeView;
    assert.equal(view.badge, undefined, 'sessions first seen here count as read: no badge');

    // Another process: one session now waits for the user (its date unchanged), two have a new turn.
    const waiting = (await readSession(store, 'b-wait'))!;
    await writeSession(store, { ...waiting, state: 'requires_action' });
    for (const id of ['b-u1', 'b-u2']) await writeSession(store, { ...(await readSession(store, id))!, updatedAt: new Date().toISOString() });
    const badgeIs = (what: string, value: number | undefined, tooltip?: string) =>
      until(`the badge is ${value === undefined ? 'gone' : `${value} ("${tooltip}")`} ${what}`, () =>
        value === undefined ? view.badge === undefined : view.badge?.value === value && view.badge.tooltip === tooltip);
    await badgeIs('by default (waiting and unread)', 3, '1 waiting for you, 2 unread');
    assert.equal(api.sessions.read.isUnread(agent, api.sessions.model.find(agent, 'b-wait')!.session), false, 'the waiting one is counted as waiting only');

    await config().update('badge', 'waiting', vscode.ConfigurationTarget.Global);
    await badgeIs('with "waiting"', 1, '1 waiting for you');
    await config().update('badge', 'unread', vscode.ConfigurationTarget.Global);
    await badgeIs('with "unread"', 2, '2 unread');
    await config().update('badge', 'off', vscode.ConfigurationTarget.Global);
    await badgeIs('with "off"', undefined);
    // Off stays off whatever changes; a mark changes the count of the setting that counts it.
    await vscode.commands.executeCommand('acpSessions.markRead', (await rowOf(agent, 'b-u1')).node);
    await until('b-u1 is read', async () => !/:unread/.test((await rowOf(agent, 'b-u1')).item.contextValue ?? ''));
    assert.equal(view.badge, undefined, 'off: still no badge');
    await config().update('badge', 'unread', vscode.ConfigurationTarget.Global);
    await badgeIs('with "unread" after a Mark as Read', 1, '1 unread');
    await config().update('badge', 'waiting', vscode.ConfigurationTarget.Global);
    await badgeIs('with "waiting" again', 1, '1 waiting for you');
    // No longer waiting: "waiting" has nothing to count, though a session is unread.
    await writeSession(store, { ...waiting, state: 'idle' });
    await badgeIs('with "waiting" and none waiting', undefined);
    await config().update('badge', undefined, vscode.ConfigurationTarget.Global);
    await badgeIs('by default again, the unread one only', 1, '1 unread');
  });
});
