// Our ACP client against the real Qwen Code (`qwen --acp`, @qwen-code/qwen-code), offline, on the
// test host's Node 24 (it needs 22 or later), with a Qwen Code store fabricated in a temporary HOME.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AcpClient } from '../../src/acp/client';
import { AuthRequiredError, UnsupportedCapabilityError } from '../../src/acp/errors';
import type { MessageEntity } from '../../src/transcript/model';
import { partsText } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { QWEN_OFFLINE_LOGIN, writeQwenSession } from './stores.mjs';
import { RecordingLog, agentConfig, hoursAgo, installed, startClient, stopAgent, tempHome } from './support';

const ids = {
  health: '1a2b3c4d-0000-4000-8000-000000000001',
  cache: '1a2b3c4d-0000-4000-8000-000000000002',
  renamed: '1a2b3c4d-0000-4000-8000-000000000003',
  elsewhere: '1a2b3c4d-0000-4000-8000-000000000004',
  home: '1a2b3c4d-0000-4000-8000-000000000005',
};
const SUMMARY = 'The user added GET /healthz; the readiness check is next.';

describe(`qwen-code ${installed.agents.qwen.version} --acp`, () => {
  const { home, project, cleanup } = tempHome();
  const other = join(home, 'work', 'other-project');
  const dates = { health: hoursAgo(1), renamed: hoursAgo(3), cache: hoursAgo(26), elsewhere: hoursAgo(2), home: hoursAgo(5) };
  let client: AcpClient;
  const log = new RecordingLog();

  before(async () => {
    writeQwenSession(home, {
      sessionId: ids.health, cwd: project, updatedAt: dates.health,
      turns: [
        ['Add a health check endpoint', 'Added GET /healthz returning 200.'],
        ['Now add a readiness check', 'Added GET /readyz.'],
      ],
      compressedAfter: 1,
      summary: SUMMARY,
    });
    writeQwenSession(home, {
      sessionId: ids.cache, cwd: project, updatedAt: dates.cache,
      turns: [['Why is the cache cold after a deploy?', 'The deploy clears it; warm it in the post-deploy hook.']],
    });
    writeQwenSession(home, {
      sessionId: ids.renamed, cwd: project, updatedAt: dates.renamed, title: 'Release checklist',
      turns: [['What is left before the release?', 'The changelog and the version bump.']],
    });
    writeQwenSession(home, {
      sessionId: ids.elsewhere, cwd: other, updatedAt: dates.elsewhere,
      turns: [['Hello from another folder', 'Hi.']],
    });
    writeQwenSession(home, {
      sessionId: ids.home, cwd: home, updatedAt: dates.home,
      turns: [['A question asked in the home folder', 'An answer.']],
    });
    client = await startClient(agentConfig('qwen', home, undefined, QWEN_OFFLINE_LOGIN), log);
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('advertises list, load and resume; no archive (standard or extension), delete, rename or close', () => {
    assert.equal(client.agentInfo?.name, 'qwen-code');
    assert.equal(client.agentInfo?.version, installed.agents.qwen.version);
    const { loadSession, list, resume, archive, archiveMethod, delete: canDelete, title, close } = client.capabilities;
    assert.deepEqual(
      { loadSession, list, resume, archive, archiveMethod, delete: canDelete, title, close },
      { loadSession: true, list: true, resume: true, archive: false, archiveMethod: undefined, delete: false, title: false, close: false },
    );
  });

  test('lists the sessions of a folder, titled by their first prompt (or the /rename title) and dated by their last change', async () => {
    const { sessions, nextCursor } = await client.listSessions({ cwd: project });
    assert.equal(nextCursor, undefined);
    assert.deepEqual(
      sessions.map((s) => [s.sessionId, s.cwd, s.title, s.updatedAt]),
      [
        [ids.health, project, 'Add a health check endpoint', dates.health],
        [ids.renamed, project, 'Release checklist', dates.renamed],
        [ids.cache, project, 'Why is the cache cold after a deploy?', dates.cache],
      ],
    );
    // No JetBrains AIR answer in its entries: no archived mark, no live state.
    assert.deepEqual(sessions.filter((s) => s._meta && 'jetbrains' in s._meta), []);
  });

  test('without a cwd it lists its own working directory only, not every folder', async () => {
    // The entry's cwd is HOME (agentEntry): the tree's "all folders" scope shows that folder's sessions.
    const { sessions } = await client.listSessions({});
    assert.deepEqual(sessions.map((s) => s.sessionId), [ids.home]);
  });

  test('archive, delete and rename are refused before anything is sent', async () => {
    await assert.rejects(client.archiveSession(ids.cache), UnsupportedCapabilityError);
    await assert.rejects(client.deleteSession(ids.cache), UnsupportedCapabilityError);
    await assert.rejects(client.setSessionTitle(ids.cache, 'x'), UnsupportedCapabilityError);
  });

  test('load replays the whole conversation in order; a compression checkpoint is not replayed as a compaction', async () => {
    const timeline = new Timeline();
    await client.loadSession(ids.health, project, (update) => timeline.apply(update));
    const messages = timeline.entities.filter((e): e is MessageEntity => e.kind === 'user_message' || e.kind === 'agent_message');
    assert.deepEqual(
      messages.map((m) => [m.kind, partsText(m.parts)]),
      [
        ['user_message', 'Add a health check endpoint'],
        ['agent_message', 'Added GET /healthz returning 200.'],
        ['user_message', 'Now add a readiness check'],
        ['agent_message', 'Added GET /readyz.'],
      ],
    );
    // qwen keeps the history the user saw and the compressed one only for the model: no compaction row.
    assert.deepEqual(timeline.entities.filter((e) => e.kind === 'compaction' || e.kind === 'unknown'), []);
  });

  test('loading does not resume the session: its date stays', async () => {
    const listed = (await client.listSessions({ cwd: project })).sessions.find((s) => s.sessionId === ids.health);
    assert.equal(listed?.updatedAt, dates.health);
  });

  test('what qwen sends beyond our reference agent leaves no warning or error in the log', () => {
    assert.deepEqual(log.problems, []);
  });
});

describe(`qwen-code ${installed.agents.qwen.version} --acp without a login`, () => {
  const { home, project, cleanup } = tempHome();
  let client: AcpClient;

  before(async () => {
    writeQwenSession(home, {
      sessionId: ids.cache, cwd: project, updatedAt: hoursAgo(2),
      turns: [['Why is the cache cold after a deploy?', 'Warm it after the deploy.']],
    });
    client = await startClient(agentConfig('qwen', home));
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('lists its sessions, and answers session/load with AuthRequiredError (-32000)', async () => {
    const { sessions } = await client.listSessions({ cwd: project });
    assert.deepEqual(sessions.map((s) => s.sessionId), [ids.cache]);
    await assert.rejects(client.loadSession(ids.cache, project, () => undefined), AuthRequiredError);
  });
});
