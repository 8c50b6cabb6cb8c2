// Issue 24 in a real browser driving a real VS Code, against the reference agent: Resume in
// Terminal (a stand-in CLI that prints its arguments, run directly by the terminal; not offered
// for an id that is not a plain token, and refused with the whole rule from the palette), Copy Link
// opened through VS Code's own URL handling, walking a transcript by its prompts (keys and Go to
// Prompt…) and opening a tool call's location and diff, Pin / Unpin with a pin the agent no longer
// lists shown as gone (Pin not offered on, and refused for, an archived session; Unpin kept for a
// pinned one archived since), and Export Sessions… whose replay reopens as the same transcript.
// Screenshots: test-results/screenshots/{resume-terminal,go-to-prompt,session-link,pins,export-reopened}.png.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { FrameLocator, Locator } from 'playwright-core';
import { markSessionDeleted, writeSession, type StoredSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, useWorkbench } from './harness';

const WALK = 'sess_walk';
const WALK_TITLE = 'Walk through the release';
const PROMPTS = ['First prompt: plan the release', 'Second prompt: bump the version', 'Third prompt: write the changelog'];
const PIN = 'sess_pin';
const GONE = 'sess_gone';
const OTHER = 'sess_other';
const OTHER_TITLE = 'An ordinary session';
/** An id a program would read as an option: never passed to one. */
const DASH = '-rf';
const DASH_TITLE = 'Its id starts with a dash';
const ARCHIVED = 'sess_archived';
const ARCHIVED_TITLE = 'Put away for good';

const text = (t: string) => ({ type: 'text', text: t });

function session(folder: string, sessionId: string, title: string, minutesAgo: number, updates: Record<string, unknown>[] = []): StoredSession {
  return { sessionId, cwd: folder, title, updatedAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(), archived: false, deleted: false, updates: updates as never };
}

function walkUpdates(folder: string): Record<string, unknown>[] {
  const file = join(folder, 'src', 'app.ts');
  const updates: Record<string, unknown>[] = [];
  PROMPTS.forEach((prompt, i) => {
    updates.push({ sessionUpdate: 'user_message_chunk', messageId: `u${i}`, content: text(prompt), _meta: { timestamp: `2026-05-0${i + 1}T09:30:00Z` } });
    for (let j = 0; j < 12; j++) updates.push({ sessionUpdate: 'agent_message_chunk', messageId: `a${i}-${j}`, content: text(`Answer ${i + 1}.${j + 1}: a paragraph long enough to take a line or two of the transcript.`) });
  });
  updates.push({ sessionUpdate: 'tool_call', toolCallId: 'edit', title: 'Edit src/app.ts', kind: 'edit', status: 'completed', locations: [{ path: file, line: 3 }], content: [{ type: 'diff', path: file, oldText: 'export const version = 1;\n', newText: 'export const version = 2;\n' }] });
  return updates;
}

const ui = useWorkbench('actions', async ({ work, folder, store }) => {
  mkdirSync(join(folder, 'src'));
  writeFileSync(join(folder, 'src', 'app.ts'), '// app\n\nexport const version = 1;\n');
  await writeSession(store, session(folder, WALK, WALK_TITLE, 1, walkUpdates(folder)));
  await writeSession(store, session(folder, PIN, 'Keep this one at hand', 50, [{ sessionUpdate: 'user_message_chunk', content: text('pin me') }]));
  await writeSession(store, session(folder, GONE, 'Deleted behind our back', 60, [{ sessionUpdate: 'user_message_chunk', content: text('soon gone') }]));
  await writeSession(store, session(folder, OTHER, OTHER_TITLE, 30, [{ sessionUpdate: 'user_message_chunk', content: text('ordinary') }]));
  await writeSession(store, session(folder, DASH, DASH_TITLE, 40, [{ sessionUpdate: 'user_message_chunk', content: text('dash') }]));
  await writeSession(store, { ...session(folder, ARCHIVED, ARCHIVED_TITLE, 70, [{ sessionUpdate: 'user_message_chunk', content: text('done') }]), archived: true });
  // The stand-in CLI: prints each argument it was given, one a line, then waits to be closed.
  const standIn = join(work, 'stand-in-cli');
  writeFileSync(standIn, '#!/bin/sh\nfor a in "$@"; do printf "ARG[%s]\\n" "$a"; done\nexec sleep 600\n');
  chmodSync(standIn, 0o755);
  mkdirSync(join(work, 'exports'));
  return {
    agents: [{ ...referenceAgent(store), resume: [standIn, '--resume', '${sessionId}', '--cwd', '${cwd}'] }],
    folders: [folder],
    // xterm's DOM renderer: its rows are text the test can read.
    settings: { 'terminal.integrated.gpuAcceleration': 'off' },
  };
}, {
  ready: async ({ row }) => { await row(WALK_TITLE).waitFor({ timeout: HANG_GUARD_MS }); },
});
const { until } = ui;

