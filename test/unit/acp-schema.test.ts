// Every message the client writes validates against the schema shipped in the SDK: captured
// byte for byte by a real tee process between the client and the reference agent.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import type { AcpClient } from '../../src/acp/client';
import { RequestCancelledError } from '../../src/acp/errors';
import { storedSession, writeAll } from '../agent/fixtures';
import type { SessionUpdate as StoredUpdate } from '../agent/store';
import { capturedMessages, referenceAgent, rejection, startClient, teed, tempDir } from './acp-helpers';

type JsonSchema = { $defs: Record<string, Record<string, unknown>>; anyOf: { title: string }[] };

const require = createRequire(import.meta.url);

/** Validators for what a client may send under one schema version. */
class ClientMessageSchema {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly envelope: ValidateFunction;
  private readonly protocolLevel: ValidateFunction;
  private readonly byMethod = new Map<string, ValidateFunction>();

  constructor(readonly file: string) {
    const schema = JSON.parse(readFileSync(require.resolve(`@agentclientprotocol/sdk/${file}`), 'utf8')) as JsonSchema;
    this.ajv.addSchema({ $id: 'acp', $defs: schema.$defs });
    // The root schema's "Client" branch: a request, response or notification a client sends.
    const client = schema.anyOf.find((branch) => branch.title === 'Client')!;
    this.envelope = this.ajv.compile({ ...client, $defs: schema.$defs });
    const protocolLevel = schema.anyOf.find((branch) => branch.title === 'ProtocolLevel')!;
    this.protocolLevel = this.ajv.compile({ ...protocolLevel, $defs: schema.$defs });
    // Method-specific params: the defs the agent side handles (`x-side: agent`) or protocol-level ones.
    for (const [name, def] of Object.entries(schema.$defs)) {
      const side = def['x-side'];
      const method = def['x-method'];
      if (typeof method !== 'string' || !/(Request|Notification)$/.test(name)) continue;
      if (side === 'agent' || side === 'protocol') this.byMethod.set(method, this.ajv.compile({ $ref: `acp#/$defs/${name}` }));
    }
  }

  /** The problems with one message, or [] when it is valid. */
  problems(message: Record<string, unknown>): string[] {
    const problems: string[] = [];
    if (message.jsonrpc !== '2.0') problems.push('jsonrpc is not "2.0"');
    const method = message.method as string;
    const envelope = typeof method === 'string' && method.startsWith('$/') ? this.protocolLevel : this.envelope;
    if (!envelope(message)) problems.push(`envelope: ${this.ajv.errorsText(envelope.errors)}`);
    const validate = this.byMethod.get(method);
    if (!validate) problems.push(`${method} is not a method an agent handles in ${this.file}`);
    else if (!validate(message.params)) problems.push(`${method} params: ${this.ajv.errorsText(validate.errors)}`);
    return problems;
  }
}

const updates: StoredUpdate[] = Array.from({ length: 40 }, (_, i) => ({
  sessionUpdate: 'agent_message_chunk',
  content: { type: 'text', text: `line ${i}` },
}));

/** Runs every client call once (and a cancellation), then returns what the client wrote. */
async function exerciseClient(t: TestContext, protocol: 1 | 2): Promise<Record<string, unknown>[]> {
  const dir = tempDir(t);
  const store = join(dir, 'store');
  await writeAll(store, [
    storedSession('a', { minutesAgo: 1, updates }),
    storedSession('b', { minutesAgo: 2, archived: true }),
    storedSession('c', { minutesAgo: 3 }),
  ]);
  const capture = join(dir, 'capture.ndjson');
  const flags = ['--page-size', '1', '--replay-delay', '20', ...(protocol === 2 ? ['--v2'] : [])];
  const { client } = await startClient(t, teed(referenceAgent(store, flags, { protocol }), capture));
  assert.equal(client.protocolVersion, protocol);
  await everyCall(client);
  await client.dispose();
  return capturedMessages(capture);
}

async function everyCall(client: AcpClient): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await client.listSessions({ cwd: '/work/project-a', archived: 'include', cursor });
    cursor = page.nextCursor;
  } while (cursor);
  await client.listSessions();
  await client.listSessions({ archived: 'only' });
  await client.archiveSession('c');
  await client.unarchiveSession('c');
  await client.resumeSession('c', '/work/project-a');
  await client.closeSession('c');
  await client.deleteSession('c');
  // A cancelled replay: `$/cancel_request` goes out after the first update arrives.
  const source = new CancellationTokenSource();
  const cancelled = rejection(client.loadSession('a', '/work/project-a', () => source.cancel(), source.token));
  assert.ok(await cancelled instanceof RequestCancelledError);
  await client.loadSession('c', '/work/project-a', () => undefined).catch(() => undefined);
}

for (const [protocol, file] of [[1, 'schema/v1/schema.unstable.json'], [2, 'schema/v2/schema.unstable.json']] as const) {
  test(`every message the client sends validates against ${file}`, async (t) => {
    const schema = new ClientMessageSchema(file);
    // The validator itself must reject what is wrong, or this test could not fail.
    assert.notDeepEqual(schema.problems({ jsonrpc: '2.0', id: 1, method: 'session/archive', params: {} }), []);
    assert.notDeepEqual(schema.problems({ jsonrpc: '2.0', id: 1, method: 'session/list', params: { cursor: 5 } }), []);

    const messages = await exerciseClient(t, protocol);
    const methods = new Set(messages.map((m) => m.method));
    for (const expected of ['initialize', 'session/list', 'session/archive', 'session/unarchive', 'session/resume', 'session/close', 'session/delete', '$/cancel_request']) {
      assert.ok(methods.has(expected), `the run sent ${expected}`);
    }
    assert.ok(methods.has(protocol === 2 ? 'session/resume' : 'session/load'));
    for (const message of messages) {
      assert.deepEqual(schema.problems(message), [], JSON.stringify(message));
    }
  });
}
