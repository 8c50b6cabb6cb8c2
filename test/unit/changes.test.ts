// What a session changed (issue 34, item 4): the files its tool calls wrote, counted from its
// updates (src/changes/changes.ts), and the store that keeps the counts across restarts and
// windows (src/changes/changesStore.ts), fed by the replays a client receives from the reference
// agent as a real process.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionUpdate } from '../../src/acp/types';
import { ChangeCollector, lineChanges, shownPath } from '../../src/changes/changes';
import { ChangesStore, checkRecord, isBehind } from '../../src/changes/changesStore';
import { storedSession, writeAll } from '../agent/fixtures';
import { referenceAgent, startClient, tempDir, waitFor } from './acp-helpers';

const CWD = '/work/project-a';
const u = (update: Record<string, unknown>) => update as unknown as SessionUpdate;

/** A tool call as agents send it: pending with its locations, then its end with its content. */
function edit(id: string, diffs: { path: string; oldText?: string | null; newText: string }[], status = 'completed', kind = 'edit'): SessionUpdate[] {
  return [
    u({ sessionUpdate: 'tool_call', toolCallId: id, title: `Edit ${id}`, kind, status: 'pending', locations: diffs.map((d) => ({ path: d.path })) }),
    u({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'in_progress' }),
    u({ sessionUpdate: 'tool_call_update', toolCallId: id, status, content: diffs.map((d) => ({ type: 'diff', ...d })) }),
  ];
}

function collect(updates: SessionUpdate[], cwd = CWD): ChangeCollector {
  const c = new ChangeCollector(cwd);
  for (const update of updates) c.add(update);
  return c;
}

test('line changes: lines added and removed by a shortest edit, a final newline ending the last line', () => {
  assert.deepEqual(lineChanges('', ''), { added: 0, removed: 0 });
  assert.deepEqual(lineChanges('', 'a\nb\n'), { added: 2, removed: 0 });
  assert.deepEqual(lineChanges('a\nb\n', ''), { added: 0, removed: 2 });
  assert.deepEqual(lineChanges('a\nb\nc\n', 'a\nB\nc\n'), { added: 1, removed: 1 });
  assert.deepEqual(lineChanges('a\nb\nc', 'a\nb\nc\n'), { added: 0, removed: 0 }, 'a final newline is not a line');
  assert.deepEqual(lineChanges('a\nb\nc\nd\n', 'a\nx\nc\ny\nd\nz\n'), { added: 3, removed: 1 });
  // Moved blocks: the shortest script, not every line.
  assert.deepEqual(lineChanges('1\n2\n3\n4\n5\n', '4\n5\n1\n2\n3\n'), { added: 2, removed: 2 });
});

test('line changes of large texts stay bounded: past the work limit every differing line between the common ends counts', () => {
  const old = Array.from({ length: 60_000 }, (_, i) => `line ${i}`).join('\n');
  const shuffled = Array.from({ length: 60_000 }, (_, i) => `line ${(i * 7919) % 60_000} changed`).join('\n');
  const started = Date.now();
  const counts = lineChanges(old, shuffled);
  assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
  assert.deepEqual(counts, { added: 60_000, removed: 60_000 });
});

