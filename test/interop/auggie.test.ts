// Our ACP client against the real Auggie (`auggie --acp`, @augmentcode/auggie 0.36.0), offline and
// logged out, with sessions written in a temporary HOME as Auggie keeps them:
// ~/.augment/sessions/<uuid>.json (test/interop/stores.mjs). Listing and loading need no login.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AcpClient } from '../../src/acp/client';
import { AcpError, UnsupportedCapabilityError } from '../../src/acp/errors';
import type { SessionInfo, SessionUpdate } from '../../src/acp/types';
import { AgentRegistry } from '../../src/sessions/agentRegistry';
import { isVerdictOnSession } from '../../src/sessions/health';
import { loadEffect } from '../../src/sessions/loadEffects';
import { SessionsModel } from '../../src/sessions/sessionsModel';
import { timelineToMarkdown } from '../../src/transcript/export';
import { searchText } from '../../src/transcript/find';
import { codeSpans } from '../../src/transcript/inlineCode';
import { partsText, type MessageEntity, type ToolCallEntity } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { writeAuggieSession, type AgentTurn } from './stores.mjs';
import { RecordingLog, agentConfig, assertNoLiveState, hoursAgo, installed, startClient, stopAgent, tempHome } from './support';

const ids = {
  health: '5b1c6f1e-0000-4000-8000-000000000001',
  long: '5b1c6f1e-0000-4000-8000-000000000002',
  renamed: '5b1c6f1e-0000-4000-8000-000000000003',
  empty: '5b1c6f1e-0000-4000-8000-000000000004',
  subagent: '5b1c6f1e-0000-4000-8000-000000000005',
  other: '5b1c6f1e-0000-4000-8000-000000000006',
};
const LONG_PROMPT = 'Please refactor the whole payment module so that every provider uses the same retry policy';

function healthTurns(): AgentTurn[] {
  const turns: AgentTurn[] = [
    {
      user: 'Add a health check endpoint', before: 'I will look at the router first.', thought: 'The router lives in src/router.ts.',
      tools: [
        { name: 'launch-process', input: { command: 'ls src', wait: true, max_wait_seconds: 30 }, output: 'app.ts\nrouter.ts' },
        { name: 'view', input: { path: 'src/missing.ts', type: 'file' }, error: 'File not found: src/missing.ts' },
      ],
      answer: 'Added GET /healthz returning 200.',
    },
  ];
  for (let i = 0; i < 6; i++) turns.push({ user: `Question ${i + 1} about the endpoint`, thought: `Thinking about question ${i + 1}.`, answer: `Answer ${i + 1}.` });
  return turns;
}

