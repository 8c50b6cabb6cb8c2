// Search Sessions inside the real extension host, against the reference agent as a real process:
// F4 / Shift+F4 step through the matches of every session, an agent whose loads are not known to
// be free of side effects is only offered (nothing loads before the user agrees), Cancel stops the
// background indexing and keeps what it did, Clear Search Index empties it, a deleted session
// leaves the index at once (its row, a clean-up run, the agent's live list), archive changes only
// the filter, a newer updatedAt is indexed again, and the filter picker filters the results. What
// the index did not write itself (issue 30): a session deleted outside the Sessions view's scope,
// an agent no longer configured, a damaged file in the index folder.
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import type { SearchNode } from '../../src/ui/search/searchView';
import type { FilterItem } from '../../src/ui/search/searchFilters';
import { markSessionDeleted, readSession, writeSession, type SessionUpdate, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, closeAllTranscripts, config, configureAgent, removeTempDirs, tempDir, until, workspaceFolder } from './support';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let api: AcpSessionsApi;
let counter = 0;

const say = (who: 'user' | 'agent' | 'thought', text: string): SessionUpdate =>
  ({ sessionUpdate: who === 'user' ? 'user_message_chunk' : who === 'agent' ? 'agent_message_chunk' : 'agent_thought_chunk', content: { type: 'text', text } }) as SessionUpdate;

function record(sessionId: string, msAgo: number, updates: SessionUpdate[], extra: Partial<StoredSession> = {}): StoredSession {
  return {
    sessionId,
    cwd: workspaceFolder(),
    title: `Title of ${sessionId}`,
    updatedAt: new Date(Date.now() - msAgo).toISOString(),
    archived: false,
    deleted: false,
    updates,
    ...extra,
  };
}

async function storeOf(records: StoredSession[]): Promise<string> {
  const store = tempDir('acp-search-it-');
  for (const r of records) await writeSession(store, r);
  return store;
}

function useAgent(store: string, flags: string[] = []): Promise<string> {
  return configureAgent(api, `Search ${++counter}`, process.execPath, [agentScript, '--store', store, ...flags]);
}

async function engine() {
  return api.search.ready;
}

async function indexedIds(agent: string): Promise<string[]> {
  return (await engine()).index.sessions(agent).map((s) => s.sessionId).sort();
}

/** Surveys every agent and indexes in the background what loads without side effects (Refresh). */
function refresh(): Thenable<unknown> {
  return vscode.commands.executeCommand('acpSessions.search.refresh');
}

function search(query: string): Thenable<unknown> {
  return vscode.commands.executeCommand('acpSessions.search', query);
}

/** A store of `records` and its agent, indexed by Refresh; `word` searched finds every one of them. */
async function indexedAndFound(records: StoredSession[], word: string): Promise<{ store: string; agent: string }> {
  const store = await storeOf(records);
  const agent = await useAgent(store);
  await refresh();
  assert.deepEqual(await indexedIds(agent), records.map((r) => r.sessionId).sort());
  await search(word);
  assert.equal(results().length, records.length, `every session says "${word}"`);
  return { store, agent };
}

interface ViewRow {
  node: SearchNode;
  item: vscode.TreeItem;
  label: string;
}

/** The Search view's rows (through its own data provider), depth first. */
function viewRows(parent?: SearchNode): ViewRow[] {
  const view = api.search.view;
  return view.getChildren(parent).flatMap((node) => {
    const item = view.getTreeItem(node);
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    return [{ node, item, label }, ...viewRows(node)];
  });
}

/** The sessions the results list, in order, with the lines of their matches. */
function results(): { sessionId: string; lines: string[] }[] {
  return api.search.view.matches().reduce<{ sessionId: string; lines: string[] }[]>((all, m) => {
    const sessionId = m.parent.result.session.sessionId;
    if (all[all.length - 1]?.sessionId !== sessionId) all.push({ sessionId, lines: [] });
    all[all.length - 1].lines.push(m.match.line);
    return all;
  }, []);
}

const message = () => api.search.view.treeView.message ?? '';

/** The Sessions tree's row of a session (its node is what the row's menu commands get). */
async function sessionNode(sessionId: string): Promise<unknown> {
  const provider = api.sessions.view;
  const find = async (parent?: any): Promise<unknown> => {
    for (const node of (await provider.getChildren(parent)) ?? []) {
      if ((node as any).session?.sessionId === sessionId) return node;
      const item = await provider.getTreeItem(node);
      if (item.collapsibleState !== vscode.TreeItemCollapsibleState.None) {
        const found = await find(node);
        if (found) return found;
      }
    }
    return undefined;
  };
  return until(`the Sessions tree shows ${sessionId}`, () => find());
}

