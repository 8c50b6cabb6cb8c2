// The NDJSON reader against an agent that writes faster than the client drains: what is read
// and not drained stays bounded (the rest waits in the pipe, the agent blocked on it), and every
// line still arrives, in order, once the client catches up. A real child process, a real pipe.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import type { Message } from 'vscode-jsonrpc/node';
import { AGENT_LINES, type AgentLines, MessageTracer, NdjsonMessageReader } from '../../src/acp/ndjson';
import { CapturingLog, within } from './acp-helpers';

const LINES = 24_000;
const HOLDS_AT_MOST = 4 * 1024 * 1024 + 256 * 1024;
/** Line `i` as the agent writes it: about 1 KB, 24 MB in all, six times what the reader holds. */
const lineOf = (i: number) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${i} ${'x'.repeat(1000)}` } } } }) + '\n';
const WRITER = `
const lineOf = ${lineOf.toString()};
let i = 0;
function write() {
  while (i < ${LINES}) {
    const line = lineOf(i);
    i++;
    if (!process.stdout.write(line)) return process.stdout.once('drain', write);
  }
}
write();
`;

test('an agent faster than the client: the reader holds at most about 4 MB unread, then delivers every line in order', async (t) => {
  const child = spawn(process.execPath, ['-e', WRITER], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill());
  const log = new CapturingLog();
  const reader = new NdjsonMessageReader(child.stdout, {
    agentName: 'fast',
    log,
    tracer: new MessageTracer(log, () => 'off', 'fast'),
    maxMessageBytes: 1 << 20,
    onMessageTooLarge: () => assert.fail('no line is too large'),
  });
  const queue: Message[] = [];
  reader.listen((message) => queue.push(message));
  let bytesRead = 0;
  let paused!: () => void;
  const pausedOnce = new Promise<void>((resolve) => (paused = resolve));
  // Added after the reader's listener: sees each chunk after the reader has taken it.
  child.stdout.on('data', (chunk: Buffer) => {
    bytesRead += chunk.length;
    if (child.stdout.isPaused()) paused();
  });

  // Nothing drains: the reader stops reading once its backlog passes its limit.
  await within(pausedOnce, 30_000, 'the reader paused the agent\'s output');
  const readWhenPaused = bytesRead;
  assert.ok(readWhenPaused > 4 * 1024 * 1024 && readWhenPaused < HOLDS_AT_MOST, `read ${readWhenPaused} bytes before pausing`);
  assert.equal(child.exitCode, null, 'the agent waits on the full pipe');
  // What the reader queued for vscode-jsonrpc is one message holding the lines, not parsed yet.
  assert.equal(queue.length, 1);
  assert.equal((queue[0] as { method?: string }).method, AGENT_LINES);

  // The client catches up, one queued message per turn as vscode-jsonrpc dispatches them.
  const texts: string[] = [];
  let deliveredBytes = 0;
  let maxUnread = 0;
  const ended = new Promise<void>((resolve) => child.stdout.once('end', resolve));
  const drained = new Promise<void>((resolve) => {
    const turn = () => {
      const message = queue.shift();
      if (message) {
        reader.drain((message as unknown as { params: AgentLines }).params, (params) => {
          texts.push((params as { update: { content: { text: string } } }).update.content.text);
          deliveredBytes += Buffer.byteLength(lineOf(texts.length - 1));
        });
        maxUnread = Math.max(maxUnread, bytesRead - deliveredBytes);
      }
      if (texts.length === LINES) return resolve();
      setImmediate(turn);
    };
    setImmediate(turn);
  });
  await within(drained, 60_000, `all ${LINES} lines delivered`);
  await within(ended, 30_000, 'the agent\'s output ended');
  reader.dispose();
  assert.equal(texts.length, LINES);
  assert.ok(texts.every((text, i) => text.startsWith(`${i} `)), 'every line in the order written');
  assert.equal(deliveredBytes, bytesRead, 'every byte read was a line delivered');
  assert.ok(maxUnread < HOLDS_AT_MOST, `held at most ${maxUnread} bytes read and not delivered`);
  assert.equal(log.at('warn').length, 0);
});
