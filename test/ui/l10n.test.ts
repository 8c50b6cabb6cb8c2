// VS Code in German (a language pack for German whose VS Code strings stay English, so every
// German word on screen is ours): the manifest's names, the tree, a notification and the
// transcript come from package.nls.de.json and l10n/bundle.l10n.de.json. Agent text is shown
// as it was sent, whatever the language.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSession, writeSession } from '../agent/store';
import { referenceAgent, useWorkbench } from './harness';

const COMPACTED = 'Compacted session';
const NOTES = 'Write the release notes';

const ui = useWorkbench('l10n', async ({ folder, store }) => {
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
  await writeSession(store, {
    sessionId: 's-compacted', cwd: folder, title: COMPACTED, updatedAt: hoursAgo(1), archived: false, deleted: false,
    updates: [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Please refactor the parser.' } },
      { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed', summary: [{ type: 'text', text: 'The parser was split in two.' }] },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done.' } },
    ] as never[],
  });
  await writeSession(store, {
    sessionId: 's-notes', cwd: folder, title: NOTES, updatedAt: hoursAgo(3), archived: false, deleted: false,
    updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'notes' } }],
  });
  return { agents: [referenceAgent(store)], folders: [folder], displayLanguage: 'de' };
}, { sessionsView: 'Sitzungen' });
const { rowWithText: row } = ui;

test('the view and the tree speak German: view name, sections, ages and what a screen reader hears', async () => {
  await row(COMPACTED).waitFor({ timeout: 60_000 });
  assert.equal(await ui.pane.locator('.pane-header', { hasText: 'Sitzungen' }).count(), 1, 'the view is named "Sitzungen" (package.nls.de.json)');
  await row('Aktiv').first().waitFor();
  await row('Archiviert').first().waitFor();
  assert.equal(await row('Active').count(), 0, 'no English section name');
  // "1 Std.": the age, from the German bundle; the title stays as the agent sent it.
  assert.match(await row(COMPACTED).first().innerText(), /1 Std\./);
  assert.match(String(await row(COMPACTED).first().getAttribute('aria-label')), /^Compacted session, aktive Sitzung, aktualisiert vor 1 Std\.$/);
  await ui.wb.screenshot('l10n-de-tree');
});

test('a notification is German: archiving says so and offers Rückgängig', async () => {
  const target = row(NOTES).first();
  await target.hover();
  await target.locator('.action-label[aria-label="Archivieren"]').click();
  await ui.until('the agent stores the session archived', async () => (await readSession(ui.store, 's-notes'))?.archived === true);
  await ui.wb.runCommand('Notifications: Show Notifications');
  const notification = ui.page.locator('.notifications-center .notification-list-item', { hasText: `„${NOTES}“ archiviert.` });
  await notification.waitFor();
  assert.equal(await notification.locator('.monaco-button', { hasText: 'Rückgängig' }).count(), 1);
  await ui.wb.screenshot('l10n-de-notification');
  await ui.page.keyboard.press('Escape');
});

test('the transcript is German: lang, message heads, the compaction row and the replay status', async () => {
  await row(COMPACTED).first().click();
  const frame = ui.wb.webviewFrame();
  await frame.locator('body[data-loading="false"]').waitFor({ timeout: 60_000 });
  assert.equal(await frame.locator('html').getAttribute('lang'), 'de');
  await frame.locator('.row.user_message .row-head', { hasText: 'Sie' }).waitFor();
  await frame.locator('details.compaction summary', { hasText: 'Kontext komprimiert' }).waitFor();
  assert.match(await frame.locator('.progress').innerText(), /3 Aktualisierungen wiedergegeben/);
  assert.equal(await frame.locator('button[aria-label="Alle Komprimierungen aufklappen"]').count(), 1);
  // The agent's words are not translated.
  await frame.locator('details.compaction summary').click();
  await frame.locator('details.compaction .body', { hasText: 'The parser was split in two.' }).waitFor();
  await ui.wb.screenshot('l10n-de-transcript');
});
