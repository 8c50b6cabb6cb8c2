// An exported replay or a kept copy read and reduced in a real worker (the line worker's bundle,
// started for the one file): the rows it hands over are the rows the host's own read makes, the
// host hears how far it is and the tool calls, and a file that cannot be read, a file that holds
// another session by then, a worker that cannot start and a read stopped half-way each end with
// what they wrote removed.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionUpdate } from '../../src/acp/types';
import { KeptWriter, keptPath, openKept } from '../../src/keep/keptFile';
import { EntityStore } from '../../src/transcript/entityStore';
import type { FileReductionRequest } from '../../src/transcript/fileReduction';
import { FileReducer, FileWorkerStopped } from '../../src/transcript/fileReducer';
import type { Entity } from '../../src/transcript/model';
import { replayHeaderLine, writeReplay } from '../../src/transcript/replayFile';
import { collectReplay, openReplay } from '../../src/transcript/replayReader';
import { adoptReduced, reductionSpec, type ReductionProgress } from '../../src/transcript/replayReduction';
import { Timeline } from '../../src/transcript/timeline';
import { LINE_WORKER, tempDir } from './acp-helpers';

const AGENT = 'reference';
const SESSION = 'file-worker-1';
const HEADER = { agentName: AGENT, sessionId: SESSION, cwd: '/work/project-a', title: 'Orbital relay', exportedAt: '2026-12-06T10:00:00.000Z' };
const MB = 1024 * 1024;
const LIMITS = { maxFileBytes: 256 * MB, maxLineBytes: 64 * MB };

/** A session of prompts, streamed answers and tool calls that write files: thousands of rows. */
function session(turns: number): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (let i = 0; i < turns; i++) {
    updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `question ${i}: how does «relay ${i}» route?` } } as SessionUpdate);
    for (let c = 0; c < 20; c++) updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `part ${c} of answer ${i}. ` } } as SessionUpdate);
    updates.push({ sessionUpdate: 'tool_call', toolCallId: `call-${i}`, title: `Edit relay${i}.ts`, kind: 'edit', status: 'pending', locations: [{ path: `src/relay${i}.ts` }] } as SessionUpdate);
    updates.push({ sessionUpdate: 'tool_call_update', toolCallId: `call-${i}`, status: 'completed', content: [{ type: 'diff', path: `src/relay${i}.ts`, oldText: 'a', newText: `b${i}` }] } as SessionUpdate);
  }
  return updates;
}

function lineOf(update: SessionUpdate, sessionId = SESSION): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } });
}

async function writeKept(root: string, updates: SessionUpdate[]): Promise<string> {
  const path = keptPath(root, AGENT, SESSION);
  const writer = new KeptWriter(path);
  for (const update of updates) writer.push(lineOf(update));
  const meta = await writer.finish({ agentName: AGENT, sessionId: SESSION, cwd: HEADER.cwd, title: HEADER.title }, async () => true);
  assert.ok(meta, 'the copy was written');
  return path;
}

/** The rows the host's own read of the same updates makes: what the worker's must equal. */
function hostRows(updates: SessionUpdate[]): Entity[] {
  const timeline = new Timeline(undefined, new EntityStore());
  for (const update of updates) timeline.apply(update);
  return rowsOf(timeline);
}

function rowsOf(timeline: Timeline): Entity[] {
  const rows: Entity[] = [];
  for (let i = 0; i < timeline.rows.length; i++) rows.push(structuredClone(timeline.rows.at(i)!));
  return rows;
}

function request(kind: 'kept' | 'export', path: string, spillDir: string, sessionId = SESSION, updatesTo?: string): FileReductionRequest {
  return { kind, path, agentName: AGENT, sessionId, ...LIMITS, spec: { ...reductionSpec(spillDir, 'entities'), progressMs: 0 }, ...(updatesTo ? { updatesTo } : {}) };
}

function spillFiles(dir: string): string[] {
  return readdirSync(dir);
}

