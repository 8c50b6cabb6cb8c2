// Issue 22 in a real browser: the reference agent serving the JetBrains AIR session index as
// claude-agent-acp does (--air-index: rename by `_session/rename`, live list subscriptions, row
// metadata). A session another process writes into the store shows without a Refresh; F2
// renames through the index; the tooltip says what the agent tells of the session.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSession, writeSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, storedSession, useWorkbench } from './harness';

const ui = useWorkbench('live-list', async ({ folder, store }) => {
  await writeSession(store, storedSession('s-parser', 'Refactor the parser', folder, 1));
  await writeSession(store, storedSession('s-notes', 'Write the release notes', folder, 2));
  // --no-title: renamed through the index alone, as claude-agent-acp is.
  return { agents: [referenceAgent(store, ['--air-index', '--no-title'])], folders: [folder] };
}, {
  ready: async ({ rowWithText }) => { await rowWithText('Refactor the parser').first().waitFor({ timeout: HANG_GUARD_MS }); },
});
const { row, until } = ui;

test('a session another process writes, retitles and deletes shows in the tree with no Refresh', async () => {
  const written = Date.now();
  await writeSession(ui.store, storedSession('s-new', 'Started in a terminal', ui.folder, 0.1));
  await row('Started in a terminal').first().waitFor({ timeout: HANG_GUARD_MS });
  console.log(`# the new session showed ${Date.now() - written} ms after it was written`);
  await writeSession(ui.store, storedSession('s-new', 'Renamed in the terminal', ui.folder, 0.1));
  await row('Renamed in the terminal').first().waitFor({ timeout: HANG_GUARD_MS });
  await writeSession(ui.store, storedSession('s-new', 'Renamed in the terminal', ui.folder, 0.1, { deleted: true }));
  await until('the deleted session left the tree', async () => (await row('Renamed in the terminal').count()) === 0);
  assert.equal(await row('Refactor the parser').count(), 1, 'the other rows stay');
});

test('F2 renames through the session index, and the row shows the new title', async () => {
  const title = 'Write the release notes';
  const target = row(title).first();
  // A click selects the row and opens its transcript; closed again so the tree keeps the focus.
  await target.click();
  await ui.wb.transcriptShown(title);
  await ui.wb.closeEditors();
  await ui.wb.focusSessionsView();
  const input = ui.page.locator('.quick-input-widget input');
  await ui.wb.pressOnRow(target, 'F2', { what: 'the Rename box asks for a title', holds: () => input.isVisible() });
  await ui.quickInput();
  await input.fill('Release notes for 3.0');
  await ui.page.keyboard.press('Enter');
  await until('the agent stores the title', async () => (await readSession(ui.store, 's-notes'))?.title === 'Release notes for 3.0');
  await row('Release notes for 3.0').first().waitFor({ timeout: HANG_GUARD_MS });
  await ui.wb.screenshot('sessions-live-list');
});