const webview = (): FrameLocator => ui.wb.webviewFrame();
const activeTab = () => ui.page.locator('.tabs-container .tab.active').first();

async function openWalk(): Promise<void> {
  await ui.row(WALK_TITLE).click();
  await until('the walk transcript has replayed', async () => (await webview().locator('body[data-loading="false"]').count()) > 0 && (await webview().locator('.row').count()) > 0);
}

async function headerButton(label: string): Promise<Locator> {
  const button = webview().locator(`#header button[aria-label="${label}"]`);
  await button.waitFor({ timeout: HANG_GUARD_MS });
  return button;
}

/** The text of the webview's focused element. */
async function focusedRowText(): Promise<string> {
  return webview().locator('body').evaluate(() => (document.activeElement?.closest('.row') as HTMLElement | null)?.innerText ?? '');
}

test('Resume in Terminal from the transcript header runs the stand-in CLI directly, with the id and folder as separate arguments, in a terminal named after the session', async () => {
  await openWalk();
  await (await headerButton('Resume in Terminal')).click();
  const rows = ui.page.locator('.terminal-wrapper.active .xterm-rows, .terminal .xterm-rows').first();
  await until('the terminal shows the stand-in CLI\'s arguments', async () => {
    const shown = (await rows.innerText().catch(() => '')).replace(/\u00a0/g, ' ');
    return shown.includes('ARG[--resume]') && shown.includes(`ARG[${WALK}]`) && shown.includes(`ARG[${ui.folder}]`);
  });
  const shown = (await rows.innerText()).replace(/\u00a0/g, ' ');
  assert.deepEqual(shown.split('\n').filter((l) => l.startsWith('ARG[')).map((l) => l.trim()), ['ARG[--resume]', `ARG[${WALK}]`, 'ARG[--cwd]', `ARG[${ui.folder}]`]);
  await until('the terminal is named after the session', async () => (await ui.page.locator('[id="workbench.parts.panel"]').innerText().catch(() => '')).includes(WALK_TITLE));
  await ui.wb.screenshot('resume-terminal');
  await ui.wb.runCommand('View: Hide Panel');
});

test('Previous / Next Prompt keys and Go to Prompt… bring the prompts into view; a location opens its file at the line, a diff opens read-only', async () => {
  await openWalk();
  await webview().locator('.row').first().click();
  for (const [key, expected] of [['Control+Alt+ArrowDown', PROMPTS[1]], ['Control+Alt+ArrowDown', PROMPTS[2]], ['Control+Alt+ArrowUp', PROMPTS[1]]] as const) {
    await ui.page.keyboard.press(key);
    await until(`${key} focuses the prompt "${expected}"`, async () => (await focusedRowText()).includes(expected)).catch(async (error: Error) => {
      throw new Error(`${error.message}\nlast step: ${await webview().locator('body').getAttribute('data-prompt-step')}; focused: ${await focusedRowText()}`);
    });
  }
  await (await headerButton('Go to Prompt…')).click();
  await ui.quickInput();
  const first = ui.page.locator('.quick-input-list .monaco-list-row', { hasText: PROMPTS[0] });
  await first.waitFor({ timeout: HANG_GUARD_MS });
  // Each prompt with its time (the agent's own _meta.timestamp) and its place.
  assert.match(await first.innerText(), /2026.*prompt 1 of 3|prompt 1 of 3/s);
  assert.match(await first.innerText(), /5\/1\/2026|2026/);
  await ui.wb.screenshot('go-to-prompt');
  await (await ui.quickInput()).fill('changelog');
  await until('the quick pick is filtered to the third prompt', async () => (await ui.page.locator('.quick-input-list .monaco-list-row').count()) === 1);
  await ui.page.keyboard.press('Enter');
  await until('Go to Prompt focuses the third prompt', async () => (await focusedRowText()).includes(PROMPTS[2]));

  // The tool call: open its row, then its location and its diff.
  const tool = webview().locator('.row', { hasText: 'Edit src/app.ts' });
  await tool.locator('.row-head').first().click();
  const location = tool.locator('[data-tool="location:0"]');
  await location.waitFor({ timeout: HANG_GUARD_MS });
  await location.focus();
  await ui.page.keyboard.press('Enter');
  await until('app.ts is open at line 3', async () => (await ui.page.locator('.tab', { hasText: 'app.ts' }).count()) > 0 && /Ln 3\b/.test(await ui.page.locator('.statusbar').innerText().catch(() => '')));
  await ui.page.locator('.tab', { hasText: WALK_TITLE }).click();
  await webview().locator('.row', { hasText: 'Edit src/app.ts' }).locator('[data-tool="diff:0"]').click();
  await until('the diff editor shows the tool call\'s change, read-only', async () => {
    const tab = await activeTab().innerText().catch(() => '');
    return tab.includes('read-only') && (await ui.page.locator('.editor-group-container.active .monaco-diff-editor').count()) > 0;
  });
  // Nothing was written: the file on disk is as it was.
  const { readFileSync } = await import('node:fs');
  assert.equal(readFileSync(join(ui.folder, 'src', 'app.ts'), 'utf8'), '// app\n\nexport const version = 1;\n');
  await ui.wb.closeEditors();
});

