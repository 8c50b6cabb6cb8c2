// Our ACP client against the real @agentclientprotocol/codex-acp, offline, with Codex rollouts
// fabricated in a temporary HOME.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AcpClient } from '../../src/acp/client';
import { ResourceNotFoundError } from '../../src/acp/errors';
import type { MessageEntity } from '../../src/transcript/model';
import { partsText } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { writeCodexAuth, writeCodexSession } from './stores.mjs';
import { RecordingLog, agentConfig, stopAgent, installed, startClient, tempHome } from './support';

const ids = {
  readme: '0196a1b2-0000-7000-8000-000000000001',
  tests: '0196a1b2-0000-7000-8000-000000000002',
  doomed: '0196a1b2-0000-7000-8000-000000000003',
  compacted: '0196a1b2-0000-7000-8000-000000000004',
};

describe(`codex-acp ${installed.agents.codex.version}`, () => {
  const { home, project, cleanup } = tempHome();
  let client: AcpClient;
  let doomedFile: string;
  const log = new RecordingLog();

  before(async () => {
    writeCodexAuth(home);
    writeCodexSession(home, {
      sessionId: ids.readme, cwd: project, startedAt: '2025-05-01T10:00:00.000Z', updatedAt: '2025-05-01T10:05:00.000Z',
      turns: [['Add a README', 'Added README.md with the build steps.']],
    });
    writeCodexSession(home, {
      sessionId: ids.tests, cwd: project, startedAt: '2025-05-03T09:30:00.000Z', updatedAt: '2025-05-03T09:45:00.000Z',
      turns: [['Write tests for the parser', 'Wrote 3 tests.'], ['Run them', 'All 3 pass.']],
    });
    doomedFile = writeCodexSession(home, {
      sessionId: ids.doomed, cwd: project, startedAt: '2025-04-01T09:30:00.000Z', updatedAt: '2025-04-01T09:31:00.000Z',
      turns: [['Try a thing', 'Tried it.']],
    });
    writeCodexSession(home, {
      sessionId: ids.compacted, cwd: project, startedAt: '2025-03-01T08:00:00.000Z', updatedAt: '2025-03-01T08:30:00.000Z',
      turns: [['Port the CLI to ESM', 'Ported; `require` calls are gone.'], ['Now the tests', 'The tests import ESM too.']],
      compactedAfter: 1,
      summary: 'The CLI is ported to ESM; the tests are next.',
    });
    client = await startClient(agentConfig('codex', home), log);
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('advertises list, load, delete and resume; archives by the JetBrains AIR extension, not the standard', () => {
    assert.equal(client.agentInfo?.name, '@agentclientprotocol/codex-acp');
    assert.equal(client.agentInfo?.version, installed.agents.codex.version);
    const { loadSession, list, delete: canDelete, resume, archive, archiveMethod } = client.capabilities;
    assert.deepEqual(
      { loadSession, list, delete: canDelete, resume, archive, archiveMethod },
      { loadSession: true, list: true, delete: true, resume: true, archive: true, archiveMethod: 'jetbrains-air' },
    );
  });

  test('lists the sessions of a folder, titled by their first prompt and dated by their last change', async () => {
    // codex answers `nextCursor: null` at the end; the client reports it as no cursor.
    const { sessions, nextCursor } = await client.listSessions({ cwd: project });
    assert.equal(nextCursor, undefined);
    assert.deepEqual(
      sessions.map((s) => [s.sessionId, s.cwd, s.title, s.updatedAt]),
      [
        [ids.tests, project, 'Write tests for the parser', '2025-05-03T09:45:00.000Z'],
        [ids.readme, project, 'Add a README', '2025-05-01T10:05:00.000Z'],
        [ids.doomed, project, 'Try a thing', '2025-04-01T09:31:00.000Z'],
        [ids.compacted, project, 'Port the CLI to ESM', '2025-03-01T08:30:00.000Z'],
      ],
    );
  });

  test('archive (_session/archive) moves a session to the archived list; unarchive brings it back', async () => {
    const listed = async (archived: 'exclude' | 'only' | 'include') =>
      (await client.listSessions({ cwd: project, archived })).sessions.map((s) => `${s.sessionId}:${s.archived}`);
    await client.archiveSession(ids.readme);
    await client.archiveSession(ids.readme); // idempotent
    assert.deepEqual(await listed('exclude'), [`${ids.tests}:false`, `${ids.doomed}:false`, `${ids.compacted}:false`]);
    assert.deepEqual(await listed('only'), [`${ids.readme}:true`]);
    assert.deepEqual((await listed('include')).sort(), [`${ids.tests}:false`, `${ids.readme}:true`, `${ids.doomed}:false`, `${ids.compacted}:false`].sort());
    await client.unarchiveSession(ids.readme);
    assert.deepEqual(await listed('only'), []);
    // codex 2.6.0 dates an unarchived session now (its rollout file is touched): it moves to the top.
    const readme = (await client.listSessions({ cwd: project })).sessions.find((s) => s.sessionId === ids.readme);
    assert.equal(readme?.archived, false);
    assert.ok(Date.parse(readme!.updatedAt!) > Date.parse('2025-05-01T10:05:00.000Z'));
  });

  test('archive of an unknown session is ResourceNotFoundError (-32002) with data.sessionId', async () => {
    const unknown = 'ffffffff-0000-7000-8000-00000000dead';
    for (const call of [() => client.archiveSession(unknown), () => client.unarchiveSession(unknown)]) {
      const error = await call().then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof ResourceNotFoundError, String(error));
      assert.deepEqual(error.data, { sessionId: unknown });
    }
  });

  test('rename (session/set_title, sessionCapabilities.title) answers the stored title and lists it; -32002 for an unknown session', async () => {
    assert.equal(client.capabilities.title, true);
    assert.equal(await client.setSessionTitle(ids.tests, 'Parser tests'), 'Parser tests');
    const listed = (await client.listSessions({ cwd: project })).sessions.find((s) => s.sessionId === ids.tests);
    assert.equal(listed?.title, 'Parser tests');
    const error = await client.setSessionTitle('ffffffff-0000-7000-8000-00000000dead', 'x').then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ResourceNotFoundError, String(error));
    await client.setSessionTitle(ids.tests, 'Write tests for the parser'); // as the other tests expect it
  });

  test('load replays the conversation in order, one message per messageId', async () => {
    const timeline = new Timeline();
    await client.loadSession(ids.tests, project, (update) => timeline.apply(update));
    const messages = timeline.entities.filter((e): e is MessageEntity => e.kind === 'user_message' || e.kind === 'agent_message');
    assert.deepEqual(
      messages.map((m) => [m.kind, partsText(m.parts)]),
      [
        ['user_message', 'Write tests for the parser'],
        ['agent_message', 'Wrote 3 tests.'],
        ['user_message', 'Run them'],
        ['agent_message', 'All 3 pass.'],
      ],
    );
    assert.ok(messages.every((m) => typeof m.messageId === 'string'));
    // session_info_update with only `_meta`, and available_commands_update, are session state.
    assert.deepEqual(timeline.entities.filter((e) => e.kind === 'unknown'), []);
  });

  test('a compacted rollout replays as a completed compaction row in its place, without a summary (codex sends none), and the whole history stays', async () => {
    const timeline = new Timeline();
    await client.loadSession(ids.compacted, project, (update) => timeline.apply(update));
    const rows = timeline.entities
      .filter((e) => e.kind === 'user_message' || e.kind === 'agent_message' || e.kind === 'compaction')
      .map((e) => (e.kind === 'compaction' ? ['compaction', e.status, partsText(e.summary)] : [e.kind, partsText((e as MessageEntity).parts)]));
    assert.deepEqual(rows, [
      ['user_message', 'Port the CLI to ESM'],
      ['agent_message', 'Ported; `require` calls are gone.'],
      ['compaction', 'completed', ''],
      ['user_message', 'Now the tests'],
      ['agent_message', 'The tests import ESM too.'],
    ]);
  });

  test('delete removes the session for good (for a client offering AIR\'s session index: thread/delete, not a move to archived_sessions)', async () => {
    await client.deleteSession(ids.doomed);
    const { sessions } = await client.listSessions({ cwd: project, archived: 'include' });
    assert.equal(sessions.some((s) => s.sessionId === ids.doomed), false);
    assert.equal(existsSync(doomedFile), false);
    const archivedDir = join(home, '.codex', 'archived_sessions');
    assert.equal(existsSync(archivedDir) && readdirSync(archivedDir).some((f) => f.includes(ids.doomed)), false);
  });

  test('what codex sends beyond our reference agent leaves no warning or error in the log', () => {
    assert.deepEqual(log.problems, []);
  });
});

describe(`codex-acp ${installed.agents.codex.version} without credentials`, () => {
  const { home, project, cleanup } = tempHome();
  let client: AcpClient;

  before(async () => {
    writeCodexSession(home, {
      sessionId: ids.readme, cwd: project, startedAt: '2025-05-01T10:00:00.000Z',
      turns: [['Add a README', 'Added README.md.']],
    });
    client = await startClient(agentConfig('codex', home));
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('starts and advertises its authMethods, so authMethods alone do not mean "log in first"', () => {
    assert.ok(client.capabilities.authMethods.some((m) => m.id === 'api-key'));
  });

  test('session/list works without credentials for a client offering AIR\'s session index (a plain client gets -32000)', async () => {
    // The index reads codex's local state; our AuthRequiredError path is tested with the reference agent's --auth-required.
    const { sessions } = await client.listSessions({ cwd: project });
    assert.deepEqual(sessions.map((s) => s.sessionId), [ids.readme]);
  });
});
