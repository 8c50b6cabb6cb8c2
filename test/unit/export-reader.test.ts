// Reading an exported replay that anyone may have handed the user, under plain Node with real
// files: a FIFO, a link to /dev/zero, a file over the size bound, an over-long line and a
// million-line file are each refused or read with the event loop free (a timer keeps firing),
// and what is read is right.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, symlinkSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionUpdate } from '../../src/acp/types';
import { writeReplay } from '../../src/transcript/replayFile';
import { collectReplay, findReplayIn, forEachSlice, openReplay, readReplayHeader, ReplayOpenError } from '../../src/transcript/replayReader';
import { Timeline } from '../../src/transcript/timeline';
import { tempDir } from './acp-helpers';
import { HELD_MS, longestGap } from '../hostile/held';

const LIMITS = { maxFileBytes: 256 << 20, maxLineBytes: 1 << 20 };
const HEADER = { agentName: 'A', sessionId: 's', cwd: '/w', exportedAt: '2026-03-02T00:00:00Z' };

function chunk(text: string): SessionUpdate {
  return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } as SessionUpdate;
}

function line(update: SessionUpdate, sessionId = 's'): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } }) + '\n';
}

test('a FIFO named x.acp.ndjson is refused at once: the open does not wait for a writer and nothing is read', { timeout: 10_000 }, async (t) => {
  const dir = tempDir(t, 'export-reader-');
  const fifo = join(dir, 'x.acp.ndjson');
  const made = spawnSync('mkfifo', [fifo]);
  assert.equal(made.status, 0, `mkfifo: ${made.stderr}`);
  const { result, gapMs } = await longestGap(() => openReplay(fifo, LIMITS).then(() => undefined, (error: unknown) => error));
  assert.ok(result instanceof ReplayOpenError, String(result));
  assert.equal(result.reason, 'not-a-file');
  assert.match(result.message, /named pipe/);
  assert.ok(gapMs < HELD_MS, `the event loop was blocked ${Math.round(gapMs)} ms`);
  assert.equal(await readReplayHeader(fifo, LIMITS.maxFileBytes), undefined, 'a header lookup refuses it too');
});

test('a symbolic link to /dev/zero is refused as a device, before a byte is read', { timeout: 10_000 }, async (t) => {
  const dir = tempDir(t, 'export-reader-');
  const link = join(dir, 'zero.acp.ndjson');
  symlinkSync('/dev/zero', link);
  const before = process.memoryUsage().rss;
  const error = await openReplay(link, LIMITS).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ReplayOpenError, String(error));
  assert.equal(error.reason, 'not-a-file');
  assert.match(error.message, /a device/);
  assert.ok(process.memoryUsage().rss - before < 64 << 20, 'the heap did not grow with what /dev/zero gives');
});

test('a file over the size bound is refused with its size and the bound, without reading it', { timeout: 10_000 }, async (t) => {
  const dir = tempDir(t, 'export-reader-');
  const file = join(dir, 'big.acp.ndjson');
  writeFileSync(file, writeReplay(HEADER, [chunk('hi')]));
  // Sparse: the size is real, the disk is not used.
  const fd = openSync(file, 'r+');
  ftruncateSync(fd, LIMITS.maxFileBytes + 1);
  closeSync(fd);
  const error = await openReplay(file, LIMITS).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ReplayOpenError, String(error));
  assert.equal(error.reason, 'too-large');
  assert.deepEqual(error.figures, { size: LIMITS.maxFileBytes + 1, limit: LIMITS.maxFileBytes });
  assert.match(error.message, new RegExp(`${LIMITS.maxFileBytes + 1} bytes, more than the ${LIMITS.maxFileBytes}`));
});