test('Copy Link gives a link that VS Code\'s own URL handling (its web callback page) opens as the transcript', async () => {
  await ui.wb.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ui.wb.url).origin });
  // From the tree's context menu (the header offers it too); the clipboard is the window's.
  await contextMenu(ui.row(WALK_TITLE), 'Copy Link');
  let link = '';
  let problem = '';
  await until('the link is on the clipboard', async () => {
    link = await ui.page.evaluate(() => navigator.clipboard.readText()).catch((e: Error) => {
      problem = e.message;
      return '';
    });
    return link.includes('Reference') && link.includes(WALK);
  }).catch((error: Error) => {
    throw new Error(`${error.message}\nclipboard: ${JSON.stringify(link)} ${problem}`);
  });
  await ui.wb.closeEditors();
  // In a browser the window's scheme is made an http link to VS Code's callback page (asExternalUri).
  assert.match(link, /^https?:\/\/127\.0\.0\.1:\d+\/(.+\/)?callback\?vscode-reqid=/);
  const other = await ui.wb.context.newPage();
  await other.goto(link);
  await until('the link opened the transcript in the workbench', async () => (await ui.page.locator('.tab', { hasText: WALK_TITLE }).count()) > 0);
  await other.close();
  await ui.page.bringToFront();
  await ui.wb.screenshot('session-link');

  await ui.wb.runCommand('Notifications: Clear All Notifications');
  await ui.wb.closeEditors();
});

/**
 * A link Copy Link made (a fresh request id of VS Code's callback page each time) with the
 * session's fields replaced, as anyone could hand one around.
 */
async function alteredLink(row: Locator, fields: Record<string, string>): Promise<string> {
  await ui.page.evaluate(() => navigator.clipboard.writeText(''));
  await contextMenu(row, 'Copy Link');
  let link = '';
  await until('a new link is on the clipboard', async () => {
    link = await ui.page.evaluate(() => navigator.clipboard.readText()).catch(() => '');
    return link.includes('callback?');
  });
  const url = new URL(link);
  const query = new URLSearchParams(url.searchParams.get('vscode-query') ?? '');
  assert.ok(query.get('session'), `the link carries the session in its query: ${link}`);
  for (const [key, value] of Object.entries(fields)) query.set(key, value);
  url.searchParams.set('vscode-query', query.toString());
  return url.toString();
}

/** Opens `link` in another tab of the browser, as a click in a chat or a mail would. */
async function openElsewhere(link: string): Promise<void> {
  const other = await ui.wb.context.newPage();
  await other.goto(link);
  await other.close();
  await ui.page.bringToFront();
}

async function notificationWith(text: string): Promise<Locator> {
  await ui.wb.runCommand('Notifications: Show Notifications');
  const item = ui.page.locator('.notifications-center .notification-list-item', { hasText: text }).first();
  await item.waitFor({ timeout: HANG_GUARD_MS });
  return item;
}

