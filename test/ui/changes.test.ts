// What a session changed (issue 34, item 4) in a real browser driving a real VS Code, against the
// reference agent: before a replay of it was seen, its row's tooltip says to open it (never "0
// files"); once opened, the tooltip and (with acpSessions.showChanges) the row say which files its
// tool calls wrote and how many lines, the transcript's header lists them, and a file's diff opens
// read-only from the session's own texts with nothing written to disk.
// Screenshots: test-results/screenshots/{changes-tooltip,changes-header}.png (`--update-screenshots` copies them to media/screenshots/).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { FrameLocator, Locator } from 'playwright-core';
import { writeSession, type StoredSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, useWorkbench } from './harness';

const TITLE = 'Bump the version and note it';
const OTHER = 'Only talked';
const APP_BEFORE = '// app\n\nexport const version = 1;\n';
const APP_AFTER = '// app\n\nexport const version = 2;\nexport const codename = "heron";\n';

const text = (t: string) => ({ type: 'text', text: t });

function session(folder: string, sessionId: string, title: string, minutesAgo: number, updates: Record<string, unknown>[]): StoredSession {
  return { sessionId, cwd: folder, title, updatedAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(), archived: false, deleted: false, updates: updates as never };
}

function edit(id: string, path: string, oldText: string | null, newText: string): Record<string, unknown>[] {
  return [
    { sessionUpdate: 'tool_call', toolCallId: id, title: `Edit ${path.split('/').pop()}`, kind: 'edit', status: 'pending', locations: [{ path }] },
    { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'diff', path, oldText, newText }] },
  ];
}

const ui = useWorkbench('changes', async ({ folder, store }) => {
  mkdirSync(join(folder, 'src'));
  // The file as it is on disk: the session's last text is not written anywhere by opening its diff.
  writeFileSync(join(folder, 'src', 'app.ts'), APP_BEFORE);
  await writeSession(store, session(folder, 'sess_changes', TITLE, 5, [
    { sessionUpdate: 'user_message_chunk', messageId: 'u1', content: text('Bump the version to 2, name it, and add a note.') },
    { sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: text('I will edit `src/app.ts` and add `NOTES.md`.') },
    ...edit('t1', join(folder, 'src', 'app.ts'), APP_BEFORE, '// app\n\nexport const version = 2;\n'),
    ...edit('t2', join(folder, 'src', 'app.ts'), '// app\n\nexport const version = 2;\n', APP_AFTER),
    ...edit('t3', join(folder, 'NOTES.md'), null, '# Notes\n\n- Version 2, "heron".\n'),
    { sessionUpdate: 'agent_message_chunk', messageId: 'a2', content: text('Done.') },
  ]));
  await writeSession(store, session(folder, 'sess_other', OTHER, 30, [{ sessionUpdate: 'user_message_chunk', content: text('just a question') }]));
  // Nothing loads a session behind the user's back here: what is known comes from the transcript opened.
  return { agents: [referenceAgent(store)], folders: [folder], settings: { 'acpSessions.search.backgroundIndexing': false, 'acpSessions.showChanges': true } };
}, {
  ready: async ({ row }) => { await row(TITLE).waitFor({ timeout: HANG_GUARD_MS }); },
});
const { until } = ui;

const webview = (): FrameLocator => ui.wb.webviewFrame();
const hovers = () => ui.page.locator('.monaco-hover, .workbench-hover').filter({ visible: true });

/** The hover VS Code shows for the row once the pointer rests on it, which holds `part`. */
async function tooltipOf(row: Locator, part: string): Promise<Locator> {
  await ui.page.mouse.move(0, 0);
  await until('no tooltip is up', async () => (await hovers().count()) === 0);
  await row.hover();
  const hover = ui.page.locator('.monaco-hover, .workbench-hover').filter({ hasText: part }).first();
  await until(`the row's tooltip (with ${JSON.stringify(part)}) is up`, () => hover.isVisible().catch(() => false));
  return hover;
}

