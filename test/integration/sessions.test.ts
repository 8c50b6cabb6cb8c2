// The Sessions tree inside a real VS Code extension host, against the reference agent as a real
// process configured in USER settings: the sections per filter, paging, archive/unarchive/undo/
// delete changing both the tree and the store on disk, capability gating, failures, crashes and
// live session_info_update. The tree is read through the view's own data provider, and driven
// with the real commands.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import type { SessionPick } from '../../src/ui/sessions/findSession';
import { markSessionDeleted, readSession, writeSession, type StoredSession } from '../agent/store';
import {
  activateExtension,
  agentScript,
  closeAllTranscripts,
  config,
  configureAgent,
  hoveredItem,
  removeTempDirs,
  tempDir,
  transcriptTabs,
  until,
  workspaceFolder,
} from './support';

const ELSEWHERE = '/elsewhere/other-project';

interface Row {
  node: any;
  item: vscode.TreeItem;
  label: string;
  children: Row[];
}

let api: AcpSessionsApi;
let agentCounter = 0;

function record(sessionId: string, cwd: string, hoursAgo: number, extra: Partial<StoredSession> = {}): StoredSession {
  return {
    sessionId,
    cwd,
    title: `Title of ${sessionId}`,
    updatedAt: new Date(Date.now() - hoursAgo * 3_600_000).toISOString(),
    archived: false,
    deleted: false,
    updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `hello ${sessionId}` } }],
    ...extra,
  };
}

/**
 * A store with sessions in the workspace folder (w1..w3 active, w4 archived) and in another
 * folder (o1 active, o2 archived).
 */
async function seededStore(extra: StoredSession[] = []): Promise<string> {
  const dir = tempDir('acp-sessions-it-');
  const folder = workspaceFolder();
  for (const r of [
    record('w1', folder, 1),
    record('w2', folder, 2),
    record('w3', folder, 30),
    record('w4', folder, 4, { archived: true }),
    record('o1', ELSEWHERE, 1.5),
    record('o2', ELSEWHERE, 5, { archived: true }),
    ...extra,
  ]) {
    await writeSession(dir, r);
  }
  return dir;
}

/** Configures one reference agent (a fresh name, so a fresh process) in the user settings. */
async function useAgent(store: string, flags: string[] = []): Promise<string> {
  return configureAgent(api, `Reference ${++agentCounter}`, process.execPath, [agentScript, '--store', store, ...flags]);
}

async function rows(parent?: any): Promise<Row[]> {
  const provider = api.sessions.view;
  const children = await provider.getChildren(parent);
  const result: Row[] = [];
  for (const node of children ?? []) {
    const item = await hoveredItem(api, node);
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    const expandable = item.collapsibleState !== undefined && item.collapsibleState !== vscode.TreeItemCollapsibleState.None;
    result.push({ node, item, label, children: expandable ? await rows(node) : [] });
  }
  return result;
}

function flatten(list: Row[]): Row[] {
  return list.flatMap((r) => [r, ...flatten(r.children)]);
}

/** The whole tree once nothing in it is loading any more. */
async function settledTree(): Promise<Row[]> {
  return until('the tree has settled', async () => {
    const tree = await rows();
    const busy = flatten(tree).some((r) => r.item.contextValue === 'message:loading' || r.label === 'Loading more…');
    return busy ? undefined : tree;
  });
}

function agentRow(tree: Row[], agent: string): Row {
  const row = tree.find((r) => r.label === agent);
  assert.ok(row, `agent ${agent} is in the tree (${tree.map((r) => r.label).join(', ')})`);
  return row;
}

function sectionRow(tree: Row[], agent: string, label: 'Active' | 'Archived'): Row | undefined {
  return agentRow(tree, agent).children.find((r) => r.label === label);
}

function sessionIds(row: Row | undefined): string[] {
  return flatten(row?.children ?? []).filter((r) => r.node?.session).map((r) => r.node.session.sessionId);
}

function sessionRow(tree: Row[], sessionId: string): Row {
  const row = flatten(tree).find((r) => r.node?.session?.sessionId === sessionId);
  assert.ok(row, `session ${sessionId} is in the tree`);
  return row;
}

async function sections(agent: string): Promise<{ active: string[]; archived: string[] }> {
  const tree = await settledTree();
  return { active: sessionIds(sectionRow(tree, agent, 'Active')), archived: sessionIds(sectionRow(tree, agent, 'Archived')) };
}

