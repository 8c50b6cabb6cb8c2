// The update log an open transcript keeps for Export Sessions (src/transcript/updateLog.ts): with
// a spill file, an update that came from an agent's line and needed no fixing is kept as that
// line, and read back parsed and checked again; any other is kept as the checked update. What is
// read back is what the transcript was given, in order, and nothing another session was sent.
// Real agents over real pipes through the real NDJSON reader and client; a real spill file.
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionUpdate } from '../../src/acp/types';
import { Problems, sessionUpdateOfLine } from '../../src/acp/validate';
import { onSpillWriteError, SpillFile, type SpillWriteFailure } from '../../src/transcript/spillFile';
import { UpdateLog, type Unkept } from '../../src/transcript/updateLog';
import { storedSession, writeAll } from '../agent/fixtures';
import { DEEP_AGENT_NODE_FLAGS, DEEP_LEVELS, deepJson, writeDeepSession } from '../hostile/deep';
import { referenceAgent, scriptedAgent, startClient, tempDir } from './acp-helpers';
import { fullDisk } from './fullDisk';

const CWD = '/work/project-a';

/** A log with its own spill file, removed after the test; `bytes` is the file as written so far. */
function spilledLog(t: { after(fn: () => void): void }): { log: UpdateLog; bytes(): Buffer } {
  const file = SpillFile.create(tempDir(t, 'update-log-'), 'updates');
  const log = new UpdateLog(file);
  t.after(() => log.dispose());
  return {
    log,
    bytes: () => {
      file.flush();
      return readFileSync(file.path);
    },
  };
}

