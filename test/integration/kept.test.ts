// Kept copies ahead of the agent (issue 33), in a real extension host against the reference agent:
// a session Claude Code will remove within `acpSessions.keep.aheadDays` says so in its row and
// its tooltip says why (`cleanupPeriodDays` read from the Claude settings in the agent's
// CLAUDE_CONFIG_DIR); the agent offers "Keep N sessions … will remove…" once per window where no
// copies are made for them, asking first where a load changes something; with the mode
// `expiring` they are kept in the background where a load changes nothing. The agent's tooltip
// counts the copies and their disk, the view warns near the budget, and Export Sessions…
// exports the sessions under Kept Here from their copies, asking no agent.
// The agent is "Claude" to the extension as Claude is recognised: by its command's name (a
// script named claude-agent-acp that runs the reference agent, which names itself as the
// reference agent, whose loads change nothing), or by its agentInfo (--strings: Claude's name,
// whose loads append records, so the extension asks first).
import * as assert from 'node:assert/strict';
import { chmodSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { SessionUpdate } from '../../src/acp/types';
import type { AcpSessionsApi } from '../../src/extension';
import { collectReplay, openReplay } from '../../src/transcript/replayReader';
import type { ExportResult } from '../../src/ui/transcripts/exportSessions';
import { markSessionDeleted, writeSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, closeAllTranscripts, config, hoveredItem, removeTempDirs, sessionRow, tempDir, type TreeRow, treeRows, until, workspaceFolder } from './support';

let api: AcpSessionsApi;
let counter = 0;
const DAY = 86_400_000;
const CLAUDE_INFO = { name: '@agentclientprotocol/claude-agent-acp', title: 'Claude Code', version: '0.101.0' };

const said = (text: string): SessionUpdate => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }) as SessionUpdate;

function record(sessionId: string, daysAgo: number, word: string): StoredSession {
  return {
    sessionId,
    cwd: workspaceFolder(),
    title: `Ahead ${sessionId}`,
    updatedAt: new Date(Date.now() - daysAgo * DAY).toISOString(),
    archived: false,
    deleted: false,
    updates: [said(`the ${word} flew over`)],
  };
}

/** Claude's config folder with `settings.json` saying `cleanupPeriodDays`. */
function claudeConfig(days: number): string {
  const dir = tempDir('acp-claude-config-');
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ cleanupPeriodDays: days }));
  return dir;
}