test('a session\'s files: each finished edit counted once however often its tool call was updated; failed and unfinished edits wrote nothing', () => {
  const c = collect([
    ...edit('t1', [{ path: `${CWD}/src/a.ts`, oldText: 'one\ntwo\n', newText: 'one\n2\nthree\n' }]),
    // The same content sent again with the final status: still one edit.
    u({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed', content: [{ type: 'diff', path: `${CWD}/src/a.ts`, oldText: 'one\ntwo\n', newText: 'one\n2\nthree\n' }] }),
    ...edit('t2', [{ path: 'README.md', oldText: null, newText: '# A\n\ntext\n' }]),
    ...edit('t3', [{ path: `${CWD}/src/b.ts`, oldText: 'x\n', newText: 'y\n' }], 'failed'),
    // Pending for good (the session ended before it ran).
    edit('t4', [{ path: `${CWD}/src/c.ts`, oldText: 'x\n', newText: 'y\n' }])[0],
    u({ sessionUpdate: 'tool_call_update', toolCallId: 't4', content: [{ type: 'diff', path: `${CWD}/src/c.ts`, oldText: 'x\n', newText: 'y\n' }] }),
    // Reads and other content are not writes.
    u({ sessionUpdate: 'tool_call', toolCallId: 't5', title: 'Read', kind: 'read', status: 'completed', locations: [{ path: `${CWD}/src/d.ts` }], content: [{ type: 'content', content: { type: 'text', text: 'hi' } }] }),
  ]);
  const summary = c.summary();
  assert.deepEqual(summary.files, [
    { path: `${CWD}/src/a.ts`, added: 2, removed: 1, edits: 1, linesKnown: true },
    { path: 'README.md', added: 3, removed: 0, edits: 1, linesKnown: true },
  ]);
  assert.equal(summary.added, 5);
  assert.equal(summary.removed, 1);
});

test('a file written by several edits: their lines summed; a relative path and its absolute form are one file; an edit with only a location counts the file, its lines not known', () => {
  const c = collect([
    ...edit('t1', [{ path: 'src/a.ts', oldText: 'a\n', newText: 'a\nb\n' }]),
    ...edit('t2', [{ path: `${CWD}/src/a.ts`, oldText: 'a\nb\n', newText: 'a\nb\nc\n' }]),
    // Two hunks of one file in one call (claude-agent-acp sends a diff per hunk): one edit.
    ...edit('t3', [{ path: `${CWD}/lib.ts`, oldText: 'x', newText: 'y' }, { path: `${CWD}/lib.ts`, oldText: 'p', newText: 'q' }]),
    u({ sessionUpdate: 'tool_call', toolCallId: 't4', title: 'Delete old.ts', kind: 'delete', status: 'completed', locations: [{ path: `${CWD}/old.ts` }] }),
  ]);
  assert.deepEqual(c.summary().files, [
    { path: 'src/a.ts', added: 2, removed: 0, edits: 2, linesKnown: true },
    { path: `${CWD}/lib.ts`, added: 2, removed: 2, edits: 1, linesKnown: true },
    { path: `${CWD}/old.ts`, added: 0, removed: 0, edits: 1, linesKnown: false },
  ]);
  assert.equal(c.diffable(2), false, 'no diff to show for a file written without one');
  assert.equal(c.sides(2), undefined);
});

test('a file\'s diff: its first old text to its last new text when its edits follow each other, else each edit in turn', () => {
  const c = collect([
    ...edit('t1', [{ path: `${CWD}/a.ts`, oldText: 'v1\n', newText: 'v2\n' }]),
    ...edit('t2', [{ path: `${CWD}/a.ts`, oldText: 'v2\n', newText: 'v3\n' }]),
    ...edit('t3', [{ path: `${CWD}/b.ts`, oldText: 'first old', newText: 'first new' }]),
    ...edit('t4', [{ path: `${CWD}/b.ts`, oldText: 'second old', newText: 'second new' }]),
  ]);
  assert.deepEqual(c.sides(0), { path: `${CWD}/a.ts`, oldText: 'v1\n', newText: 'v3\n', chained: true, edits: 2 });
  assert.deepEqual(c.sides(1), { path: `${CWD}/b.ts`, oldText: 'first old\nsecond old\n', newText: 'first new\nsecond new\n', chained: false, edits: 2 });
});

test('untrusted updates: bad shapes are skipped, never thrown on; past the text budget edits are still counted, their diff not shown', () => {
  const c = new ChangeCollector(CWD, 10);
  for (const bad of [{ sessionUpdate: 'tool_call' }, { sessionUpdate: 'tool_call', toolCallId: 5 }, { sessionUpdate: 'tool_call_update', toolCallId: 'x', status: 'completed', content: 'nope', locations: [null, { path: 3 }, { path: '' }] },
    { sessionUpdate: 'tool_call_update', toolCallId: 'y', status: 'completed', content: [null, { type: 'diff' }, { type: 'diff', path: 'a', newText: 3 }, { type: 'diff', path: 'a', oldText: 5, newText: '' }] }]) {
    c.add(u(bad));
  }
  assert.deepEqual(c.summary().files, []);
  for (const update of edit('big', [{ path: `${CWD}/big.ts`, oldText: 'a\nb\nc\n', newText: 'a\nB\nc\nd\n' }])) c.add(update);
  assert.deepEqual(c.summary().files, [{ path: `${CWD}/big.ts`, added: 2, removed: 1, edits: 1, linesKnown: true }]);
  assert.equal(c.diffable(0), false);
});

test('shown paths: relative inside the session\'s folder, as written elsewhere', () => {
  assert.equal(shownPath(`${CWD}/src/a.ts`, CWD), 'src/a.ts');
  assert.equal(shownPath('/elsewhere/a.ts', CWD), '/elsewhere/a.ts');
  assert.equal(shownPath(`${CWD}-other/a.ts`, CWD), `${CWD}-other/a.ts`);
  assert.equal(shownPath('rel/a.ts', CWD), 'rel/a.ts');
});

test('a replay from the reference agent is counted as it comes and kept; a new store on the folder (a restart) reads it; a forgotten session is gone from disk', async (t) => {
  const dir = tempDir(t);
  const store = join(dir, 'store');
  await writeAll(store, [
    storedSession('s1', {
      updates: [
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'change things' } },
        ...edit('t1', [{ path: `${CWD}/src/app.ts`, oldText: 'export const v = 1;\n', newText: 'export const v = 2;\nexport const w = 3;\n' }]),
        ...edit('t2', [{ path: `${CWD}/CHANGELOG.md`, oldText: '## Unreleased\n', newText: '## Unreleased\n\n- v 2.\n' }]),
      ] as never,
    }),
    storedSession('s2'),
  ]);
  const folder = join(dir, 'changes');
  const changes = new ChangesStore(folder, { facts: () => ({ updatedAt: '2026-01-31T12:00:00.000Z' }), log: { warn: (m) => assert.fail(m) } });
  t.after(() => changes.dispose());
  await changes.scanned;
  const { client } = await startClient(t, referenceAgent(store), { replays: (agent, sessionId, cwd) => changes.observe(agent, sessionId, cwd) });
  assert.equal(changes.get('reference', 's1'), undefined, 'nothing is known before a replay');
  await client.loadSession('s1', CWD, () => {});
  await client.loadSession('s2', CWD, () => {});
  await changes.lastWrite;
  const s1 = changes.get('reference', 's1');
  assert.ok(s1);
  assert.deepEqual(s1.files.map((f) => [f.path, f.added, f.removed]), [[`${CWD}/src/app.ts`, 2, 1], [`${CWD}/CHANGELOG.md`, 2, 0]]);
  assert.equal(s1.added, 4);
  assert.equal(s1.removed, 1);
  assert.equal(s1.updatedAt, '2026-01-31T12:00:00.000Z');
  // A replay that wrote nothing is known to have changed nothing (not "unknown").
  assert.deepEqual(changes.get('reference', 's2')?.files, []);

  const restarted = new ChangesStore(folder, { facts: () => undefined, log: { warn: (m) => assert.fail(m) }, follow: false });
  t.after(() => restarted.dispose());
  await restarted.scanned;
  assert.deepEqual(restarted.get('reference', 's1'), s1);
  await changes.forget('reference', ['s1']);
  assert.equal(changes.get('reference', 's1'), undefined);
  assert.deepEqual(readdirSync(folder).filter((n) => n.endsWith('.json')).length, 1);
});

