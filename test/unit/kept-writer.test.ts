// One kept copy written as a replay comes in (KeptWriter): the lines go to an uncompressed
// temporary file beside the copy's place and are compressed into the body once the replay ended.
// The copy holds every line as pushed, whatever their sizes; finished, dropped or failed on a real
// full disk (a small tmpfs), no temporary file is left beside it, and a failed copy says why.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { KeptWriter, readKeptMeta } from '../../src/keep/keptFile';
import { tempDir } from './acp-helpers';
import { mountTmpfs, unmount } from './fullDisk';

const FACTS = { agentName: 'reference', sessionId: 'kept-1', cwd: '/work/project-a' };

/** Lines of every size around the writer's 256 KB stage: small ones, one just under it, one well over it. */
function lines(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 3000; i++) out.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'kept-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `part ${i} «é» ${'x'.repeat(i % 300)}` } } } }));
  out.push(JSON.stringify({ text: 'y'.repeat(256 * 1024 - 40) }));
  out.push(JSON.stringify({ text: 'z'.repeat(700 * 1024) }));
  out.push('{"last":true}');
  return out;
}

test('a copy holds every line as pushed (bytes or text, any size), counts merged lines as given, and leaves no temporary file beside it', async (t) => {
  const dir = tempDir(t, 'kept-writer-');
  const path = join(dir, 'agent', 'one.kept');
  const writer = new KeptWriter(path);
  const all = lines();
  let updates = 0;
  for (const [i, line] of all.entries()) {
    if (i % 2 === 0) {
      writer.push(line);
      updates++;
    } else {
      // Bytes, as the line worker hands them over: a merged update's two lines, counted by the caller.
      writer.push(Buffer.from(`${line}\n${line}`), 2);
      updates += 2;
    }
  }
  const meta = await writer.finish(FACTS, async () => true);
  assert.ok(meta, 'the copy was put in place');
  const expected = all.map((line, i) => (i % 2 === 0 ? `${line}\n` : `${line}\n${line}\n`)).join('');
  const { meta: read } = await readKeptMeta(path);
  assert.equal(read.updates, updates);
  assert.equal(read.rawBytes, Buffer.byteLength(expected));
  assert.equal(gunzipSync(readFileSync(path).subarray(0, read.bodyBytes)).toString('utf8'), expected);
  assert.deepEqual(readdirSync(join(dir, 'agent')), ['one.kept'], 'only the copy is left in its folder');
});

test('a copy dropped half-way leaves nothing in its folder, and one declined leaves the copy in place untouched', async (t) => {
  const dir = tempDir(t, 'kept-writer-');
  const path = join(dir, 'one.kept');
  const dropped = new KeptWriter(path);
  for (const line of lines()) dropped.push(line);
  await dropped.abort();
  assert.deepEqual(readdirSync(dir), [], 'the dropped copy left no file');

  const first = new KeptWriter(path);
  first.push('{"first":true}');
  assert.ok(await first.finish(FACTS, async () => true));
  const before = readFileSync(path);
  const declined = new KeptWriter(path);
  for (const line of lines()) declined.push(line);
  assert.equal(await declined.finish(FACTS, async () => false), undefined);
  assert.deepEqual(readdirSync(dir), ['one.kept'], 'the declined copy left no file');
  assert.deepEqual(readFileSync(path), before, 'the copy in place is as it was');
});

test('a copy that cannot be written (a full disk: a real tmpfs of 256 KB, else a folder that is a file) rejects naming the cause and leaves no temporary file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kept-writer-full-'));
  const mounted = mountTmpfs(dir, 256 * 1024);
  t.after(() => {
    if (mounted) unmount(dir);
    rmSync(dir, { recursive: true, force: true });
  });
  if (!mounted) writeFileSync(join(dir, 'agent'), 'not a folder');
  t.diagnostic(mounted ? 'a tmpfs of 256 KB' : 'no tmpfs here (mount refused): a folder that is a file');
  const path = join(dir, 'agent', 'one.kept');
  const writer = new KeptWriter(path);
  for (let round = 0; round < 4; round++) for (const line of lines()) writer.push(line);
  await assert.rejects(writer.finish(FACTS, async () => true), (error: NodeJS.ErrnoException) => {
    assert.equal(error.code, mounted ? 'ENOSPC' : 'EEXIST');
    return true;
  });
  assert.ok(writer.failed, 'the failure is told to whoever asks');
  if (mounted) assert.deepEqual(readdirSync(join(dir, 'agent')), [], 'no temporary file is left on the full disk');
  // The disk has room again: a new copy of the same session is written whole.
  if (mounted) {
    const again = new KeptWriter(path);
    again.push('{"again":true}');
    assert.ok(await again.finish(FACTS, async () => true));
    assert.deepEqual(readdirSync(join(dir, 'agent')), ['one.kept']);
  }
});
