// Exported transcripts inside a real VS Code extension host: a file anyone may hand the user is
// data. A FIFO, a link to /dev/zero and a file over the size bound give a message and never
// block the host (a timer in this same host keeps ticking); a long file fills its tab a slice at
// a time (read in a worker of its own, or on the host where the line worker is off), and a tab
// closed half-way leaves no file behind; a subagent row of an exported tab opens the child from the same export or says it is
// not in it, and no agent is asked (the reference agent's wire is captured). Export names hold a
// 120-character CJK title.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, readdirSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { writeReplay } from '../../src/transcript/replayFile';
import { collectReplay, openReplay } from '../../src/transcript/replayReader';
import { exportFailureText } from '../../src/ui/transcripts/exportFiles';
import type { ExportResult } from '../../src/ui/transcripts/exportSessions';
import type { ShownMessage } from '../../src/ui/common/messages';
import { writeSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, capturingArgs, closeAllTranscripts, configureAgent, removeTempDirs, tempDir, until, workspaceFolder } from './support';
import { HELD_MS, longestGap } from '../hostile/held';

let api: AcpSessionsApi;
let counter = 0;
const HEADER = { agentName: 'Nobody', sessionId: 'exported-1', cwd: '/nowhere', title: 'Exported', exportedAt: '2026-03-02T00:00:00Z' };

/** The messages shown from `from` on whose text matches `pattern`. */
function shownSince(from: number, pattern: RegExp): ShownMessage[] {
  return api.sessions.messages.shown.slice(from).filter((m) => pattern.test(m.text));
}

function openExported(file: string): Thenable<unknown> {
  return vscode.commands.executeCommand('acpSessions.openExportedTranscript', vscode.Uri.file(file));
}

/** The reference agent, with a tee in front that appends every line the client sends to `capture`. */
async function capturedAgent(store: string, capture: string): Promise<string> {
  return configureAgent(api, `Exported agent ${++counter}`, process.execPath, capturingArgs(capture, [agentScript, '--store', store]));
}

function sent(capture: string, method: string): string[] {
  return readFileSync(capture, 'utf8').split('\n').filter((line) => line.includes(`"method":"${method}"`));
}

function stored(sessionId: string, title: string, updates: StoredSession['updates']): StoredSession {
  return { sessionId, cwd: workspaceFolder(), title, updatedAt: new Date().toISOString(), archived: false, deleted: false, updates };
}

