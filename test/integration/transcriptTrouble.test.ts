// What a transcript cannot keep, in the real VS Code host with the reference agent over real
// pipes: an update nested 10,000 levels deep (from the agent, or in an exported file) costs that
// update at most, never the tab or its export; a full disk under the transcripts' folder (a real
// tmpfs of 256 KB) is said once, naming the folder, and the tab still reads whole.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { writeSession, type SessionUpdate } from '../agent/store';
import { DEEP_AGENT_NODE_FLAGS, deepToolCallLine, writeDeepSession } from '../hostile/deep';
import { activateExtension, agentScript, closeAllTranscripts, config, configureAgent, removeTempDirs, tempDir, until } from './support';

let api: AcpSessionsApi;
let agentCounter = 0;

suite('What a transcript cannot keep', () => {
  suiteSetup(async () => {
    api = await activateExtension();
  });

  suiteTeardown(async () => {
    await closeAllTranscripts(api);
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('a replay from the reference agent holding updates 10,000 levels deep shows every update, keeps every one for the export, and JSON writes each', async function () {
    this.timeout(120_000);
    const store = tempDir('acp-deep-store-');
    const cwd = tempDir('acp-deep-cwd-');
    // A deep tool call (kept as the agent's line) and a deep info update the client fixes (kept as the checked update).
    const texts = await writeDeepSession(store, 'deep-live', cwd, { info: true });
    const agent = await configureAgent(api, `Deep ${++agentCounter}`, process.execPath, [...DEEP_AGENT_NODE_FLAGS, agentScript, '--store', store]);
    await api.transcripts.open(agent, { sessionId: 'deep-live', cwd, title: 'Deep' });
    const state = await api.transcripts.whenLoaded(agent, 'deep-live');
    assert.equal(state.problem, undefined, JSON.stringify(state.problem));
    assert.equal(state.loading, false);
    assert.equal((state.kinds.user_message ?? 0) + (state.kinds.agent_message ?? 0), texts.length, 'every other update has its row');
    assert.equal(state.kinds.tool_call, 1, 'the deep one too, cut where it is too deep');
    const updates = [...api.transcripts.updatesOf(agent, 'deep-live')!];
    assert.equal(updates.length, texts.length + 2, 'the export gets every update');
    // What Export Sessions writes: a line of JSON each (it threw "Maximum call stack size exceeded").
    for (const update of updates) JSON.stringify(update);
    assert.match(api.transcripts.markdown(agent, 'deep-live') ?? '', new RegExp(texts.at(-1)!));
    assert.equal(state.unkeptUpdates, 0, 'cut where it entered, so kept');
  });

  test('an exported file holding an update 10,000 levels deep opens whole: every other update shows, and the tab is not left loading', async function () {
    this.timeout(120_000);
    const dir = tempDir('acp-deep-exported-');
    const file = join(dir, 'deep.acp.ndjson');
    const sessionId = 'deep-exported';
    const line = (update: string) => `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sessionId}","update":${update}}}`;
    const lines: string[] = [];
    const texts: string[] = [];
    // More than a batch of the update log before and after it: the batch that held it is kept all the same.
    for (let i = 0; i < 200; i++) {
      if (i === 100) lines.push(line(deepToolCallLine()));
      texts.push(`exported chunk ${i}`);
      lines.push(line(JSON.stringify({ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: texts[i] } })));
    }
    const header = { format: 'acp-sessions/replay', version: 1, agentName: 'exported-agent', sessionId, cwd: dir, title: 'Deep exported', exportedAt: new Date().toISOString(), updates: lines.length };
    writeFileSync(file, [JSON.stringify(header), ...lines].join('\n') + '\n');
    await vscode.commands.executeCommand('acpSessions.openExportedTranscript', vscode.Uri.file(file));
    const state = await until('the exported tab has loaded', () => {
      const s = api.transcripts.exportedState(file);
      return s && !s.loading && s.loaded ? s : undefined;
    }, 30_000);
    assert.equal(state.problem, undefined, JSON.stringify(state.problem));
    assert.equal(state.kinds.agent_message, 200, 'every other update has its row');
    // Today the update log leaves it out and the header says so; a reader that cuts it where it enters keeps it.
    assert.ok(state.unkeptUpdates <= 1, `${state.unkeptUpdates} updates not kept`);
    assert.equal(state.updateCount, 201);
  });

  test('a full disk under the transcripts\' folder is said once, naming the folder, and the tab still shows, finds and exports every row', async function () {
    this.timeout(180_000);
    const dir = tempDir('acp-full-disk-');
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=262144,mode=0700', 'tmpfs', dir], { encoding: 'utf8' });
    assert.equal(mounted.status, 0, `mount a 256 KB tmpfs (needs root with CAP_SYS_ADMIN, as CI runs): ${mounted.stderr}`);
    const options = api.transcripts.options;
    const before = options.spillDir;
    options.spillDir = dir;
    try {
      const store = tempDir('acp-full-store-');
      const cwd = tempDir('acp-full-cwd-');
      const updates: SessionUpdate[] = [];
      for (let i = 0; i < 4000; i++) {
        updates.push({ sessionUpdate: i % 2 ? 'agent_message_chunk' : 'user_message_chunk', messageId: `m${i}`, content: { type: 'text', text: `row ${i} zebra${i} ${'é'.repeat(1000)}` } } as SessionUpdate);
      }
      await writeSession(store, { sessionId: 'full', cwd, title: 'Full disk', updatedAt: new Date().toISOString(), archived: false, deleted: false, updates: [] }, updates);
      const agent = await configureAgent(api, `Full disk ${++agentCounter}`, process.execPath, [agentScript, '--store', store]);
      const recorder = api.sessions.messages;
      const shown = recorder.shown.length;
      await api.transcripts.open(agent, { sessionId: 'full', cwd, title: 'Full disk' });
      const state = await api.transcripts.whenLoaded(agent, 'full');
      assert.equal(state.problem, undefined);
      assert.equal(state.entityCount, 4000);
      const warning = await until('the full disk was said', () => recorder.shown.slice(shown).find((m) => /is full/.test(m.text)));
      assert.equal(warning.severity, 'warning');
      assert.ok(warning.text.includes(dir), `it names the folder: ${warning.text}`);
      // Once: a second tab on the same disk says nothing more.
      await api.transcripts.open(agent, { sessionId: 'full', cwd, title: 'Full disk' });
      assert.equal(recorder.shown.slice(shown).filter((m) => /is full/.test(m.text)).length, 1);
      assert.equal(state.prompts.length, 2000, 'the prompt list');
      const markdown = api.transcripts.markdown(agent, 'full') ?? '';
      for (const i of [0, 1999, 3999]) assert.ok(markdown.includes(`zebra${i} `), `row ${i} is in the export`);
      assert.equal([...api.transcripts.updatesOf(agent, 'full')!].length, 4000, 'the update log reads back whole');
    } finally {
      await closeAllTranscripts(api);
      options.spillDir = before;
      spawnSync('umount', ['-l', dir]);
    }
  });
});
