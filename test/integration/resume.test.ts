// Resume in Terminal inside a real VS Code extension host, against the reference agent as a real
// process: on an archived session it asks first, and only the answer unarchives it (in the
// agent's store and the tree) and opens the terminal with the entry's resume command. (Links are
// tested in the UI layer: in a browser they reach the extension through VS Code's callback page.)
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { readSession, writeSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, closeAllTranscripts, config, hoveredItem, removeTempDirs, sessionRow as treeRow, tempDir, until, workspaceFolder } from './support';

let api: AcpSessionsApi;
let store: string;
let agent: string;
let counter = 0;

function record(sessionId: string, extra: Partial<StoredSession> = {}): StoredSession {
  return {
    sessionId,
    cwd: workspaceFolder(),
    title: `Linked ${sessionId}`,
    updatedAt: new Date().toISOString(),
    archived: false,
    deleted: false,
    updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `hello ${sessionId}` } }],
    ...extra,
  };
}

/** The one configured agent: the reference agent on `store`, with a resume command that is node itself. */
async function useAgent(): Promise<string> {
  const name = `Resumable agent ${++counter}`;
  const entry = { name, command: process.execPath, args: [agentScript, '--store', store], resume: [process.execPath, '--resume-stand-in', '${sessionId}', '--in', '${cwd}'] };
  await config().update('agents', [entry], vscode.ConfigurationTarget.Global);
  await until(`agent "${name}" is configured`, () => api.agents.agents.some((a) => a.name === name));
  await until(`agent "${name}" has listed l1 in the tree`, () => sessionRow('l1'));
  return name;
}

function sessionRow(sessionId: string): Promise<unknown> {
  return treeRow(api, sessionId);
}