test('a link to an agent this window does not run says so with the link\'s words as text; one to a session no list holds asks first in VS Code\'s modal, where Escape opens nothing', async () => {
  await ui.wb.runCommand('Notifications: Clear All Notifications');
  const stranger = 'Stranger [Run](command:workbench.action.terminal.new) $(zap)';
  await openElsewhere(await alteredLink(ui.row(OTHER_TITLE), { agent: stranger }));
  const notConfigured = await notificationWith('which is not configured in this window');
  const message = notConfigured.locator('.notification-list-item-message');
  assert.ok((await message.innerText()).replace(/\u200B/g, '').includes(`agent "${stranger}"`), 'the agent named as written, brackets and $( as text');
  assert.equal(await message.locator('a').count(), 0, 'no link in the message');
  assert.equal(await message.locator('.codicon').count(), 0, 'no icon in the message');
  assert.ok(await notConfigured.locator('.monaco-button', { hasText: 'Open Settings' }).count(), 'the next step is offered');
  assert.equal(await ui.page.locator('.tab').count(), 0, 'no tab opened');
  await ui.wb.runCommand('Notifications: Clear All Notifications');

  // A session no list holds: VS Code's modal asks first, naming agent, folder and session as text.
  const nowhere = await alteredLink(ui.row(OTHER_TITLE), { session: 'sess_nowhere' });
  await openElsewhere(nowhere);
  let dialog = await ui.dialog(/Open the session this link names\?/);
  const asked = await dialog.innerText();
  for (const part of ['Agent: Reference', `Folder: ${ui.folder}`, 'Session: sess_nowhere', 'does not list this session']) assert.ok(asked.includes(part), `the dialog says "${part}": ${asked}`);
  assert.equal(await dialog.locator('.dialog-message-container a').count(), 0, 'no link in the text of the dialog');
  // Escape: the dialog goes, and nothing opened.
  await ui.page.keyboard.press('Escape');
  await until('the dialog closed', async () => (await ui.page.locator('.monaco-dialog-box').count()) === 0);
  assert.equal(await ui.page.locator('.tab').count(), 0, 'Escape opened no tab');
  await ui.wb.screenshot('session-link-asked');
  await openElsewhere(await alteredLink(ui.row(OTHER_TITLE), { session: 'sess_nowhere' }));
  dialog = await ui.dialog(/Open the session this link names\?/);
  await dialog.locator('.monaco-button', { hasText: /^Open Session$/ }).click();
  // Opened anyway, the tab shows the agent's answer; the notification says it too.
  await until('the linked tab shows the agent\'s answer', async () => (await webview().locator('text=sess_nowhere').count().catch(() => 0)) > 0);
  await ui.wb.screenshot('session-link-missing');
  // F1 goes to the workbench once the tab (a webview that holds the focus) is closed.
  await ui.wb.closeEditors();
  await notificationWith('could not open the linked session sess_nowhere');
  await ui.wb.runCommand('Notifications: Clear All Notifications');
});

/** The Active section's session rows, top to bottom, by label. */
async function activeLabels(): Promise<string[]> {
  return ui.pane.locator('.monaco-list-row[aria-level="3"] .label-name').allInnerTexts();
}

const contextMenu = (row: Locator, item: string) => ui.contextMenu(row, item);

test('Pin puts a session first in Active, kept per agent and session; a pin the agent no longer lists shows as gone until unpinned', async () => {
  await contextMenu(ui.row('Keep this one at hand'), 'Pin');
  await until('the pinned session is the first in Active', async () => (await activeLabels())[0] === 'Keep this one at hand');
  await contextMenu(ui.row('Deleted behind our back'), 'Pin');
  await until('both pinned sessions lead Active', async () => (await activeLabels()).slice(0, 2).sort().join('|') === ['Deleted behind our back', 'Keep this one at hand'].sort().join('|'));
  // Another process deletes it; the agent no longer lists it.
  assert.equal(await markSessionDeleted(ui.store, GONE), true);
  await ui.wb.runCommand('ACP Sessions: Refresh');
  const gone = ui.rowWithText(/Deleted behind our back.*gone/);
  await gone.waitFor({ timeout: HANG_GUARD_MS });
  await ui.wb.screenshot('pins');
  // A gone pin by keyboard: selected, then Unpin from the palette.
  await gone.click();
  await until('the gone pin is selected', async () => (await gone.getAttribute('aria-selected')) === 'true');
  await ui.wb.runCommand('ACP Sessions: Unpin');
  await until('the gone pin is removed', async () => (await ui.pane.locator('.monaco-list-row', { hasText: 'Deleted behind our back' }).count()) === 0);
  await contextMenu(ui.row('Keep this one at hand'), 'Unpin');
  await until('the unpinned session is back in the agent\'s order', async () => (await activeLabels())[0] === WALK_TITLE);
});

