// Clean Up Sessions… in a real browser driving a real VS Code, against the reference agent
// serving a store of 500 sessions over many dates and folders (some folders missing): the
// keyboard steps, a preview that lists exactly what the rule selects in the store, the archive
// run, one Undo for all of it, and a delete run of archived sessions only, after the modal.
// The preview's screenshot is test-results/screenshots/cleanup-preview.png.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { seedMany } from '../agent/seed';
import { readSession, type StoredSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, useWorkbench } from './harness';

const COUNT = 500;
const DAY = 86_400_000;

let ids: string[];

const ui = useWorkbench('cleanup', async ({ work, folder: project, store }) => {
  const library = join(work, 'library');
  mkdirSync(library);
  // Two folders that exist and two that are gone: a quarter of the sessions each.
  const sessions = await seedMany({ store, count: COUNT, folders: [project, library], missingFolders: [join(work, 'gone-spike'), join(work, 'gone-tmp')], days: 180, seed: 13 });
  ids = sessions.map((s) => s.sessionId);
  return { agents: [referenceAgent(store)], folders: [project], settings: { 'acpSessions.scope': 'all' } };
}, {
  // The tests start once the agent's sessions are listed.
  ready: async ({ rowWithText }) => { await rowWithText('Bulk session').first().waitFor({ timeout: HANG_GUARD_MS }); },
});
const { until } = ui;

/** The store as the agent serves it now, read from disk. */
async function storeNow(): Promise<StoredSession[]> {
  return Promise.all(ids.map(async (id) => (await readSession(ui.store, id))!));
}

const widget = () => ui.page.locator('.quick-input-widget');
const pickRow = (text: string | RegExp) => widget().locator('.quick-input-list .monaco-list-row', { hasText: text }).first();

/** Waits for a quick pick row, then makes it the active one by keyboard and presses Enter. */
async function chooseByKeyboard(text: string): Promise<void> {
  await pickRow(text).waitFor({ timeout: HANG_GUARD_MS });
  await ui.quickInput();
  await until(`"${text}" is the active row`, async () => {
    if (((await widget().locator('.quick-input-list .monaco-list-row.focused').first().innerText().catch(() => '')) ?? '').includes(text)) return true;
    await ui.page.keyboard.press('ArrowDown');
    return false;
  });
  await ui.page.keyboard.press('Enter');
}

/** Checks rules in the multi-select step (a click on a checkbox toggles it), then accepts with OK. */
async function checkRules(rules: string[]): Promise<void> {
  for (const rule of rules) {
    const row = pickRow(rule);
    await row.waitFor({ timeout: HANG_GUARD_MS });
    const checkbox = row.locator('input[type=checkbox], .monaco-custom-toggle').first();
    await checkbox.click();
    await until(`"${rule}" is checked`, async () => (await row.getAttribute('aria-checked')) === 'true' || (await checkbox.isChecked().catch(() => false)));
  }
  // Enter on a checked row would toggle it again: OK accepts, as a person clicks it.
  await widget().locator('.monaco-button', { hasText: /^OK$/ }).click();
}

async function answerInput(prompt: string, value: string): Promise<void> {
  await until(`the input box asks "${prompt}"`, async () => (await widget().innerText().catch(() => '')).includes(prompt));
  await (await ui.quickInput()).fill(value);
  await ui.page.keyboard.press('Enter');
}

/**
 * Every session row of the preview, read by row index (the list is virtualised: only the rows on
 * screen are in the page). PageDown moves the focus a page on; the next read waits until it has
 * (a read before the redraw would see the old page again, and the next PageDown would skip one).
 * Done when every index up to the row VS Code marks as the last one has been read.
 */
async function previewIds(): Promise<string[]> {
  const rows = widget().locator('.quick-input-list .monaco-list-row');
  const texts = new Map<number, string>();
  let last: number | undefined;
  const read = async () => {
    for (const row of await rows.evaluateAll((els) => els.map((el) => ({
      index: Number(el.getAttribute('data-index')),
      last: el.getAttribute('data-last-element') === 'true',
      focused: el.classList.contains('focused'),
      text: (el as HTMLElement).innerText,
    })))) {
      if (!Number.isInteger(row.index)) continue;
      texts.set(row.index, row.text);
      if (row.last) last = row.index;
    }
  };
  const focusedIndex = async () => Number(await widget().locator('.quick-input-list .monaco-list-row.focused').first().getAttribute('data-index', { timeout: 100 }).catch(() => NaN));
  const complete = () => last !== undefined && texts.size === last + 1;
  await read();
  while (!complete()) {
    const from = await focusedIndex();
    await ui.page.keyboard.press('PageDown');
    await until(`the preview's focus moved on from row ${from} after PageDown`, async () => {
      const now = await focusedIndex();
      return Number.isInteger(now) && now !== from;
    });
    await read();
  }
  const ids: string[] = [];
  for (const text of texts.values()) {
    const match = /Bulk session (\d+)/.exec(text);
    if (match) ids.push(`bulk_${match[1]}`);
  }
  return ids.sort();
}

