// Our ACP client against the real @agentclientprotocol/claude-agent-acp, offline, with a
// Claude Code store fabricated in a temporary HOME.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AcpClient } from '../../src/acp/client';
import { ResourceNotFoundError } from '../../src/acp/errors';
import type { CompactionEntity, MessageEntity } from '../../src/transcript/model';
import { partsText } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { claudeProjectDir, writeClaudeSession } from './stores.mjs';
import { RecordingLog, agentConfig, hoursAgo, stopAgent, installed, nextUpdate, startClient, tempHome } from './support';

const SUMMARY = 'The user asked to split the parser into a lexer and a parser. The lexer is done and tested; the parser still reads tokens from a string.';

describe(`claude-agent-acp ${installed.agents.claude.version}`, () => {
  const { home, project, cleanup } = tempHome();
  const other = join(home, 'work', 'other-project');
  const ids = {
    login: '0a1b2c3d-0000-4000-8000-000000000001',
    parser: '0a1b2c3d-0000-4000-8000-000000000002',
    big: '0a1b2c3d-0000-4000-8000-000000000003',
    doomed: '0a1b2c3d-0000-4000-8000-000000000004',
    elsewhere: '0a1b2c3d-0000-4000-8000-000000000005',
  };
  // Recent: Claude Code deletes transcripts older than its cleanupPeriodDays (30) when it starts.
  const dates = { parser: hoursAgo(2), elsewhere: hoursAgo(4), login: hoursAgo(5), big: hoursAgo(30), doomed: hoursAgo(72) };
  const bigAnswer = 'x'.repeat(1024 * 1024 * 3) + ' end of a 3 MiB answer';
  let client: AcpClient;
  const log = new RecordingLog();

  before(async () => {
    writeClaudeSession(home, {
      sessionId: ids.login, cwd: project, title: 'Fix the login bug', updatedAt: dates.login,
      turns: [['The login fails after a password reset.', 'The reset does not clear the old session; fixed.']],
    });
    writeClaudeSession(home, {
      sessionId: ids.parser, cwd: project, title: 'Split the parser', updatedAt: dates.parser,
      turns: [
        ['Split the parser into a lexer and a parser.', 'Starting with the lexer.'],
        ['Test the lexer.', 'The lexer has 12 passing tests.'],
        ['Now make the parser read tokens.', 'The parser now reads tokens from the lexer.'],
      ],
      compactedAfter: 2,
      summary: SUMMARY,
    });
    writeClaudeSession(home, {
      sessionId: ids.big, cwd: project, title: 'A very long answer', updatedAt: dates.big,
      turns: [['Print the whole log.', bigAnswer]],
    });
    writeClaudeSession(home, {
      sessionId: ids.doomed, cwd: project, title: 'Throwaway experiment', updatedAt: dates.doomed,
      turns: [['Try something.', 'Tried.']],
    });
    writeClaudeSession(home, {
      sessionId: ids.elsewhere, cwd: other, title: 'Another folder', updatedAt: dates.elsewhere,
      turns: [['Hello from elsewhere.', 'Hi.']],
    });
    client = await startClient(agentConfig('claude', home), log);
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('advertises list, load, delete, resume, close and fork; archives by the JetBrains AIR extension, not the standard', () => {
    assert.equal(client.agentInfo?.name, '@agentclientprotocol/claude-agent-acp');
    assert.equal(client.agentInfo?.version, installed.agents.claude.version);
    assert.deepEqual(
      { ...client.capabilities, authMethods: undefined },
      { loadSession: true, list: true, delete: true, resume: true, close: true, archive: true, archiveMethod: 'jetbrains-air', title: true, titleMethod: 'jetbrains-air', status: false, sessionState: 'jetbrains-air', listSubscribe: true, batchGet: true, fork: true, authMethods: undefined },
    );
  });

  test('lists the sessions of a folder with their titles and dates, newest first', async () => {
    const { sessions, nextCursor } = await client.listSessions({ cwd: project });
    assert.equal(nextCursor, undefined);
    assert.deepEqual(
      sessions.map((s) => [s.sessionId, s.cwd, s.title, s.updatedAt]),
      [
        [ids.parser, project, 'Split the parser', dates.parser],
        [ids.login, project, 'Fix the login bug', dates.login],
        [ids.big, project, 'A very long answer', dates.big],
        [ids.doomed, project, 'Throwaway experiment', dates.doomed],
      ],
    );
  });

  test('list entries report each session\'s live state through the extension (_meta.jetbrains.air.state: "idle" when stored, not running)', async () => {
    // What the tree can show without a request that has side effects (issue 12, live state).
    const { sessions } = await client.listSessions({ cwd: project });
    const air = (s: (typeof sessions)[number]) => ((s._meta as { jetbrains?: { air?: Record<string, unknown> } } | undefined)?.jetbrains?.air ?? {});
    assert.deepEqual(sessions.map((s) => [s.sessionId, air(s).state]), sessions.map((s) => [s.sessionId, 'idle']));
    assert.ok(sessions.every((s) => typeof air(s).lastPromptAt === 'string'), JSON.stringify(sessions.map((s) => s._meta)));
  });

  test('lists every folder\'s sessions without a cwd filter', async () => {
    const { sessions } = await client.listSessions({});
    const elsewhere = sessions.find((s) => s.sessionId === ids.elsewhere);
    assert.equal(elsewhere?.cwd, other);
    assert.equal(sessions.length, 5);
  });

  test('archive (_session/archive) moves a session to the archived list; unarchive brings it back', async () => {
    const listed = async (archived: 'exclude' | 'only' | 'include') =>
      (await client.listSessions({ cwd: project, archived })).sessions.map((s) => `${s.sessionId}:${s.archived}`);
    await client.archiveSession(ids.login);
    await client.archiveSession(ids.login); // idempotent
    assert.equal((await listed('exclude')).includes(`${ids.login}:false`), false);
    assert.deepEqual(await listed('only'), [`${ids.login}:true`]);
    assert.ok((await listed('include')).includes(`${ids.login}:true`));
    // claude keeps the mark in the session's own JSONL, and its date does not move.
    assert.match(readFileSync(join(claudeProjectDir(home, project), `${ids.login}.jsonl`), 'utf8'), /archived/);
    await client.unarchiveSession(ids.login);
    assert.deepEqual(await listed('only'), []);
    const login = (await client.listSessions({ cwd: project })).sessions.find((s) => s.sessionId === ids.login);
    assert.deepEqual([login?.archived, login?.updatedAt], [false, dates.login]);
  });

  test('archive of an unknown session is ResourceNotFoundError (-32002) with data.sessionId', async () => {
    const unknown = 'ffffffff-0000-4000-8000-00000000dead';
    for (const call of [() => client.archiveSession(unknown), () => client.unarchiveSession(unknown)]) {
      const error = await call().then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof ResourceNotFoundError, String(error));
      assert.deepEqual(error.data, { sessionId: unknown });
    }
  });

  test('a compacted transcript replays as a completed compaction row with its summary', async () => {
    const timeline = new Timeline();
    await client.loadSession(ids.parser, project, (update) => timeline.apply(update));
    const compactions = timeline.entities.filter((e): e is CompactionEntity => e.kind === 'compaction');
    assert.equal(compactions.length, 1);
    assert.equal(compactions[0].status, 'completed');
    assert.equal(partsText(compactions[0].summary), SUMMARY);
    // Claude replays from the compaction on: the summary stands for everything before it.
    const messages = timeline.entities.filter((e): e is MessageEntity => e.kind === 'user_message' || e.kind === 'agent_message');
    assert.deepEqual(
      messages.map((m) => [m.kind, partsText(m.parts)]),
      [
        ['user_message', 'Now make the parser read tokens.'],
        ['agent_message', 'The parser now reads tokens from the lexer.'],
      ],
    );
    assert.equal(timeline.entities[0].kind, 'compaction');
    assert.deepEqual(timeline.entities.filter((e) => e.kind === 'unknown'), []);
  });

  test('a 3 MiB answer arrives whole', async () => {
    const timeline = new Timeline();
    await client.loadSession(ids.big, project, (update) => timeline.apply(update));
    const answer = timeline.entities.find((e): e is MessageEntity => e.kind === 'agent_message');
    assert.equal(answer && partsText(answer.parts), bigAnswer);
  });

  test('available_commands_update sent after the load response reaches live listeners', async () => {
    const commands = nextUpdate(client, ids.login, (u) => (u.sessionUpdate === 'available_commands_update' ? u.availableCommands : undefined));
    await client.loadSession(ids.login, project, () => undefined);
    assert.ok(Array.isArray(await commands));
  });

  test('delete removes the transcript file and the session from the list', async () => {
    const file = join(claudeProjectDir(home, project), `${ids.doomed}.jsonl`);
    assert.ok(existsSync(file));
    await client.deleteSession(ids.doomed);
    assert.equal(existsSync(file), false);
    const { sessions } = await client.listSessions({ cwd: project });
    assert.equal(sessions.some((s) => s.sessionId === ids.doomed), false);
  });

  test('what claude sends beyond our reference agent leaves no warning or error in the log', () => {
    // By now: `_meta` in initialize, `_auth/status_update`, messageIds, late available_commands_update,
    // load responses with modes, models and configOptions, a 3 MiB line.
    assert.deepEqual(log.problems, []);
  });
});

describe(`claude-agent-acp ${installed.agents.claude.version} with 1005 sessions in one folder`, () => {
  const { home, project, cleanup } = tempHome();
  let client: AcpClient;
  const log = new RecordingLog();
  const count = 1005;

  before(async () => {
    for (let i = 0; i < count; i++) {
      writeClaudeSession(home, {
        sessionId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, cwd: project, title: `Session ${i}`,
        updatedAt: new Date(Date.parse(hoursAgo(48)) + i * 60_000).toISOString(), turns: [['Question', 'Answer']],
      });
    }
    client = await startClient(agentConfig('claude', home), log);
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('its nextCursor chain leads to every session exactly once', async () => {
    // claude pages at 1000 for a plain client and at 50 for one that offers AIR's session index (as we do).
    const pages: number[] = [];
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listSessions({ cwd: project, ...(cursor ? { cursor } : {}) });
      pages.push(page.sessions.length);
      ids.push(...page.sessions.map((s) => s.sessionId));
      cursor = page.nextCursor;
      assert.ok(pages.length <= count, 'paging ends');
    } while (cursor);
    assert.ok(pages.length > 1, `claude pages: ${pages.join(', ')}`);
    assert.equal(ids.length, count);
    assert.equal(new Set(ids).size, count);
    assert.equal(ids[0], `00000000-0000-4000-8000-${String(count - 1).padStart(12, '0')}`);
    assert.deepEqual(log.problems, []);
  });
});