/** Every kind of text an agent may send, and fields the client must fix. */
function hostileReplay(name: string): SessionUpdate[] {
  const text = (t: string) => ({ type: 'text', text: t });
  return [
    { sessionUpdate: 'user_message_chunk', content: text(`${name}: [x](command:workbench.action.quit) <img src=x onerror=alert(1)> </script>`) },
    { sessionUpdate: 'agent_message_chunk', messageId: `${name}-m1`, content: text('é, 😀, 漢字, \u2028\u2029, NUL \u0000, lone \ud800, BOM \ufeff, "quotes" \\ back\nslash') },
    { sessionUpdate: 'session_info_update', title: 42, updatedAt: {}, archived: 'no' },
    { sessionUpdate: 'agent_message_chunk', messageId: `${name}-m1`, content: text(' and on') },
    { sessionUpdate: 'session_info_update', title: [1], updatedAt: 'not a date' },
    { sessionUpdate: 'session_info_update', title: `${name} title`, updatedAt: '2026-02-01T00:00:00Z' },
    { sessionUpdate: 'subagent_update', sessionId: `${name}-child`, title: 7, cwd: {}, state: 'running' },
    { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', status: 'pending', rawInput: JSON.parse('{"__proto__":{"polluted":true},"path":"/etc/passwd","n":1e400}') },
    { sessionUpdate: 'future_update', payload: { nested: [null, true, 1.5, -0, 'x'.repeat(5000)] } },
    { sessionUpdate: 'agent_thought_chunk', content: text('thinking') },
  ] as unknown as SessionUpdate[];
}

test('a replay logged as the agent\'s lines reads back as the checked updates the transcript got, per session, without the replay-end mark', async (t) => {
  const store = join(tempDir(t), 'store');
  await writeAll(store, [storedSession('s1', { updates: hostileReplay('s1') }), storedSession('s2', { updates: hostileReplay('s2') })]);
  // --air-index: the agent ends each replay with the replay-end mark, a session/update of the session.
  const { client } = await startClient(t, referenceAgent(store, ['--air-index', '--replay-delay', '2']));
  const loads = ['s1', 's2'].map(async (sessionId) => {
    const { log } = spilledLog(t);
    const delivered: SessionUpdate[] = [];
    // As the transcript panel: what it applies, it logs, with the line it came with.
    const result = await client.loadSession(sessionId, CWD, (update, line) => {
      delivered.push(update);
      log.push(update, line);
    });
    return { sessionId, log, delivered, result };
  });
  // The two replays interleave on the one connection.
  for (const { sessionId, log, delivered, result } of await Promise.all(loads)) {
    assert.equal(result.replayEnd, 'marker', 'the agent sent the replay-end mark');
    assert.equal(delivered.length, hostileReplay(sessionId).length);
    assert.deepEqual(delivered[2], { sessionUpdate: 'session_info_update' }, 'fields of the wrong type were dropped before the transcript saw them');
    assert.equal(log.length, delivered.length);
    const read = [...log];
    assert.deepEqual(read, delivered, `${sessionId}: read back as delivered`);
    for (let i = 0; i < read.length; i++) assert.equal(JSON.stringify(read[i]), JSON.stringify(delivered[i]), `${sessionId} update ${i}: keys in the same order`);
    assert.ok(read.every((u) => !JSON.stringify(u).includes(sessionId === 's1' ? 's2' : 's1')), `${sessionId}: nothing of the other session`);
    assert.deepEqual(exportedUpdates(log, sessionId), delivered, `${sessionId}: its export's lines read back as delivered`);
  }
});

test('lines the client fixed are logged as the fixed updates, the others as the agent\'s bytes, in the order they came', async (t) => {
  // Written by hand, in one write (one read, one drain): spacing, key order and escapes that
  // JSON.stringify would not make, so only the agent's own bytes match them.
  const clean = [
    String.raw`{ "params" : { "update" : { "content" : { "text" : "caf\u00e9 \ud83d\ude00 \u2028 </script>", "type" : "text" }, "sessionUpdate" : "agent_message_chunk" }, "sessionId" : "s" }, "method" : "session/update", "jsonrpc" : "2.0" }`,
    String.raw`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"second 😀 Ω"}}}}`,
    String.raw`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":"Fine","updatedAt":"2026-02-01T00:00:00Z"}}}`,
    String.raw`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"subagent_update","sessionId":"child","title":"Child","state":{"state":"running"}}}}`,
  ];
  const fixed = [
    String.raw`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":42}}}`,
    // The same problem again in the same read: counted again, so it is fixed again.
    String.raw`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":43}}}`,
  ];
  const notDelivered = [
    String.raw`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"other","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"for another session"}}}}`,
    String.raw`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":5}}}`,
    String.raw`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","_meta":{"jetbrains":{"air":{"loadReplayEnd":true}}}}}}`,
  ];
  // Bytes that are not UTF-8 (each decoded as U+FFFD), as read and as read back.
  const notUtf8 = Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"bad '),
    Buffer.from([0xff, 0xc0, 0xe2, 0x82, 0x20, 0xed, 0xa0, 0x80]),
    Buffer.from('"}}}}'),
  ]);
  const lines = [clean[0], fixed[0], notDelivered[0], clean[1], fixed[1], notDelivered[1], clean[2], notDelivered[2], clean[3]].map((line) => Buffer.from(line));
  // Lines that are no message at all are skipped, and the lines after them keep their bytes.
  const noMessages = [Buffer.from('not JSON, said with an é'), Buffer.from(''), Buffer.from('[1,2]')];
  const wire = Buffer.concat([...lines.slice(0, 3), ...noMessages, ...lines.slice(3), notUtf8].flatMap((line) => [line, Buffer.from('\n')]));
  const agent = scriptedAgent('lines', `
    handlers.initialize = (m) => send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } });
    handlers['session/load'] = (m) => process.stdout.write(Buffer.concat([Buffer.from('${wire.toString('base64')}', 'base64'), Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n')]));
  `);
  const { client, log: clientLog } = await startClient(t, agent);
  const { log, bytes } = spilledLog(t);
  const delivered: SessionUpdate[] = [];
  await client.loadSession('s', CWD, (update, line) => {
    delivered.push(update);
    log.push(update, line);
  });
  assert.deepEqual(delivered.map((u) => u.sessionUpdate), [
    'agent_message_chunk', 'session_info_update', 'agent_message_chunk', 'session_info_update', 'session_info_update', 'subagent_update', 'agent_message_chunk',
  ]);
  assert.equal((delivered[6] as { content: { text: string } }).content.text, 'bad \ufffd\ufffd\ufffd \ufffd\ufffd\ufffd');
  assert.deepEqual(delivered[1], { sessionUpdate: 'session_info_update' });
  assert.deepEqual(delivered[3], { sessionUpdate: 'session_info_update' });
  assert.match(clientLog.text(), /title of type number/);
  assert.deepEqual([...log], delivered, 'read back as delivered, in order');
  const file = bytes();
  for (const line of [...clean, notUtf8]) assert.ok(file.includes(Buffer.from(line)), `kept as the agent's bytes: ${line}`);
  for (const line of [...fixed, ...notDelivered]) assert.ok(!file.includes(Buffer.from(line)), `not kept as sent: ${line}`);
  assert.ok(!file.includes(Buffer.from('"title":4')), 'no fixed field is in the file');
  // As Export Sessions… writes them: the agent's lines as it sent them, the fixed updates encoded,
  // bytes that were not UTF-8 as the client read them; each line reads back as delivered.
  const exported = Buffer.concat([...log.lines('s')].map((line) => (typeof line === 'string' ? Buffer.from(line) : line)));
  assert.ok(isUtf8(exported), 'the export is UTF-8 text');
  for (const line of clean) assert.ok(exported.includes(Buffer.from(line + '\n')), `exported as the agent's bytes: ${line}`);
  assert.ok(!exported.includes(Buffer.from('"title":4')), 'no fixed field is exported');
  assert.deepEqual(exportedUpdates(log, 's'), delivered);
});

