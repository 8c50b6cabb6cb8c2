// Issue 12 in a real browser driving a real VS Code, against the reference agent serving the
// JetBrains AIR extension with live state and resume-on-load (as claude-agent-acp and codex-acp):
// a running session's row shows it, the transcript header's Rename… renames through the input
// box (also by F2), and a load that resumed the session says so without moving its row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSession, writeSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, storedSession, useWorkbench } from './harness';

const session = (sessionId: string, title: string, cwd: string, hoursAgo: number, state?: string) => storedSession(sessionId, title, cwd, hoursAgo, state ? { state } : {});

const ui = useWorkbench('live', async ({ folder, store }) => {
  for (const s of [
    session('s-parser', 'Refactor the parser', folder, 1, 'running'),
    session('s-notes', 'Write the release notes', folder, 2),
    session('s-spike', 'Old performance spike', folder, 26),
  ]) {
    await writeSession(store, s);
  }
  return { agents: [referenceAgent(store, ['--archive-extension', '--air-state', '--resume-on-load'])], folders: [folder] };
});
const { rowWithText: row, until } = ui;
const labels = () => ui.pane.locator('.monaco-list-row .label-name').allInnerTexts();

test('a session the agent reports running shows a spinning icon and "Running" in its row', async () => {
  await row('Refactor the parser').waitFor({ timeout: HANG_GUARD_MS });
  const running = row('Refactor the parser');
  await running.locator('.codicon-loading').waitFor({ timeout: HANG_GUARD_MS });
  assert.match(await running.locator('.label-description').innerText(), /^Running · /);
  assert.equal(await row('Write the release notes').locator('.codicon-loading').count(), 0, 'an idle session looks as usual');
  await ui.wb.screenshot('sessions-live-state');
});

test('the transcript header says the load resumed the session, and its row stays where it was', async () => {
  const before = await labels();
  await row('Old performance spike').click();
  const frame = ui.wb.webviewFrame();
  await frame.locator('#header .fact.resumed').waitFor({ timeout: HANG_GUARD_MS });
  assert.match(await frame.locator('#header .fact.resumed').innerText(), /Resumed by the agent/);
  await until('the row shows its new age', async () => /^now\b/.test(await row('Old performance spike').locator('.label-description').innerText()));
  assert.deepEqual(await labels(), before, 'no row moved');
  await ui.wb.screenshot('transcript-resumed');
});

test('Rename… in the transcript header asks for a title and renames the session in the tree, the tab and the agent; F2 asks too', async () => {
  await row('Write the release notes').click();
  const frame = ui.wb.webviewFrame();
  const rename = frame.locator('#header button[data-action="rename"]');
  await rename.waitFor({ timeout: HANG_GUARD_MS });
  assert.equal(await rename.getAttribute('aria-label'), 'Rename…');
  await rename.click();
  let input = await ui.quickInput();
  assert.equal(await input.inputValue(), 'Write the release notes');
  await input.fill('Release notes for 2.0');
  await ui.page.keyboard.press('Enter');
  await until('the agent stores the title', async () => (await readSession(ui.store, 's-notes'))?.title === 'Release notes for 2.0');
  await row('Release notes for 2.0').waitFor({ timeout: HANG_GUARD_MS });
  await ui.page.locator('.tabs-container .tab', { hasText: 'Release notes for 2.0' }).waitFor({ timeout: HANG_GUARD_MS });
  await frame.locator('#header h1', { hasText: 'Release notes for 2.0' }).waitFor({ timeout: HANG_GUARD_MS });
  // By keyboard: F2 with the focus in the transcript. The input box shows before the focus
  // leaves the webview's frame (about 300 ms later): a key pressed at once would go to the webview.
  await frame.locator('#header button[data-action="rename"]').focus();
  await ui.page.keyboard.press('F2');
  input = await ui.quickInput();
  assert.equal(await input.inputValue(), 'Release notes for 2.0');
  await ui.page.keyboard.press('Escape');
  await input.waitFor({ state: 'hidden', timeout: HANG_GUARD_MS });
  assert.equal((await readSession(ui.store, 's-notes'))?.title, 'Release notes for 2.0', 'cancelled: unchanged');
});