test('a replay that fails or is cancelled keeps nothing', async (t) => {
  const dir = tempDir(t);
  const store = join(dir, 'store');
  await writeAll(store, [storedSession('s1', { updates: edit('t1', [{ path: `${CWD}/a.ts`, oldText: '', newText: 'a\n' }]) as never })]);
  const changes = new ChangesStore(join(dir, 'changes'), { facts: () => undefined, log: { warn: () => {} } });
  t.after(() => changes.dispose());
  const { client } = await startClient(t, referenceAgent(store, ['--fail', 'session/load=-32603']), { replays: (agent, sessionId, cwd) => changes.observe(agent, sessionId, cwd) });
  await assert.rejects(client.loadSession('s1', CWD, () => {}));
  await changes.lastWrite;
  assert.equal(changes.get('reference', 's1'), undefined);
});

test('two windows share the folder: one sees what the other counted; what a replay of a newer state kept is never replaced by an older one', async (t) => {
  const folder = join(tempDir(t), 'changes');
  let updatedAt = '2026-02-01T10:00:00.000Z';
  const one = new ChangesStore(folder, { facts: () => ({ updatedAt }), log: { warn: (m) => assert.fail(m) } });
  const two = new ChangesStore(folder, { facts: () => ({ updatedAt: '2026-01-01T10:00:00.000Z' }), log: { warn: (m) => assert.fail(m) } });
  t.after(() => { one.dispose(); two.dispose(); });
  await Promise.all([one.scanned, two.scanned]);
  // Both follow the folder once it exists (the first write makes it).
  await one.remember('A', 's', { files: [{ path: '/p/a', added: 1, removed: 0, edits: 1, linesKnown: true }], added: 1, removed: 0 });
  await waitFor(() => two.get('A', 's')?.added === 1, 'the other window read the first write');
  // The other window replayed an older state of the session: it does not overwrite.
  await two.remember('A', 's', { files: [], added: 0, removed: 0 });
  assert.equal(two.get('A', 's')?.added, 1);
  updatedAt = '2026-02-02T10:00:00.000Z';
  await one.remember('A', 's', { files: [], added: 0, removed: 0 });
  await waitFor(() => two.get('A', 's')?.files.length === 0, 'the other window read the newer write');
  await one.forget('A', ['s']);
  await waitFor(() => two.get('A', 's') === undefined, 'the other window saw the delete');
});