/** The updates an export of `log` reads back as, line by line (checked as any line is). */
function exportedUpdates(log: UpdateLog, sessionId: string): SessionUpdate[] {
  const text = Buffer.concat([...log.lines(sessionId)].map((line) => (typeof line === 'string' ? Buffer.from(line) : line))).toString('utf8');
  assert.ok(text.endsWith('\n'), 'every line ends with its newline');
  return text.slice(0, -1).split('\n').map((line) => {
    const update = sessionUpdateOfLine(line, new Problems());
    assert.ok(update, `an exported line is a session/update: ${line.slice(0, 200)}`);
    return update;
  });
}

test('an export\'s lines stop at the count its header gave, even inside an agent\'s merged lines; updates pushed after it are not in it', (t) => {
  const { log } = spilledLog(t);
  const chunk = (text: string) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }) as SessionUpdate;
  const lineOf = (update: SessionUpdate) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update } });
  log.push(chunk('one'), Buffer.from(lineOf(chunk('one'))));
  // Kept as the checked update (no line came with it), encoded when exported.
  log.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'two' } } as SessionUpdate);
  // Consecutive chunks the client merged: one record of their two lines.
  log.push(chunk('threefour'), Buffer.from(`${lineOf(chunk('three'))}\n${lineOf(chunk('four'))}`));
  assert.equal(log.length, 4);
  const header = log.length;
  log.push(chunk('five'), Buffer.from(lineOf(chunk('five'))));
  const text = (pieces: Iterable<Uint8Array>) => Buffer.concat([...pieces]).toString('utf8');
  assert.equal(text(log.lines('s', header)), [lineOf(chunk('one')), JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'two' } } } }), lineOf(chunk('three')), lineOf(chunk('four'))].join('\n') + '\n');
  assert.equal(text(log.lines('s', 3)).split('\n').length - 1, 3, 'cut inside the merged record');
  assert.ok(text(log.lines('s', 3)).endsWith(`${lineOf(chunk('three'))}\n`));
  assert.equal(text(log.lines('s')).split('\n').length - 1, 5, 'all five without a count');
  assert.equal(text(new UpdateLog().lines('s')), '', 'an empty log exports no line');
});

test('a log handed to another thread and taken over there goes on as one log; from a full disk its updates travel instead and the failure is told there, and what the disk lost is said', async (t) => {
  const chunk = (text: string) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }) as SessionUpdate;
  const lineOf = (update: SessionUpdate) => Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update } }));
  // A file on a disk with room, and the heap: both hand every update over.
  for (const there of [spilledLog(t).log, new UpdateLog()]) {
    there.push(chunk('one'), lineOf(chunk('one')));
    there.push(chunk('two'));
    const image = there.release([]);
    assert.equal(there.length, 0, 'the log that let go holds nothing');
    const here = UpdateLog.adopt(image);
    t.after(() => here.dispose());
    here.push(chunk('three'), lineOf(chunk('three')));
    assert.deepEqual([...here], [chunk('one'), chunk('two'), chunk('three')]);
  }
  const told: SpillWriteFailure[] = [];
  const watch = onSpillWriteError((failure) => told.push(failure));
  t.after(() => watch.dispose());
  const disk = fullDisk(t, '/dev/full');
  const full = new UpdateLog(disk.create('updates'));
  const sent = Array.from({ length: 10 }, (_, i) => chunk(`chunk ${i}`));
  for (const update of sent) full.push(update, lineOf(update));
  const image = full.release([]);
  assert.equal(image.file, undefined, 'no file goes over');
  assert.match(image.writeFailure?.message ?? '', /ENOSPC|no space/i);
  await Promise.resolve();
  // Told by the adopting thread (here the same one as the writer's, so cleared first).
  told.length = 0;
  const here = UpdateLog.adopt(image);
  t.after(() => here.dispose());
  await Promise.resolve();
  assert.ok(told.some((failure) => failure.dir === disk.dir && failure.error.code === 'ENOSPC'), `the full disk is told where the log is taken over: ${JSON.stringify(told)}`);
  assert.deepEqual([...here], sent, 'every update came over');
  // Past what the file keeps in memory once a write failed: lost, and said where it is taken over.
  const file = disk.create('lossy', { keepBytes: 1024 });
  const lossy = new UpdateLog(file);
  for (const update of sent.slice(0, 3)) lossy.push(update, lineOf(update));
  file.flush();
  for (let i = 0; i < 40; i++) lossy.push(chunk(`later ${i}`), lineOf(chunk(`later ${i}`)));
  const lossyImage = lossy.release([]);
  assert.ok(lossyImage.lost && lossyImage.lost.count > 0, JSON.stringify(lossyImage.lost));
  const heard: Unkept[] = [];
  const lossyHere = UpdateLog.adopt(lossyImage, (unkept) => heard.push(unkept));
  t.after(() => lossyHere.dispose());
  assert.throws(() => [...lossyHere], /updates could not be kept/);
  assert.ok(heard.some((unkept) => unkept.diskFull), JSON.stringify(heard));
});

