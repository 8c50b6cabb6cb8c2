// What OpenCode 1.18.33 and Auggie 0.36.0 do that no agent before them did (issue 35), each
// reproduced by a flag of the reference agent (a real child process), and what the client makes
// of it: a list capped at 100 rows without a cursor, an `archived` filter ignored, a fork's
// replay sent before the answer that names the new session, -32602 and -32603 answers to a load
// of an unknown id, a slow `initialize`, a load that never answers, and content marked for the
// model only.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AcpError, AgentStartError, RequestTimeoutError } from '../../src/acp/errors';
import type { SessionUpdate } from '../../src/acp/types';
import { isVerdictOnSession } from '../../src/sessions/health';
import { loadEffect } from '../../src/sessions/loadEffects';
import { looksCapped } from '../../src/sessions/sessionList';
import { recordsOf } from '../../src/search/records';
import { timelineToMarkdown } from '../../src/transcript/export';
import { partsText, type MessageEntity } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { capturedMessages, CapturingLog, referenceAgent, rejection, startClient, teed, waitFor, within } from './acp-helpers';
import { cleanUpAfterEach, ids, record, setupModel, store, tempDir } from './sessionsFixture';

cleanUpAfterEach();

const FOLDER = '/work/opencode-project';

/** A --strings file that makes the reference agent name itself as `name` in its agentInfo. */
function namedAs(name: string): string[] {
  const file = join(tempDir('acp-quirks-name-'), 'strings.json');
  writeFileSync(file, JSON.stringify({ agentInfo: { name, version: '1.18.33' } }));
  return ['--strings', file];
}

describe('a list that ends at a full page without a cursor (OpenCode lists at most 100)', () => {
  test('the list keeps the 100 rows it got, says it may hold more, and logs it once', async () => {
    const dir = await store(Array.from({ length: 130 }, (_, i) => record(`s${String(i).padStart(3, '0')}`, FOLDER, i + 1)));
    const warnings: string[] = [];
    const { model } = setupModel(dir, ['--list-cap', '100', ...namedAs('OpenCode')], { pageSize: 50, warnings });
    const list = model.list('ref', 'active', FOLDER);
    await list.load();
    assert.equal(list.sessions.length, 100);
    assert.equal(list.hasMore, false, 'no cursor: nothing to Load more');
    assert.equal(list.mayHoldMore, 100);
    assert.equal(warnings.filter((w) => /may hold more than it lists/.test(w)).length, 1, warnings.join('\n'));
    await list.reload();
    assert.equal(warnings.filter((w) => /may hold more than it lists/.test(w)).length, 1, 'said once, not on every re-list');
  });

  test('a last page of a number of rows that is no page size is the end', async () => {
    const dir = await store(Array.from({ length: 37 }, (_, i) => record(`s${i}`, FOLDER, i + 1)));
    const warnings: string[] = [];
    const { model } = setupModel(dir, ['--list-cap', '100', ...namedAs('OpenCode')], { warnings });
    const list = model.list('ref', 'active', FOLDER);
    await list.load();
    assert.equal(list.sessions.length, 37);
    assert.equal(list.mayHoldMore, undefined);
    assert.deepEqual(warnings, []);
    assert.ok(looksCapped('OpenCode', 100) && looksCapped('opencode', 100));
    assert.ok(!looksCapped('OpenCode', 99) && !looksCapped('OpenCode', 50) && !looksCapped('OpenCode', 200) && !looksCapped('OpenCode', 0));
  });

  test('the reference agent holding exactly 200 sessions on one page of 250 lists them all, with no "+" and no "may hold more"', async () => {
    const dir = await store(Array.from({ length: 200 }, (_, i) => record(`s${String(i).padStart(3, '0')}`, FOLDER, i + 1)));
    const warnings: string[] = [];
    const { model } = setupModel(dir, ['--page-size', '250'], { pageSize: 250, warnings });
    const list = model.list('ref', 'active', FOLDER);
    await list.load();
    assert.equal(list.sessions.length, 200);
    assert.equal(list.hasMore, false);
    assert.equal(list.mayHoldMore, undefined, 'the section reads "200", not "200+"');
    assert.deepEqual(warnings, []);
  });

  test('an agent that pages, or is not known to cap, never shows "+" at the end: a last page of 50, 100 or 150 rows is the end', async () => {
    for (const [count, pageSize, flags] of [
      [150, 50, []],
      [100, 100, []],
      [50, 250, []],
      // An agent named OpenCode that pages: a cursor along the chain says its last page is the end.
      [200, 100, namedAs('OpenCode')],
    ] as const) {
      const dir = await store(Array.from({ length: count }, (_, i) => record(`s${String(i).padStart(3, '0')}`, FOLDER, i + 1)));
      const warnings: string[] = [];
      const { model } = setupModel(dir, ['--page-size', String(pageSize), ...flags], { pageSize: 250, warnings });
      const list = model.list('ref', 'active', FOLDER);
      await list.load();
      const what = `${count} sessions in pages of ${pageSize}${flags.length ? ', named OpenCode' : ''}`;
      assert.equal(list.sessions.length, count, what);
      assert.equal(list.hasMore, false, what);
      assert.equal(list.mayHoldMore, undefined, what);
      assert.deepEqual(warnings, [], what);
    }
    assert.ok(!looksCapped('acp-reference-agent', 100) && !looksCapped('auggie', 100) && !looksCapped(undefined, 100));
  });
});