suite('Resume in Terminal', () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    api = await activateExtension();
    store = tempDir('acp-sessions-resume-');
    for (const r of [
      record('l1'),
      record('l2', { archived: true }),
      record('l3 ;touch pwned', { title: 'Run [this](command:workbench.action.terminal.new)' }),
    ]) await writeSession(store, r);
    agent = await useAgent();
  });

  suiteTeardown(async () => {
    await closeAllTranscripts(api);
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  teardown(async () => {
    await closeAllTranscripts(api);
    for (const t of vscode.window.terminals) t.dispose();
  });

  test('Resume on an archived session asks first: No leaves it archived with no terminal, Unarchive and Resume unarchives it and runs the resume command', async function () {
    this.timeout(60_000);
    const archived = () => api.sessions.model.find(agent, 'l2');
    await until('l2 is listed under Archived', async () => (await sessionRow('l2')) !== undefined && archived()?.list.section === 'archived');
    const terminals = vscode.window.terminals.length;

    api.sessions.messages.answerNextModal(undefined);
    const refused = await vscode.commands.executeCommand('acpSessions.resumeInTerminal', await sessionRow('l2'));
    assert.equal(refused, undefined, 'nothing resumed');
    const asked = api.sessions.messages.shown.at(-1)!;
    assert.equal(asked.modal, true);
    assert.match(asked.text, /Unarchive "Linked l2" first\?/);
    assert.equal((await readSession(store, 'l2'))!.archived, true, 'still archived in the store');
    assert.equal(vscode.window.terminals.length, terminals, 'no terminal');

    api.sessions.messages.answerNextModal('Unarchive and Resume');
    const opened = vscode.window.terminals.length;
    await vscode.commands.executeCommand('acpSessions.resumeInTerminal', await sessionRow('l2'));
    await until('the store has l2 active again', async () => (await readSession(store, 'l2'))!.archived === false);
    await until('l2 moved to Active', () => api.sessions.model.find(agent, 'l2')?.list.section === 'active');
    const terminal = await until('a terminal opened', () => vscode.window.terminals.length > opened && vscode.window.terminals.at(-1));
    const options = terminal.creationOptions as vscode.TerminalOptions;
    assert.equal(terminal.name, 'Linked l2');
    assert.equal(options.shellPath, process.execPath);
    assert.deepEqual(options.shellArgs, ['--resume-stand-in', 'l2', '--in', workspaceFolder()]);
  });

  test('an id that is not a plain token is never passed to a program: the user is told why, with the title as text, and no terminal opens', async function () {
    this.timeout(60_000);
    const terminals = vscode.window.terminals.length;
    const seen = api.sessions.messages.shown.length;
    const result = await vscode.commands.executeCommand('acpSessions.resumeInTerminal', await until('the row of "l3 ;touch pwned"', () => sessionRow('l3 ;touch pwned')));
    assert.equal(result, undefined);
    const message = await until('a message is shown', () => api.sessions.messages.shown[seen]);
    assert.equal(message.severity, 'warning');
    assert.match(message.text, /not a plain token/);
    assert.ok(message.text.includes('Run'), message.text);
    assert.ok(!message.text.includes('](command:'), `no command link in "${message.text}"`);
    assert.equal(vscode.window.terminals.length, terminals, 'no terminal');
  });

  test('a session whose folder is gone is not resumed, and the message names the folder', async function () {
    this.timeout(60_000);
    // Listed with every folder's sessions (a gone folder is no workspace folder).
    await config().update('scope', 'all', vscode.ConfigurationTarget.Global);
    const gone = join(tempDir('acp-sessions-gone-'), 'project');
    await writeSession(store, record('l5', { cwd: gone }));
    await vscode.commands.executeCommand('acpSessions.refresh');
    const row = await until('the row of l5', () => sessionRow('l5'));
    const terminals = vscode.window.terminals.length;
    const seen = api.sessions.messages.shown.length;
    await vscode.commands.executeCommand('acpSessions.resumeInTerminal', row);
    const message = await until('a message is shown', () => api.sessions.messages.shown[seen]);
    assert.match(message.text, /no longer exists/);
    assert.ok(message.text.includes(gone), message.text);
    assert.equal(vscode.window.terminals.length, terminals, 'no terminal');
  });

  test('a session whose folder is relative is not resumed, even with no ${cwd} in the command: the terminal would start in the extension host\'s own folder', async function () {
    this.timeout(60_000);
    await config().update('scope', 'all', vscode.ConfigurationTarget.Global);
    // The entry's resume command without ${cwd}: the folder is only where the terminal starts.
    const name = `Resumable agent ${++counter}`;
    await config().update('agents', [{ name, command: process.execPath, args: [agentScript, '--store', store], resume: [process.execPath, '--resume-stand-in', '${sessionId}'] }], vscode.ConfigurationTarget.Global);
    await until(`agent "${name}" is configured`, () => api.agents.agents.some((a) => a.name === name));
    for (const [sessionId, cwd] of [['l6', '.'], ['l7', 'sub/dir']]) {
      await writeSession(store, record(sessionId, { cwd }));
      await vscode.commands.executeCommand('acpSessions.refresh');
      const row = await until(`the row of ${sessionId} (folder ${cwd})`, () => sessionRow(sessionId));
      const terminals = vscode.window.terminals.length;
      const seen = api.sessions.messages.shown.length;
      await vscode.commands.executeCommand('acpSessions.resumeInTerminal', row);
      const message = await until('a message is shown', () => api.sessions.messages.shown[seen]);
      assert.match(message.text, /is not an absolute path/, message.text);
      assert.equal(vscode.window.terminals.length, terminals, 'no terminal');
    }
  });

  test('Resume follows the setting: a row and its transcript\'s header offer it while the agent\'s entry has a resume command, not once the command is taken out, and again once it is back', async function () {
    this.timeout(60_000);
    const name = await useAgent();
    const resumable = async () => {
      const row = await sessionRow('l1');
      return row ? (await hoveredItem(api, row)).contextValue?.split(':').includes('resumable') : undefined;
    };
    // Its transcript's header too (dist/transcripts.js reads the list the main bundle keeps).
    await vscode.commands.executeCommand('acpSessions.openTranscript', await sessionRow('l1'));
    const header = async () => (await api.transcripts.whenLoaded(name, 'l1')).canResume;
    assert.equal(await resumable(), true, 'the row offers it with the resume command');
    assert.equal(await header(), true, 'the header offers it with the resume command');
    // The setting is read once and kept until it changes (headers and rows ask for it all the time).
    await config().update('agents', [{ name, command: process.execPath, args: [agentScript, '--store', store] }], vscode.ConfigurationTarget.Global);
    await until('l1 is no longer offered for Resume', async () => (await resumable()) === false);
    await until('the header no longer offers Resume', async () => (await header()) === false);
    await config().update('agents', [{ name, command: process.execPath, args: [agentScript, '--store', store], resume: [process.execPath, '--resume-stand-in', '${sessionId}', '--in', '${cwd}'] }], vscode.ConfigurationTarget.Global);
    await until('l1 is offered for Resume again', async () => (await resumable()) === true);
    await until('the header offers Resume again', async () => (await header()) === true);
  });
});
