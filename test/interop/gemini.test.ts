// Our ACP client against the real Gemini CLI (`gemini --acp`), offline: an agent that cannot list
// sessions, wants authentication before it loads one, and then loads a session by its id from a
// store fabricated in a temporary HOME.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AcpClient } from '../../src/acp/client';
import { AuthRequiredError, UnsupportedCapabilityError } from '../../src/acp/errors';
import type { MessageEntity } from '../../src/transcript/model';
import { partsText } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { writeGeminiOfflineLogin, writeGeminiSession } from './stores.mjs';
import { RecordingLog, agentConfig, installed, nextUpdate, startClient, stopAgent, tempHome } from './support';

describe(`gemini-cli ${installed.agents.gemini.version} --acp`, () => {
  const { home, project, cleanup } = tempHome();
  let client: AcpClient;
  const log = new RecordingLog();

  before(async () => {
    client = await startClient(agentConfig('gemini', home), log);
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('does not advertise session/list, so listing is refused before anything is sent', async () => {
    assert.equal(client.agentInfo?.name, 'gemini-cli');
    assert.equal(client.capabilities.list, false);
    await assert.rejects(client.listSessions({ cwd: project }), UnsupportedCapabilityError);
  });

  test('advertises loadSession but no archive (standard or extension), delete, rename or resume', () => {
    const { loadSession, archive, archiveMethod, delete: canDelete, title, resume } = client.capabilities;
    assert.deepEqual(
      { loadSession, archive, archiveMethod, delete: canDelete, title, resume },
      { loadSession: true, archive: false, archiveMethod: undefined, delete: false, title: false, resume: false },
    );
  });

  test('advertises authMethods and answers session/load with AuthRequiredError while logged out', async () => {
    assert.ok(client.capabilities.authMethods.length > 0);
    await assert.rejects(client.loadSession('00000000-0000-4000-8000-000000000000', project, () => undefined), AuthRequiredError);
  });

  test('leaves no warning or error in the log', () => {
    assert.deepEqual(log.problems, []);
  });
});

describe(`gemini-cli ${installed.agents.gemini.version} --acp with an offline API-key login`, () => {
  const { home, project, cleanup } = tempHome();
  const sessionId = '2b3c4d5e-0000-4000-8000-000000000001';
  let client: AcpClient;
  const log = new RecordingLog();

  before(async () => {
    writeGeminiSession(home, {
      sessionId, cwd: project, startedAt: '2026-05-04T10:00:00.000Z', updatedAt: '2026-05-04T10:20:00.000Z',
      turns: [
        ['Explain the retry logic', 'It retries three times with exponential backoff.', ['Reading', 'Looking at retry.ts']],
        ['Make it four', 'Done: `maxAttempts` is 4 now.'],
      ],
    });
    client = await startClient(agentConfig('gemini', home, undefined, writeGeminiOfflineLogin(home)), log);
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('loads a session by its id, but answers session/load before its replay ends: the rest arrives as live updates', { timeout: 60_000 }, async () => {
    // gemini-cli 0.61.0's loadSession does not await its streamHistory: a client that stops
    // listening at the response (as the protocol allows) sees the first message only.
    // One listener takes replays too (the whole conversation); a live one only what comes after
    // the response (a load's replay is the load's, never news to an open transcript).
    const all = new Timeline();
    const live = client.onSessionUpdate(sessionId, (update) => all.apply(update), { replays: true });
    const afterResponse = new Timeline();
    const news = client.onSessionUpdate(sessionId, (update) => afterResponse.apply(update));
    const last = nextUpdate(client, sessionId, (u) => {
      const content = u.content as { text?: string } | undefined;
      return u.sessionUpdate === 'agent_message_chunk' && content?.text === 'Done: `maxAttempts` is 4 now.' ? true : undefined;
    });
    const duringLoad = new Timeline();
    await client.loadSession(sessionId, project, (update) => duringLoad.apply(update));
    await last;
    live.dispose();
    news.dispose();
    const replayed = (timeline: Timeline) => timeline.entities
      .filter((e): e is MessageEntity => e.kind === 'user_message' || e.kind === 'agent_message' || e.kind === 'thought')
      .map((e) => [e.kind, partsText(e.parts)]);
    assert.deepEqual(replayed(all), [
      ['user_message', 'Explain the retry logic'],
      ['thought', '**Reading**\nLooking at retry.ts'],
      ['agent_message', 'It retries three times with exponential backoff.'],
      ['user_message', 'Make it four'],
      ['agent_message', 'Done: `maxAttempts` is 4 now.'],
    ]);
    assert.ok(replayed(duringLoad).length < 5, `before the response: ${JSON.stringify(replayed(duringLoad))}`);
    assert.deepEqual(replayed(duringLoad)[0], ['user_message', 'Explain the retry logic']);
    assert.ok(replayed(afterResponse).length > 0, 'the rest arrived as live updates');
    assert.ok(!replayed(afterResponse).some(([, text]) => text === 'Explain the retry logic'), 'the live listener got none of what came before the response');
    assert.deepEqual(all.entities.filter((e) => e.kind === 'compaction' || e.kind === 'unknown'), []);
  });

  test('still cannot list, so its sessions are reachable only by id', async () => {
    await assert.rejects(client.listSessions({ cwd: project }), UnsupportedCapabilityError);
  });

  test('leaves no warning or error in the log', () => {
    assert.deepEqual(log.problems, []);
  });
});