describe('an agent that ignores the archived filter (OpenCode, Auggie)', () => {
  const sessions = () => [
    record('a1', FOLDER, 1),
    record('a2', FOLDER, 2),
    record('z1', FOLDER, 3, { archived: true }),
    record('a3', FOLDER, 4),
    record('z2', FOLDER, 5, { archived: true }),
  ];

  test('entries with a flag go to the section their flag names: none is in both', async () => {
    const warnings: string[] = [];
    const { model } = setupModel(await store(sessions()), ['--ignore-archived-filter'], { warnings });
    const active = model.list('ref', 'active', FOLDER);
    const archived = model.list('ref', 'archived', FOLDER);
    await Promise.all([active.load(), archived.load()]);
    assert.deepEqual(ids(active), ['a1', 'a2', 'a3']);
    assert.deepEqual(ids(archived), ['z1', 'z2']);
    assert.ok(warnings.some((w) => /listed 2 sessions of the other section for archived: "exclude"/.test(w)), warnings.join('\n'));
  });

  test('entries without a flag are shown under Active only, whichever list came first', async () => {
    for (const order of ['archived first', 'active first'] as const) {
      const warnings: string[] = [];
      const { model } = setupModel(await store(sessions()), ['--ignore-archived-filter', '--omit-archived-flag'], { warnings });
      const active = model.list('ref', 'active', FOLDER);
      const archived = model.list('ref', 'archived', FOLDER);
      if (order === 'archived first') {
        await archived.load();
        await active.load();
      } else {
        await active.load();
        await archived.load();
      }
      assert.deepEqual(ids(active), ['a1', 'a2', 'z1', 'a3', 'z2'], order);
      assert.deepEqual(ids(archived), [], `${order}: nothing shows twice`);
      assert.ok(warnings.some((w) => /shown under Active only/.test(w)), `${order}: ${warnings.join('\n')}`);
    }
  });

  test('an agent that does not advertise archive is sent no archived filter at all', async () => {
    const dir = await store(sessions());
    const requests = join(tempDir('acp-quirks-requests-'), 'requests.jsonl');
    const { model } = setupModel(dir, ['--no-archive', '--request-log', requests]);
    assert.deepEqual(model.sections('ref'), ['active']);
    const active = model.list('ref', 'active', FOLDER);
    await active.load();
    assert.equal(active.sessions.length, 5);
    const lists = readFileSync(requests, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { method?: string; params?: Record<string, unknown> }).filter((r) => r.method === 'session/list');
    assert.ok(lists.length > 0);
    for (const list of lists) assert.equal('archived' in (list.params ?? {}), false, JSON.stringify(list.params));
  });
});