async function previewTitle(pattern: RegExp): Promise<string> {
  const title = widget().locator('.quick-input-title');
  await until(`the preview's title matches ${pattern}`, async () => pattern.test(await title.innerText().catch(() => '')));
  // Its keys (PageDown, Enter) go to it only once it has the focus.
  await ui.quickInput();
  return title.innerText();
}

/** The notification saying `text`, from the notification center (whether or not a toast shows). */
async function notification(text: string): Promise<Locator> {
  await ui.wb.runCommand('Notifications: Show Notifications');
  const item = ui.page.locator('.notifications-center .notification-list-item', { hasText: text });
  await item.waitFor({ timeout: HANG_GUARD_MS });
  return item;
}

const older = (s: StoredSession, days: number) => Date.now() - Date.parse(s.updatedAt) > days * DAY;

test('an archive run previews exactly the sessions the rule selects among 500, archives them, and one Undo brings them all back', async () => {
  const before = await storeNow();
  const expected = before.filter((s) => !s.archived && !s.deleted && older(s, 30) && !existsSync(s.cwd)).map((s) => s.sessionId).sort();
  assert.ok(expected.length > 50, `a long preview (${expected.length})`);

  await ui.wb.runCommand('ACP Sessions: Clean Up Sessions…');
  await chooseByKeyboard('Archive');
  await checkRules(['Older than', 'In folders that no longer exist']);
  await answerInput('Sessions last updated more than this many days ago', '30');

  const title = await previewTitle(/Archive \d+ sessions/);
  assert.match(title, new RegExp(`Archive ${expected.length} sessions`));
  await ui.wb.screenshot('cleanup-preview');
  assert.deepEqual(await previewIds(), expected, 'the preview lists exactly the selected sessions');

  await ui.page.keyboard.press('Enter');
  await until(`the store has the ${expected.length} sessions archived`, async () => {
    const now = await storeNow();
    return expected.every((id) => now.find((s) => s.sessionId === id)!.archived);
  });
  const archived = await storeNow();
  for (const s of before) assert.equal(archived.find((a) => a.sessionId === s.sessionId)!.archived, s.archived || expected.includes(s.sessionId), s.sessionId);

  const summary = await notification(`Archived ${expected.length} sessions.`);
  await summary.locator('.monaco-button', { hasText: 'Undo' }).click();
  await until('Undo restored every session', async () => {
    const now = await storeNow();
    return before.every((s) => now.find((n) => n.sessionId === s.sessionId)!.archived === s.archived);
  });
  await notification(`Restored ${expected.length} of ${expected.length} sessions.`);
  await ui.page.keyboard.press('Escape');
});

test('a delete run previews archived sessions only and deletes exactly those after the modal', async () => {
  const before = await storeNow();
  const expected = before.filter((s) => s.archived && !s.deleted && older(s, 60)).map((s) => s.sessionId).sort();
  assert.ok(expected.length > 10, `some archived sessions are old enough (${expected.length})`);

  await ui.wb.runCommand('ACP Sessions: Clean Up Sessions…');
  await chooseByKeyboard('Delete archived sessions');
  await checkRules(['Older than']);
  await answerInput('Sessions last updated more than this many days ago', '60');
  await previewTitle(new RegExp(`Delete ${expected.length} archived sessions`));
  assert.deepEqual(await previewIds(), expected);
  await ui.page.keyboard.press('Enter');

  const dialog = await ui.dialog(new RegExp(`Delete ${expected.length} archived sessions\\?`));
  assert.equal((await storeNow()).filter((s) => s.deleted).length, 0, 'nothing deleted before the answer');
  await dialog.locator('.monaco-button', { hasText: /^Delete$/ }).click();
  await until(`the store has the ${expected.length} sessions deleted`, async () => (await storeNow()).filter((s) => s.deleted).length === expected.length);
  const after = await storeNow();
  assert.deepEqual(after.filter((s) => s.deleted).map((s) => s.sessionId).sort(), expected, 'only the archived, old ones');
  await notification(`Deleted ${expected.length} sessions.`);
});