test('a window that has not heard of another\'s write of a newer state does not replace it: the file on disk decides', async (t) => {
  const folder = join(tempDir(t), 'changes');
  const newer = new ChangesStore(folder, { facts: () => ({ updatedAt: '2026-02-01T10:00:00.000Z' }), log: { warn: (m) => assert.fail(m) }, follow: false });
  // Its first read of the folder found nothing, and it does not follow: it cannot know of the other's write.
  const older = new ChangesStore(folder, { facts: () => ({ updatedAt: '2026-01-01T10:00:00.000Z' }), log: { warn: (m) => assert.fail(m) }, follow: false });
  t.after(() => { newer.dispose(); older.dispose(); });
  await Promise.all([newer.scanned, older.scanned]);
  await newer.remember('A', 's', { files: [{ path: '/p/a', added: 3, removed: 0, edits: 1, linesKnown: true }], added: 3, removed: 0 });
  await older.remember('A', 's', { files: [], added: 0, removed: 0 });
  assert.equal(older.get('A', 's')?.added, 3, 'the older window takes the newer record it found');
  const fresh = new ChangesStore(folder, { facts: () => undefined, log: { warn: (m) => assert.fail(m) }, follow: false });
  t.after(() => fresh.dispose());
  await fresh.scanned;
  assert.deepEqual([fresh.get('A', 's')?.updatedAt, fresh.get('A', 's')?.added], ['2026-02-01T10:00:00.000Z', 3], 'the newer record stays on disk');
  assert.deepEqual(readdirSync(folder).filter((n) => !n.endsWith('.json')), [], 'no lock or temporary file is left');
});

test('a damaged or foreign file in the folder is no record; a record behind its session says so', async (t) => {
  const folder = join(tempDir(t), 'changes');
  const store = new ChangesStore(folder, { facts: () => undefined, log: { warn: () => {} }, follow: false });
  t.after(() => store.dispose());
  await store.scanned;
  await store.remember('A', 's', { files: [], added: 0, removed: 0 });
  const name = readdirSync(folder).find((n) => n.endsWith('.json'))!;
  writeFileSync(join(folder, name), '{"agent":"A","sessionId":"s","observedAt":"x","added":-1,"removed":0,"moreFiles":0,"files":[]}');
  writeFileSync(join(folder, `${'0'.repeat(40)}.json`), JSON.stringify({ agent: 'B', sessionId: 'other', observedAt: 'x', added: 0, removed: 0, moreFiles: 0, files: [] }));
  const again = new ChangesStore(folder, { facts: () => undefined, log: { warn: () => {} }, follow: false });
  t.after(() => again.dispose());
  await again.scanned;
  assert.equal(again.get('A', 's'), undefined, 'a negative count is not ours');
  assert.equal(again.get('B', 'other'), undefined, 'a record filed under another session\'s name is not read');
  assert.ok(existsSync(join(folder, name)));
  assert.equal(checkRecord({ agent: 'A', sessionId: 's', observedAt: 'x', added: 0, removed: 0, moreFiles: 0, files: [{ path: 1 }] }), undefined);
  const record = { updatedAt: '2026-01-01T00:00:00.000Z', observedAt: '2026-01-02T00:00:00.000Z' };
  assert.equal(isBehind(record, '2026-01-01T12:00:00.000Z'), false, 'a load that resumed it dated it before its replay ended');
  assert.equal(isBehind(record, '2026-01-03T00:00:00.000Z'), true);
  assert.equal(isBehind(record, undefined), false);
});
