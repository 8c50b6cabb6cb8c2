// Our ACP client against the real Gemini CLI (`gemini --acp`), offline and logged out: an
// agent that cannot list sessions and wants authentication before anything else.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AcpClient } from '../../src/acp/client';
import { AuthRequiredError, UnsupportedCapabilityError } from '../../src/acp/errors';
import { RecordingLog, agentConfig, stopAgent, installed, startClient, tempHome } from './support';

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

  test('advertises authMethods and answers session/load with AuthRequiredError while logged out', async () => {
    assert.ok(client.capabilities.authMethods.length > 0);
    await assert.rejects(client.loadSession('00000000-0000-4000-8000-000000000000', project, () => undefined), AuthRequiredError);
  });

  test('leaves no warning or error in the log', () => {
    assert.deepEqual(log.problems, []);
  });
});