suite('Search Sessions', () => {
  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
    // What leaves the index when the agent forgets a session, with no copy kept (a kept copy stays
    // found: test/integration/facts.test.ts).
    await config().update('keep.mode', 'off', vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('acpSessions.search.clearIndex');
  });

  teardown(async () => {
    await vscode.commands.executeCommand('acpSessions.search.clearFilters');
    await search('');
    await closeAllTranscripts(api);
  });

  suiteTeardown(async () => {
    // The suite showed the Search view; shown, it surveys and indexes the next suites' agents in the
    // background, whose loads would reach their open transcripts. Hidden, as it was collapsed before.
    await vscode.commands.executeCommand('acpSessions.search.removeView');
    await until('the Search view is hidden', () => !api.search.view.treeView.visible);
    await config().update('keep.mode', undefined, vscode.ConfigurationTarget.Global);
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('F4 and Shift+F4 go to the next and previous match across sessions, each opened in its transcript, and wrap around', async () => {
    const keys = (vscode.extensions.getExtension('acp-sessions.acp-sessions')!.packageJSON.contributes.keybindings as { command: string; key: string }[]);
    assert.equal(keys.find((k) => k.command === 'acpSessions.search.next')?.key, 'f4');
    assert.equal(keys.find((k) => k.command === 'acpSessions.search.previous')?.key, 'shift+f4');
    const store = await storeOf([
      record('p1', 1 * HOUR, [say('user', 'the pelican first'), say('agent', 'unrelated words'), say('agent', 'a pelican second')]),
      record('p2', 2 * HOUR, [say('agent', 'where the pelican third sits')]),
      record('p3', 3 * HOUR, [say('user', 'nothing to see')]),
    ]);
    const agent = await useAgent(store);
    await refresh();
    assert.deepEqual(await indexedIds(agent), ['p1', 'p2', 'p3']);
    await search('pelican');
    assert.deepEqual(results().map((r) => r.sessionId), ['p1', 'p2']);

    const expectAt = async (sessionId: string, line: RegExp) => {
      await until(`the transcript of ${sessionId} is the visible one, replayed`, () => {
        const state = api.transcripts.getState(agent, sessionId);
        return state?.visible && state.loaded;
      });
      const selected = await until('a match is selected in the Search view', () => api.search.view.treeView.selection[0]);
      assert.equal(selected.kind, 'match');
      assert.equal(selected.kind === 'match' && selected.parent.result.session.sessionId, sessionId);
      assert.match(selected.kind === 'match' ? selected.match.line : '', line);
    };
    // What F4 (next) and Shift+F4 (previous) run, in turn, and where each lands: over the end and back.
    const steps: ['next' | 'previous', string, RegExp][] = [
      ['next', 'p1', /pelican first/],
      ['next', 'p1', /pelican second/],
      ['next', 'p2', /pelican third/],
      ['next', 'p1', /pelican first/],
      ['previous', 'p2', /pelican third/],
      ['previous', 'p1', /pelican second/],
    ];
    for (const [command, sessionId, line] of steps) {
      await vscode.commands.executeCommand(`acpSessions.search.${command}`);
      await expectAt(sessionId, line);
    }
  });

  test('an agent not known to be free of side effects gets the offer "Index N sessions of <agent>…", saying what a load may change, and nothing loads before the user agrees', async () => {
    const strings = join(tempDir('acp-search-strings-'), 'strings.json');
    writeFileSync(strings, JSON.stringify({ agentInfo: { name: 'mystery-agent', version: '1.0.0' } }));
    const sessions = [
      record('u1', 1 * HOUR, [say('user', 'the walrus plan')]),
      record('u2', 2 * HOUR, [say('agent', 'walrus again')]),
      record('u3', 3 * HOUR, [say('agent', 'and a walrus')]),
    ];
    const store = await storeOf(sessions);
    // A load there makes the session's date now, as Codex's resume does: a load would show in the store.
    const agent = await useAgent(store, ['--strings', strings, '--resume-on-load']);
    const unchanged = async () => {
      for (const s of sessions) assert.equal((await readSession(store, s.sessionId))?.updatedAt, s.updatedAt, `${s.sessionId} was not loaded`);
      assert.deepEqual(await indexedIds(agent), [], 'nothing of it is indexed');
    };
    await refresh();
    // Nothing indexed and no query: the view is empty, so its welcome offers Index Sessions…; a
    // query shows the coverage with the offer, and says how many sessions are not indexed.
    assert.deepEqual(viewRows().map((r) => r.label), []);
    await search('walrus');
    assert.match(message(), new RegExp(`^No results in 0 indexed sessions\\. 3 sessions of ${agent} are not indexed yet, so no search finds them: Index Sessions… indexes them\\.$`));
    const offer = await until('the view offers to index the agent', () => viewRows().find((r) => r.label === `Index 3 sessions of ${agent}…`));
    assert.equal(offer.item.tooltip, 'What loading a session of this agent changes is not known: it may resume the session, so its date can become now. Nothing is loaded unless you ask.');
    assert.deepEqual(offer.item.command?.arguments, [agent]);
    assert.ok(viewRows().some((r) => r.label === `${agent}: 0 of 3 sessions indexed`));
    await unchanged();

    const shown = api.sessions.messages.shown.length;
    api.sessions.messages.answerNextModal(undefined);
    await vscode.commands.executeCommand(offer.item.command!.command, ...offer.item.command!.arguments!);
    const asked = api.sessions.messages.shown.slice(shown).find((m) => m.modal);
    assert.equal(asked?.text, `Index 3 sessions of ${agent}?`);
    assert.match(asked?.detail ?? '', /it may resume the session, so its date can become now/);
    assert.match(asked?.detail ?? '', /Each session is loaded once \(session\/load\)/);
    await unchanged();

    api.sessions.messages.answerNextModal('Index');
    await vscode.commands.executeCommand(offer.item.command!.command, ...offer.item.command!.arguments!);
    assert.deepEqual(await indexedIds(agent), ['u1', 'u2', 'u3'], 'agreed: every session is indexed');
    for (const s of sessions) assert.notEqual((await readSession(store, s.sessionId))?.updatedAt, s.updatedAt, `${s.sessionId} was loaded`);
    await until('the view counts them indexed', () => viewRows().some((r) => r.label === `${agent}: 3 of 3 sessions indexed`));
  });

  test('Cancel stops the background indexing; what was indexed stays indexed, and the view says so', async () => {
    const count = 40;
    const records: StoredSession[] = [];
    for (let i = 0; i < count; i++) records.push(record(`c${String(i).padStart(2, '0')}`, (i + 1) * HOUR, [say('user', `otter ${i}`), say('agent', 'first'), say('agent', 'second'), say('agent', 'third')]));
    const store = await storeOf(records);
    // Each replay takes a while, so the indexing is under way when Cancel comes.
    const agent = await useAgent(store, ['--replay-delay', '40']);
    const run = refresh();
    await until('three sessions are indexed', () => api.search.view.state.indexing?.agent === agent && api.search.view.state.indexing.done >= 3, 60_000);
    await vscode.commands.executeCommand('acpSessions.search.cancelIndexing');
    await run;
    const kept = await indexedIds(agent);
    assert.ok(kept.length >= 2 && kept.length < count, `indexing stopped part way (${kept.length} of ${count})`);
    assert.equal(api.search.view.state.indexing, undefined, 'no indexing is under way');
    assert.match(message(), new RegExp(`^Indexing ${agent} was cancelled after ${kept.length} of ${count} sessions; those stay indexed\\. Refresh goes on\\.`));
    assert.ok(viewRows().some((r) => r.label === `${agent}: ${kept.length} of ${count} sessions indexed`), 'the coverage counts what was indexed');
    await search('otter');
    assert.equal(results().length, kept.length, 'what was indexed is found');
    // Shown again, the view surveys the agents, but after Cancel it indexes nothing until Refresh.
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await until('the Search view is hidden', () => !api.search.view.treeView.visible);
    const before = api.search.lastSurvey;
    await vscode.commands.executeCommand('acpSessions.search.focus');
    const { surveyed } = await until('the view shown again surveys the agents', () => api.search.lastSurvey !== before && { surveyed: api.search.lastSurvey });
    await surveyed;
    assert.deepEqual(await indexedIds(agent), kept, 'nothing more is indexed, nothing is dropped');
  });

  test('Clear Search Index empties the index, and the view and a notification say so', async () => {
    await indexedAndFound([record('k1', HOUR, [say('user', 'the narwhal note')]), record('k2', 2 * HOUR, [say('agent', 'narwhal two')])], 'narwhal');
    const shown = api.sessions.messages.shown.length;
    await vscode.commands.executeCommand('acpSessions.search.clearIndex');
    const { index } = await engine();
    assert.equal(index.sessions().length, 0);
    assert.equal((await index.size()).sessions, 0);
    assert.equal(await until('the notification is shown', () => api.sessions.messages.shown.slice(shown).find((m) => /search index is cleared/.test(m.text)))
      .then((m) => m.text), 'The search index is cleared. Transcripts you open are indexed again; background indexing starts over when the Search view shows.');
    await until('the view says the index is empty and finds nothing', () => /^The search index is empty: it was cleared\. No results in 0 indexed sessions\./.test(message()) && results().length === 0);
  });

  test('a session deleted from its row leaves the index at once (no survey), and is no longer found', async () => {
    const { store, agent } = await indexedAndFound([record('d1', HOUR, [say('user', 'the unique gannet word')]), record('d2', 2 * HOUR, [say('user', 'a plain gannet')])], 'gannet');
    api.sessions.messages.answerNextModal('Delete');
    await vscode.commands.executeCommand('acpSessions.delete', await sessionNode('d1'));
    assert.equal((await readSession(store, 'd1'))?.deleted, true);
    await until('d1 left the index', async () => (await indexedIds(agent)).join() === 'd2');
    await until('the results no longer show d1', () => results().map((r) => r.sessionId).join() === 'd2');
  });

  test('sessions deleted by a Clean Up delete run leave the index at once', async () => {
    const store = await storeOf([
      record('e1', HOUR, [say('user', 'kestrel active')]),
      record('e2', 20 * DAY, [say('user', 'kestrel old archived')], { archived: true }),
      record('e3', 25 * DAY, [say('user', 'kestrel older archived')], { archived: true }),
    ]);
    const agent = await useAgent(store);
    await refresh();
    assert.deepEqual(await indexedIds(agent), ['e1', 'e2', 'e3']);
    api.sessions.messages.answerNextModal('Delete');
    await vscode.commands.executeCommand('acpSessions.cleanUp', { agent, action: 'delete', rule: { olderThanDays: 10 } });
    assert.equal((await readSession(store, 'e2'))?.deleted, true);
    await until('e2 and e3 left the index', async () => (await indexedIds(agent)).join() === 'e1');
  });

  test('a session the agent\'s live list reports removed leaves the index at once', async () => {
    const store = await storeOf([record('l1', HOUR, [say('user', 'puffin one')]), record('l2', 2 * HOUR, [say('user', 'puffin two')])]);
    const agent = await useAgent(store, ['--air-index']);
    await sessionNode('l2');
    await api.sessions.model.lastLiveSubscription;
    await until('the live list of the folder is subscribed', () => api.sessions.model.liveFolders(agent).length > 0);
    await refresh();
    assert.deepEqual(await indexedIds(agent), ['l1', 'l2']);
    assert.ok(await markSessionDeleted(store, 'l2'), 'another process deletes l2');
    await until('l2 left the index', async () => (await indexedIds(agent)).join() === 'l1');
  });

  test('a session deleted outside the Sessions view\'s scope (another folder, by another process) leaves the index with the next survey, and is no longer found', async () => {
    const elsewhere = tempDir('acp-search-elsewhere-');
    // Indexed while the Sessions view showed every folder (the offer and the results follow its scope).
    await config().update('scope', 'all', vscode.ConfigurationTarget.Global);
    await until('the scope is every folder', () => api.sessions.model.scope.kind === 'all');
    const { store, agent } = await indexedAndFound([record('o1', HOUR, [say('user', 'the zebra here')]), record('o2', 2 * HOUR, [say('user', 'a zebra elsewhere')], { cwd: elsewhere })], 'zebra');
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
    await until('the scope is the workspace', () => api.sessions.model.scope.kind === 'folders');
    assert.equal(api.sessions.model.scope.kind, 'folders', 'the Sessions view shows the workspace only');
    await until('the results follow the scope', () => results().map((r) => r.sessionId).join() === 'o1');
    assert.ok(await markSessionDeleted(store, 'o2'), 'another process deletes o2');
    await refresh();
    assert.deepEqual(await indexedIds(agent), ['o1']);
    await search('zebra');
    assert.deepEqual(results().map((r) => r.sessionId), ['o1']);
  });

  test('an agent no longer configured: its results are not shown at once, and its entries leave the index with the next survey', async () => {
    const { agent: before } = await indexedAndFound([record('g1', HOUR, [say('user', 'the okapi one')]), record('g2', 2 * HOUR, [say('agent', 'okapi two')])], 'okapi');
    // Another agent replaces it in the settings.
    const store = await storeOf([record('h1', HOUR, [say('user', 'nothing alike')])]);
    await useAgent(store);
    await until(`${before} is no longer configured`, () => !api.agents.agents.some((a) => a.name === before));
    await search('okapi');
    assert.deepEqual(results(), [], 'no result of an agent that is not configured');
    await refresh();
    assert.deepEqual(await indexedIds(before), []);
  });

  test('a session whose file in the index is damaged is left out, the others are still found, and it is indexed again', async () => {
    const { agent } = await indexedAndFound([record('z1', HOUR, [say('user', 'the tapir one')]), record('z2', 2 * HOUR, [say('agent', 'tapir two')])], 'tapir');
    const { index } = await engine();
    await index.flush();
    const manifest = JSON.parse(readFileSync(join(index.dir, 'index.json'), 'utf8')) as { sessions: { sessionId: string; file: string; blocks: { off: number }[] }[] };
    const damaged = manifest.sessions.find((s) => s.sessionId === 'z1')!;
    const bytes = readFileSync(join(index.dir, damaged.file));
    for (const at of [damaged.blocks[0].off, damaged.blocks[0].off + 1]) bytes[at] ^= 0xff;
    writeFileSync(join(index.dir, damaged.file), bytes);
    await search('tapir');
    assert.equal(api.search.view.state.error, undefined, 'the search did not fail');
    assert.deepEqual(results().map((r) => r.sessionId), ['z2']);
    assert.equal(index.get(agent, 'z1'), undefined, 'z1 no longer counts as indexed');
    // Shown with a query, the view surveys again soon and indexes what is missing in the background.
    await until('z1 is indexed again and found', () => index.get(agent, 'z1') !== undefined && results().length === 2, 30_000);
    assert.deepEqual(results().map((r) => r.sessionId), ['z1', 'z2']);
  });

  test('archive changes only the filter (no new load); a session whose updatedAt changed is indexed again', async () => {
    const store = await storeOf([record('a1', HOUR, [say('user', 'the albatross topic')]), record('a2', 2 * HOUR, [say('user', 'albatross as well')])]);
    const agent = await useAgent(store);
    await refresh();
    const { index } = await engine();
    const before = index.get(agent, 'a1');
    assert.equal(before?.archived, false);
    await vscode.commands.executeCommand('acpSessions.archive', await sessionNode('a1'));
    await until('the index has a1 as archived', () => index.get(agent, 'a1')?.archived === true);
    assert.equal(index.get(agent, 'a1')?.indexedAt, before!.indexedAt, 'not indexed again');
    await search('albatross is:archived');
    assert.deepEqual(results().map((r) => r.sessionId), ['a1']);

    const newer = new Date().toISOString();
    // The agent's session goes on elsewhere: new text, and a newer date.
    await writeSession(store, record('a2', 0, [say('user', 'albatross as well'), say('agent', 'now a cormorant too')], { updatedAt: newer }));
    await refresh();
    assert.equal(index.get(agent, 'a2')?.updatedAt, newer);
    await search('cormorant');
    assert.deepEqual(results().map((r) => r.sessionId), ['a2']);
  });

  test('the filter picker sets agent, Active/Archived, folder, age and where it was said; the view shows the filters, and Clear Filters removes them', async () => {
    const store = await storeOf([
      record('f1', HOUR, [say('user', 'heron by me'), say('agent', 'heron by the agent')]),
      record('f2', 40 * DAY, [say('thought', 'heron in a thought'), say('user', 'heron old by me')], { archived: true }),
      record('f3', 2 * HOUR, [say('agent', 'heron recent by the agent')]),
    ]);
    const agent = await useAgent(store);
    await refresh();
    await search('heron');
    assert.deepEqual(results().map((r) => r.sessionId), ['f1', 'f3', 'f2']);

    const open = async () => {
      void vscode.commands.executeCommand('acpSessions.search.filter');
      return until('the filter picker is shown', () => api.search.filterPick);
    };
    const item = (pick: NonNullable<AcpSessionsApi['search']['filterPick']>, label: string) => {
      const found = pick.items.find((i): i is FilterItem => 'group' in i && i.label === label);
      assert.ok(found, `the picker offers "${label}" (${pick.items.map((i) => i.label).join(', ')})`);
      return found;
    };
    type Pick = NonNullable<AcpSessionsApi['search']['filterPick']>;
    /**
     * Checks `items` as a user's clicks would, and waits until the workbench reports the checked
     * items as `expected` (the extension host sends a change to the workbench a moment later).
     */
    const check = async (pick: Pick, items: FilterItem[], expected: string[]) => {
      let reported = false;
      const listening = pick.onDidChangeSelection((selection) => {
        if (selection.map((i) => i.label).join() === expected.join()) reported = true;
      });
      pick.selectedItems = items;
      await until(`the workbench reports ${expected.join(', ')} checked`, () => reported);
      listening.dispose();
    };
    const accept = async (pick: NonNullable<AcpSessionsApi['search']['filterPick']>) => {
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await until('the filter picker is closed', () => api.search.filterPick !== pick);
    };

    let pick = await open();
    for (const label of [agent, 'Active only', 'Archived only', 'Updated in the last 7 days', 'Not updated for 30 days', 'Said by you', 'Said by the agent', 'Thoughts', 'Tool calls and their output', 'Compaction summaries']) item(pick, label);
    assert.ok(pick.items.some((i) => 'group' in i && (i as FilterItem).group === 'folder' && i.description === workspaceFolder()), 'the workspace folder is offered');
    assert.equal(pick.selectedItems.length, 0, 'nothing is checked yet');
    // Active and Archived are one choice: checking Archived unchecks Active.
    await check(pick, [item(pick, 'Active only')], ['Active only']);
    await check(pick, [item(pick, 'Active only'), item(pick, 'Archived only'), item(pick, 'Said by you')], ['Archived only', 'Said by you']);
    await accept(pick);
    await until('the results are archived sessions, text said by you', () => JSON.stringify(results()) === JSON.stringify([{ sessionId: 'f2', lines: ['heron old by me'] }]));
    assert.equal(api.search.view.treeView.description, 'heron · Filters: Archived only · Said by you');
    const row = viewRows()[0];
    assert.equal(row.label, 'Filters: Archived only · Said by you');
    assert.equal(row.item.contextValue, 'searchFilters', 'the row carries the inline Clear Filters');
    assert.equal(row.item.command?.command, 'acpSessions.search.filter', 'Enter on the row opens the picker');

    // Shown again, the picker has the filters checked; agent, folder and age replace them.
    pick = await open();
    assert.deepEqual(pick.selectedItems.map((i) => i.label).sort(), ['Archived only', 'Said by you']);
    const folder = pick.items.find((i): i is FilterItem => 'group' in i && i.group === 'folder' && i.description === workspaceFolder())!;
    await check(pick, [item(pick, agent), folder, item(pick, 'Updated in the last 7 days'), item(pick, 'Said by the agent')], [agent, folder.label, 'Updated in the last 7 days', 'Said by the agent']);
    await accept(pick);
    await until('the results are recent sessions of the agent in the folder, text said by the agent', () =>
      JSON.stringify(results()) === JSON.stringify([{ sessionId: 'f1', lines: ['heron by the agent'] }, { sessionId: 'f3', lines: ['heron recent by the agent'] }]));
    assert.deepEqual(api.search.view.state.filters, { agents: [agent], folder: workspaceFolder(), newerThanMs: 7 * DAY, where: ['agent'] });

    await vscode.commands.executeCommand('acpSessions.search.clearFilters');
    await until('every result is back', () => results().map((r) => r.sessionId).join() === 'f1,f3,f2');
    assert.equal(api.search.view.treeView.description, 'heron');
    assert.ok(!viewRows().some((r) => r.label.startsWith('Filters:')), 'no filter row');
  });

  test('a search that another begins while it runs (the index changed, a filter was cleared) resolves once the view shows the newer one\'s results', async () => {
    await indexedAndFound([record('s1', HOUR, [say('user', 'the puffin one')]), record('s2', 2 * HOUR, [say('agent', 'a puffin two')])], 'puffin');
    await search('');
    assert.deepEqual(results(), [], 'no query: no results');
    // Both begin in this order before either answers: the second search (Clear Filters searches
    // the query again, as an index change does) makes the first one's answer out of date.
    const first = search('puffin');
    const second = vscode.commands.executeCommand('acpSessions.search.clearFilters');
    await first;
    assert.deepEqual(results().map((r) => r.sessionId), ['s1', 's2'], 'the search awaited shows results when it resolves');
    assert.equal(api.search.view.state.searching, false);
    await second;
  });
});