test('a session\'s changed files show in its tooltip after it was opened and its diff opens read-only with nothing written', async () => {
  const row = ui.row(TITLE);
  const before = await tooltipOf(row, 'Changes:');
  assert.match(await before.innerText(), /Changes: not known yet\. Open it to see what it changed\./);
  assert.doesNotMatch(await before.innerText(), /0 files/);
  await ui.page.mouse.move(0, 0);

  await row.click();
  await ui.wb.transcriptShown(TITLE);
  await until('the transcript has finished loading', async () => (await webview().locator('body[data-loading="false"]').count().catch(() => 0)) > 0);
  // The header lists the files, in a fold.
  const summary = webview().locator('#header .changes-summary');
  await summary.waitFor({ timeout: HANG_GUARD_MS });
  assert.match(await summary.innerText(), /2 files changed \+5 −1/);
  await summary.click();
  const files = webview().locator('#header .changes-file');
  await until('the header lists both files', async () => (await files.count()) === 2 && (await files.first().isVisible()));
  assert.match(await files.nth(0).innerText(), /src\/app\.ts \+2 −1/);
  assert.match(await files.nth(1).innerText(), /NOTES\.md \+3 −0/);
  await ui.wb.screenshot('changes-header');

  // The row now says what it changed: in its description (acpSessions.showChanges) and its tooltip.
  await until('the row shows the figure', async () => /2 files, \+5 −1/.test(await row.innerText().catch(() => '')));
  const after = await tooltipOf(row, 'Changes: 2 files');
  const tip = await after.innerText();
  assert.match(tip, /Changes: 2 files, \+5 −1/);
  assert.match(tip, /• src\/app\.ts \(\+2 −1\)/);
  assert.match(tip, /• NOTES\.md \(\+3 −0\)/);
  await ui.wb.screenshot('changes-tooltip');
  await ui.page.mouse.move(0, 0);

  // The first file's diff: from the session's first old text to its last new text, read-only.
  await files.nth(0).locator('.change-diff').click();
  const activeTab = ui.page.locator('.tabs-container .tab.active');
  await until('the diff editor shows app.ts from this session, read-only', async () =>
    /app\.ts \(in this session, read-only\)/.test(await activeTab.innerText().catch(() => '')) && (await ui.page.locator('.editor-group-container.active .monaco-diff-editor').count()) > 0);
  const diffEditor = ui.page.locator('.editor-group-container.active .monaco-diff-editor');
  await until('the diff shows the session\'s first old text against its last new text', async () => {
    // (An editor's lines space with no-break spaces.)
    const original = (await diffEditor.locator('.editor.original .view-lines').innerText().catch(() => '')).replace(/\s+/g, ' ');
    const modified = (await diffEditor.locator('.editor.modified .view-lines').innerText().catch(() => '')).replace(/\s+/g, ' ');
    return /version = 1/.test(original) && !/codename/.test(original) && /version = 2/.test(modified) && /codename/.test(modified);
  });
  // Typing into it changes nothing: the documents are read-only and nothing is written to disk.
  await diffEditor.locator('.editor.modified .view-lines').click();
  await ui.page.keyboard.type('typed');
  await until('VS Code says the editor is read-only', async () => (await ui.page.locator('.monaco-editor-overlaymessage, .monaco-hover').filter({ hasText: /read-only/i }).count()) > 0);
  assert.doesNotMatch(await diffEditor.innerText(), /typed/);
  assert.equal(readFileSync(join(ui.folder, 'src', 'app.ts'), 'utf8'), APP_BEFORE);
  assert.equal(existsSync(join(ui.folder, 'NOTES.md')), false, 'the file the session created is not created by looking at it');

  // A session a replay of which was never seen still says so.
  await ui.page.mouse.move(0, 0);
  assert.match(await (await tooltipOf(ui.row(OTHER), 'Changes:')).innerText(), /not known yet/);
  await ui.wb.closeEditors();
});
