// A `vscode://…/open` link inside a real VS Code extension host, against the reference agent as a
// real process whose --request-log says what reached it: a link does what a click on the
// session's row does and nothing more. A session no list holds, a folder outside the workspace or
// a stopped agent asks first in a modal naming the agent, the folder and the session; Escape
// leaves the agent unasked (and unstarted). An id that is not a plain token never reaches it.
// (How a link reaches the window through VS Code's callback page is tested in the UI layer.)
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { writeSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, closeAllTranscripts, config, removeTempDirs, sessionRow as treeRow, tempDir, until, workspaceFolder } from './support';

let api: AcpSessionsApi;
let store: string;
let requestLog: string;
let evil: string;
let agent: string;
let counter = 0;

function record(sessionId: string, cwd: string): StoredSession {
  return {
    sessionId,
    cwd,
    title: `Linked ${sessionId}`,
    updatedAt: new Date().toISOString(),
    archived: false,
    deleted: false,
    updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `hello ${sessionId}` } }],
  };
}

interface Logged { event?: string; pid?: number; method?: string; params?: { sessionId?: string; cwd?: string } }
function requests(): Logged[] {
  if (!existsSync(requestLog)) return [];
  return readFileSync(requestLog, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Logged);
}
const loads = () => requests().filter((r) => r.method === 'session/load');
const starts = () => requests().filter((r) => r.event === 'start');

function link(fields: Record<string, string>): vscode.Uri {
  return vscode.Uri.from({ scheme: vscode.env.uriScheme, authority: 'acp-sessions.acp-sessions', path: '/open', query: new URLSearchParams(fields).toString() });
}

/** The modal the next link shows, recorded as VS Code shows it; answered by the test. */
async function nextModal(from: number) {
  return until('the link asked in a modal', () => api.sessions.messages.shown.slice(from).find((m) => m.modal));
}

async function useAgent(): Promise<void> {
  agent = `Linked agent ${++counter}`;
  await config().update('agents', [{ name: agent, command: process.execPath, args: [agentScript, '--store', store, '--request-log', requestLog] }], vscode.ConfigurationTarget.Global);
  await until(`agent "${agent}" has listed w1 in the tree`, () => sessionRow('w1'));
}

function sessionRow(sessionId: string): Promise<unknown> {
  return treeRow(api, sessionId);
}

suite('Session links', () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    api = await activateExtension();
    store = tempDir('acp-sessions-links-');
    evil = tempDir('acp-sessions-evil-repo-');
    requestLog = join(tempDir('acp-sessions-links-log-'), 'requests.jsonl');
    await writeSession(store, record('w1', workspaceFolder()));
    await writeSession(store, record('far', evil));
    await useAgent();
  });

  suiteTeardown(async () => {
    await closeAllTranscripts(api);
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  teardown(async () => {
    await closeAllTranscripts(api);
  });

  test('a link to a session the running agent lists in an open folder opens it at once, loaded in the list\'s folder, not the link\'s', async function () {
    this.timeout(60_000);
    const shown = api.sessions.messages.shown.length;
    await api.sessions.openLink(link({ agent, session: 'w1', cwd: evil }));
    await until('w1 was loaded', () => loads().some((r) => r.params?.sessionId === 'w1'));
    assert.deepEqual(loads().filter((r) => r.params?.sessionId === 'w1').map((r) => r.params?.cwd), [workspaceFolder()]);
    assert.equal(api.sessions.messages.shown.slice(shown).filter((m) => m.modal).length, 0, 'no question asked');
    assert.equal(api.transcripts.openCount, 1);
  });

  test('a link to a session no list holds, in a folder outside the workspace, asks first naming agent, folder and session; Escape asks the agent nothing, Open Session loads it there', async function () {
    this.timeout(60_000);
    const shown = api.sessions.messages.shown.length;
    const opened = api.sessions.openLink(link({ agent, session: 'far', cwd: evil }));
    const modal = await nextModal(shown);
    assert.match(modal.text, /Open the session this link names\?/);
    assert.ok(modal.detail?.includes(`Agent: ${agent}`), modal.detail);
    assert.ok(modal.detail?.includes(`Folder: ${evil}`), modal.detail);
    assert.ok(modal.detail?.includes('Session: far'), modal.detail);
    assert.match(modal.detail ?? '', /does not list this session/);
    assert.match(modal.detail ?? '', /not open in this window/);
    assert.deepEqual(modal.actions, ['Open Session']);
    api.sessions.messages.choose(modal, undefined);
    await opened;
    assert.equal(loads().filter((r) => r.params?.sessionId === 'far').length, 0, 'Escape: no session/load reached the agent');
    assert.equal(api.transcripts.openCount, 0, 'Escape: no tab');

    api.sessions.messages.answerNextModal('Open Session');
    await api.sessions.openLink(link({ agent, session: 'far', cwd: evil }));
    await until('far was loaded once the user chose Open Session', () => loads().some((r) => r.params?.sessionId === 'far'));
    assert.deepEqual(loads().filter((r) => r.params?.sessionId === 'far').map((r) => r.params?.cwd), [evil]);
  });

  test('a link for a stopped agent asks first, and Escape starts no agent process', async function () {
    this.timeout(60_000);
    const pid = starts().at(-1)?.pid;
    assert.ok(pid, 'the agent logged its start');
    process.kill(pid, 'SIGKILL');
    await until('the agent is no longer connected', () => api.agents.connectedClient(agent) === undefined);
    const before = starts().length;
    const shown = api.sessions.messages.shown.length;
    const opened = api.sessions.openLink(link({ agent, session: 'w1', cwd: workspaceFolder() }));
    const modal = await nextModal(shown);
    assert.match(modal.detail ?? '', /The agent is not running: opening the session starts it/);
    api.sessions.messages.choose(modal, undefined);
    await opened;
    assert.equal(starts().length, before, 'no agent process started');
    assert.equal(api.agents.connectedClient(agent), undefined);
    await useAgent();
  });

  test('a link whose session id is not a plain token is refused with a message, and the id never reaches the agent', async function () {
    this.timeout(60_000);
    for (const session of ['-rf', '--dangerously-skip-permissions', 'a b', 'x\n{"jsonrpc":"2.0"}']) {
      const shown = api.sessions.messages.shown.length;
      await api.sessions.openLink(link({ agent, session, cwd: workspaceFolder() }));
      const message = await until(`a message for ${JSON.stringify(session)}`, () => api.sessions.messages.shown.slice(shown).find((m) => !m.modal));
      assert.match(message.text, /is not a plain token/);
      assert.equal(api.sessions.messages.shown.slice(shown).filter((m) => m.modal).length, 0, 'nothing to ask: refused');
    }
    assert.deepEqual(requests().filter((r) => r.params?.sessionId && !/^[\w.:-]+$/.test(r.params.sessionId)), []);
    assert.equal(api.transcripts.openCount, 0);
  });
});