/**
 * The transcript's text once it is settled: replayed, and no Markdown pass to come (streamed rows
 * show plain text first; read before the pass, the same transcript reads differently).
 */
/**
 * The rows the transcript has built, top down, each as its key and text, once it is loaded and its
 * Markdown pass is done. Which rows past the screen are built depends on when measured heights
 * refill the margin, so two reads of one transcript may differ by rows at the end (`samePrefix`).
 */
async function settledRows(): Promise<{ key: string; text: string }[]> {
  await webview().locator('body[data-loading="false"][data-markdown="done"]').waitFor({ timeout: HANG_GUARD_MS });
  return webview().locator('#timeline .row').evaluateAll((rows) => rows.map((r) => ({ key: (r as HTMLElement).dataset.key ?? '', text: (r as HTMLElement).innerText })));
}

/** Both reads show the same transcript: the rows one has built are the first rows of the other, key for key and word for word. */
function samePrefix(a: { key: string; text: string }[], b: { key: string; text: string }[]): void {
  const shorter = Math.min(a.length, b.length);
  assert.ok(shorter > 0, 'both show rows');
  assert.deepEqual(a.slice(0, shorter), b.slice(0, shorter));
}

test('Export Sessions… writes each session as Markdown and as its replay, and Open Exported Transcript… shows the replay as the same transcript', async () => {
  const folder = join(ui.work, 'exports');
  // Before: the transcript as the agent replays it.
  await openWalk();
  const original = await settledRows();
  // Waited for: a tab that closes after the next quick input opened took its focus and closed it.
  await ui.wb.closeEditors();

  await ui.wb.runCommand('ACP Sessions: Export Sessions…');
  await ui.quickInput();
  await ui.page.locator('.quick-input-widget .monaco-button', { hasText: /^OK$/ }).click();
  let count = 0;
  await until('the preview lists the sessions to export', async () => {
    const match = /Export (\d+) sessions/.exec(await ui.page.locator('.quick-input-widget').innerText().catch(() => ''));
    count = Number(match?.[1] ?? 0);
    return count > 0;
  });
  await ui.quickInput();
  await ui.page.keyboard.press('Enter');
  // VS Code's own folder dialog (in a browser, its quick input): the folder's path, then its OK.
  await ui.wb.answerFileDialog(`${folder}/`, 'Export Here');
  await until(`${count} Markdown files and ${count} replays are in the folder`, () => readdirSync(folder).length === 2 * count);
  await ui.wb.runCommand('Notifications: Show Notifications');
  await ui.page.locator('.notifications-center .notification-list-item', { hasText: `Exported ${count} of ${count} sessions` }).waitFor({ timeout: HANG_GUARD_MS });
  await ui.wb.runCommand('Notifications: Clear All Notifications');
  const files = readdirSync(folder).sort();
  assert.equal(files.filter((f) => f.endsWith('.md')).length, count, files.join(', '));
  assert.equal(files.filter((f) => f.endsWith('.acp.ndjson')).length, count, files.join(', '));
  const replay = join(folder, files.find((f) => f.startsWith('Walk through the release') && f.endsWith('.acp.ndjson'))!);
  assert.ok(existsSync(replay));

  await ui.wb.runCommand('ACP Sessions: Open Exported Transcript…');
  await ui.wb.answerFileDialog(replay, 'Open Transcript');
  await until('the exported transcript is open, read-only', async () => (await webview().locator('#header .exported').count()) > 0 && (await webview().locator('body[data-loading="false"]').count()) > 0);
  samePrefix(await settledRows(), original);
  assert.equal(await webview().locator('#header button[aria-label="Resume in Terminal"]').count(), 0);
  await ui.wb.screenshot('export-reopened');
});