test('a kept copy read in the worker: its rows are the host\'s read of the same updates, told as they come, with every tool call for the changes', async (t) => {
  const root = tempDir(t);
  const spillDir = tempDir(t);
  const updates = session(300);
  const path = await writeKept(root, updates);
  // The host's read of the copy gives these updates: the worker's rows must be what they make.
  const read = await collectReplay(await openKept(path, LIMITS.maxLineBytes));
  assert.equal(read.length, updates.length);
  const progress: ReductionProgress[] = [];
  const toolCalls: SessionUpdate[] = [];
  const done = await new FileReducer(LINE_WORKER).read(request('kept', path, spillDir), (p, calls) => {
    progress.push(p);
    toolCalls.push(...calls);
  });
  toolCalls.push(...done.toolCalls);
  assert.ok(progress.length >= 2, `the worker told how far it was before the end (${progress.length} times)`);
  // The first slice is told at once: a first screen of its own.
  assert.ok(progress[0].rows.count > 0 && progress[0].rows.count < 100, `the first progress holds the first rows only (${progress[0].rows.count})`);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i].updateCount >= progress[i - 1].updateCount, 'progress only moves on');
  assert.deepEqual(done.counts, { updates: updates.length, skipped: 0, tooLong: 0 });
  assert.deepEqual(
    toolCalls.map((u) => `${u.sessionUpdate} ${(u as { toolCallId: string }).toolCallId}`),
    updates.filter((u) => u.sessionUpdate.startsWith('tool_call')).map((u) => `${u.sessionUpdate} ${(u as { toolCallId: string }).toolCallId}`),
  );
  assert.ok(done.reduced.rows.file, 'the rows are in a file');
  const timeline = adoptReduced(done.reduced);
  t.after(() => timeline.rows.dispose());
  assert.equal(timeline.updateCount, updates.length);
  assert.deepEqual(rowsOf(timeline), hostRows(read));
});

test('a kept copy read for Export Sessions…: the worker writes its updates\' lines, which after the header are byte for byte the file the host writes from its own read', async (t) => {
  const root = tempDir(t);
  const spillDir = tempDir(t);
  const updates = session(300);
  // A line the copy holds that is no update of this session: left out of both.
  const path = keptPath(root, AGENT, SESSION);
  const writer = new KeptWriter(path);
  for (const [i, update] of updates.entries()) {
    writer.push(lineOf(update));
    if (i === 7) writer.push(lineOf(update, 'someone-else'));
  }
  assert.ok(await writer.finish({ agentName: AGENT, sessionId: SESSION, cwd: HEADER.cwd, title: HEADER.title }, async () => true));
  const read = await collectReplay(await openKept(path, LIMITS.maxLineBytes));
  assert.equal(read.length, updates.length);
  const updatesTo = join(spillDir, 'export-lines');
  const done = await new FileReducer(LINE_WORKER).read(request('kept', path, spillDir, SESSION, updatesTo), () => undefined);
  assert.deepEqual(done.counts, { updates: updates.length, skipped: 1, tooLong: 0 });
  const timeline = adoptReduced(done.reduced);
  t.after(() => timeline.rows.dispose());
  assert.deepEqual(rowsOf(timeline), hostRows(read));
  const written = replayHeaderLine(HEADER, done.counts.updates) + readFileSync(updatesTo, 'utf8');
  assert.equal(written, writeReplay(HEADER, read));
});

test('a kept copy\'s updates that cannot be written (their folder is gone) fail with the system\'s code, and the rows\' file goes too', async (t) => {
  const root = tempDir(t);
  const spillDir = tempDir(t);
  const path = await writeKept(root, session(20));
  await assert.rejects(
    new FileReducer(LINE_WORKER).read(request('kept', path, spillDir, SESSION, join(spillDir, 'no-such-folder', 'lines')), () => undefined),
    (error: NodeJS.ErrnoException) => !(error instanceof FileWorkerStopped) && error.code === 'ENOENT',
  );
  assert.deepEqual(spillFiles(spillDir), []);
});

