// What the log takes from an agent is bounded: one message is cut at a length and says how much
// was left out, and a flood of stderr is rate-limited per agent with one line saying how many
// lines were not logged. Against real agent processes over real pipes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundedLogger, MAX_LOGGED_CHARS, truncateForLog } from '../../src/acp/boundedLog';
import { CapturingLog, scriptedAgent, startClient } from './acp-helpers';

test('a logged message longer than the cap is cut and says how many characters were left out', () => {
  const huge = 'x'.repeat(5 * 1024 * 1024);
  const cut = truncateForLog(huge);
  assert.equal(cut, `${'x'.repeat(MAX_LOGGED_CHARS)}… (${huge.length - MAX_LOGGED_CHARS} more characters)`);
  assert.equal(truncateForLog('short'), 'short');
  const log = new CapturingLog();
  boundedLogger(log, 10).info('0123456789abc');
  assert.deepEqual(log.entries, [{ level: 'info', message: '0123456789… (3 more characters)' }]);
});

test('traced traffic with a 5 MiB reply reaches the log as a bounded line', async (t) => {
  const log = new CapturingLog();
  const big = 'y'.repeat(5 * 1024 * 1024);
  const config = scriptedAgent('bigtalker', `
    handlers['session/list'] = (m) => send({ jsonrpc: '2.0', id: m.id, result: { sessions: [{ sessionId: 's', cwd: '/', title: ${JSON.stringify(big.slice(0, 10))}.repeat(${big.length / 10}) }] } });
  `);
  const { client } = await startClient(t, config, { log: boundedLogger(log), trace: () => 'verbose' });
  await client.listSessions({});
  const longest = Math.max(...log.entries.map((e) => e.message.length));
  assert.ok(longest <= MAX_LOGGED_CHARS + 40, `longest logged line: ${longest} characters`);
  assert.ok(log.entries.some((e) => / more characters\)$/.test(e.message)), 'the cut says so');
});

test('an agent flooding stderr gets at most 50 lines a second into the log, then one line of how many were dropped', async (t) => {
  const log = new CapturingLog();
  const config = scriptedAgent('flooder', `
    handlers['session/list'] = (m) => {
      for (let i = 0; i < 10000; i++) process.stderr.write('noise ' + i + '\\n');
      process.stderr.write('DONE\\n', () => { send({ jsonrpc: '2.0', id: m.id, result: { sessions: [] } }); setImmediate(() => process.exit(0)); });
    };
  `);
  const { client } = await startClient(t, config, { log });
  // The disconnect is handled after the agent's last output, so the summary is in by then.
  const disconnected = new Promise((resolve) => client.onDidDisconnect(resolve));
  const started = Date.now();
  await client.listSessions({});
  await disconnected;
  const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
  const stderrLines = log.entries.filter((e) => e.message.startsWith('[flooder] noise') || e.message === '[flooder] DONE');
  assert.ok(stderrLines.length <= 50 * seconds, `${stderrLines.length} stderr lines logged in about ${seconds} s`);
  const summaries = log.entries.filter((e) => /^\[flooder\] \d+ more stderr lines? not logged \(more than 50 a second\)\.$/.test(e.message));
  assert.ok(summaries.length >= 1, `one summary line says how many were dropped: ${stderrLines.length} logged; last: ${log.entries.slice(-3).map((e) => e.message).join(' / ')}`);
  const dropped = summaries.reduce((n, e) => n + Number(/\] (\d+) more/.exec(e.message)![1]), 0);
  assert.equal(stderrLines.length + dropped, 10001, 'every line is either logged or counted');
});

test('traced traffic nested too deep to print is logged as such, and the reply still arrives', async (t) => {
  const log = new CapturingLog();
  const config = scriptedAgent('deeptalker', `
    handlers['session/list'] = (m) => process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"sessions":[],"_meta":' + '{"a":'.repeat(9999) + '1' + '}'.repeat(9999) + '}}\\n');
  `);
  const { client } = await startClient(t, config, { log: boundedLogger(log), trace: () => 'verbose' });
  const listed = await client.listSessions({});
  assert.deepEqual(listed.sessions, []);
  assert.ok(log.entries.some((e) => /Received response 'session\/list[^]*Result: \(not shown: nested too deep to print\)/.test(e.message)), log.entries.map((e) => e.message.slice(0, 120)).join('\n'));
});