/** Clicks a session's row (which opens its transcript) and waits until it is selected and its transcript shows. */
async function selectSession(row: Locator, title: string): Promise<void> {
  await row.click();
  await until(`the row of "${title}" is selected`, async () => (await row.getAttribute('aria-selected')) === 'true');
  await ui.wb.transcriptShown(title);
}

test('Resume in Terminal is not offered for a session whose id is not a plain token; from the palette it is refused with the whole rule', async () => {
  await ui.wb.closeEditors();
  await ui.wb.runCommand('Notifications: Clear All Notifications');
  // The menu of an ordinary id offers it: the check below is of the id, not of the agent.
  assert.ok((await ui.menuEntries(ui.row(OTHER_TITLE))).includes('Resume in Terminal'), 'offered for a plain id');
  const entries = await ui.menuEntries(ui.row(DASH_TITLE));
  assert.ok(entries.includes('Copy Link'), `the menu is the session's: ${entries.join(', ')}`);
  assert.ok(!entries.includes('Resume in Terminal'), `not offered for the id "${DASH}": ${entries.join(', ')}`);

  await selectSession(ui.row(DASH_TITLE), DASH_TITLE);
  await ui.wb.runCommand('ACP Sessions: Resume in Terminal');
  const refused = await notificationWith('is not a plain token');
  const said = (await refused.locator('.notification-list-item-message').innerText()).replace(/\u200B/g, '');
  for (const part of [`"${DASH_TITLE}"`, 'letters, digits, "_", "-", ".", ":"', 'starts with a letter or digit', 'never "-"', 'at most 200 characters']) {
    assert.ok(said.includes(part), `the refusal says ${part}: ${said}`);
  }
  await ui.wb.runCommand('Notifications: Clear All Notifications');
  await ui.wb.closeEditors();
});

test('Pin is not offered on an archived session, where pins order nothing, and from the palette it is refused; Unpin stays on a pinned session archived since', async () => {
  const archivedSection = ui.pane.locator('.monaco-list-row[aria-level="2"]', { has: ui.page.locator('.label-name', { hasText: /^Archived$/ }) });
  await archivedSection.click();
  const archivedRow = ui.row(ARCHIVED_TITLE);
  await archivedRow.waitFor({ timeout: HANG_GUARD_MS });
  const entries = await ui.menuEntries(archivedRow);
  assert.ok(entries.includes('Unarchive'), `the menu is the archived session's: ${entries.join(', ')}`);
  assert.ok(!entries.includes('Pin'), `Pin is not offered in Archived: ${entries.join(', ')}`);

  // From the palette, with the archived session selected: refused, and nothing is pinned.
  await selectSession(archivedRow, ARCHIVED_TITLE);
  await ui.wb.runCommand('ACP Sessions: Pin');
  const refused = await notificationWith('Not pinned');
  const said = (await refused.locator('.notification-list-item-message').innerText()).replace(/\u200B/g, '');
  assert.ok(said.includes(`"${ARCHIVED_TITLE}" is archived`) && said.includes('only the Active section'), said);
  assert.doesNotMatch((await archivedRow.getAttribute('aria-label')) ?? '', /pinned/, 'not pinned');
  await ui.wb.runCommand('Notifications: Clear All Notifications');
  await ui.wb.closeEditors();

  // Pinned in Active, then archived: Unpin is still there (Pin is not), and unpins it.
  await contextMenu(ui.row(OTHER_TITLE), 'Pin');
  await until('the pinned session is the first in Active', async () => (await activeLabels())[0] === OTHER_TITLE);
  await contextMenu(ui.row(OTHER_TITLE), 'Archive');
  const moved = ui.pane.locator('.monaco-list-row[aria-label*="archived session"]', { has: ui.page.locator('.label-name', { hasText: OTHER_TITLE }) });
  await until('the pinned session is in Archived, still pinned', async () => /pinned/.test((await moved.getAttribute('aria-label').catch(() => null)) ?? ''));
  const pinnedEntries = await ui.menuEntries(moved);
  assert.ok(pinnedEntries.includes('Unpin') && !pinnedEntries.includes('Pin'), pinnedEntries.join(', '));
  await contextMenu(moved, 'Unpin');
  await until('the archived session is unpinned', async () => !/pinned/.test((await moved.getAttribute('aria-label').catch(() => null)) ?? 'pinned'));
});
