// The ACP client's framing and process life, against tiny real processes for the conditions the
// reference agent cannot produce (split writes, oversized lines, agent-to-client requests, hangs).
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { test } from 'node:test';
import { AcpClient } from '../../src/acp/client';
import { AgentDisconnectedError, AgentStartError, MessageTooLargeError } from '../../src/acp/errors';
import { CLIENT_INFO, CapturingLog, isAlive, rejection, scriptedAgent, startClient, stderrLine, tempDir, waitFor } from './acp-helpers';

test('a missing executable gives one AgentStartError naming the agent and the command', async () => {
  const log = new CapturingLog();
  const error = await rejection(
    AcpClient.start({ name: 'ghost', command: 'acp-sessions-no-such-agent-xyz' }, { clientInfo: CLIENT_INFO, log }),
  );
  assert.ok(error instanceof AgentStartError, String(error));
  assert.equal(error.agentName, 'ghost');
  assert.match(error.message, /"ghost"/);
  assert.match(error.message, /acp-sessions-no-such-agent-xyz" was not found/);
});

test('a working directory that does not exist gives an AgentStartError before anything runs', async () => {
  const error = await rejection(
    AcpClient.start({ name: 'lost', command: process.execPath, cwd: '/nonexistent/acp-sessions' }, { clientInfo: CLIENT_INFO, log: new CapturingLog() }),
  );
  assert.ok(error instanceof AgentStartError);
  assert.match(error.message, /working directory "\/nonexistent\/acp-sessions" does not exist/);
});

test('an agent that never answers initialize times out with its stderr tail, and is killed', async () => {
  const config = scriptedAgent('silent', `
    handlers.initialize = () => {};
    process.stderr.write('booting the silent agent\\n');
    process.stderr.write('PID ' + process.pid + '\\n');
  `);
  const log = new CapturingLog();
  // Long enough for Node to start and write its stderr on a loaded machine (startup alone took 0.7 s).
  const error = await rejection(AcpClient.start(config, { clientInfo: CLIENT_INFO, log, initializeTimeoutMs: 3_000 }));
  assert.ok(error instanceof AgentStartError);
  assert.match(error.message, /did not answer initialize within 3000 ms/);
  assert.ok(error.stderrTail.includes('booting the silent agent'), error.message);
  const pid = Number(error.stderrTail.find((l) => l.startsWith('PID '))!.slice(4));
  assert.equal(isAlive(pid), false, 'the agent process is gone');
});

test('an agent that exits during start gives its exit code and last stderr lines', async () => {
  const config = scriptedAgent('quitter', `
    handlers.initialize = () => { process.stderr.write('fatal: no credentials\\n'); process.exit(7); };
  `);
  const error = await rejection(AcpClient.start(config, { clientInfo: CLIENT_INFO, log: new CapturingLog() }));
  assert.ok(error instanceof AgentStartError);
  assert.match(error.message, /exited with code 7 before answering initialize/);
  assert.deepEqual(error.stderrTail, ['fatal: no credentials']);
  assert.match(error.message, /fatal: no credentials/);
});

test('the agent runs with its configured args, env (over ours) and cwd; defaultCwd applies when cwd is unset', async (t) => {
  const dir = tempDir(t);
  const report = `process.stderr.write('SEEN ' + JSON.stringify({ args: process.argv.slice(1), env: process.env.ACP_TEST_VALUE, path: !!process.env.PATH, cwd: process.cwd() }) + '\\n');`;
  const configured = scriptedAgent('configured', report);
  configured.args!.push('first', 'second arg');
  const { log } = await startClient(t, { ...configured, env: { ACP_TEST_VALUE: 'from settings' }, cwd: dir });
  const seen = JSON.parse(await waitFor(() => stderrLine(log, 'configured', 'SEEN ')));
  assert.deepEqual(seen, { args: ['first', 'second arg'], env: 'from settings', path: true, cwd: realpathSync(dir) });

  const other = tempDir(t);
  const { log: log2 } = await startClient(t, scriptedAgent('defaulted', report), { defaultCwd: other });
  assert.equal(JSON.parse(await waitFor(() => stderrLine(log2, 'defaulted', 'SEEN '))).cwd, realpathSync(other));
});

test('messages split across writes, also inside a UTF-8 character, are reassembled', async (t) => {
  const config = scriptedAgent('splitter', `
    handlers['session/list'] = (m) => {
      const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { sessions: [{ sessionId: 's1', cwd: '/w', title: 'Grüße 👋 ünïcödé' }] } }) + '\\n');
      const cut = line.indexOf(Buffer.from('👋')) + 2; // in the middle of the 4-byte emoji
      process.stdout.write(line.subarray(0, cut));
      setTimeout(() => process.stdout.write(line.subarray(cut, cut + 3)), 30);
      setTimeout(() => process.stdout.write(line.subarray(cut + 3)), 60);
    };
  `);
  const { client } = await startClient(t, config);
  const { sessions } = await client.listSessions();
  assert.equal(sessions[0].title, 'Grüße 👋 ünïcödé');
});

test('a line over the size limit closes the connection with MessageTooLargeError and fails pending requests', async (t) => {
  const config = scriptedAgent('flood', `
    handlers['session/list'] = (m) => {
      const big = 'x'.repeat(64 * 1024);
      process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"sessions":[],"_meta":{"pad":"');
      const timer = setInterval(() => process.stdout.write(big), 1);
      process.stdin.on('end', () => clearInterval(timer));
    };
  `);
  const { client, log } = await startClient(t, config, { maxMessageBytes: 1024 * 1024 });
  const disconnected = new Promise<Error>((resolve) => client.onDidDisconnect(resolve));
  const error = await rejection(client.listSessions());
  assert.ok(error instanceof MessageTooLargeError, String(error));
  assert.ok(error instanceof AgentDisconnectedError);
  assert.match(error.message, /longer than the limit of 1048576 bytes/);
  assert.equal(await disconnected, error);
  assert.equal(client.isConnected, false);
  assert.equal(isAlive(client.pid!), false, 'the flooding agent was stopped');
  assert.ok(log.at('error').some((m) => m.includes('longer than the limit')));
});

test('an oversized line inside one read is caught too, after delivering the messages before it', async (t) => {
  const config = scriptedAgent('burst', `
    handlers['session/list'] = (m) => {
      const update = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'plan', entries: [] } } });
      const long = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { sessions: [], _meta: { pad: 'y'.repeat(400) } } });
      process.stdout.write(update + '\\n' + long + '\\n' + update + '\\n');
    };
  `);
  const { client } = await startClient(t, config, { maxMessageBytes: 300 });
  const received: unknown[] = [];
  client.onSessionUpdate('s', (u) => received.push(u));
  const error = await rejection(client.listSessions());
  assert.ok(error instanceof MessageTooLargeError, String(error));
  assert.deepEqual(received, [{ sessionUpdate: 'plan', entries: [] }]);
});

test('a last line without its newline is still read when the agent ends its output', async (t) => {
  const config = scriptedAgent('abrupt', `
    handlers['session/list'] = (m) => {
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { sessions: [] } }));
      process.stdout.end();
    };
  `);
  const { client } = await startClient(t, config);
  assert.deepEqual(await client.listSessions(), { sessions: [] });
});

test('agent-to-client requests we do not support get -32601; extension and $/ notifications are ignored quietly', async (t) => {
  const config = scriptedAgent('asker', `
    const answers = [];
    onResponse = (m) => {
      answers.push(m);
      if (answers.length === 3) process.stderr.write('ANSWERS ' + JSON.stringify(answers) + '\\n');
    };
    handlers['session/list'] = (m) => {
      send({ jsonrpc: '2.0', id: 'fs-1', method: 'fs/read_text_file', params: { sessionId: 's', path: '/etc/passwd' } });
      send({ jsonrpc: '2.0', id: 'perm-1', method: 'session/request_permission', params: { sessionId: 's' } });
      send({ jsonrpc: '2.0', id: 'ext-1', method: '_vendor/ping', params: {} });
      send({ jsonrpc: '2.0', method: '_vendor/status', params: { busy: true } });
      send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'perm-1' } });
      send({ jsonrpc: '2.0', id: m.id, result: { sessions: [] } });
    };
  `);
  const { client, log } = await startClient(t, config);
  await client.listSessions();
  const answersLine = await waitFor(() => stderrLine(log, 'asker', 'ANSWERS '));
  const answers = JSON.parse(answersLine) as { id: string; error?: { code: number } }[];
  assert.deepEqual(
    answers.map((a) => [a.id, a.error?.code]).sort(),
    [['ext-1', -32601], ['fs-1', -32601], ['perm-1', -32601]],
  );
  assert.deepEqual(log.at('error'), []);
  assert.deepEqual(log.at('warn'), []);
});

test('dispose kills an agent that ignores SIGTERM with SIGKILL, leaving no process', async () => {
  const config = scriptedAgent('stubborn', `
    process.on('SIGTERM', () => process.stderr.write('ignoring SIGTERM\\n'));
    setInterval(() => {}, 1000); // and stays after its input ends
  `);
  const log = new CapturingLog();
  const client = await AcpClient.start(config, { clientInfo: CLIENT_INFO, log, killGraceMs: 300 });
  const pid = client.pid!;
  assert.equal(isAlive(pid), true);
  await client.dispose();
  assert.equal(isAlive(pid), false);
  assert.ok(log.at('warn').some((m) => m.includes('SIGKILL')));
  assert.ok(log.at('info').some((m) => m.includes('ignoring SIGTERM')), 'stderr goes to the log');
});

test('the process group goes too: a child the agent started does not outlive dispose', async (t) => {
  const config = scriptedAgent('parent', `
    const child = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    process.stderr.write('CHILD ' + child.pid + '\\n');
  `);
  const { client, log } = await startClient(t, config);
  const childPid = Number(await waitFor(() => stderrLine(log, 'parent', 'CHILD ')));
  assert.equal(isAlive(childPid), true);
  await client.dispose();
  await waitFor(() => !isAlive(childPid));
});
