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
  assert.ok(params.clientCapabilities._meta.jetbrains.air.capabilities.includes('sessionIndex'));
  assert.deepEqual(initializeParams(2, CLIENT), { protocolVersion: 2, info: CLIENT, capabilities: {} });
});

test('a v1 answer: each sessionCapabilities entry is advertised by an object or true', () => {
  const { answer, problems } = parse({
    protocolVersion: 1,
    agentInfo: { name: 'a', version: '1' },
    agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, delete: true, close: {}, resume: {}, title: {}, status: {} } },
  });
  assert.equal(problems, '');
  assert.equal(answer?.protocolVersion, 1);
  assert.deepEqual(answer?.agentInfo, { name: 'a', version: '1' });
  assert.deepEqual(answer?.capabilities, {
    loadSession: true, list: true, archive: false, delete: true, resume: true, close: true, title: true, status: true, sessionState: 'status', authMethods: [],
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
    loadSession: true, list: true, resume: true, close: true, archive: true, archiveMethod: 'standard', delete: true, title: false, status: false, authMethods: [],
  });
  // Asked for 2, answered 1: read as v1.
  assert.equal(parse({ protocolVersion: 1, agentCapabilities: {} }, 2).answer?.protocolVersion, 1);
});