test('an over-long line is skipped and counted, the lines around it are read, and it is never held whole', async (t) => {
  const dir = tempDir(t, 'export-reader-');
  const file = join(dir, 'long.acp.ndjson');
  const fd = openSync(file, 'w');
  writeSync(fd, writeReplay(HEADER, [chunk('before')]));
  // 8 MB of one line, past the 1 MB bound and across many reads.
  writeSync(fd, line(chunk('x'.repeat(8 << 20))));
  writeSync(fd, '{broken\n');
  writeSync(fd, line(chunk('after')));
  writeSync(fd, line(chunk('other session'), 'not-s'));
  // A multi-byte character at the end, with no newline after the last line.
  writeSync(fd, line(chunk('ünïcødé ✓ 字')).trimEnd());
  closeSync(fd);
  const opened = await openReplay(file, LIMITS);
  const updates = await collectReplay(opened);
  assert.deepEqual(updates.map((u) => (u as { content: { text: string } }).content.text), ['before', 'after', 'ünïcødé ✓ 字']);
  assert.deepEqual(opened.counts, { updates: 3, skipped: 2, tooLong: 1 });
});

test('an over-long first line is not a header', async (t) => {
  const dir = tempDir(t, 'export-reader-');
  const file = join(dir, 'head.acp.ndjson');
  writeFileSync(file, JSON.stringify({ ...HEADER, format: 'acp-sessions/replay', version: 1, updates: 0, pad: 'x'.repeat(2 << 20) }) + '\n');
  const error = await openReplay(file, LIMITS).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ReplayOpenError && error.reason === 'header', String(error));
});

test('a million-line file is read a slice at a time with the event loop free, into the right timeline', { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t, 'export-reader-');
  const file = join(dir, 'million.acp.ndjson');
  const COUNT = 1_000_000;
  const fd = openSync(file, 'w');
  writeSync(fd, writeReplay(HEADER, []));
  let text = '';
  for (let i = 0; i < COUNT; i++) {
    // A user message every 1,000 chunks: 1,000 rows of each kind.
    text += line(i % 1000 === 0 ? { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `prompt ${i}` } } as SessionUpdate : chunk(`${i} `));
    if (text.length > 1 << 20) {
      writeSync(fd, text);
      text = '';
    }
  }
  writeSync(fd, text);
  closeSync(fd);
  const timeline = new Timeline();
  const opened = await openReplay(file, LIMITS);
  let slices = 0;
  const { gapMs } = await longestGap(() => forEachSlice(opened.slices, (u) => {
    timeline.apply(u);
  }, () => ++slices > 0));
  assert.equal(opened.counts.updates, COUNT);
  assert.equal(timeline.updateCount, COUNT);
  assert.equal(timeline.rows.length, 2000, 'a user message and the agent message after it, 1,000 times');
  assert.ok(slices >= COUNT / 2000, `${slices} slices`);
  assert.ok(gapMs < HELD_MS, `the event loop was blocked ${Math.round(gapMs)} ms at once`);
  t.diagnostic(`${opened.size} bytes, longest gap between timer ticks ${Math.round(gapMs)} ms`);
});

test('a child is found in the same folder by its header only; another agent\'s or another folder\'s is not', async (t) => {
  const dir = tempDir(t, 'export-reader-');
  const deeper = join(dir, 'deeper');
  spawnSync('mkdir', [deeper]);
  writeFileSync(join(dir, 'Parent p.acp.ndjson'), writeReplay({ ...HEADER, sessionId: 'p' }, []));
  writeFileSync(join(dir, 'renamed by the user.acp.ndjson'), writeReplay({ ...HEADER, sessionId: 'child' }, []));
  writeFileSync(join(dir, 'Other agent child.acp.ndjson'), writeReplay({ ...HEADER, agentName: 'B', sessionId: 'child-b' }, []));
  writeFileSync(join(deeper, 'Deep child-deep.acp.ndjson'), writeReplay({ ...HEADER, sessionId: 'child-deep' }, []));
  spawnSync('mkfifo', [join(dir, 'child fifo.acp.ndjson')]);
  assert.equal(await findReplayIn(dir, 'A', 'child', LIMITS.maxFileBytes), join(dir, 'renamed by the user.acp.ndjson'));
  assert.equal(await findReplayIn(dir, 'A', 'child-b', LIMITS.maxFileBytes), undefined);
  assert.equal(await findReplayIn(dir, 'A', 'child-deep', LIMITS.maxFileBytes), undefined);
  assert.equal(await findReplayIn(dir, 'A', 'fifo', LIMITS.maxFileBytes), undefined);
});