/** A Markdown tooltip as read text (agent text in it has its ASCII punctuation escaped). */
function tooltipText(item: vscode.TreeItem): string {
  const value = typeof item.tooltip === 'string' ? item.tooltip : (item.tooltip?.value ?? '');
  return value.replace(/&nbsp;/g, ' ').replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

/** The next message the Sessions view shows from now on. */
function nextMessage() {
  const seen = api.sessions.messages.shown.length;
  return () => until('a message is shown', () => api.sessions.messages.shown[seen]);
}

/** Each suite: the extension active, the tree's settings fixed, and all put back afterwards. */
function settingsPerSuite(): void {
  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
    await config().update('groupByDate', false, vscode.ConfigurationTarget.Global);
    await config().update('pageSize', 50, vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async () => {
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    await config().update('groupByDate', undefined, vscode.ConfigurationTarget.Global);
    await config().update('pageSize', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });
}

/** Archive w2 of the seeded store from its row, then Undo from the notification (standard or AIR archive by `flags`). */
async function archiveThenUndo(flags: string[]): Promise<void> {
  const store = await seededStore();
  const agent = await useAgent(store, flags);
  const row = sessionRow(await settledTree(), 'w2');
  const message = nextMessage();
  await vscode.commands.executeCommand('acpSessions.archive', row.node);
  assert.deepEqual(await sections(agent), { active: ['w1', 'w3'], archived: ['w2', 'w4'] });
  assert.equal((await readSession(store, 'w2'))?.archived, true);
  const shown = await message();
  assert.equal(shown.text, 'Archived "Title of w2".');
  assert.deepEqual(shown.actions, ['Undo']);
  api.sessions.messages.choose(shown, 'Undo');
  await until('the store has w2 unarchived', async () => (await readSession(store, 'w2'))?.archived === false);
  await until('w2 is back in Active', async () => (await sections(agent)).active.includes('w2'));
  assert.deepEqual(await sections(agent), { active: ['w1', 'w2', 'w3'], archived: ['w4'] });
}

/** Archive w2 after it was deleted elsewhere: the agent answers -32002, and the row goes. */
async function archiveGoneSession(flags: string[]): Promise<void> {
  const store = await seededStore();
  const agent = await useAgent(store, flags);
  const row = sessionRow(await settledTree(), 'w2');
  await writeSession(store, record('w2', workspaceFolder(), 2, { deleted: true })); // deleted elsewhere
  const message = nextMessage();
  await vscode.commands.executeCommand('acpSessions.archive', row.node);
  const shown = await message();
  assert.match(shown.text, /"Title of w2" no longer exists on the agent/);
  assert.equal(shown.severity, 'warning');
  assert.deepEqual(await sections(agent), { active: ['w1', 'w3'], archived: ['w4'] });
}

suite('Sessions tree', () => {
  settingsPerSuite();

  teardown(async () => {
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
    await config().update('pageSize', 50, vscode.ConfigurationTarget.Global);
  });

  test('the agent node shows the connection state and the name and version from initialize', async () => {
    const agent = await useAgent(await seededStore());
    const tree = await settledTree();
    const row = agentRow(tree, agent);
    assert.match(String(row.item.description), /^ACP Reference Agent \d\S* · connected$/);
    assert.match(tooltipText(row.item), /State: connected/);
    assert.equal(row.item.contextValue, 'agent:connected');
  });

  test('the agent\'s output is parsed off the extension host\'s thread by its line worker; with ACP_SESSIONS_LINE_WORKER=off (the fallback run), on it', async () => {
    const agent = await useAgent(await seededStore());
    await settledTree();
    const client = await api.agents.getClient(agent);
    const expected = process.env.ACP_SESSIONS_LINE_WORKER === 'off' ? 'host' : 'worker';
    // The worker says it runs on its own time ('starting' until then); with it off, none starts.
    await until(`the agent's output parsed on the ${expected}`, () => client.parsedOn !== 'starting');
    assert.equal(client.parsedOn, expected);
  });

  test('Active lists the unarchived and Archived the archived sessions of the workspace folder, newest first', async () => {
    const agent = await useAgent(await seededStore());
    assert.deepEqual(await sections(agent), { active: ['w1', 'w2', 'w3'], archived: ['w4'] });
  });

  test('the "all folders" scope lists every folder, each session naming its folder', async () => {
    const agent = await useAgent(await seededStore());
    await vscode.commands.executeCommand('acpSessions.scopeAll');
    await until('the scope is all', () => api.sessions.model.scope.kind === 'all');
    assert.deepEqual(await sections(agent), { active: ['w1', 'o1', 'w2', 'w3'], archived: ['w4', 'o2'] });
    const tree = await settledTree();
    assert.match(String(sessionRow(tree, 'o1').item.description), /other-project/);
    await vscode.commands.executeCommand('acpSessions.scopeWorkspace');
    await until('the scope is the workspace', () => api.sessions.model.scope.kind === 'folders');
    assert.deepEqual((await sections(agent)).active, ['w1', 'w2', 'w3']);
  });

  test('a session item has its title, age, tooltip and a contextValue with the allowed operations', async () => {
    await useAgent(await seededStore());
    const tree = await settledTree();
    const row = sessionRow(tree, 'w2');
    assert.equal(row.label, 'Title of w2');
    assert.equal(row.item.description, '2 h');
    const tooltip = tooltipText(row.item);
    for (const part of ['Title of w2', 'w2', workspaceFolder(), 'Active']) assert.ok(tooltip.includes(part), `tooltip has ${part}`);
    assert.equal(row.item.contextValue, 'session:active:archivable:deletable:loadable:renamable');
    assert.equal(sessionRow(tree, 'w4').item.contextValue, 'session:archived:archivable:deletable:loadable:renamable');
    assert.ok(row.item.id, 'items have stable ids');
    const again = sessionRow(await settledTree(), 'w2');
    assert.equal(again.item.id, row.item.id);
  });

  test('paging: Load more follows nextCursor to the end', async () => {
    const folder = workspaceFolder();
    const many = ['p1', 'p2', 'p3', 'p4', 'p5'].map((id, i) => record(id, folder, 10 + i));
    await config().update('pageSize', 2, vscode.ConfigurationTarget.Global);
    await until('the page size is 2', () => api.sessions.model.pageSize === 2);
    const agent = await useAgent(await seededStore(many), ['--page-size', '2']);
    const expected = ['w1', 'w2', 'p1', 'p2', 'p3', 'p4', 'p5', 'w3'];
    let tree = await settledTree();
    assert.deepEqual(sessionIds(sectionRow(tree, agent, 'Active')), expected.slice(0, 2));
    for (let shown = 2; shown < expected.length; shown += 2) {
      const loadMore = flatten(sectionRow(tree, agent, 'Active')!.children).find((r) => r.item.contextValue === 'loadMore');
      assert.ok(loadMore, `a Load more item after ${shown} sessions`);
      await vscode.commands.executeCommand('acpSessions.loadMore', loadMore.node);
      tree = await settledTree();
      assert.deepEqual(sessionIds(sectionRow(tree, agent, 'Active')), expected.slice(0, shown + 2));
    }
    assert.ok(!flatten(tree).some((r) => r.item.contextValue === 'loadMore'), 'no Load more at the end');
  });

  test('archive moves the session to Archived in the tree and on disk; Undo in the notification restores it', () => archiveThenUndo([]));

  test('Undo of an archive whose session the agent\'s live list since dropped names it by its title and says it is gone, not the raw -32002', async () => {
    const store = await seededStore();
    const agent = await useAgent(store, ['--air-index']);
    const row = sessionRow(await settledTree(), 'w2');
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.archive', row.node);
    const shown = await message();
    assert.equal(shown.text, 'Archived "Title of w2".');
    // Another process deletes it; the live list drops it from the tree.
    await writeSession(store, record('w2', workspaceFolder(), 2, { deleted: true, archived: true }));
    await until('the live list dropped w2', () => api.sessions.model.find(agent, 'w2') === undefined, 30_000);
    const after = nextMessage();
    api.sessions.messages.choose(shown, 'Undo');
    const told = await after();
    assert.equal(told.text, 'Could not undo the archive of "Title of w2": the agent no longer has it (deleted or expired since).');
    assert.doesNotMatch(told.text, /-32002|session\/unarchive/);
  });

  test('an agent that crashes after archiving 2 of 5 sessions: the message says which were archived and why the rest were not, and Undo restores the 2', async () => {
    const folder = workspaceFolder();
    const store = await seededStore(['w5', 'w6'].map((id, i) => record(id, folder, 6 + i)));
    // The third session/archive ends the agent before it answers.
    const agent = await useAgent(store, ['--exit-at', 'archive', '--exit-at-count', '3']);
    const tree = await settledTree();
    const selected = ['w1', 'w2', 'w3', 'w5', 'w6'].map((id) => sessionRow(tree, id).node);
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.archive', selected[0], selected);
    const shown = await message();
    assert.match(shown.text, /^Archived 2 sessions\. Could not archive 3 sessions: the agent stopped \(.*disconnected.*\)\. They stayed as they were;/);
    assert.doesNotMatch(shown.text, /list is unchanged/);
    assert.deepEqual(shown.actions, ['Undo']);
    const stored = async () => Promise.all(['w1', 'w2', 'w3', 'w5', 'w6'].map(async (id) => (await readSession(store, id))?.archived));
    assert.deepEqual(await stored(), [true, true, false, false, false]);
    api.sessions.messages.choose(shown, 'Undo');
    await until('the store has w1 and w2 unarchived', async () => (await stored()).every((a) => a === false));
    // The agent was restarted for the Undo, so the tree lists everything again meanwhile.
    await until('only w4 is left in Archived, and w1 and w2 are back in Active', async () => {
      const now = await sections(agent);
      return now.archived.join() === 'w4' && now.active.includes('w1') && now.active.includes('w2');
    });
  });

  test('unarchive moves the session back to Active in the tree and on disk', async () => {
    const store = await seededStore();
    const agent = await useAgent(store);
    await vscode.commands.executeCommand('acpSessions.unarchive', sessionRow(await settledTree(), 'w4').node);
    assert.deepEqual(await sections(agent), { active: ['w1', 'w2', 'w4', 'w3'], archived: [] });
    assert.equal((await readSession(store, 'w4'))?.archived, false);
  });

  test('archiving several selected sessions gives one summary message', async () => {
    const store = await seededStore();
    const agent = await useAgent(store);
    const tree = await settledTree();
    const selected = [sessionRow(tree, 'w1').node, sessionRow(tree, 'w3').node];
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.archive', selected[0], selected);
    assert.equal((await message()).text, 'Archived 2 sessions.');
    assert.deepEqual(await sections(agent), { active: ['w2'], archived: ['w1', 'w4', 'w3'] });
    const count = api.sessions.messages.shown.length;
    await (await settledTree());
    assert.equal(api.sessions.messages.shown.length, count, 'one message, not one per session');
  });

  test('delete asks in a modal naming the session, then removes it from both sections and the store', async () => {
    const store = await seededStore();
    const agent = await useAgent(store);
    const messages = api.sessions.messages;
    messages.answerNextModal('Delete');
    const confirm = nextMessage();
    await vscode.commands.executeCommand('acpSessions.delete', sessionRow(await settledTree(), 'w4').node);
    const asked = await confirm();
    assert.equal(asked.modal, true);
    assert.equal(asked.text, 'Delete the session "Title of w4"?');
    assert.deepEqual(await sections(agent), { active: ['w1', 'w2', 'w3'], archived: [] });
    assert.equal((await readSession(store, 'w4'))?.deleted, true);
  });

  test('delete of several names the count; cancelling deletes nothing', async () => {
    const store = await seededStore();
    const agent = await useAgent(store);
    const tree = await settledTree();
    const selected = [sessionRow(tree, 'w1').node, sessionRow(tree, 'w4').node];
    api.sessions.messages.answerNextModal(undefined);
    const confirm = nextMessage();
    await vscode.commands.executeCommand('acpSessions.delete', selected[0], selected);
    assert.equal((await confirm()).text, 'Delete 2 sessions?');
    assert.deepEqual(await sections(agent), { active: ['w1', 'w2', 'w3'], archived: ['w4'] });
    assert.equal((await readSession(store, 'w1'))?.deleted, false);
  });

  test('without archive: no Archived section, no archive operation, and the archive command refuses', async () => {
    const store = await seededStore();
    const agent = await useAgent(store, ['--no-archive']);
    const tree = await settledTree();
    assert.deepEqual(agentRow(tree, agent).children.map((r) => r.label), ['Active']);
    const row = sessionRow(tree, 'w1');
    assert.equal(row.item.contextValue, 'session:active:deletable:loadable:renamable');
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.archive', row.node);
    assert.match((await message()).text, /cannot archive sessions: it does not advertise sessionCapabilities\.archive/);
    assert.equal((await readSession(store, 'w1'))?.archived, false);
  });

  test('without delete: no delete operation, and the delete command refuses without asking', async () => {
    const store = await seededStore();
    await useAgent(store, ['--no-delete']);
    const row = sessionRow(await settledTree(), 'w1');
    assert.equal(row.item.contextValue, 'session:active:archivable:loadable:renamable');
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.delete', row.node);
    const shown = await message();
    assert.equal(shown.modal, false);
    assert.match(shown.text, /cannot delete sessions/);
    assert.equal((await readSession(store, 'w1'))?.deleted, false);
  });

  test('without list: one item explains why there are no sessions', async () => {
    const agent = await useAgent(await seededStore(), ['--no-list']);
    const tree = await settledTree();
    assert.deepEqual(agentRow(tree, agent).children.map((r) => r.label), ['This agent does not list its sessions.']);
  });

  test('-32002 on archive: the message says the session is gone and it leaves the tree', () => archiveGoneSession([]));

  test('an agent failure keeps the tree as it was and the message gives the agent\'s error', async () => {
    const store = await seededStore();
    const agent = await useAgent(store, ['--fail', 'session/unarchive=-32603']);
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.unarchive', sessionRow(await settledTree(), 'w4').node);
    const shown = await message();
    assert.equal(shown.severity, 'error');
    assert.match(shown.text, /Could not unarchive "Title of w4": reference agent: session\/unarchive failed on purpose/);
    assert.deepEqual(await sections(agent), { active: ['w1', 'w2', 'w3'], archived: ['w4'] });
    assert.equal((await readSession(store, 'w4'))?.archived, true);
  });

  test('a failing session/list shows an error item with Retry', async () => {
    const agent = await useAgent(await seededStore(), ['--fail', 'session/list=-32603']);
    const tree = await settledTree();
    const labels = sectionRow(tree, agent, 'Active')!.children.map((r) => r.label);
    assert.match(labels[0], /Could not list sessions: .*session\/list failed on purpose/);
    assert.equal(labels[1], 'Retry');
  });

  test('an agent that crashes shows the failed state, and Refresh recovers it', async () => {
    const store = await seededStore();
    const agent = await useAgent(store, ['--exit-at', 'archive']);
    const row = sessionRow(await settledTree(), 'w1');
    await vscode.commands.executeCommand('acpSessions.archive', row.node);
    const failed = await until('the agent shows as failed', async () => {
      const a = agentRow(await rows(), agent);
      return String(a.item.description).startsWith('failed:') ? a : undefined;
    });
    assert.match(String(failed.item.description), /exit/);
    assert.equal(failed.item.contextValue, 'agent:failed');
    assert.deepEqual(failed.children.map((r) => r.label).slice(-1), ['Restart Agent']);
    await vscode.commands.executeCommand('acpSessions.refresh');
    await until('the agent is connected again', () => api.agents.agent(agent)?.state.kind === 'connected');
    assert.deepEqual(await sections(agent), { active: ['w1', 'w2', 'w3'], archived: ['w4'] });
  });

  test('an agent that exits while listing shows the failed state with the reason', async () => {
    const agent = await useAgent(await seededStore(), ['--exit-at', 'list']);
    const failed = await until('the agent shows as failed', async () => {
      const a = agentRow(await rows(), agent);
      return a.item.contextValue === 'agent:failed' ? a : undefined;
    });
    assert.match(String(failed.item.description), /code 3/);
    assert.match(tooltipText(failed.item), /State: failed/);
  });

  test('session_info_update from the agent moves a session between the sections without a refetch', async () => {
    const store = await seededStore();
    const agent = await useAgent(store);
    await settledTree();
    const client = await api.agents.getClient(agent);
    const lists = [api.sessions.model.list(agent, 'active', workspaceFolder()), api.sessions.model.list(agent, 'archived', workspaceFolder())];
    const requests = () => lists.map((l) => l.listRequests);
    const before = requests();
    // With w1 open on this connection, the agent reports its archive (archive RFD).
    await client.loadSession('w1', workspaceFolder(), () => undefined);
    await client.archiveSession('w1');
    await until('w1 moved to Archived', async () => (await sections(agent)).archived.includes('w1'));
    assert.deepEqual(await sections(agent), { active: ['w2', 'w3'], archived: ['w1', 'w4'] });
    assert.deepEqual(requests(), before, 'no session/list was sent');
  });

  test('session_info_update with a new title and updatedAt renames the item and updates its age without a refetch, keeping its place until Refresh', async () => {
    const folder = workspaceFolder();
    const renamed = record('t1', folder, 40, {
      title: 'Old',
      updates: [
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hello t1' } },
        { sessionUpdate: 'session_info_update', title: 'New title', updatedAt: new Date(Date.now() - 1.5 * 3_600_000).toISOString() },
      ],
    });
    const agent = await useAgent(await seededStore([renamed]));
    const tree = await settledTree();
    assert.deepEqual(sessionIds(sectionRow(tree, agent, 'Active')), ['w1', 'w2', 'w3', 't1']);
    assert.equal(sessionRow(tree, 't1').label, 'Old');
    assert.equal(sessionRow(tree, 't1').item.description, '1 d');
    const lists = [api.sessions.model.list(agent, 'active', folder), api.sessions.model.list(agent, 'archived', folder)];
    const requests = () => lists.map((l) => l.listRequests);
    const before = requests();
    // Opening the transcript replays the stored updates, and each reaches every subscriber of the session.
    await vscode.commands.executeCommand('acpSessions.openTranscript', sessionRow(tree, 't1').node);
    try {
      await api.transcripts.whenLoaded(agent, 't1');
      const row = await until('t1 is renamed', async () => {
        const r = sessionRow(await settledTree(), 't1');
        return r.label === 'New title' ? r : undefined;
      });
      assert.equal(row.item.description, '1 h');
      assert.ok(tooltipText(row.item).includes('New title'), 'the tooltip has the new title');
      // The order holds while the user reads; the next explicit Refresh sorts (issue 12).
      assert.deepEqual(sessionIds(sectionRow(await settledTree(), agent, 'Active')), ['w1', 'w2', 'w3', 't1']);
      assert.deepEqual(requests(), before, 'no session/list was sent');
    } finally {
      await closeAllTranscripts(api);
    }
  });

  test('Find Session…: "Load more" fetches the next page, until there is none', async () => {
    const folder = workspaceFolder();
    const many = ['p1', 'p2', 'p3'].map((id, i) => record(id, folder, 10 + i));
    await config().update('pageSize', 2, vscode.ConfigurationTarget.Global);
    await until('the page size is 2', () => api.sessions.model.pageSize === 2);
    const agent = await useAgent(await seededStore(many), ['--page-size', '2']);
    const pick = await vscode.commands.executeCommand<vscode.QuickPick<SessionPick>>('acpSessions.findSession');
    try {
      const shown = () => pick.items.filter((i) => i.session).map((i) => i.session!.sessionId);
      const loadMore = () => pick.items.find((i) => i.loadMore);
      const requests = () => api.sessions.model.list(agent, 'active', folder).listRequests;
      // The first page of Active (w1, w2) and the one page of Archived (w4), newest first.
      await until('the first pages are in the pick', () => !pick.busy && shown().length === 3);
      assert.deepEqual(shown(), ['w1', 'w2', 'w4']);
      for (const expected of [
        ['w1', 'w2', 'w4', 'p1', 'p2'],
        ['w1', 'w2', 'w4', 'p1', 'p2', 'p3', 'w3'],
      ]) {
        assert.ok(loadMore(), `"Load more" after ${shown().length} sessions`);
        // As a user would: press Down until "Load more" is the active row, then Enter. (These
        // command ids exist from VS Code 1.85 on; quickInput.last and quickInput.accept do not.)
        await until('"Load more" is the active row', async () => {
          const from = pick.activeItems[0];
          if (from?.loadMore) return true;
          await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
          await until('the active row moves down', () => pick.activeItems[0] !== from);
          return pick.activeItems[0]?.loadMore;
        });
        const before = requests();
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        await until('the next page is in the pick', () => !pick.busy && shown().length === expected.length);
        assert.deepEqual(shown(), expected);
        assert.equal(requests(), before + 1, 'one session/list for the next page');
      }
      assert.equal(loadMore(), undefined, 'no "Load more" at the end');
    } finally {
      pick.hide();
    }
  });

  test('a section that loads is redrawn alone: the rows of the other section are left as VS Code holds them', async () => {
    const agent = await useAgent(await seededStore());
    const view = api.sessions.view;
    const children = async (node?: any): Promise<any[]> => (await view.getChildren(node)) ?? [];
    const label = (node: any) => {
      const l = view.getTreeItem(node).label;
      return typeof l === 'string' ? l : l?.label;
    };
    // What VS Code fetches with Archived collapsed: the agent, its sections, and Active's rows.
    const [active, archived] = await until('Active is listed', async () => {
      const agentNode = (await children()).find((n) => label(n) === agent);
      const sectionNodes = agentNode ? await children(agentNode) : [];
      if (sectionNodes.length !== 2) return undefined;
      return (await children(sectionNodes[0])).some((n) => n.session) ? sectionNodes : undefined;
    });
    assert.deepEqual([label(active), label(archived)], ['Active', 'Archived']);
    const activeRows = await children(active);
    const fired: unknown[] = [];
    const subscription = view.onDidChangeTreeData((e) => fired.push(e));
    try {
      // Expanding Archived lists it.
      await until('Archived is listed', async () => (await children(archived)).some((n) => n.session));
      await until('the view was told what changed', () => fired.length > 0);
      assert.ok(!fired.includes(undefined), 'the whole tree was not refreshed');
      const refreshed = fired.flat() as any[];
      assert.ok(refreshed.includes(archived), 'the Archived section is redrawn');
      const within = (node: any, ancestor: any): boolean => node === ancestor || (node?.parent !== undefined && within(node.parent, ancestor));
      assert.deepEqual(refreshed.filter((n) => !within(n, archived)).map(label), [], 'nothing outside Archived is redrawn');
      assert.deepEqual(await children(active), activeRows, "Active's rows are the same objects");
    } finally {
      subscription.dispose();
    }
  });

  test('a section whose list loads while VS Code fetches it is redrawn later even when VS Code kept the rows it fetched before the refresh', async () => {
    // Our own calls below play VS Code; the real view stays hidden so that it fetches nothing.
    await vscode.commands.executeCommand('workbench.view.explorer');
    const agent = await useAgent(await seededStore());
    const view = api.sessions.view;
    const children = async (node?: any): Promise<any[]> => (await view.getChildren(node)) ?? [];
    const label = (node: any) => {
      const l = view.getTreeItem(node).label;
      return typeof l === 'string' ? l : l?.label;
    };
    const [, archived] = await until('Active is listed', async () => {
      const agentNode = (await children()).find((n) => label(n) === agent);
      const sectionNodes = agentNode ? await children(agentNode) : [];
      if (sectionNodes.length !== 2) return undefined;
      return (await children(sectionNodes[0])).some((n) => n.session) ? sectionNodes : undefined;
    });
    const fired: any[][] = [];
    const subscription = view.onDidChangeTreeData((e) => fired.push(e === undefined ? [undefined] : [e].flat()));
    try {
      // Archived is expanded: VS Code fetches its rows, which start the listing ("Loading sessions…").
      const shown = await children(archived);
      assert.deepEqual(shown.map((n) => n.kind), ['loading']);
      await until('the view says Archived changed once its list loaded', () => fired.some((nodes) => nodes.includes(archived)));
      // VS Code redraws the section's own row ("Archived 1") but answers its rows from what it
      // fetched before (the refresh crossed its fetch still on the way), so it asks nothing more.
      assert.equal(view.getTreeItem(archived).description, '1');
      fired.length = 0;
      // Any later change (here: Refresh lists everything again, with the same result) compares
      // again and finds the rows VS Code still holds out of date.
      await vscode.commands.executeCommand('acpSessions.refresh');
      await until('the view says Archived changed again', () => fired.some((nodes) => nodes.includes(archived)), 5_000);
      assert.deepEqual((await children(archived)).map((n) => n.session?.sessionId), ['w4']);
    } finally {
      subscription.dispose();
    }
  });

  test('an action whose row VS Code no longer knows does nothing and says so, instead of acting on the selection', async () => {
    const store = await seededStore();
    await useAgent(store);
    await settledTree();
    // An inline or context-menu action passes its row; VS Code passes undefined for a row it
    // has just dropped while redrawing.
    let message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.archive', undefined);
    let shown = await message();
    assert.equal(shown.severity, 'warning');
    assert.equal(shown.text, 'Nothing was archived: the Sessions view was redrawing that row when it was clicked. Try again.');
    // From the palette (no arguments) it is the selection's turn, and nothing is selected.
    message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.delete');
    shown = await message();
    assert.equal(shown.text, 'Select one or more sessions in the Sessions view first, then try again.');
    const stored = await Promise.all(['w1', 'w2', 'w3'].map((id) => readSession(store, id)));
    assert.deepEqual(stored.map((r) => [r?.archived, r?.deleted]), [[false, false], [false, false], [false, false]]);
  });

  test('Copy Session ID puts the ids of the selected sessions on the clipboard', async () => {
    await useAgent(await seededStore());
    const tree = await settledTree();
    await vscode.commands.executeCommand('acpSessions.copySessionId', sessionRow(tree, 'w2').node);
    assert.equal(await vscode.env.clipboard.readText(), 'w2');
    const both = [sessionRow(tree, 'w1').node, sessionRow(tree, 'w4').node];
    await vscode.commands.executeCommand('acpSessions.copySessionId', both[0], both);
    assert.equal(await vscode.env.clipboard.readText(), 'w1\nw4');
  });

  test('sessions that are gone are forgotten: no tree node and no live-update subscription is kept for them', async () => {
    const gone = Array.from({ length: 30 }, (_, i) => record(`g${i + 1}`, workspaceFolder(), 40 + i));
    const store = await seededStore(gone);
    const agent = await useAgent(store);
    await until('all 33 active sessions are listed', async () => sessionIds(sectionRow(await settledTree(), agent, 'Active')).length === 33);
    assert.equal(api.sessions.model.trackedSessionCount(agent), 34, 'w1-w4 and g1-g30 are subscribed while listed');
    // Deleted elsewhere (another window, the agent's own tool): only a new listing shows it.
    for (const r of gone) await markSessionDeleted(store, r.sessionId);
    await vscode.commands.executeCommand('acpSessions.refresh');
    await until('the deleted sessions are gone from the tree', async () => sessionIds(sectionRow(await settledTree(), agent, 'Active')).length === 3);
    assert.equal(api.sessions.model.trackedSessionCount(agent), 4, 'only the listed w1-w4 stay subscribed');
    const shown = flatten(await settledTree()).length;
    assert.ok(api.sessions.view.nodeCount <= shown, `the view keeps ${api.sessions.view.nodeCount} nodes for ${shown} rows`);
  });

  test('grouping by date puts sessions under Today, Yesterday, This Week and Older', async () => {
    const agent = await useAgent(await seededStore());
    await vscode.commands.executeCommand('acpSessions.groupByDate');
    try {
      await until('the tree is grouped', async () => {
        const tree = await settledTree();
        return sectionRow(tree, agent, 'Active')!.children.some((r) => r.item.contextValue === 'dateGroup');
      });
      const groups = sectionRow(await settledTree(), agent, 'Active')!.children.map((r) => r.label);
      assert.ok(groups.length >= 1 && groups.every((g) => ['Today', 'Yesterday', 'This Week', 'Older'].includes(g)), groups.join());
      assert.deepEqual(sessionIds(sectionRow(await settledTree(), agent, 'Active')), ['w1', 'w2', 'w3']);
    } finally {
      await vscode.commands.executeCommand('acpSessions.ungroup');
    }
  });
});

// claude-agent-acp and codex-acp archive only through JetBrains AIR's extension: the reference
// agent's --archive-extension serves it, and the tree must look and behave as with the standard.
suite('Sessions tree: archive by the JetBrains AIR extension', () => {
  const EXTENSION = ['--archive-extension'];

  settingsPerSuite();

  test('the agent\'s tooltip says which way it archives', async () => {
    const vendor = await useAgent(await seededStore(), EXTENSION);
    assert.match(tooltipText(agentRow(await settledTree(), vendor).item), /Archive: agent extension \(JetBrains AIR\)/);
    const standard = await useAgent(await seededStore());
    assert.match(tooltipText(agentRow(await settledTree(), standard).item), /Archive: standard/);
  });

  test('Active and Archived list what the extension filters give; items offer archive', async () => {
    const agent = await useAgent(await seededStore(), EXTENSION);
    assert.deepEqual(await sections(agent), { active: ['w1', 'w2', 'w3'], archived: ['w4'] });
    const tree = await settledTree();
    assert.equal(sessionRow(tree, 'w2').item.contextValue, 'session:active:archivable:deletable:loadable:renamable');
    assert.equal(sessionRow(tree, 'w4').item.contextValue, 'session:archived:archivable:deletable:loadable:renamable');
  });

  test('archive moves the session to Archived in the tree and on disk; Undo restores it', () => archiveThenUndo(EXTENSION));

  test('unarchive, and archive of several selected sessions, move them in the tree and on disk', async () => {
    const store = await seededStore();
    const agent = await useAgent(store, EXTENSION);
    await vscode.commands.executeCommand('acpSessions.unarchive', sessionRow(await settledTree(), 'w4').node);
    assert.deepEqual(await sections(agent), { active: ['w1', 'w2', 'w4', 'w3'], archived: [] });
    assert.equal((await readSession(store, 'w4'))?.archived, false);
    const tree = await settledTree();
    const selected = [sessionRow(tree, 'w1').node, sessionRow(tree, 'w3').node];
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.archive', selected[0], selected);
    assert.equal((await message()).text, 'Archived 2 sessions.');
    assert.deepEqual(await sections(agent), { active: ['w2', 'w4'], archived: ['w1', 'w3'] });
  });

  test('-32002 from _session/archive: the message says the session is gone and it leaves the tree', () => archiveGoneSession(EXTENSION));
});

suite('Sessions tree: Rename…', () => {
  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
    await config().update('groupByDate', false, vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async () => {
    await closeAllTranscripts(api);
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    await config().update('groupByDate', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('rename changes the title at once in the tree, an open transcript and the store; Undo restores it', async () => {
    const store = await seededStore();
    const agent = await useAgent(store);
    const row = sessionRow(await settledTree(), 'w2');
    await vscode.commands.executeCommand('acpSessions.openTranscript', row.node);
    await api.transcripts.whenLoaded(agent, 'w2');
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.rename', row.node, undefined, '  Parser work  ');
    assert.equal(sessionRow(await rows(), 'w2').label, 'Parser work', 'the tree shows it without a re-list');
    assert.equal(api.transcripts.getState(agent, 'w2')?.title, 'Parser work');
    assert.equal((await readSession(store, 'w2'))?.title, 'Parser work');
    const shown = await message();
    assert.equal(shown.text, 'Renamed "Title of w2" to "Parser work".');
    assert.deepEqual(shown.actions, ['Undo']);
    api.sessions.messages.choose(shown, 'Undo');
    await until('the store has the old title', async () => (await readSession(store, 'w2'))?.title === 'Title of w2');
    await until('the tree has the old title', async () => sessionRow(await rows(), 'w2').label === 'Title of w2');
    await until('the transcript has the old title', () => api.transcripts.getState(agent, 'w2')?.title === 'Title of w2');
  });

  test('an empty or multi-line title is refused before anything is sent', async () => {
    const store = await seededStore();
    await useAgent(store);
    for (const title of ['   ', 'two\nlines']) {
      const message = nextMessage();
      await vscode.commands.executeCommand('acpSessions.rename', sessionRow(await settledTree(), 'w1').node, undefined, title);
      assert.match((await message()).text, /^Not renamed: /);
    }
    assert.equal((await readSession(store, 'w1'))?.title, 'Title of w1');
  });

  test('-32002: the message says the session is gone and it leaves the tree', async () => {
    const store = await seededStore();
    const agent = await useAgent(store);
    const row = sessionRow(await settledTree(), 'w2');
    await writeSession(store, record('w2', workspaceFolder(), 2, { deleted: true }));
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.rename', row.node, undefined, 'New');
    assert.match((await message()).text, /"Title of w2" no longer exists on the agent/);
    assert.deepEqual(await sections(agent), { active: ['w1', 'w3'], archived: ['w4'] });
  });

  test('without sessionCapabilities.title Rename is not offered, and the command refuses', async () => {
    const store = await seededStore();
    await useAgent(store, ['--no-title']);
    const row = sessionRow(await settledTree(), 'w1');
    assert.doesNotMatch(String(row.item.contextValue), /renamable/);
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.rename', row.node, undefined, 'New');
    assert.match((await message()).text, /cannot rename sessions: it does not advertise sessionCapabilities\.title/);
    assert.equal((await readSession(store, 'w1'))?.title, 'Title of w1');
  });
});

/** The tree's Active session ids of `agent`, once the tree shows what `ready` says. */
async function activeWhen(agent: string, what: string, ready: (tree: Row[]) => boolean): Promise<string[]> {
  const tree = await until(what, async () => {
    const t = await settledTree();
    return ready(t) ? t : undefined;
  });
  return sessionIds(sectionRow(tree, agent, 'Active'));
}

function iconId(item: vscode.TreeItem): string | undefined {
  return item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined;
}

// Issue 12: live state where the agent tells it, loads that resume a session, and Rename… from
// the transcript header; each where it matters with the standard archive and the AIR extension.
const ARCHIVE_MODES: [string, string[]][] = [
  ['standard archive', []],
  ['archive by the AIR extension', ['--archive-extension']],
];

suite('Sessions tree: live state', () => {
  settingsPerSuite();
  teardown(() => closeAllTranscripts(api));

  test('AIR list entries\' state: a running and a waiting session show it in icon, description and tooltip; idle and unknown look as usual', async () => {
    const folder = workspaceFolder();
    const agent = await useAgent(
      await seededStore([
        record('r1', folder, 0.5, { state: 'running' }),
        record('q1', folder, 0.7, { state: 'requires_action' }),
        record('u1', folder, 0.9, { state: '_vendor_busy' }),
      ]),
      ['--archive-extension', '--air-state'],
    );
    const tree = await settledTree();
    assert.deepEqual(sessionIds(sectionRow(tree, agent, 'Active')), ['r1', 'q1', 'u1', 'w1', 'w2', 'w3']);
    const running = sessionRow(tree, 'r1').item;
    assert.equal(iconId(running), 'loading~spin');
    assert.match(String(running.description), /^Running · /);
    assert.match(tooltipText(running), /Live state: Running \(reported by the agent\)/);
    assert.match(running.accessibilityInformation?.label ?? '', /active session, updated .*, Running(,|$)/);
    const waiting = sessionRow(tree, 'q1').item;
    assert.equal(iconId(waiting), 'bell-dot');
    assert.match(String(waiting.description), /^Waiting for input · /);
    for (const id of ['u1', 'w1']) {
      const item = sessionRow(tree, id).item;
      assert.equal(iconId(item), 'comment-discussion', id);
      assert.doesNotMatch(String(item.description), /Running|Waiting|Open|Failed/, id);
    }
    assert.match(tooltipText(sessionRow(tree, 'w1').item), /Live state: Idle/);
    assert.doesNotMatch(tooltipText(sessionRow(tree, 'u1').item), /Live state/);
  });

  for (const [mode, flags] of ARCHIVE_MODES) {
    test(`session/status (${mode}): the session a transcript holds open shows "Open" until the tab closes`, async () => {
      const store = await seededStore();
      const agent = await useAgent(store, ['--status', ...flags]);
      const before = await readSession(store, 'w2');
      const row = sessionRow(await settledTree(), 'w2');
      assert.equal(iconId(row.item), 'comment-discussion');
      await vscode.commands.executeCommand('acpSessions.openTranscript', row.node);
      await api.transcripts.whenChecked(agent, 'w2');
      const open = sessionRow(await settledTree(), 'w2').item;
      assert.equal(iconId(open), 'circle-filled');
      assert.match(String(open.description), /^Open · /);
      assert.match(tooltipText(open), /Live state: Open in the agent \(reported by the agent\)/);
      assert.equal(iconId(sessionRow(await settledTree(), 'w1').item), 'comment-discussion', 'only the open one');
      await closeAllTranscripts(api);
      await until('w2 no longer shows Open', async () => iconId(sessionRow(await settledTree(), 'w2').item) === 'comment-discussion');
      assert.deepEqual((await readSession(store, 'w2'))?.updatedAt, before?.updatedAt, 'asking for the status changed nothing');
    });
  }
});

suite('Sessions tree: a load that resumes the session', () => {
  settingsPerSuite();
  teardown(() => closeAllTranscripts(api));

  for (const [mode, flags] of ARCHIVE_MODES) {
    test(`(${mode}) the opened session keeps its place with its new date, the header says it was resumed, and Refresh sorts it`, async () => {
      const store = await seededStore();
      const agent = await useAgent(store, ['--resume-on-load', ...flags]);
      const tree = await settledTree();
      assert.deepEqual(sessionIds(sectionRow(tree, agent, 'Active')), ['w1', 'w2', 'w3']);
      assert.equal(sessionRow(tree, 'w3').item.description, '1 d');
      await vscode.commands.executeCommand('acpSessions.openTranscript', sessionRow(tree, 'w3').node);
      const state = await api.transcripts.whenChecked(agent, 'w3');
      assert.equal(state.resumed, true, 'the header says the agent resumed it');
      assert.ok(Date.parse((await readSession(store, 'w3'))!.updatedAt) > Date.now() - 60_000, 'the agent made it newest');
      const held = await activeWhen(agent, 'w3 shows its new age', (t) => sessionRow(t, 'w3').item.description === 'now');
      assert.deepEqual(held, ['w1', 'w2', 'w3'], 'it did not move under the cursor');
      // A background re-list (after an archive elsewhere) keeps the order as well.
      await vscode.commands.executeCommand('acpSessions.archive', sessionRow(await settledTree(), 'w2').node);
      await api.sessions.model.lastRevalidation;
      assert.deepEqual(sessionIds(sectionRow(await settledTree(), agent, 'Active')), ['w1', 'w3']);
      await vscode.commands.executeCommand('acpSessions.refresh');
      assert.deepEqual(sessionIds(sectionRow(await settledTree(), agent, 'Active')), ['w3', 'w1']);
    });
  }

  test('an agent that does not resume on load: nothing moves and the header says nothing', async () => {
    const agent = await useAgent(await seededStore());
    await vscode.commands.executeCommand('acpSessions.openTranscript', sessionRow(await settledTree(), 'w3').node);
    assert.equal((await api.transcripts.whenChecked(agent, 'w3')).resumed, false);
    await vscode.commands.executeCommand('acpSessions.refresh');
    assert.deepEqual(sessionIds(sectionRow(await settledTree(), agent, 'Active')), ['w1', 'w2', 'w3']);
  });
});

suite('Transcript header: Rename…', () => {
  settingsPerSuite();
  teardown(() => closeAllTranscripts(api));

  async function openTranscript(agent: string, sessionId: string): Promise<void> {
    await vscode.commands.executeCommand('acpSessions.openTranscript', sessionRow(await settledTree(), sessionId).node);
    await api.transcripts.whenChecked(agent, sessionId);
  }

  const tabLabel = (title: string) => until(`a transcript tab is labelled "${title}"`, () => transcriptTabs().some((t) => t.label === title));

  for (const [mode, flags] of ARCHIVE_MODES) {
    test(`(${mode}) the header's Rename… runs the tree's Rename: tree, tab, header and store change at once; Undo restores them`, async () => {
      const store = await seededStore();
      const agent = await useAgent(store, flags);
      await openTranscript(agent, 'w2');
      assert.equal(api.transcripts.getState(agent, 'w2')?.canRename, true);
      const message = nextMessage();
      api.sessions.messages.answerNextInput('  Header title  ');
      api.transcripts.receiveFromWebview(agent, 'w2', { type: 'action', action: 'rename' });
      const shown = await message();
      assert.equal(shown.text, 'Renamed "Title of w2" to "Header title".');
      assert.deepEqual(shown.actions, ['Undo']);
      assert.equal(sessionRow(await rows(), 'w2').label, 'Header title', 'the tree shows it without a re-list');
      assert.equal(api.transcripts.getState(agent, 'w2')?.title, 'Header title');
      await tabLabel('Header title');
      assert.equal((await readSession(store, 'w2'))?.title, 'Header title');
      api.sessions.messages.choose(shown, 'Undo');
      await until('the store has the old title', async () => (await readSession(store, 'w2'))?.title === 'Title of w2');
      await until('the tree has the old title', async () => sessionRow(await rows(), 'w2').label === 'Title of w2');
      await until('the header has the old title', () => api.transcripts.getState(agent, 'w2')?.title === 'Title of w2');
      await tabLabel('Title of w2');
    });
  }

  test('a rename in the tree retitles the open transcript\'s header and tab', async () => {
    const agent = await useAgent(await seededStore());
    await openTranscript(agent, 'w1');
    await vscode.commands.executeCommand('acpSessions.rename', sessionRow(await settledTree(), 'w1').node, undefined, 'From the tree');
    assert.equal(api.transcripts.getState(agent, 'w1')?.title, 'From the tree');
    await tabLabel('From the tree');
  });

  test('the header validates as the tree does: an empty title is refused and nothing is sent', async () => {
    const store = await seededStore();
    const agent = await useAgent(store);
    await openTranscript(agent, 'w1');
    const message = nextMessage();
    api.sessions.messages.answerNextInput('   ');
    api.transcripts.receiveFromWebview(agent, 'w1', { type: 'action', action: 'rename' });
    assert.match((await message()).text, /^Not renamed: The title cannot be empty/);
    assert.equal((await readSession(store, 'w1'))?.title, 'Title of w1');
  });

  test('-32002 from the header\'s rename: the message says the session is gone and it leaves the tree', async () => {
    const store = await seededStore();
    const agent = await useAgent(store, ['--archive-extension']);
    await openTranscript(agent, 'w2');
    await writeSession(store, record('w2', workspaceFolder(), 2, { deleted: true }));
    const message = nextMessage();
    api.sessions.messages.answerNextInput('New');
    api.transcripts.receiveFromWebview(agent, 'w2', { type: 'action', action: 'rename' });
    assert.match((await message()).text, /"Title of w2" no longer exists on the agent/);
    assert.deepEqual(await sections(agent), { active: ['w1', 'w3'], archived: ['w4'] });
  });

  test('without sessionCapabilities.title the header offers no Rename and the action does nothing', async () => {
    const store = await seededStore();
    const agent = await useAgent(store, ['--no-title']);
    await openTranscript(agent, 'w1');
    assert.equal(api.transcripts.getState(agent, 'w1')?.canRename, false);
    const asked = api.sessions.messages.inputs.length;
    const shown = api.sessions.messages.shown.length;
    api.transcripts.receiveFromWebview(agent, 'w1', { type: 'action', action: 'rename' });
    // The action is handled synchronously up to the capability check; a round trip through the agent proves it settled.
    await (await api.agents.getClient(agent)).listSessions();
    assert.equal(api.sessions.messages.inputs.length, asked, 'no input box');
    assert.equal(api.sessions.messages.shown.length, shown, 'no message');
    assert.equal((await readSession(store, 'w1'))?.title, 'Title of w1');
  });
});

// Issue 21: a command acts on what the user pointed at, and says so when it cannot.
suite('Sessions tree: command targets', () => {
  settingsPerSuite();

  test('Rename… from a row\'s menu with two rows selected renames the row the menu was opened on, and the menu is hidden on a multi-selection', async () => {
    const store = await seededStore();
    await useAgent(store);
    const tree = await settledTree();
    const [first, clicked] = [sessionRow(tree, 'w1').node, sessionRow(tree, 'w2').node];
    await vscode.commands.executeCommand('acpSessions.rename', clicked, [first, clicked], 'Renamed from its menu');
    assert.equal((await readSession(store, 'w2'))?.title, 'Renamed from its menu');
    assert.equal((await readSession(store, 'w1'))?.title, 'Title of w1', 'the other selected row is left alone');
    const manifest = vscode.extensions.getExtension('acp-sessions.acp-sessions')!.packageJSON;
    const menu = manifest.contributes.menus['view/item/context'].find((m: { command: string }) => m.command === 'acpSessions.rename');
    assert.match(menu.when, /!listMultiSelection/);
  });

  test('Undo after archiving sessions of two agents that share an id restores each agent\'s own', async () => {
    const [storeA, storeB] = [await seededStore(), await seededStore()];
    const [nameA, nameB] = [`Reference ${++agentCounter}`, `Reference ${++agentCounter}`];
    await config().update('agents', [
      { name: nameA, command: process.execPath, args: [agentScript, '--store', storeA] },
      { name: nameB, command: process.execPath, args: [agentScript, '--store', storeB] },
    ], vscode.ConfigurationTarget.Global);
    await until('both agents are configured', () => api.agents.agents.length === 2 && api.agents.agents.every((a) => a.name === nameA || a.name === nameB));
    const tree = await until('both agents list w1', async () => {
      const t = await settledTree();
      return sessionIds(sectionRow(t, nameA, 'Active')).includes('w1') && sessionIds(sectionRow(t, nameB, 'Active')).includes('w1') ? t : undefined;
    });
    const rowOf = (agent: string) => flatten(sectionRow(tree, agent, 'Active')!.children).find((r) => r.node?.session?.sessionId === 'w1')!.node;
    const both = [rowOf(nameA), rowOf(nameB)];
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.archive', both[0], both);
    assert.deepEqual([(await readSession(storeA, 'w1'))?.archived, (await readSession(storeB, 'w1'))?.archived], [true, true]);
    const shown = await message();
    assert.equal(shown.text, 'Archived 2 sessions.');
    api.sessions.messages.choose(shown, 'Undo');
    await until('each agent has its w1 back', async () => (await readSession(storeA, 'w1'))?.archived === false && (await readSession(storeB, 'w1'))?.archived === false);
    await until('both trees show it in Active', async () => (await sections(nameA)).active.includes('w1') && (await sections(nameB)).active.includes('w1'));
  });

  test('archiving a row that is already archived says so in words (no internal marker reaches the user)', async () => {
    await useAgent(await seededStore());
    const message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.archive', sessionRow(await settledTree(), 'w4').node);
    assert.equal((await message()).text, 'Nothing was archived: "Title of w4" is already archived.');
  });

  // One agent and one reveal for the whole test: VS Code keeps a row of a replaced agent in its
  // selection, and a reveal does not replace it there.
  test('with w1 selected: Open Transcript and Restart Agent with a row VS Code no longer knows do nothing and say so; Delete and F2 act on w1, also right after a redraw of its section', async () => {
    const store = await seededStore();
    const agent = await useAgent(store);
    const tree = await settledTree();
    await vscode.commands.executeCommand('acpSessions.sessions.focus');
    await api.sessions.view.treeView.reveal(sessionRow(tree, 'w1').node, { select: true, focus: true });
    await until(`w1 of ${agent} is selected`, () => {
      const selection = api.sessions.view.selection();
      if (selection.some((n: any) => n.session?.sessionId === 'w1' && n.agent === agent)) return true;
      throw new Error(`the selection is ${JSON.stringify(selection.map((n) => n.id))}`);
    });

    const opened = api.transcripts.openCount;
    let message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.openTranscript', undefined);
    assert.match((await message()).text, /^Nothing was opened: the Sessions view was redrawing that row/);
    assert.equal(api.transcripts.openCount, opened, 'the selected session was not opened in its place');
    const client = api.agents.connectedClient(agent);
    message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.restartAgent', undefined);
    assert.match((await message()).text, /^No agent was restarted/);
    assert.equal(api.agents.connectedClient(agent), client, 'the agent kept its process');

    // Archiving w3 changes Active's count: VS Code redraws the section w1 is in.
    await api.sessions.model.archive(agent, ['w3']);
    api.sessions.messages.answerNextModal(undefined);
    const asked = nextMessage();
    await vscode.commands.executeCommand('acpSessions.deleteSelected');
    assert.equal((await asked()).text, 'Delete the session "Title of w1"?');
    assert.equal((await readSession(store, 'w1'))?.deleted, false, 'cancelled: nothing deleted');
    api.sessions.messages.answerNextInput('Renamed by key');
    await vscode.commands.executeCommand('acpSessions.renameSelected');
    assert.equal((await readSession(store, 'w1'))?.title, 'Renamed by key');

    const keys = vscode.extensions.getExtension('acp-sessions.acp-sessions')!.packageJSON.contributes.keybindings as { command: string; key: string; when: string }[];
    for (const key of ['delete', 'f2']) {
      const binding = keys.find((k) => k.key === key);
      assert.equal(binding?.when, 'focusedView == acpSessions.sessions && !inputFocus', `${key} does not depend on a context key that a redraw can leave stale`);
    }
    assert.ok(!keys.some((k) => k.key === 'enter'), 'Enter is VS Code\'s own list.select, which runs the row\'s command');
  });
});

suite('Sessions tree: a session open in another process', () => {
  settingsPerSuite();

  test('archive and rename of a session another process holds say so in clear words, never a raw code, and change nothing', async () => {
    const store = await seededStore();
    await useAgent(store, ['--air-index', '--active-writer', 'w2']);
    const row = sessionRow(await settledTree(), 'w2');
    let message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.archive', row.node);
    let shown = await message();
    assert.match(shown.text, /^Could not archive "Title of w2": This session is open in another Reference \d+ process; close it there first\./);
    assert.doesNotMatch(shown.text, /thread_active_writer|-32600/);
    message = nextMessage();
    await vscode.commands.executeCommand('acpSessions.rename', sessionRow(await settledTree(), 'w2').node, undefined, 'New title');
    shown = await message();
    assert.match(shown.text, /open in another Reference \d+ process; close it there first/);
    assert.doesNotMatch(shown.text, /thread_active_writer|-32600/);
    const stored = await readSession(store, 'w2');
    assert.deepEqual([stored?.archived, stored?.title], [false, 'Title of w2']);
  });
});
