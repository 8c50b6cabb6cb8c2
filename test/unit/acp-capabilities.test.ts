// The capabilities parser (capabilities.ts) on plain objects, no process: what the client offers
// in `initialize`, and how an answer of any shape becomes the capabilities methods are gated on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_CAPABILITIES, initializeParams, parseInitializeResult } from '../../src/acp/capabilities';
import { Problems } from '../../src/acp/validate';

const CLIENT = { name: 'acp-sessions-tests', version: '0.0.0' };

function parse(answer: unknown, requested: 1 | 2 = 1) {
  const problems = new Problems();
  return { answer: parseInitializeResult(answer, requested, problems), problems: String(problems) };
}

test('before initialize answers nothing is advertised, and that value cannot be changed', () => {
  assert.equal(Object.isFrozen(NO_CAPABILITIES), true);
  assert.deepEqual(Object.values(NO_CAPABILITIES).filter((v) => v === true), []);
});

test('initialize params: v1 offers clientInfo, compaction, subagents and the JetBrains AIR index; no fs or terminal', () => {
  const params = initializeParams(1, CLIENT) as Record<string, any>;
  assert.equal(params.protocolVersion, 1);
  assert.deepEqual(params.clientInfo, CLIENT);
  assert.deepEqual(params.clientCapabilities.fs, { readTextFile: false, writeTextFile: false });
  assert.equal(params.clientCapabilities.terminal, false);
  assert.deepEqual(params.clientCapabilities.session, { compaction: {} });
  assert.equal(params.clientCapabilities._meta.jetbrains.air.version, 1);
  assert.deepEqual(params.clientCapabilities._meta.jetbrains.air.capabilities, ['sessionIndex', 'loadReplayEnd']);
  assert.deepEqual(initializeParams(2, CLIENT), { protocolVersion: 2, info: CLIENT, capabilities: {} });
});

test('a v1 answer: each sessionCapabilities entry is advertised by an object or true', () => {
  const { answer, problems } = parse({
    protocolVersion: 1,
    agentInfo: { name: 'a', version: '1' },
    agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, delete: true, close: {}, resume: {}, title: {}, status: {}, fork: {} } },
  });
  assert.equal(problems, '');
  assert.equal(answer?.protocolVersion, 1);
  assert.deepEqual(answer?.agentInfo, { name: 'a', version: '1' });
  assert.deepEqual(answer?.capabilities, {
    loadSession: true, list: true, archive: false, delete: true, resume: true, close: true, title: true, titleMethod: 'standard', status: true, sessionState: 'status', listSubscribe: false, batchGet: false, fork: true, authMethods: [],
  });
});

test('archive needs list beside it (the RFD); the standard is named as the archive method', () => {
  assert.equal(parse({ protocolVersion: 1, agentCapabilities: { sessionCapabilities: { archive: {} } } }).answer?.capabilities.archive, false);
  const both = parse({ protocolVersion: 1, agentCapabilities: { sessionCapabilities: { archive: {}, list: {} } } }).answer?.capabilities;
  assert.equal(both?.archive, true);
  assert.equal(both?.archiveMethod, 'standard');
});

test('fields of the wrong type are read as not advertised and reported, never thrown', () => {
  for (const answer of [null, 42, 'x', [], { protocolVersion: 1, agentCapabilities: 'all' }, { protocolVersion: 1, agentCapabilities: { loadSession: 'yes', sessionCapabilities: [] } }]) {
    const { answer: parsed } = parse(answer);
    if (parsed) assert.deepEqual(Object.values(parsed.capabilities).filter((v) => v === true), [], JSON.stringify(answer));
  }
  const { answer, problems } = parse({ protocolVersion: 1, agentCapabilities: { loadSession: 'yes', sessionCapabilities: { list: 5 } } });
  assert.equal(answer?.capabilities.loadSession, false);
  assert.equal(answer?.capabilities.list, false);
  assert.match(problems, /loadSession that is not a boolean/);
  assert.match(problems, /sessionCapabilities\.list of type number/);
});

test('a protocol version this client does not speak is no answer: 2 only when 2 was asked for', () => {
  assert.equal(parse({ protocolVersion: 3 }).answer, undefined);
  assert.equal(parse({ protocolVersion: '1' }).answer, undefined);
  assert.equal(parse({ protocolVersion: 2, capabilities: { session: {} } }, 1).answer, undefined);
  const v2 = parse({ protocolVersion: 2, info: { name: 'b', version: '2' }, capabilities: { session: { archive: {}, delete: {} } } }, 2).answer;
  assert.equal(v2?.protocolVersion, 2);
  assert.deepEqual(v2?.capabilities, {
    loadSession: true, list: true, resume: true, close: true, archive: true, archiveMethod: 'standard', delete: true, title: false, status: false, listSubscribe: false, batchGet: false, fork: false, authMethods: [],
  });
  // Asked for 2, answered 1: read as v1.
  assert.equal(parse({ protocolVersion: 1, agentCapabilities: {} }, 2).answer?.protocolVersion, 1);
});

/** A v1 answer with list and the given standard session capabilities, answering the AIR index with `air`. */
function withAir(air: unknown, session: Record<string, unknown> = {}) {
  return { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {}, ...session } }, _meta: { jetbrains: { air } } };
}

const CLAUDE_AIR = { version: 1, capabilities: ['sessionIndex', 'sessionBatchGet', 'sessionArchive', 'sessionRename', 'sessionListSubscribe', 'sessionWorktrees'] };

test('rename by the AIR index where the standard session/set_title is not advertised (claude-agent-acp)', () => {
  const caps = parse(withAir(CLAUDE_AIR)).answer!.capabilities;
  assert.equal(caps.title, true);
  assert.equal(caps.titleMethod, 'jetbrains-air');
});

test('the standard session/set_title wins over the AIR rename where both are advertised (codex-acp)', () => {
  const caps = parse(withAir(CLAUDE_AIR, { title: {} })).answer!.capabilities;
  assert.equal(caps.title, true);
  assert.equal(caps.titleMethod, 'standard');
});

test('a live list and batch get come with the AIR index, and need list', () => {
  const caps = parse(withAir(CLAUDE_AIR)).answer!.capabilities;
  assert.equal(caps.listSubscribe, true);
  assert.equal(caps.batchGet, true);
  const noList = parse({ ...withAir(CLAUDE_AIR), agentCapabilities: { sessionCapabilities: {} } }).answer!.capabilities;
  assert.equal(noList.listSubscribe, false);
  assert.equal(noList.batchGet, false);
});

test('AIR index capabilities without sessionIndex, or in a malformed answer, are not advertised', () => {
  for (const air of [
    { version: 1, capabilities: ['sessionRename', 'sessionListSubscribe', 'sessionBatchGet'] },
    { version: '1', capabilities: CLAUDE_AIR.capabilities },
    { version: 1, capabilities: 'sessionIndex,sessionRename' },
    CLAUDE_AIR.capabilities,
  ]) {
    const caps = parse(withAir(air)).answer!.capabilities;
    assert.deepEqual([caps.title, caps.listSubscribe, caps.batchGet], [false, false, false], JSON.stringify(air));
  }
});

test('the capabilities the client read cannot be changed from outside', async () => {
  const { AcpClient } = await import('../../src/acp/client');
  const descriptor = Object.getOwnPropertyDescriptor(AcpClient.prototype, 'capabilities');
  assert.equal(typeof descriptor?.get, 'function');
  assert.equal(descriptor?.set, undefined);
});