describe('session/fork whose replay comes before the answer that names the session (OpenCode)', () => {
  test('the updates under the new id are kept and delivered, in order, once the answer names it; later ones follow', async (t) => {
    const updates: SessionUpdate[] = [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Add a health check' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Added GET /healthz.' } },
      { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Run tests', status: 'completed' },
    ] as SessionUpdate[];
    const dir = await store([record('s1', FOLDER, 1, { updates })]);
    const { client } = await startClient(t, referenceAgent(dir, ['--fork-replays']));
    assert.equal(client.capabilities.fork, true);
    const received: SessionUpdate[] = [];
    const { sessionId, subscription } = await within(client.forkSession('s1', FOLDER, { onUpdate: (u) => received.push(u) }), 10_000, 'session/fork');
    t.after(() => subscription.dispose());
    assert.match(sessionId, /^s1-fork-/);
    assert.deepEqual(received.map((u) => u.sessionUpdate), ['user_message_chunk', 'agent_message_chunk', 'tool_call']);
    // The fork is a session of its own: the list has it, and its own load replays it again.
    const { sessions } = await client.listSessions({ cwd: FOLDER });
    assert.ok(sessions.some((s) => s.sessionId === sessionId));
    const reloaded: SessionUpdate[] = [];
    await client.loadSession(sessionId, FOLDER, (u) => reloaded.push(u));
    assert.equal(reloaded.length, 3);
  });

  test('without fork advertised, forkSession is refused before anything is sent', async (t) => {
    const dir = await store([record('s1', FOLDER, 1)]);
    const { client } = await startClient(t, referenceAgent(dir, ['--no-fork']));
    assert.equal(client.capabilities.fork, false);
    await assert.rejects(client.forkSession('s1', FOLDER, { onUpdate: () => undefined }), /sessionCapabilities\.fork/);
  });
});

describe('a failed load is the session\'s health only where the agent said it is gone', () => {
  async function loadError(t: { after(fn: () => Promise<void> | void): void }, flags: string[], strings?: object): Promise<unknown> {
    const dir = await store([record('h1', FOLDER, 1)]);
    const extra = [...flags];
    if (strings) {
      const file = join(tempDir('acp-quirks-strings-'), 'strings.json');
      writeFileSync(file, JSON.stringify(strings));
      extra.push('--strings', file);
    }
    const { client } = await startClient(t, referenceAgent(dir, extra), { initializeTimeoutMs: 30_000 });
    return client.loadSession('h1', FOLDER, () => undefined).then(() => undefined, (error: unknown) => error);
  }

  test('Auggie\'s -32602 "Invalid params" with data.details "Session not found: …" says so, and is not remembered', async (t) => {
    const error = await loadError(t, ['--fail', 'session/load=-32602'], { errorMessage: 'Invalid params', errorData: { details: 'Session not found: h1' } });
    assert.ok(error instanceof AcpError);
    assert.equal(error.message, 'session/load failed (-32602): Invalid params (Session not found: h1)');
    assert.equal(isVerdictOnSession(error), false);
  });

  test('OpenCode\'s -32603 "Internal error: OpenCode service failure" is not remembered either', async (t) => {
    const error = await loadError(t, ['--fail', 'session/load=-32603'], { errorMessage: 'Internal error: OpenCode service failure', errorData: { service: 'session' } });
    assert.ok(error instanceof AcpError);
    assert.equal(error.message, 'session/load failed (-32603): Internal error: OpenCode service failure');
    assert.equal(isVerdictOnSession(error), false);
  });

  test('Auggie\'s -32603 with a list of problems names the first; -32002 is the verdict', async (t) => {
    const zod = await loadError(t, ['--fail', 'session/load=-32603'], { errorMessage: 'Internal error', errorData: [{ expected: 'string', code: 'invalid_type', path: ['cwd'], message: 'Invalid input: expected string, received undefined' }] });
    assert.equal((zod as Error).message, 'session/load failed (-32603): Internal error (cwd: Invalid input: expected string, received undefined)');
    assert.equal(isVerdictOnSession(zod), false);
    assert.equal(isVerdictOnSession(await loadError(t, ['--fail', 'session/load=-32002'])), true);
  });
});