/** A script named as Claude's adapter that runs the reference agent (with `flags`). */
function claudeNamedCommand(flags: string[]): string {
  const path = join(tempDir('acp-claude-bin-'), 'claude-agent-acp');
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(path, `#!/bin/sh\nexec ${[process.execPath, agentScript, ...flags].map(quote).join(' ')} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

interface Agent {
  name: string;
  store: string;
  settings: string;
  requests: string;
}

/**
 * The one configured agent: `records` in a new store, Claude's settings in `settingsDir`; named
 * `claude-agent-acp` (its loads change nothing), or with Claude's agentInfo (`asClaude`).
 */
async function claudeAgent(records: StoredSession[], settingsDir: string, opts: { asClaude?: boolean; flags?: string[] } = {}): Promise<Agent> {
  const store = tempDir('acp-kept-store-');
  for (const r of records) await writeSession(store, r);
  const requests = join(tempDir('acp-kept-requests-'), 'requests.ndjson');
  const flags = ['--store', store, '--request-log', requests, ...(opts.flags ?? [])];
  if (opts.asClaude) {
    const strings = join(tempDir('acp-kept-strings-'), 'strings.json');
    writeFileSync(strings, JSON.stringify({ agentInfo: CLAUDE_INFO }));
    flags.push('--strings', strings);
  }
  const name = `Kept agent ${++counter}`;
  const entry = opts.asClaude
    ? { name, command: process.execPath, args: [agentScript, ...flags], env: { CLAUDE_CONFIG_DIR: settingsDir } }
    : { name, command: claudeNamedCommand(flags), args: [], env: { CLAUDE_CONFIG_DIR: settingsDir } };
  await config().update('agents', [entry], vscode.ConfigurationTarget.Global);
  await until(`agent "${name}" is configured`, () => api.agents.agents.some((a) => a.name === name));
  for (const r of records) await until(`${r.sessionId} is in the tree`, () => sessionRow(api, r.sessionId));
  return { name, store, settings: join(settingsDir, 'settings.json'), requests };
}

/** The requests the agent received with `method` for `sessionId`. */
function received(agent: Agent, method: string, sessionId: string): number {
  return readFileSync(agent.requests, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { method?: string; params?: { sessionId?: string } })
    .filter((r) => r.method === method && r.params?.sessionId === sessionId).length;
}

async function rowOf(sessionId: string): Promise<vscode.TreeItem> {
  const node = await until(`${sessionId} is in the tree`, () => sessionRow(api, sessionId));
  return hoveredItem(api, node);
}

const description = async (sessionId: string) => String((await rowOf(sessionId)).description ?? '');
/** A tooltip's text as read, without Markdown's escapes. */
const plain = (tooltip: vscode.TreeItem['tooltip']) => (typeof tooltip === 'string' ? tooltip : tooltip?.value ?? '').replace(/\\(.)/g, '$1');

/** The agent's rows: its own and the offer, if any. */
async function agentRows(agent: string): Promise<{ agentRow: TreeRow; offer?: TreeRow }> {
  const top = await api.sessions.view.getChildren(undefined);
  let agentRow: TreeRow | undefined;
  for (const node of top ?? []) {
    const item = await hoveredItem(api, node);
    if (String(typeof item.label === 'string' ? item.label : item.label?.label) === agent) agentRow = { node, item };
  }
  assert.ok(agentRow, `the agent "${agent}" has a row`);
  const children: TreeRow[] = [];
  for (const node of (await api.sessions.view.getChildren(agentRow.node)) ?? []) children.push({ node, item: await hoveredItem(api, node) });
  const offer = children.find((r) => r.item.command?.command === 'acpSessions.keepSessionsAhead');
  return { agentRow, offer };
}

const labelOf = (row: TreeRow) => String(typeof row.item.label === 'string' ? row.item.label : row.item.label?.label);

async function openAndClose(agent: string, sessionId: string): Promise<void> {
  await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionRow(api, sessionId));
  await api.transcripts.whenLoaded(agent, sessionId);
  await until(`${sessionId} has a kept copy`, () => api.sessions.kept.store.get(agent, sessionId) !== undefined);
  await closeAllTranscripts(api);
}

function shownSince(from: number, pattern: RegExp) {
  return api.sessions.messages.shown.slice(from).filter((m) => pattern.test(m.text));
}

suite('Kept copies: ahead of the agent, the budget, the agent\'s count and Export Sessions…', () => {
  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
  });

  teardown(async () => {
    await closeAllTranscripts(api);
    for (const key of ['keep.mode', 'keep.aheadDays', 'keep.maxMegabytes']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async () => {
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('a session Claude Code removes within keep.aheadDays says "removed in N d" in its row, and its tooltip says why: cleanupPeriodDays from its settings', async () => {
    await config().update('keep.mode', 'off', vscode.ConfigurationTarget.Global);
    const settingsDir = claudeConfig(10);
    const agent = await claudeAgent([record('soon', 6, 'swift'), record('past', 11, 'kite'), record('fresh', 0.05, 'wren')], settingsDir);
    assert.match(await description('soon'), /(^| · )removed in 4 d( · |$)/);
    assert.match(await description('past'), /(^| · )removed at next start( · |$)/);
    assert.doesNotMatch(await description('fresh'), /removed/);
    const tooltip = plain((await rowOf('soon')).tooltip);
    const on = new Date(Date.parse(record('soon', 6, '').updatedAt!) + 10 * DAY).toLocaleDateString();
    assert.ok(tooltip.includes(`Claude Code removes this session on ${on} (cleanupPeriodDays: 10, ${agent.settings}).`), tooltip);
    assert.ok(tooltip.includes('No copy is kept here yet'), tooltip);
    assert.ok(plain((await rowOf('past')).tooltip).includes(`Claude Code removes this session the next time it starts (cleanupPeriodDays: 10, ${agent.settings}).`));
    assert.doesNotMatch(plain((await rowOf('fresh')).tooltip), /removes this session/);

    // Fewer days ahead: the session due in 4 days is no longer announced; the one past its date is.
    await config().update('keep.aheadDays', 3, vscode.ConfigurationTarget.Global);
    assert.doesNotMatch(await description('soon'), /removed/);
    assert.match(await description('past'), /removed at next start/);

    // Claude's own setting is read again once its file changes: at 30 days none is due.
    await config().update('keep.aheadDays', undefined, vscode.ConfigurationTarget.Global);
    writeFileSync(agent.settings, JSON.stringify({ cleanupPeriodDays: 30 }));
    utimesSync(agent.settings, new Date(), new Date(Date.now() + 5_000));
    for (const id of ['soon', 'past', 'fresh']) assert.doesNotMatch(await description(id), /removed/, id);
    assert.doesNotMatch(plain((await rowOf('past')).tooltip), /removes this session/);
  });

  test('"Keep N sessions Claude Code will remove…" is offered once per agent and window, counts only the due sessions with no copy, says what a load changes, and keeps just those', async () => {
    const settingsDir = claudeConfig(10);
    const records = [record('due1', 6, 'heron'), record('due2', 9, 'stork'), record('due3', 8, 'crane'), record('fresh', 0.05, 'ibis')];
    // Turned down: the offer is gone for the rest of the window, and nothing was loaded.
    const first = await claudeAgent(records, settingsDir, { asClaude: true });
    await config().update('keep.mode', 'off', vscode.ConfigurationTarget.Global);
    assert.equal((await agentRows(first.name)).offer, undefined, 'no offer while nothing is kept');
    await config().update('keep.mode', undefined, vscode.ConfigurationTarget.Global);
    const offered = (await agentRows(first.name)).offer;
    assert.ok(offered, 'the offer is shown');
    assert.equal(labelOf(offered), `Keep 3 sessions ${first.name} will remove…`);
    assert.deepEqual(offered.item.command?.arguments, [first.name]);
    let from = api.sessions.messages.shown.length;
    api.sessions.messages.answerNextModal(undefined);
    await vscode.commands.executeCommand(offered.item.command!.command, ...offered.item.command!.arguments!);
    const [asked] = shownSince(from, /^Keep copies of 3 sessions that /);
    assert.ok(asked?.modal, 'it asked in a modal');
    assert.match(asked.detail ?? '', /Claude keeps its date and place in the list, but appends a few bookkeeping records/);
    assert.equal((await agentRows(first.name)).offer, undefined, 'once turned down, not offered again in this window');
    for (const id of ['due1', 'due2', 'due3']) assert.equal(received(first, 'session/load', id), 0, `${id} was not loaded`);

    // Taken, on a session already read here: it is not counted, the other two are kept.
    const second = await claudeAgent(records, settingsDir, { asClaude: true });
    await openAndClose(second.name, 'due1');
    const offer = (await agentRows(second.name)).offer;
    assert.ok(offer);
    assert.equal(labelOf(offer), `Keep 2 sessions ${second.name} will remove…`);
    from = api.sessions.messages.shown.length;
    api.sessions.messages.answerNextModal('Keep Copies');
    await vscode.commands.executeCommand(offer.item.command!.command, ...offer.item.command!.arguments!);
    const done = await until('the run says what it kept', () => shownSince(from, /^Kept copies of /)[0]);
    assert.equal(done.text, `Kept copies of 2 of 2 sessions ${second.name} will remove: they stay readable under Kept Here once it does.`);
    const { store } = api.sessions.kept;
    for (const id of ['due2', 'due3']) assert.ok(store.get(second.name, id), `${id} has a copy`);
    assert.equal(store.get(second.name, 'fresh'), undefined, 'a session not due is not loaded');
    assert.equal(received(second, 'session/load', 'fresh'), 0);
    assert.equal(received(second, 'session/load', 'due1'), 1, 'the session already kept is not loaded again');
    assert.equal((await agentRows(second.name)).offer, undefined, 'nothing left to offer');
    assert.match(plain((await rowOf('due2')).tooltip), /A copy is kept here \(made .*\): once Claude Code removes it, it stays under Kept Here\./);
  });

  test('with keep.mode "expiring", the due sessions are kept in the background where a load changes nothing; where it changes something, the agent asks instead', async () => {
    const settingsDir = claudeConfig(10);
    const records = [record('exp1', 6, 'lark'), record('exp2', 12, 'finch'), record('fresh', 0.05, 'robin')];
    // "read": nothing is loaded by itself, the offer stands.
    const reading = await claudeAgent(records, settingsDir);
    assert.ok((await agentRows(reading.name)).offer, 'in "read" mode the offer is shown');
    assert.equal(api.sessions.kept.store.get(reading.name, 'exp1'), undefined);

    await config().update('keep.mode', 'expiring', vscode.ConfigurationTarget.Global);
    const from = api.sessions.messages.shown.length;
    const agent = await claudeAgent(records, settingsDir);
    const done = await until('the background run says what it kept', () => shownSince(from, /^Kept copies of /)[0], 30_000);
    assert.equal(done.text, `Kept copies of 2 of 2 sessions ${agent.name} will remove: they stay readable under Kept Here once it does.`);
    const { store } = api.sessions.kept;
    for (const id of ['exp1', 'exp2']) assert.ok(store.get(agent.name, id), `${id} has a copy`);
    assert.equal(store.get(agent.name, 'fresh'), undefined, 'a session not due is not loaded');
    assert.equal(received(agent, 'session/load', 'fresh'), 0);
    assert.equal((await agentRows(agent.name)).offer, undefined, 'no offer: copies are made for them');
    assert.equal(shownSince(from, /^Keep copies of /).length, 0, 'nothing was asked');

    // Claude's own loads append records: in "expiring" mode it is offered (and asked), not loaded.
    const claude = await claudeAgent(records, settingsDir, { asClaude: true });
    const offer = (await agentRows(claude.name)).offer;
    assert.ok(offer, 'the offer is shown');
    assert.equal(labelOf(offer), `Keep 2 sessions ${claude.name} will remove…`);
    for (const id of ['exp1', 'exp2']) assert.equal(received(claude, 'session/load', id), 0, `${id} was not loaded`);
  });

  test('the agent\'s tooltip counts its copies and their disk, asked for on hover: reading does not redraw the agent\'s row; near keep.maxMegabytes the view says so; Export Sessions… exports a Kept Here session from its copy, no agent asked', async () => {
    const settingsDir = claudeConfig(30);
    const agent = await claudeAgent([record('gone', 1, 'pelican'), record('stays', 1, 'gannet')], settingsDir, { flags: ['--air-index'] });
    const { kept } = api.sessions;
    const tooltip = async () => plain((await agentRows(agent.name)).agentRow.item.tooltip);
    assert.match(await tooltip(), /Kept copies: none yet/);
    // A copy kept changes the agent's tooltip, which VS Code asks for on hover: the agent's row,
    // and with it every row under it, is not redrawn for it (VS Code forgets the rows under a row
    // it redraws until it fetched them again, and a click on one meanwhile loses its row).
    const agentRow = (await agentRows(agent.name)).agentRow.node;
    const redrawn: string[] = [];
    const listening = api.sessions.view.onDidChangeTreeData((e) => {
      for (const node of Array.isArray(e) ? e : [e]) if (!node || node === agentRow) redrawn.push(node ? node.id : '(the whole tree)');
    });
    await openAndClose(agent.name, 'gone');
    await openAndClose(agent.name, 'stays');
    // The view redraws a task after a change (one setTimeout 0); this one, queued later, runs after it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    listening.dispose();
    assert.deepEqual(redrawn, [], 'reading two sessions redrew neither the agent\'s row nor the whole tree');
    const mb = (bytes: number) => (Math.round((bytes / 1048576) * 10) / 10).toString();
    assert.ok((await tooltip()).includes(`Kept copies: 2 sessions, ${mb(kept.store.usage(agent.name).bytes)} MB on disk; 0 of them the agent no longer has (Kept Here)`), await tooltip());

    await until('the live list of the folder is subscribed', () => api.sessions.model.liveFolders(agent.name).length > 0);
    await api.sessions.model.lastLiveSubscription;
    assert.ok(await markSessionDeleted(agent.store, 'gone'), 'another process deletes "gone"');
    await until('"gone" is under Kept Here', () => kept.here.isKeptOnly(agent.name, 'gone'), 30_000);
    assert.ok((await tooltip()).includes('Kept copies: 2 sessions,') && (await tooltip()).includes('; 1 of them the agent no longer has (Kept Here)'), await tooltip());

    // Near the budget (90% of it) the view says so; at it, that no new copy is made.
    const treeView = api.sessions.view.treeView;
    assert.equal(treeView.message, undefined);
    const used = kept.store.usage().bytes;
    await config().update('keep.maxMegabytes', (used / 0.95) / 1048576, vscode.ConfigurationTarget.Global);
    const near = await until('the view warns near the budget', () => treeView.message);
    assert.match(near, /^Kept copies use [\d.]+ MB of their [\d.]+ MB \(acpSessions\.keep\.maxMegabytes\)\. Clear Kept Copies… \(in this view's menu\) makes room\.$/);
    await config().update('keep.maxMegabytes', used / 1048576, vscode.ConfigurationTarget.Global);
    await until('the view says no new copy is made', () => treeView.message?.includes(': no new copy is made.'));
    await config().update('keep.maxMegabytes', undefined, vscode.ConfigurationTarget.Global);
    await until('the warning is gone with room again', () => treeView.message === undefined);

    // Export Sessions… offers both: the one under Kept Here is written from its copy.
    const loadsBefore = received(agent, 'session/load', 'gone');
    const folder = tempDir('acp-kept-export-');
    const result = await vscode.commands.executeCommand<ExportResult>('acpSessions.exportSessions', { agent: agent.name, rule: {}, folder });
    assert.deepEqual(result.failed, []);
    assert.deepEqual(result.selected.map((c) => c.session.sessionId).sort(), ['gone', 'stays']);
    const gone = result.written.find((w) => w.sessionId === 'gone');
    assert.ok(gone, 'the Kept Here session is exported');
    assert.equal(gone.fromCopy, true);
    // Read in a worker of its own (on the host's thread where the line worker is off).
    assert.equal(gone.rowsFrom, process.env.ACP_SESSIONS_LINE_WORKER === 'off' ? 'host' : 'worker');
    assert.equal(result.written.find((w) => w.sessionId === 'stays')?.fromCopy, undefined);
    assert.equal(received(agent, 'session/load', 'gone'), loadsBefore, 'no agent was asked for it');
    assert.match(readFileSync(gone.markdown, 'utf8'), /the pelican flew over/);
    const opened = await openReplay(gone.replay, { maxFileBytes: 1 << 20, maxLineBytes: 1 << 20 });
    assert.equal(opened.header.sessionId, 'gone');
    assert.equal(opened.header.title, 'Ahead gone');
    const updates = await collectReplay(opened);
    assert.deepEqual(updates.map((u) => (u as { content?: { text?: string } }).content?.text).filter(Boolean), ['the pelican flew over']);
    // Where that worker cannot start (its script is gone), the copy is read on the host's thread
    // instead: the same files. (The log says why; where the line worker is off, it is read there anyway.)
    const options = api.transcripts.options as { lineWorker?: string };
    const script = options.lineWorker;
    options.lineWorker = join(folder, 'no-such-worker.js');
    try {
      const again = await vscode.commands.executeCommand<ExportResult>('acpSessions.exportSessions', { agent: agent.name, rule: {}, folder: tempDir('acp-kept-export-fallback-') });
      assert.deepEqual(again.failed, []);
      const onHost = again.written.find((w) => w.sessionId === 'gone');
      assert.ok(onHost?.fromCopy, 'exported from its copy again');
      assert.equal(onHost.rowsFrom, 'host');
      const body = (file: string) => readFileSync(file, 'utf8').split('\n').slice(1).join('\n');
      assert.equal(body(onHost.replay), body(gone.replay), 'the same updates, byte for byte, after the header');
      assert.equal(readFileSync(onHost.markdown, 'utf8'), readFileSync(gone.markdown, 'utf8'));
    } finally {
      options.lineWorker = script;
    }

    // Its row under Kept Here opens the copy in a tab, read in a worker of its own (on the host's
    // thread where the line worker is off), no agent asked.
    const keptRow = (await treeRows(api)).find((r) => r.item.command?.command === 'acpSessions.openKeptCopy' && r.node.copy?.meta.sessionId === 'gone');
    assert.ok(keptRow, 'the copy has a row under Kept Here');
    await vscode.commands.executeCommand('acpSessions.openKeptCopy', keptRow.node);
    const state = api.transcripts.exportedState(kept.store.get(agent.name, 'gone')!.path);
    assert.ok(state && state.loaded && !state.loading && state.problem === undefined, JSON.stringify(state?.problem));
    assert.equal(state.rowsFrom, process.env.ACP_SESSIONS_LINE_WORKER === 'off' ? 'host' : 'worker');
    assert.equal(state.kinds.agent_message, 1);
    assert.equal(received(agent, 'session/load', 'gone'), loadsBefore, 'no agent was asked for it');
    await closeAllTranscripts(api);
  });
});