test('an exported file read in the worker: its rows and counts are the host\'s read, a line of another session and an over-long line left out and counted', async (t) => {
  const dir = tempDir(t);
  const spillDir = tempDir(t);
  const updates = session(40);
  const file = join(dir, 'relay.acp.ndjson');
  const longLine = lineOf({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x'.repeat(2 * MB) } } as SessionUpdate);
  writeFileSync(file, writeReplay(HEADER, updates) + lineOf(updates[0], 'someone-else') + '\n' + longLine + '\n');
  const limits = { maxFileBytes: LIMITS.maxFileBytes, maxLineBytes: MB };
  const host = await openReplay(file, limits);
  const read = await collectReplay(host);
  const done = await new FileReducer(LINE_WORKER).read({ ...request('export', file, spillDir), ...limits }, () => undefined);
  assert.deepEqual(done.counts, host.counts);
  assert.deepEqual(done.counts, { updates: updates.length, skipped: 1, tooLong: 1 });
  const timeline = adoptReduced(done.reduced);
  t.after(() => timeline.rows.dispose());
  assert.deepEqual(rowsOf(timeline), hostRows(read));
});

test('an export with no update is read whole: no row, its file handed over', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'empty.acp.ndjson');
  writeFileSync(file, writeReplay(HEADER, []));
  const done = await new FileReducer(LINE_WORKER).read(request('export', file, tempDir(t)), () => assert.fail('nothing to tell'));
  assert.deepEqual(done.counts, { updates: 0, skipped: 0, tooLong: 0 });
  const timeline = adoptReduced(done.reduced);
  t.after(() => timeline.rows.dispose());
  assert.equal(timeline.rows.length, 0);
});

test('a damaged kept copy fails with the file\'s problem (not the worker\'s), and leaves no file behind', async (t) => {
  const root = tempDir(t);
  const spillDir = tempDir(t);
  const path = await writeKept(root, session(200));
  const bytes = readFileSync(path);
  // A byte in the middle of the compressed body: gzip's stream or its check fails.
  bytes[Math.floor(bytes.length / 2)] ^= 0xff;
  writeFileSync(path, bytes);
  // Read for an export too: the updates' lines written so far go with the rows.
  await assert.rejects(new FileReducer(LINE_WORKER).read(request('kept', path, spillDir, SESSION, join(spillDir, 'export-lines')), () => undefined), (error: Error) => !(error instanceof FileWorkerStopped) && /damaged|invalid|check/i.test(error.message));
  assert.deepEqual(spillFiles(spillDir), []);
});

test('a file that holds another session by the time the worker opens it is refused', async (t) => {
  const dir = tempDir(t);
  const spillDir = tempDir(t);
  const file = join(dir, 'relay.acp.ndjson');
  writeFileSync(file, writeReplay(HEADER, session(5)));
  await assert.rejects(new FileReducer(LINE_WORKER).read(request('export', file, spillDir, 'the-one-the-host-read'), () => undefined), /holds another session/);
  assert.deepEqual(spillFiles(spillDir), []);
});

test('a worker that cannot start is told apart (FileWorkerStopped): the host reads the file itself', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'relay.acp.ndjson');
  writeFileSync(file, writeReplay(HEADER, session(5)));
  await assert.rejects(new FileReducer(join(dir, 'no-such-worker.js')).read(request('export', file, tempDir(t)), () => undefined), FileWorkerStopped);
});

test('a read stopped half-way (the tab closed) rejects, and its file is removed once the worker has ended', async (t) => {
  const root = tempDir(t);
  const spillDir = tempDir(t);
  const path = await writeKept(root, session(3000));
  const reducer = new FileReducer(LINE_WORKER);
  let stopped = false;
  const reading = reducer.read(request('kept', path, spillDir, SESSION, join(spillDir, 'export-lines')), () => {
    if (stopped) return;
    stopped = true;
    // The worker's files (the rows, the updates' lines of an export) exist by its first progress.
    assert.equal(spillFiles(spillDir).length, 2);
    reducer.stop();
  });
  await assert.rejects(reading, FileWorkerStopped);
  assert.ok(stopped, 'the read was stopped after its first progress');
  const deadline = Date.now() + 10_000;
  while (spillFiles(spillDir).length > 0) {
    assert.ok(Date.now() < deadline, `the stopped read's file is still there after 10 s: ${spillFiles(spillDir).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});
