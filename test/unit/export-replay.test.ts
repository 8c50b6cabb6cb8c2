// The exported replay: a real replay of the reference agent written as NDJSON after a header and
// read back gives the same timeline; files are named safely; the Claude clean-up warning.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcpClient } from '../../src/acp/client';
import type { SessionUpdate } from '../../src/acp/types';
import { cleanupPeriodDays, removalWithinWarning } from '../../src/sessions/claudeRetention';
import { timelineToMarkdown } from '../../src/transcript/export';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportFileStem, MAX_STEM_BYTES, readReplay, ReplayFileError, writeReplay } from '../../src/transcript/replayFile';
import { Timeline } from '../../src/transcript/timeline';
import { seedStore } from '../agent/seed';
import { CapturingLog, CLIENT_INFO, referenceAgent, tempDir } from './acp-helpers';

test('a real replay written as an export and read back gives the same timeline and Markdown', async (t) => {
  const store = tempDir(t, 'export-store-');
  const folder = tempDir(t, 'export-folder-');
  const seed = await seedStore({ store, folders: [folder], count: 10, seed: 7, now: new Date('2026-03-01T12:00:00Z') });
  const client = await AcpClient.start(referenceAgent(store), { clientInfo: CLIENT_INFO, log: new CapturingLog() });
  t.after(() => client.dispose());
  for (const sessionId of [seed.special.compactions, seed.special.hostile, seed.special.long]) {
    const updates: SessionUpdate[] = [];
    const live = new Timeline();
    await client.loadSession(sessionId, folder, (u) => {
      updates.push(u);
      live.apply(u);
    });
    const text = writeReplay({ agentName: 'Reference', sessionId, cwd: folder, title: 'T', exportedAt: '2026-03-02T00:00:00Z' }, updates);
    assert.equal(text.split('\n').length, updates.length + 2, 'a header, one line per update, a final newline');
    const read = readReplay(text);
    assert.equal(read.skipped, 0);
    assert.equal(read.header.updates, updates.length);
    const again = new Timeline();
    for (const u of read.updates) again.apply(u);
    assert.deepEqual(again.entities, live.entities);
    const header = { title: 'T', agentName: 'Reference', sessionId, cwd: folder };
    assert.equal(timelineToMarkdown(header, again.entities, again.state), timelineToMarkdown(header, live.entities, live.state));
  }
});

test('a file that is not an export is refused; lines of other sessions or methods are skipped and counted', () => {
  assert.throws(() => readReplay('not json\n'), ReplayFileError);
  assert.throws(() => readReplay('{"format":"other"}\n'), ReplayFileError);
  const head = writeReplay({ agentName: 'A', sessionId: 's', cwd: '/w', exportedAt: 'x' }, []).trimEnd();
  const lines = [
    head,
    JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hi' } } } }),
    JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'other', update: { sessionUpdate: 'user_message_chunk' } } }),
    JSON.stringify({ jsonrpc: '2.0', method: 'fs/write_text_file', params: { sessionId: 's' } }),
    '{broken',
  ];
  const read = readReplay(lines.join('\n'));
  assert.equal(read.updates.length, 1);
  assert.equal(read.skipped, 3);
});

test('export file names keep letters and digits; separators, controls and dot-names never reach the path', () => {
  assert.equal(exportFileStem('Fix the bug', 'sess_1'), 'Fix the bug sess_1');
  for (const title of ['../../etc/passwd', 'a/b\\c', '\u0000\u202Ex', '..', 'C:\\x', '<>:"|?*']) {
    const stem = exportFileStem(title, 'id');
    assert.doesNotMatch(stem, /[/\\:\u0000-\u001f\u202E<>"|?*]/, JSON.stringify(title));
    assert.doesNotMatch(stem, /^\./);
  }
  assert.equal(exportFileStem('', ''), 'session');
});

test("Claude's cleanupPeriodDays: read from its settings (30 when missing or wrong), a removal within 7 days is announced", () => {
  assert.equal(cleanupPeriodDays(undefined), 30);
  assert.equal(cleanupPeriodDays('{"cleanupPeriodDays": 10}'), 10);
  for (const text of ['{', '{"cleanupPeriodDays": "10"}', '{"cleanupPeriodDays": -1}', 'null']) assert.equal(cleanupPeriodDays(text), 30, text);
  const DAY = 86_400_000;
  const now = 100 * DAY;
  assert.equal(removalWithinWarning(now - 20 * DAY, 30, now), undefined);
  assert.equal(removalWithinWarning(now - 25 * DAY, 30, now), now + 5 * DAY);
  assert.equal(removalWithinWarning(now - 40 * DAY, 30, now), now - 10 * DAY);
  assert.equal(removalWithinWarning(undefined, 30, now), undefined);
});

test('export file names are bounded in UTF-8 bytes with room for " (999)" and ".acp.ndjson": a 120-character CJK title makes a file that can be created', (t) => {
  const dir = tempDir(t, 'export-names-');
  const cjk = '漢字仮名交じり文の長いセッションタイトル'.repeat(6);
  assert.equal(cjk.length, 120);
  const stem = exportFileStem(cjk, 'sess_cjk_1');
  assert.ok(Buffer.byteLength(stem) <= MAX_STEM_BYTES, `${Buffer.byteLength(stem)} bytes`);
  assert.ok(Buffer.byteLength(`${stem} (999).acp.ndjson`) <= 255);
  assert.ok(stem.endsWith(' sess_cjk_1'), 'the id is kept whole at the end');
  assert.ok(stem.startsWith('漢字仮名'), 'the title is what was cut');
  // The real file system takes it (ext4, APFS, NTFS: 255 bytes or units a name).
  writeFileSync(join(dir, `${stem} (999).acp.ndjson`), '');
  assert.ok(existsSync(join(dir, `${stem} (999).acp.ndjson`)));
});

test('a long title is cut and the id kept; a too-long id is cut with a hash of the whole; no code point is split', () => {
  const latin = exportFileStem('a'.repeat(300), 'the-session-id');
  assert.ok(latin.endsWith(' the-session-id'));
  assert.ok(Buffer.byteLength(latin) <= MAX_STEM_BYTES);
  const longA = exportFileStem('', `${'i'.repeat(300)}A`);
  const longB = exportFileStem('', `${'i'.repeat(300)}B`);
  assert.notEqual(longA, longB, 'ids that differ only past the cut give different names');
  assert.ok(Buffer.byteLength(longA) <= MAX_STEM_BYTES);
  assert.match(longA, /-[0-9a-f]{12}$/);
  // U+20000 is a letter of four UTF-8 bytes and two UTF-16 units.
  const astral = exportFileStem('\u{20000}'.repeat(100), 'x');
  assert.doesNotMatch(astral, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/, 'no lone surrogate');
  assert.ok(astral.endsWith(' x'));
});

test('Windows device names get a "_" in front, whatever their case and extension', () => {
  for (const id of ['CON', 'con', 'Prn', 'AUX', 'nul', 'COM1', 'com9', 'LPT1', 'lpt9', 'NUL.txt', 'con .x', 'COM¹']) {
    assert.equal(exportFileStem('', id), `_${id}`, id);
  }
  for (const [title, id] of [['', 'CONSOLE'], ['', 'COM10'], ['Con', 'x'], ['', 'LPT']]) {
    assert.doesNotMatch(exportFileStem(title, id), /^_/, `${title} ${id}`);
  }
});
