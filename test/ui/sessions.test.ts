// The Sessions view in a real browser driving a real VS Code, against the reference agent:
// archive through a row's inline action, unarchive from the Archived section, delete through
// the context menu and the modal dialog; each step checked in the tree and in the store on
// disk. Screenshots of both sections go to test-results/screenshots/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { readSession, writeSession, type StoredSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, useWorkbench } from './harness';

function session(sessionId: string, title: string, cwd: string, hoursAgo: number, archived = false): StoredSession {
  return {
    sessionId,
    cwd,
    title,
    updatedAt: new Date(Date.now() - hoursAgo * 3_600_000).toISOString(),
    archived,
    deleted: false,
    updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: title } }],
  };
}

const ui = useWorkbench('sessions', async ({ work, folder, store }) => {
  const library = join(work, 'library');
  mkdirSync(library);
  for (const s of [
    session('s-parser', 'Refactor the parser', folder, 1),
    session('s-notes', 'Write the release notes', folder, 2),
    session('s-flaky', 'Fix the flaky test', folder, 3),
    session('s-spike', 'Old performance spike', folder, 26, true),
    session('s-lib', 'Port the library to ESM', library, 5),
  ]) {
    await writeSession(store, s);
  }
  return { agents: [referenceAgent(store)], folders: [folder, library] };
});
const { rowWithText: row, until } = ui;

/** The labels of the tree's rows, top to bottom (the tree is virtualised; it is small here). */
async function labels(): Promise<string[]> {
  return ui.pane.locator('.monaco-list-row .label-name').allInnerTexts();
}

/** Which section a session row is in: the nearest section header above it. */
async function sectionOf(title: string): Promise<string | undefined> {
  const all = await labels();
  const index = all.indexOf(title);
  if (index < 0) return undefined;
  return all.slice(0, index).reverse().find((l) => l === 'Active' || l === 'Archived');
}

async function expandArchived(): Promise<void> {
  const header = row('Archived').first();
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  await until('Archived is expanded', async () => (await header.getAttribute('aria-expanded')) === 'true');
}

test('the Active section lists the sessions of each workspace folder, grouped by folder', async () => {
  await row('Refactor the parser').waitFor({ timeout: 60_000 });
  await row('Port the library to ESM').waitFor();
  assert.equal(await sectionOf('Refactor the parser'), 'Active');
  assert.equal(await sectionOf('Fix the flaky test'), 'Active');
  const all = await labels();
  const folderOf = (title: string) => all.slice(0, all.indexOf(title)).reverse().find((l) => l === 'project' || l === 'library');
  assert.equal(folderOf('Refactor the parser'), 'project');
  assert.equal(folderOf('Port the library to ESM'), 'library');
  await ui.wb.screenshot('sessions-active');
});

test('the agent\'s tooltip shows on hover, asked for then: its state and its kept copies', async () => {
  const hovers = () => ui.page.locator('.monaco-hover, .workbench-hover').filter({ visible: true });
  await ui.page.mouse.move(0, 0);
  await until('no tooltip is up', async () => (await hovers().count()) === 0);
  await ui.row('Reference').hover();
  const hover = hovers().filter({ hasText: 'State: connected' }).first();
  await until('the agent\'s tooltip is up', () => hover.isVisible().catch(() => false));
  assert.match(await hover.innerText(), /Kept copies: /);
  await ui.page.mouse.move(0, 0);
  await until('the tooltip is gone', async () => (await hovers().count()) === 0);
});