suite('Exported transcripts', () => {
  suiteSetup(async () => {
    api = await activateExtension();
  });

  teardown(async () => {
    await closeAllTranscripts(api);
  });

  suiteTeardown(() => {
    removeTempDirs();
  });

  test('a FIFO named x.acp.ndjson gives a message at once and never blocks the host, even when a writer comes later', async () => {
    const dir = tempDir('acp-exported-it-');
    const fifo = join(dir, 'x.acp.ndjson');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    // A writer 3 s later: a reader that blocked in open would be let go then, and be seen to have blocked.
    const writer: ChildProcess = spawn(process.execPath, ['-e', `setTimeout(() => require('node:fs').writeFileSync(${JSON.stringify(fifo)}, ${JSON.stringify(writeReplay(HEADER, []))}), 3000)`], {
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: 'ignore',
    });
    try {
      const from = api.sessions.messages.shown.length;
      const { gapMs } = await longestGap(() => openExported(fifo));
      assert.ok(gapMs < HELD_MS, `the extension host was blocked ${Math.round(gapMs)} ms`);
      const [message] = shownSince(from, /x\.acp\.ndjson was not opened: it is not a regular file/);
      assert.ok(message, `the messages: ${shownSince(from, /./).map((m) => m.text).join(' | ')}`);
      assert.equal(message.severity, 'error');
      assert.equal(api.transcripts.exportedState(fifo), undefined, 'no tab was opened');
    } finally {
      writer.kill();
    }
  });

  test('a symbolic link to /dev/zero gives a message and is not read', async () => {
    const dir = tempDir('acp-exported-it-');
    const link = join(dir, 'zero.acp.ndjson');
    symlinkSync('/dev/zero', link);
    const from = api.sessions.messages.shown.length;
    const before = process.memoryUsage().rss;
    const { gapMs } = await longestGap(() => openExported(link));
    assert.ok(gapMs < HELD_MS, `the extension host was blocked ${Math.round(gapMs)} ms`);
    assert.ok(shownSince(from, /zero\.acp\.ndjson was not opened: it is not a regular file/).length === 1);
    assert.ok(process.memoryUsage().rss - before < 256 << 20, 'nothing of /dev/zero was held');
    assert.equal(api.transcripts.exportedState(link), undefined);
  });

  test('a file over acpSessions.exportedTranscript.maxSizeMB gives a message naming its size and the bound', async () => {
    const dir = tempDir('acp-exported-it-');
    const file = join(dir, 'big.acp.ndjson');
    writeFileSync(file, writeReplay(HEADER, []));
    // Sparse: 257 MB long, no disk used.
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, 257 * 1024 * 1024);
    closeSync(fd);
    const from = api.sessions.messages.shown.length;
    const { gapMs } = await longestGap(() => openExported(file));
    assert.ok(gapMs < HELD_MS, `the extension host was blocked ${Math.round(gapMs)} ms`);
    const messages = shownSince(from, /big\.acp\.ndjson was not opened: it is 257 MB, and exported transcripts of up to 256 MB are read \(setting acpSessions\.exportedTranscript\.maxSizeMB\)/);
    assert.equal(messages.length, 1, shownSince(from, /./).map((m) => m.text).join(' | '));
    assert.equal(api.transcripts.exportedState(file), undefined);
  });

  /** An export of `count` chunks, a prompt every 1,000, and then `last` if given. */
  function writeLongExport(file: string, count: number, last?: object): void {
    const fd = openSync(file, 'w');
    writeSync(fd, writeReplay(HEADER, []));
    const line = (update: object) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: HEADER.sessionId, update } }) + '\n';
    let text = '';
    for (let i = 0; i < count; i++) {
      text += line(i % 1000 === 0 ? { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `prompt ${i}` } } : { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${i} ` } });
      if (text.length > 1 << 20) {
        writeSync(fd, text);
        text = '';
      }
    }
    writeSync(fd, last ? text + line(last) : text);
    closeSync(fd);
  }

  test('a file of 500,000 lines fills its tab a slice at a time while the host keeps running, and an over-long line is left out with a message', async () => {
    const dir = tempDir('acp-exported-it-');
    const file = join(dir, 'long.acp.ndjson');
    // Over the 64 MB a line may have (acpSessions.maxMessageSize's default).
    writeLongExport(file, 500_000, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x'.repeat(65 << 20) } });
    const from = api.sessions.messages.shown.length;
    const { gapMs } = await longestGap(() => openExported(file));
    const state = api.transcripts.exportedState(file);
    assert.ok(state && !state.loading && state.loaded, 'the command resolves once the file has been read');
    assert.equal(state.updateCount, 500_000);
    // Read and reduced in a worker of its own, off the host's thread (here where the line worker is off).
    assert.equal(state.rowsFrom, process.env.ACP_SESSIONS_LINE_WORKER === 'off' ? 'host' : 'worker');
    assert.equal(state.kinds.user_message, 500);
    assert.equal(state.kinds.agent_message, 500);
    assert.equal(state.problem, undefined);
    assert.ok(gapMs < HELD_MS, `the extension host was blocked ${Math.round(gapMs)} ms`);
    assert.equal(shownSince(from, /1 lines of .*long\.acp\.ndjson were longer than 64 MB \(setting acpSessions\.maxMessageSize\) and were left out/).length, 1);
  });

  test('a tab closed while its file is still being read ends the read: the command returns and no file of the tab is left', async () => {
    const dir = tempDir('acp-exported-it-');
    const file = join(dir, 'closed.acp.ndjson');
    writeLongExport(file, 300_000);
    const spillDir = api.transcripts.options.spillDir;
    assert.ok(spillDir, 'transcripts keep their rows in files');
    // A tab's files are tagged "entities" (the survey's are "survey"): those of this one are new.
    const tabFiles = () => (existsSync(spillDir) ? readdirSync(spillDir).filter((name) => name.endsWith('-entities.spill')) : []);
    const before = new Set(tabFiles());
    const opening = openExported(file);
    await until('the tab shows the first rows while the rest is read', () => {
      const s = api.transcripts.exportedState(file);
      return s?.loading === true && s.updateCount > 0;
    }, 30_000);
    assert.ok(tabFiles().some((name) => !before.has(name)), 'the tab keeps its rows in a file while it reads');
    await closeAllTranscripts(api);
    await opening;
    assert.equal(api.transcripts.exportedState(file), undefined);
    await until('the closed tab\'s files are removed', () => tabFiles().every((name) => before.has(name)), 30_000);
  });

  test('a subagent row of an exported tab opens the child from the same export, or says it is not in it; no agent is asked', async () => {
    const store = tempDir('acp-exported-store-');
    for (const s of [
      stored('zebra-parent', 'Zebra export parent', [
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Split the work.' } },
        { sessionUpdate: 'subagent_update', sessionId: 'zebra-child', title: 'Zebra export child' },
        { sessionUpdate: 'subagent_update', sessionId: 'other-child', title: 'Other child' },
      ] as StoredSession['updates']),
      stored('zebra-child', 'Zebra export child', [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'child work' } }] as StoredSession['updates']),
      stored('other-child', 'Other child', [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'not exported' } }] as StoredSession['updates']),
    ]) {
      await writeSession(store, s);
    }
    const capture = join(tempDir('acp-exported-capture-'), 'sent.ndjson');
    const agent = await capturedAgent(store, capture);
    const folder = tempDir('acp-exported-folder-');
    const result = await vscode.commands.executeCommand<ExportResult>('acpSessions.exportSessions', { agent, rule: { titlePattern: 'Zebra export' }, folder });
    assert.deepEqual(result.failed, []);
    assert.deepEqual(result.written.map((w) => w.sessionId).sort(), ['zebra-child', 'zebra-parent']);
    const parentFile = result.written.find((w) => w.sessionId === 'zebra-parent')!.replay;
    const childFile = result.written.find((w) => w.sessionId === 'zebra-child')!.replay;
    await openExported(parentFile);
    const parent = await until('the exported parent shows its subagent rows', () => {
      const s = api.transcripts.exportedState(parentFile);
      return s && !s.loading && s.subagents.length === 2 ? s : undefined;
    });
    const loads = sent(capture, 'session/load').length;
    const starts = sent(capture, 'initialize').length;

    const exported = parent.subagents.find((s) => s.sessionId === 'zebra-child')!;
    api.transcripts.receiveFromExportedWebview(parentFile, { type: 'action', action: `openSubagent:${exported.key}` });
    const child = await until('the child opens from its own exported file', () => {
      const s = api.transcripts.exportedState(childFile);
      return s && !s.loading ? s : undefined;
    });
    assert.equal(child.exported, true);
    assert.equal(child.sessionId, 'zebra-child');
    assert.equal(child.kinds.agent_message, 1);

    const from = api.sessions.messages.shown.length;
    const missing = parent.subagents.find((s) => s.sessionId === 'other-child')!;
    api.transcripts.receiveFromExportedWebview(parentFile, { type: 'action', action: `openSubagent:${missing.key}` });
    const [message] = await until('a message says the child is not in this export', () => {
      const found = shownSince(from, /The subagent session "other-child" is not in this export/);
      return found.length ? found : undefined;
    });
    assert.ok(message.text.includes(folder), message.text);

    assert.equal(api.transcripts.getState(agent, 'zebra-child'), undefined, 'no live tab of the exported child');
    assert.equal(api.transcripts.getState(agent, 'other-child'), undefined, 'no live tab of the child not exported');
    assert.equal(sent(capture, 'session/load').length, loads, 'no session/load after the export');
    assert.equal(sent(capture, 'initialize').length, starts, 'no agent was started');
    assert.equal(api.transcripts.openCount, 2, 'the parent and the exported child');
  });

  test('a tool call\'s location that is a named pipe or a device is not opened (it would hold the read): a message says so; a regular file opens', async () => {
    const dir = tempDir('acp-exported-it-');
    const fifo = join(dir, 'pipe');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    const zero = join(dir, 'zero');
    symlinkSync('/dev/zero', zero);
    const plain = join(dir, 'plain.ts');
    writeFileSync(plain, 'export const x = 1;\n');
    const file = join(dir, 'tools.acp.ndjson');
    writeFileSync(file, writeReplay(HEADER, [{ sessionUpdate: 'tool_call', toolCallId: 'read', title: 'Read files', status: 'completed', locations: [{ path: fifo }, { path: zero }, { path: plain }] } as never]));
    await openExported(file);
    const state = await until('the tab has loaded', () => { const s = api.transcripts.exportedState(file); return s?.loaded ? s : undefined; });
    assert.equal(state.kinds.tool_call, 1);
    for (const [index, path] of [[0, fifo], [1, zero]] as const) {
      const from = api.sessions.messages.shown.length;
      api.transcripts.receiveFromExportedWebview(file, { type: 'openTool', key: 'e0', target: `location:${index}` });
      const message = await until(`a message for ${path}`, () => shownSince(from, /is not a regular file/)[0]);
      assert.ok(message.text.includes(path), message.text);
      assert.notEqual(vscode.window.activeTextEditor?.document.uri.fsPath, path);
    }
    api.transcripts.receiveFromExportedWebview(file, { type: 'openTool', key: 'e0', target: 'location:2' });
    await until('the regular file opened in an editor', () => vscode.window.activeTextEditor?.document.uri.fsPath === plain);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('Export Sessions writes a session with a 120-character CJK title: its name is bounded in bytes and keeps the id', async () => {
    const store = tempDir('acp-exported-store-');
    const title = '漢字仮名交じり文の長いセッションタイトル'.repeat(6);
    assert.equal(title.length, 120);
    const said = (text: string) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
    const updates = [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: '長い' } }, said('一つ目、'), said('二つ目、'), said('三つ目')];
    await writeSession(store, stored('cjk-session-1', title, updates as StoredSession['updates']));
    const agent = await configureAgent(api, `Exported agent ${++counter}`, process.execPath, [agentScript, '--store', store]);
    // A load while the line worker starts is reduced here (as any is where it does not run).
    const client = await api.agents.getClient(agent);
    await until('the agent\'s line worker runs (or is off)', () => client.parsedOn !== 'starting');
    const folder = tempDir('acp-exported-folder-');
    const result = await vscode.commands.executeCommand<ExportResult>('acpSessions.exportSessions', { agent, rule: { titlePattern: '漢字仮名' }, folder });
    assert.deepEqual(result.failed, []);
    assert.equal(result.written.length, 1);
    const names = readdirSync(folder);
    assert.equal(names.length, 2, names.join(', '));
    for (const name of names) {
      assert.ok(Buffer.byteLength(name) <= 255, `${Buffer.byteLength(name)} bytes`);
      assert.match(name, /^漢字仮名.* cjk-session-1\.(md|acp\.ndjson)$/);
    }
    assert.ok(existsSync(result.written[0].markdown) && existsSync(result.written[0].replay));
    assert.match(readFileSync(result.written[0].markdown, 'utf8'), /長い[^]*一つ目、二つ目、三つ目/);
    // Not open: reduced in the line worker (on the host where it is off), its updates kept in a
    // log on disk as they came, each chunk as the agent sent it, and written from there.
    assert.equal(result.written[0].rowsFrom, process.env.ACP_SESSIONS_LINE_WORKER === 'off' ? 'host' : 'worker');
    const opened = await openReplay(result.written[0].replay, { maxFileBytes: 1 << 20, maxLineBytes: 1 << 20 });
    assert.deepEqual(await collectReplay(opened), updates);
    assert.equal(opened.header.title, title);
  });

  test('an export that fails on a full disk names the cause: a real ENOSPC (a write to /dev/full) reads "the disk is full"', async () => {
    const fd = openSync('/dev/full', 'w');
    let error: unknown;
    try {
      writeSync(fd, 'x');
    } catch (e) {
      error = e;
    } finally {
      closeSync(fd);
    }
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
    assert.match(exportFailureText(error), /^the disk is full \(ENOSPC: no space left on device/);
    assert.equal(exportFailureText(new Error('other')), 'other');
  });
});