describe('deadlines: a slow initialize, a load that never answers', () => {
  test('initialize has its own deadline: a start slower than the request deadline still connects', async (t) => {
    const dir = await store([record('s1', FOLDER, 1)]);
    const { client } = await startClient(t, referenceAgent(dir, ['--initialize-delay', '1500']), { requestTimeoutMs: 500 });
    assert.equal(client.isConnected, true);
    await client.listSessions({ cwd: FOLDER });
  });

  test('a start past its own deadline fails naming the setting', async (t) => {
    const dir = await store([record('s1', FOLDER, 1)]);
    const error = await rejection(startClient(t, referenceAgent(dir, ['--initialize-delay', '5000']), { initializeTimeoutMs: 500 }));
    assert.ok(error instanceof AgentStartError, String(error));
    assert.match(error.message, /did not answer initialize within 500 ms \(setting acpSessions\.startTimeout\)/);
  });

  test('a load that never answers (pi-acp offline) is cancelled at the deadline, and the agent is told', async (t) => {
    const dir = await store([record('s1', FOLDER, 1)]);
    const capture = join(tempDir('acp-quirks-capture-'), 'sent.ndjson');
    const log = new CapturingLog();
    const { client } = await startClient(t, teed(referenceAgent(dir, ['--hang', 'session/load']), capture), { requestTimeoutMs: 800, initializeTimeoutMs: 30_000, log });
    const error = await within(rejection(client.loadSession('s1', FOLDER, () => undefined)), 10_000, 'a load the agent never answers');
    assert.ok(error instanceof RequestTimeoutError, String(error));
    assert.match(error.message, /did not answer session\/load within 800 ms/);
    assert.equal(isVerdictOnSession(error), false);
    const load = capturedMessages(capture).find((m) => m.method === 'session/load')!;
    await waitFor(() => capturedMessages(capture).some((m) => m.method === '$/cancel_request' && (m.params as { requestId?: unknown }).requestId === load.id), 'the agent was told to cancel the load');
    assert.equal(client.isConnected, true, 'the agent stays: a hung load is not a dead agent');
  });
});

describe('content for the model only (annotations.audience without "user", OpenCode\'s injected context)', () => {
  const INJECTED = '<synthetic context injected by opencode>';
  const updates = [
    { sessionUpdate: 'user_message_chunk', messageId: 'msg_1', content: { type: 'text', text: 'Add a health check endpoint' } },
    { sessionUpdate: 'user_message_chunk', messageId: 'msg_1', content: { type: 'text', text: INJECTED, annotations: { audience: ['assistant'] } } },
    { sessionUpdate: 'agent_message_chunk', messageId: 'msg_2', content: { type: 'text', text: 'Added GET /healthz.', annotations: { audience: ['user', 'assistant'] } } },
  ] as SessionUpdate[];

  test('replayed, it is its own part of the message, marked, and not the user\'s words', async (t) => {
    const dir = await store([record('s1', FOLDER, 1, { updates })]);
    const { client } = await startClient(t, referenceAgent(dir));
    const timeline = new Timeline();
    await client.loadSession('s1', FOLDER, (u) => timeline.apply(u));
    const [user, agent] = timeline.entities as MessageEntity[];
    assert.deepEqual(user.parts, [{ type: 'text', text: 'Add a health check endpoint' }, { type: 'text', text: INJECTED, forModel: true }]);
    assert.equal(partsText(user.parts), 'Add a health check endpoint');
    assert.deepEqual(agent.parts, [{ type: 'text', text: 'Added GET /healthz.' }], 'an audience with "user" is for everybody');
  });

  test('the export labels it and keeps it literal; search keeps it out of what you said, labelled', () => {
    const timeline = new Timeline();
    for (const u of updates) timeline.apply(u);
    const markdown = timelineToMarkdown({ title: 'Health', agentName: 'OpenCode', sessionId: 's1', cwd: FOLDER }, timeline.entities);
    assert.match(markdown, /## User\n\nAdd a health check endpoint\n\n_Context sent to the model:_\n\n```text\n<synthetic context injected by opencode>\n```/);
    const records = recordsOf(timeline.entities);
    assert.deepEqual(records.map((r) => [r.where, r.index, r.text.trim()]), [
      ['you', 0, 'Add a health check endpoint'],
      ['agent', 0, `Context sent to the model: ${INJECTED}`],
      ['agent', 1, 'Added GET /healthz.'],
    ]);
  });
});

describe('what a load changes, as measured per agent (test/interop)', () => {
  test('OpenCode and Auggie change nothing; pi-acp appends to the session\'s file; others are not known', () => {
    assert.equal(loadEffect('OpenCode').kind, 'none');
    assert.equal(loadEffect('auggie').kind, 'none');
    assert.equal(loadEffect('pi-acp').kind, 'pi');
    assert.equal(loadEffect('@agentclientprotocol/claude-agent-acp').kind, 'claude');
    assert.equal(loadEffect('some-new-agent').kind, 'unknown');
  });
});