describe(`Auggie ${installed.agents.auggie.version} (auggie --acp), logged out`, () => {
  const { home, project, cleanup } = tempHome();
  const other = join(home, 'work', 'other-project');
  const many = join(home, 'work', 'many-project');
  const dates = { health: hoursAgo(1), long: hoursAgo(2), renamed: hoursAgo(3), subagent: hoursAgo(4), other: hoursAgo(2) };
  const created = hoursAgo(48);
  let client: AcpClient;
  const log = new RecordingLog();

  before(async () => {
    writeAuggieSession(home, { sessionId: ids.health, cwd: project, createdAt: created, updatedAt: dates.health, turns: healthTurns() });
    writeAuggieSession(home, { sessionId: ids.long, cwd: project, createdAt: created, updatedAt: dates.long, turns: [{ user: LONG_PROMPT, answer: 'Done.' }] });
    writeAuggieSession(home, { sessionId: ids.renamed, cwd: project, title: 'Release checklist', createdAt: created, updatedAt: dates.renamed, turns: [{ user: 'What is left before the release?', answer: 'The changelog.' }] });
    writeAuggieSession(home, { sessionId: ids.empty, cwd: project, createdAt: created, updatedAt: hoursAgo(0.5), turns: [] });
    writeAuggieSession(home, { sessionId: ids.subagent, cwd: project, createdAt: created, updatedAt: dates.subagent, parentConversationId: ids.health, turns: [{ user: 'Find the router', answer: 'src/router.ts.' }] });
    writeAuggieSession(home, { sessionId: ids.other, cwd: other, createdAt: created, updatedAt: dates.other, turns: [{ user: 'Hello from another folder', answer: 'Hi.' }] });
    for (let i = 0; i < 120; i++) {
      writeAuggieSession(home, { sessionId: randomUUID(), cwd: many, createdAt: created, updatedAt: hoursAgo(5 + i / 60), turns: [{ user: `Many ${String(i).padStart(3, '0')}`, answer: 'ok' }] });
    }
    client = await startClient(agentConfig('auggie', home), log);
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('advertises list and load only; no archive, delete, rename, close, resume or fork', async () => {
    assert.equal(client.agentInfo?.name, 'auggie');
    assert.match(client.agentInfo?.version ?? '', new RegExp(`^${installed.agents.auggie.version.replace(/\./g, '\\.')} `));
    const { loadSession, list, resume, close, fork, archive, delete: canDelete, title } = client.capabilities;
    assert.deepEqual({ loadSession, list, resume, close, fork, archive, delete: canDelete, title }, { loadSession: true, list: true, resume: false, close: false, fork: false, archive: false, delete: false, title: false });
    await assert.rejects(client.deleteSession(ids.long), UnsupportedCapabilityError);
  });

  test('reports no live state: no session/status, no live list, and no state in its list entries', async () => {
    assertNoLiveState(client, (await client.listSessions({ cwd: project })).sessions);
  });

  test('lists a folder\'s sessions newest first, titled by the first prompt (cut at 50 characters) or the custom title, with a message count; without exchanges left out; a subagent\'s listed', async () => {
    const { sessions, nextCursor } = await client.listSessions({ cwd: project });
    assert.equal(nextCursor, undefined);
    assert.deepEqual(
      sessions.map((s) => [s.sessionId, s.cwd, s.title, s.updatedAt, (s._meta as { messageCount?: unknown } | undefined)?.messageCount]),
      [
        [ids.health, project, 'Add a health check endpoint', dates.health, 8],
        [ids.long, project, `${LONG_PROMPT.slice(0, 50)}...`, dates.long, 1],
        [ids.renamed, project, 'Release checklist', dates.renamed, 1],
        [ids.subagent, project, 'Find the router', dates.subagent, 1],
      ],
    );
    assert.deepEqual((await client.listSessions({ cwd: other })).sessions.map((s) => s.sessionId), [ids.other]);
  });

  test('no paging: 120 sessions of a folder in one answer, a cursor ignored; the tree does not take it for a cap', async () => {
    const all = await client.listSessions({ cwd: many });
    assert.equal(all.sessions.length, 120);
    assert.equal(all.nextCursor, undefined);
    const withCursor = await client.listSessions({ cwd: many, cursor: 'any-cursor' });
    assert.deepEqual(withCursor.sessions.map((s) => s.sessionId), all.sessions.map((s) => s.sessionId));
    const registry = new AgentRegistry({ start: { clientInfo: { name: 'acp-sessions-interop', version: '0' }, log, initializeTimeoutMs: 120_000 } });
    const model = new SessionsModel(registry, { pageSize: 50, scope: { kind: 'folders', folders: [many] } });
    try {
      registry.setConfigs([{ ...agentConfig('auggie', home), name: 'Auggie' }]);
      assert.deepEqual(model.sections('Auggie'), ['active'], 'no Archived section: archive is not advertised, the filter never sent');
      const list = model.list('Auggie', 'active', many);
      await list.load();
      assert.equal(list.sessions.length, 120);
      assert.equal(list.mayHoldMore, undefined);
    } finally {
      model.dispose();
      await registry.dispose();
    }
  });

  test('load replays each exchange as Auggie orders it: the prompt, the answer\'s text, then its thought, then its tool calls (without a status, titled with code spans) and their results', async () => {
    const timeline = new Timeline();
    const updates: SessionUpdate[] = [];
    await client.loadSession(ids.health, project, (u) => {
      updates.push(u);
      timeline.apply(u);
    });
    const rows = timeline.entities.map((e) => {
      if (e.kind === 'tool_call') return ['tool_call', (e as ToolCallEntity).title, (e as ToolCallEntity).status];
      return [e.kind, partsText((e as MessageEntity).parts)];
    });
    assert.deepEqual(rows.slice(0, 6), [
      ['user_message', 'Add a health check endpoint'],
      ['agent_message', 'I will look at the router first.'],
      ['thought', 'The router lives in src/router.ts.'],
      ['tool_call', 'Run `ls src`', 'completed'],
      ['tool_call', 'Read `src/missing.ts`', 'failed'],
      ['agent_message', 'Added GET /healthz returning 200.'],
    ]);
    assert.deepEqual(rows.slice(6, 9), [['user_message', 'Question 1 about the endpoint'], ['agent_message', 'Answer 1.'], ['thought', 'Thinking about question 1.']]);
    assert.deepEqual(rows.at(-1), ['thought', 'Thinking about question 6.']);
    const toolCall = updates.find((u) => u.sessionUpdate === 'tool_call') as Record<string, unknown>;
    assert.equal('status' in toolCall, false, 'a tool_call without status');
    // Its titles hold Markdown code spans: the transcript shows them as code (test/ui/transcript.test.ts
    // "a tool title's code spans show as code…"), find and search read them without the backticks,
    // and the export writes them as code spans.
    const tool = timeline.entities.find((e) => e.kind === 'tool_call') as ToolCallEntity;
    assert.deepEqual(codeSpans(tool.title), [{ code: false, text: 'Run ' }, { code: true, text: 'ls src' }]);
    assert.match(searchText(tool), /^Run ls src\n/);
    const markdown = timelineToMarkdown({ title: 'Health', agentName: 'Auggie', sessionId: ids.health, cwd: project }, timeline.entities);
    assert.match(markdown, /### Tool: Run `ls src` \(completed\)/);
    assert.match(markdown, /### Tool: Read `src\/missing\.ts` \(failed\)/);
  });

  test('an unknown id is -32602 "Invalid params" with "Session not found: …" in its data: shown so, never the session\'s health', async () => {
    const unknown = '5b1c6f1e-0000-4000-8000-0000000000ff';
    const error = await client.loadSession(unknown, project, () => undefined).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof AcpError, String(error));
    assert.equal(error.code, -32602);
    assert.equal(error.message, `session/load failed (-32602): Invalid params (Session not found: ${unknown})`);
    assert.equal(isVerdictOnSession(error), false);
  });

  test('loading changes nothing: every file\'s bytes and date, and the list\'s order, are the same after each session was loaded', async () => {
    const dir = join(home, '.augment', 'sessions');
    const files = [ids.health, ids.long, ids.renamed, ids.subagent].map((id) => join(dir, `${id}.json`));
    const state = () => files.map((f) => [f, statSync(f).size, statSync(f).mtimeMs, createHash('sha256').update(readFileSync(f)).digest('hex')]);
    const order = (list: SessionInfo[]) => list.map((s) => [s.sessionId, s.updatedAt, s.title]);
    const listed = (await client.listSessions({ cwd: project })).sessions;
    const before = state();
    for (let round = 0; round < 3; round++) for (const session of listed) await client.loadSession(session.sessionId, project, () => undefined);
    assert.deepEqual(state(), before);
    assert.deepEqual(order((await client.listSessions({ cwd: project })).sessions), order(listed));
    console.log(`auggie load effects: ${listed.length} sessions loaded 3 times; bytes and mtimes unchanged`);
    assert.equal(loadEffect(client.agentInfo?.name).kind, 'none', 'so its sessions are indexed and kept in the background');
  });

  test('what Auggie sends beyond our reference agent leaves no warning or error in the log', () => {
    assert.deepEqual(log.problems, []);
  });
});