test('Find Session… searches the loaded sessions and opens the picked one\'s transcript', async () => {
  await ui.wb.runCommand('ACP Sessions: Find Session…');
  const input = ui.page.locator('.quick-input-widget input');
  await input.waitFor();
  await ui.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Port the library to ESM' }).waitFor();
  await input.fill('library');
  const pick = ui.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Port the library to ESM' });
  await pick.waitFor();
  assert.equal(await ui.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Refactor the parser' }).count(), 0);
  await ui.page.keyboard.press('Enter');
  await ui.page.locator('.tabs-container .tab', { hasText: 'Port the library to ESM' }).waitFor();
});

test('the inline Archive action moves a session to Archived and the agent stores it archived', async () => {
  const target = row('Write the release notes');
  await target.hover();
  await target.locator('.action-label[aria-label="Archive"]').click();
  await until('the agent stores it archived', async () => (await readSession(ui.store, 's-notes'))?.archived === true);
  // The notification (with its Undo) is in the notification center, whether or not a toast shows.
  await ui.wb.runCommand('Notifications: Show Notifications');
  const notification = ui.page.locator('.notifications-center .notification-list-item', { hasText: 'Archived "Write the release notes".' });
  await notification.waitFor();
  assert.ok(await notification.locator('.monaco-button', { hasText: 'Undo' }).count(), 'the notification offers Undo');
  await ui.page.keyboard.press('Escape');
  await expandArchived();
  await until('the session is under Archived', async () => (await sectionOf('Write the release notes')) === 'Archived');
  assert.equal((await readSession(ui.store, 's-notes'))?.archived, true);
  await ui.wb.screenshot('sessions-archived');
});

test('the inline Unarchive action in Archived moves a session back to Active', async () => {
  await expandArchived();
  const target = row('Old performance spike');
  await target.waitFor();
  assert.equal(await sectionOf('Old performance spike'), 'Archived');
  await target.hover();
  await target.locator('.action-label[aria-label="Unarchive"]').click();
  await until('the session is under Active', async () => (await sectionOf('Old performance spike')) === 'Active');
  assert.equal((await readSession(ui.store, 's-spike'))?.archived, false);
});

test('Delete… in the context menu asks in a modal naming the session, then removes it', async () => {
  await ui.contextMenu(row('Fix the flaky test'), 'Delete…');
  const dialog = await ui.dialog(/Delete the session "Fix the flaky test"\?/);
  await ui.wb.screenshot('sessions-delete-confirmation');
  await dialog.locator('.monaco-button', { hasText: /^Delete$/ }).click();
  await until('the session is gone from the tree', async () => (await row('Fix the flaky test').count()) === 0);
  assert.equal((await readSession(ui.store, 's-flaky'))?.deleted, true);
  await expandArchived();
  await ui.wb.screenshot('sessions-both-sections');
});

/** Delete on the session's row: the modal names it; Escape cancels, and the agent keeps it. */
async function deleteByKeyThenCancel(target: Locator, title: string, sessionId: string): Promise<void> {
  const dialog = ui.page.locator('.monaco-dialog-box');
  await ui.wb.pressOnRow(target, 'Delete', { what: 'a dialog asks to delete it', holds: () => dialog.isVisible() });
  await ui.dialog(new RegExp(`Delete the session "${title}"\\?`));
  await ui.page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached', timeout: HANG_GUARD_MS });
  assert.equal((await readSession(ui.store, sessionId))?.deleted, false, 'cancelled: nothing deleted');
}

test('Enter on a selected session opens its transcript, Delete asks to delete it, and F2 renames it', async () => {
  const title = 'Refactor the parser';
  const target = row(title).first();
  const tab = ui.page.locator('.tabs-container .tab', { hasText: title });
  const transcriptShown = async () => (await tab.count()) > 0 && (await ui.wb.webviewFrame().locator('#timeline:not([data-rows="0"])').count()) > 0;
  // Closed again each time: an open webview can take the focus back from the tree.
  const closeTranscript = async () => {
    await ui.wb.runCommand('View: Close All Editors');
    await tab.waitFor({ state: 'detached', timeout: HANG_GUARD_MS });
  };
  // A click selects the row (and opens the transcript).
  await target.click();
  await until('the transcript is open', transcriptShown);
  await closeTranscript();

  await ui.wb.focusSessionsView();
  await ui.wb.pressOnRow(target, 'Enter', { what: 'the transcript opens', holds: transcriptShown });
  await closeTranscript();

  await ui.wb.focusSessionsView();
  await deleteByKeyThenCancel(target, title, 's-parser');
  assert.equal(await row(title).count(), 1);

  await ui.wb.focusSessionsView();
  const input = ui.page.locator('.quick-input-widget input');
  await ui.wb.pressOnRow(target, 'F2', { what: 'the Rename box asks for a title', holds: () => input.isVisible() });
  await ui.quickInput();
  assert.equal(await input.inputValue(), title);
  await input.fill('Refactor the parser, part 2');
  await ui.page.keyboard.press('Enter');
  await until('the agent stores the new title', async () => (await readSession(ui.store, 's-parser'))?.title === 'Refactor the parser, part 2');
  await row('Refactor the parser, part 2').waitFor({ timeout: HANG_GUARD_MS });
});

test('Delete on a selected session right after its section was redrawn still asks about that session', async () => {
  const title = 'Port the library to ESM';
  const target = row(title).first();
  // The click opens the transcript: once it shows, nothing takes the focus from what follows.
  await target.click();
  await ui.wb.transcriptShown(title);
  await ui.wb.closeEditors();
  await ui.wb.focusSessionsView();
  // A session written by another process, then Refresh: the section's count changes and VS Code
  // redraws it with the selected row in it, dropping the row's handle until it has fetched it again.
  await writeSession(ui.store, session('s-new', 'Written by another process', join(ui.work, 'library'), 0.5));
  await ui.wb.runCommand('ACP Sessions: Refresh');
  await ui.wb.focusSessionsView();
  await deleteByKeyThenCancel(target, title, 's-lib');
});