test('a logged line is checked again when read: fields of the wrong type are dropped, and a line that is no session/update is an error', (t) => {
  const { log } = spilledLog(t);
  const update = { sessionUpdate: 'session_info_update' } as SessionUpdate;
  log.push(update, Buffer.from('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":42,"_meta":"x"}}}'));
  log.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'kept as it is' } } as SessionUpdate);
  assert.deepEqual([...log], [update, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'kept as it is' } }]);

  const bad = spilledLog(t).log;
  bad.push(update, Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}'));
  assert.throws(() => [...bad], /not a session\/update/);
});

test('an update nested too deep for V8 to copy, or holding what it cannot, costs that update alone: every later push is kept, and each loss is counted and told once', (t) => {
  const deep = { sessionUpdate: 'tool_call', toolCallId: 'deep', title: 'deep', rawInput: JSON.parse(deepJson(DEEP_LEVELS)) } as unknown as SessionUpdate;
  // Not deep, but not a value V8 serializes either.
  const uncopyable = { sessionUpdate: 'future_update', payload: { run: () => 1 } } as unknown as SessionUpdate;
  const chunk = (i: number) => ({ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: `chunk ${i}` } }) as SessionUpdate;
  for (const spilled of [true, false]) {
    const told: Unkept[] = [];
    const log = new UpdateLog(spilled ? SpillFile.create(tempDir(t, 'update-log-'), 'updates') : undefined, (unkept) => told.push(unkept));
    t.after(() => log.dispose());
    const kept: SessionUpdate[] = [];
    // More than a batch before, between and after: the batch that held each one is written all the same.
    for (let i = 0; i < 300; i++) {
      if (i === 10) log.push(deep);
      if (i === 150 && spilled) log.push(uncopyable);
      log.push(chunk(i));
      kept.push(chunk(i));
    }
    assert.equal(log.length, 300, `${spilled ? 'spilled' : 'in memory'}: the others are kept`);
    assert.deepEqual([...log], kept, 'and read back in order');
    assert.equal(log.unkept, spilled ? 2 : 1);
    assert.deepEqual(told.map((u) => u.count), spilled ? [1, 1] : [1], 'each told once');
    assert.match(told[0].reason, /tool_call\) nested deeper than 64 levels/);
    if (spilled) assert.match(told[1].reason, /future_update\) V8 could not serialize/);
    assert.ok(told.every((u) => !u.diskFull));
    // What the log holds can be exported: JSON.stringify copies every update.
    for (const update of log) JSON.stringify(update);
  }
});

test('a replay of the reference agent holding an update 10,000 levels deep: the client cuts it at 64 levels with one warning, and the log keeps every update, each one JSON can write', async (t) => {
  const store = join(tempDir(t), 'store');
  const texts = await writeDeepSession(store, 'deep', CWD);
  const agent = referenceAgent(store);
  const { client, log: clientLog } = await startClient(t, { ...agent, args: [...DEEP_AGENT_NODE_FLAGS, ...(agent.args ?? [])] });
  const { log } = spilledLog(t);
  const delivered: SessionUpdate[] = [];
  await client.loadSession('deep', CWD, (update, line) => {
    delivered.push(update);
    log.push(update, line);
  });
  assert.equal(delivered.length, texts.length + 1, 'every update, the deep one too');
  const read = [...log];
  assert.equal(read.length, delivered.length, 'the log kept them all');
  const deep = read.find((u) => u.sessionUpdate === 'tool_call') as unknown as { rawInput: unknown };
  let levels = 0;
  for (let v: unknown = deep.rawInput; v !== null && typeof v === 'object'; v = (v as { a: unknown }).a) levels++;
  assert.equal(levels, 63, 'cut where the update is 64 levels deep (the update, then 63 of rawInput)');
  for (const update of read) JSON.stringify(update);
  assert.deepEqual(read.filter((u) => u.sessionUpdate !== 'tool_call').map((u) => (u as { content: { text: string } }).content.text), texts);
  const warnings = clientLog.text().split('\n').filter((l) => /nested deeper than 64 levels/.test(l));
  assert.equal(warnings.length, 1, `one warning:\n${clientLog.text().slice(0, 2000)}`);
  assert.doesNotMatch(clientLog.text(), /listener failed/);
});
