// Fork from Here (issue 34, item 5) against the installed claude-agent-acp and codex-acp, offline,
// with stores fabricated in a temporary HOME: `session/fork` with the fork point our client sends
// (`_meta.jetbrains.air.fork`, src/transcript/forkPoint.ts) at a prompt and at an agent message; the
// new session is listed (with its origin) and replays up to the fork point. Claude forks up to the
// message; Codex at turn granularity (to the end of the turn holding it).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AcpClient } from '../../src/acp/client';
import { AcpError, messageWithDetails } from '../../src/acp/errors';
import type { ForkPoint } from '../../src/acp/types';
import { forkPointAt } from '../../src/transcript/forkPoint';
import { partsText, type MessageEntity } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { writeClaudeSession, writeCodexAuth, writeCodexSession } from './stores.mjs';
import { RecordingLog, agentConfig, hoursAgo, installed, startClient, stopAgent, tempHome } from './support';

const TURNS: [string, string][] = [
  ['Plan the release for Friday.', 'Planned: freeze Wednesday, ship Friday.'],
  ['Now draft the announcement.', 'Drafted the announcement.'],
  ['Make it shorter.', 'Shortened it to two lines.'],
];

async function replay(client: AcpClient, sessionId: string, cwd: string): Promise<Timeline> {
  const timeline = new Timeline();
  await client.loadSession(sessionId, cwd, (update) => timeline.apply(update));
  return timeline;
}

const messages = (timeline: Timeline) =>
  timeline.entities.filter((e): e is MessageEntity => e.kind === 'user_message' || e.kind === 'agent_message').map((m) => [m.kind, partsText(m.parts)]);

/** The fork point of the message with `text`, as Fork from Here computes it from the replay. */
function pointOf(timeline: Timeline, kind: 'user_message' | 'agent_message', text: string): ForkPoint {
  const index = timeline.entities.findIndex((e) => e.kind === kind && partsText((e as MessageEntity).parts) === text);
  assert.ok(index >= 0, `the replay has the ${kind} "${text}"`);
  const point = forkPointAt(timeline.rows, index);
  assert.ok(point, `the ${kind} "${text}" can be forked from (it has a messageId)`);
  return point;
}

describe(`Fork from Here against claude-agent-acp ${installed.agents.claude.version}`, () => {
  const { home, project, cleanup } = tempHome();
  const origin = '0a1b2c3d-0000-4000-8000-0000000000f1';
  let client: AcpClient;
  const log = new RecordingLog();

  before(async () => {
    writeClaudeSession(home, { sessionId: origin, cwd: project, title: 'Plan the release', updatedAt: hoursAgo(1), turns: TURNS });
    client = await startClient(agentConfig('claude', home), log);
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('advertises fork', () => {
    assert.equal(client.capabilities.fork, true);
  });

  test('at a prompt: the fork is listed with its origin and replays up to that prompt', async () => {
    const point = pointOf(await replay(client, origin, project), 'user_message', TURNS[1][0]);
    const { sessionId } = await client.forkSession(origin, project, { point });
    assert.notEqual(sessionId, origin);
    const listed = (await client.listSessions({ cwd: project })).sessions.find((s) => s.sessionId === sessionId);
    assert.ok(listed, 'the fork is listed');
    assert.equal(listed.details?.forkedFrom, origin);
    assert.deepEqual(messages(await replay(client, sessionId, project)), [
      ['user_message', TURNS[0][0]], ['agent_message', TURNS[0][1]], ['user_message', TURNS[1][0]],
    ]);
  });

  test('at an agent message: the fork replays up to that answer', async () => {
    const point = pointOf(await replay(client, origin, project), 'agent_message', TURNS[1][1]);
    assert.equal(point.messageOccurrence, 1);
    const { sessionId } = await client.forkSession(origin, project, { point });
    assert.deepEqual(messages(await replay(client, sessionId, project)), [
      ['user_message', TURNS[0][0]], ['agent_message', TURNS[0][1]], ['user_message', TURNS[1][0]], ['agent_message', TURNS[1][1]],
    ]);
    // The origin is as it was.
    assert.equal(messages(await replay(client, origin, project)).length, 6);
  });
});

describe(`Fork from Here against codex-acp ${installed.agents.codex.version}`, () => {
  const { home, project, cleanup } = tempHome();
  const origin = '0196a1b2-0000-7000-8000-0000000000f1';
  const legacy = '0196a1b2-0000-7000-8000-0000000000f2';
  let client: AcpClient;
  const log = new RecordingLog();

  before(async () => {
    writeCodexAuth(home);
    writeCodexSession(home, { sessionId: origin, cwd: project, startedAt: '2025-06-01T10:00:00.000Z', updatedAt: '2025-06-01T10:10:00.000Z', turns: TURNS, turnIds: true });
    client = await startClient(agentConfig('codex', home), log);
  });

  after(async () => {
    await stopAgent(client);
    cleanup();
  });

  test('advertises fork', () => {
    assert.equal(client.capabilities.fork, true);
  });

  test('at a prompt: the fork is listed with its origin and replays up to the end of that prompt\'s turn', async () => {
    const point = pointOf(await replay(client, origin, project), 'user_message', TURNS[1][0]);
    const { sessionId } = await client.forkSession(origin, project, { point });
    assert.notEqual(sessionId, origin);
    const listed = (await client.listSessions({ cwd: project })).sessions.find((s) => s.sessionId === sessionId);
    assert.ok(listed, 'the fork is listed');
    assert.equal(listed.details?.forkedFrom, origin);
    assert.deepEqual(messages(await replay(client, sessionId, project)), [
      ['user_message', TURNS[0][0]], ['agent_message', TURNS[0][1]], ['user_message', TURNS[1][0]], ['agent_message', TURNS[1][1]],
    ]);
  });

  test('at an agent message: the fork replays up to the end of its turn', async () => {
    const point = pointOf(await replay(client, origin, project), 'agent_message', TURNS[0][1]);
    const { sessionId } = await client.forkSession(origin, project, { point });
    assert.deepEqual(messages(await replay(client, sessionId, project)), [['user_message', TURNS[0][0]], ['agent_message', TURNS[0][1]]]);
  });

  test('a rollout of an older Codex CLI (no turn ids) is refused at any point, and says why in data.details', async () => {
    writeCodexSession(home, { sessionId: legacy, cwd: project, startedAt: '2025-06-02T10:00:00.000Z', updatedAt: '2025-06-02T10:10:00.000Z', turns: TURNS });
    const point = pointOf(await replay(client, legacy, project), 'user_message', TURNS[1][0]);
    const error = await client.forkSession(legacy, project, { point }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof AcpError, String(error));
    assert.equal(error.code, -32603);
    assert.match(String((error.data as { details?: unknown }).details), /^lastTurnId '.+' is not a persisted canonical turn in the source thread$/);
    assert.match(messageWithDetails(error), /Internal error \(lastTurnId .* is not a persisted canonical turn in the source thread\)/);
  });
});
