// The way to index, as a new user meets it in a real browser driving a real VS Code (issue 32),
// against two agents whose loads are not known to change nothing (so nothing is indexed in the
// background): "Mystery", three sessions in the workspace folder and one in another folder, and
// "Slow", forty sessions that replay slowly. Before anything is indexed the Search view's empty
// results offer Index Sessions… (a welcome with its button) and the query box says how many
// sessions are not indexed and how; the offer follows the Sessions view's scope (the workspace
// folder), so the other folder's session is neither counted, offered, loaded nor found; one run at
// a time, whose count the view and its notification share, and Cancel Indexing stops it.
// The welcome's screenshot is test-results/screenshots/search-empty.png (the README shows it).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { writeSession, type SessionUpdate } from '../agent/store';
import { chooseInQuickInput, HANG_GUARD_MS, referenceAgent, searchPane as searchPaneOf, storedSession, useWorkbench } from './harness';

const SLOW_COUNT = 40;
const said = (text: string): SessionUpdate => ({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text } }) as SessionUpdate;

let requestLog = '';

const ui = useWorkbench('search-offer', async ({ work, folder, store }) => {
  const elsewhere = join(work, 'elsewhere');
  mkdirSync(elsewhere);
  // An agent name whose loads are not measured: its sessions are offered, never loaded unasked.
  const strings = join(work, 'strings.json');
  writeFileSync(strings, JSON.stringify({ agentInfo: { name: 'mystery-agent', version: '1.0.0' } }));
  requestLog = join(work, 'requests.jsonl');
  const mystery = join(store, 'mystery');
  for (let i = 0; i < 3; i++) {
    await writeSession(mystery, storedSession(`m${i}`, `Mystery m${i}`, folder, i + 1, { updates: [said(`Where did the pangolin ${i} go?`)] }));
  }
  await writeSession(mystery, storedSession('m3', 'Elsewhere m3', elsewhere, 4, { updates: [said('Where did the pangolin 3 go?')] }));
  const slow = join(store, 'slow');
  for (let i = 0; i < SLOW_COUNT; i++) {
    const n = String(i).padStart(2, '0');
    await writeSession(slow, storedSession(`s${n}`, `Slow s${n}`, folder, i + 1, { updates: Array.from({ length: 8 }, (_, k) => said(`Slow line ${k} of s${n}`)) }));
  }
  return {
    agents: [
      referenceAgent(mystery, ['--strings', strings, '--request-log', requestLog], 'Mystery'),
      // Each session takes a while to replay, so a run is under way for a good while.
      referenceAgent(slow, ['--strings', strings, '--replay-delay', '100'], 'Slow'),
    ],
    folders: [folder],
  };
}, {
  ready: async ({ rowWithText }) => {
    await rowWithText('Mystery m0').first().waitFor({ timeout: HANG_GUARD_MS });
    await rowWithText('Slow s00').first().waitFor({ timeout: HANG_GUARD_MS });
  },
});
const { until } = ui;

const searchPane = () => searchPaneOf(ui);
const quickInputText = () => ui.page.locator('.quick-input-widget').innerText().catch(() => '');

/** The Sessions view expanded or collapsed (collapsed, the Search view has the height to show every row). */
async function sessionsView(expanded: boolean): Promise<void> {
  const header = ui.pane.locator('.pane-header').first();
  // On its name: the middle of the header holds the view's title actions.
  if ((await header.getAttribute('aria-expanded')) !== String(expanded)) await header.click({ position: { x: 30, y: 10 } });
  await until(`the Sessions view is ${expanded ? 'expanded' : 'collapsed'}`, async () => (await header.getAttribute('aria-expanded')) === String(expanded));
}

/** Searches `query` from the query box until it says `said`, then closes it (the results stay in the view, nothing opens). */
async function searchFor(query: string, said: RegExp): Promise<void> {
  await ui.wb.runCommand('ACP Sessions: Search Sessions…');
  const input = await ui.quickInput();
  await input.fill(query);
  await until(`the query box says ${said}`, async () => said.test(await quickInputText()));
  await input.press('Escape');
  await until('the query box closed', async () => !(await input.isVisible()));
}

/** The sessions of Mystery that reached the agent in a session/load. */
function loaded(): string[] {
  const lines = readFileSync(requestLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { method?: string; params?: { sessionId?: string } });
  return [...new Set(lines.filter((l) => l.method === 'session/load').map((l) => l.params?.sessionId ?? ''))].sort();
}

test('with nothing indexed, the Search view\'s empty results offer Index Sessions… (a welcome with its button), and the query box says how many sessions are not indexed and how', async () => {
  await sessionsView(false);
  const pane = await searchPane();
  const welcome = pane.locator('.welcome-view');
  const button = welcome.locator('.monaco-button', { hasText: 'Index Sessions…' });
  const coverage = pane.locator('.monaco-list-row', { hasText: /sessions indexed/ });
  await until('the Search view surveyed the agents: it shows a welcome with Index Sessions…, or coverage rows', async () => (await button.isVisible()) || (await coverage.count()) > 0);
  assert.equal(await coverage.count(), 0, 'no coverage row (collapsed, with the offer inside) in place of the welcome');
  assert.ok(await button.isVisible(), 'the welcome has the Index Sessions… button');
  assert.match(await welcome.innerText(), /^Nothing is indexed yet, so a search finds nothing\./);
  await ui.wb.screenshot('search-empty');

  // The welcome's button: the agents, each with what it would index.
  const mystery = ui.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Mystery' });
  await button.click();
  await mystery.waitFor({ timeout: HANG_GUARD_MS });
  assert.match(await mystery.innerText(), /3 sessions not indexed/);
  assert.match(await ui.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Slow' }).innerText(), new RegExp(`${SLOW_COUNT} sessions not indexed`));
  await ui.page.keyboard.press('Escape');
  await until('the picker closed', async () => !(await mystery.isVisible()));

  // The query box, before a word is typed and with one: what is not indexed, per agent, and how.
  await ui.wb.runCommand('ACP Sessions: Search Sessions…');
  const input = await ui.quickInput();
  const notIndexed = `${3 + SLOW_COUNT} sessions are not indexed yet \\(3 of Mystery, ${SLOW_COUNT} of Slow\\), so no search finds them: Index Sessions… indexes them\\.`;
  await until('the empty query box says what is not indexed', async () => new RegExp(notIndexed).test(await quickInputText()));
  await input.fill('pangolin');
  await until('the query box says there is no result, and what could be indexed', async () => new RegExp(`No results in 0 indexed sessions\\. ${notIndexed}`).test(await quickInputText()));
  // Its own Index Sessions… button asks the same.
  await ui.page.locator('.quick-input-widget .quick-input-titlebar .action-label[aria-label="Index Sessions…"]').click();
  await mystery.waitFor({ timeout: HANG_GUARD_MS });
  await ui.page.keyboard.press('Escape');
  await until('the picker closed', async () => !(await mystery.isVisible()));
});

test('the offer follows the Sessions view\'s scope (the workspace folder): a session of another folder is neither counted, offered, loaded nor found', async () => {
  await sessionsView(true);
  await ui.rowWithText('Mystery m2').first().waitFor({ timeout: HANG_GUARD_MS });
  assert.equal(await ui.rowWithText('Elsewhere m3').count(), 0, 'the Sessions view does not show the other folder\'s session');
  await sessionsView(false);
  await ui.wb.runCommand('ACP Sessions: Index Sessions of an Agent…');
  await chooseInQuickInput(ui.page, 'Mystery', 'Mystery', until);
  const dialog = await ui.dialog(/Index \d+ sessions of Mystery\?/);
  assert.match(await dialog.innerText(), /Index 3 sessions of Mystery\?/);
  await dialog.locator('.monaco-button', { hasText: /^Index$/ }).click();
  const pane = await searchPane();
  await pane.locator('.monaco-list-row', { hasText: 'Mystery: 3 of 3 sessions indexed' }).waitFor({ timeout: HANG_GUARD_MS });
  assert.deepEqual(loaded(), ['m0', 'm1', 'm2'], 'the other folder\'s session was not loaded');

  await searchFor('pangolin', /\b3 results in 3 sessions \(3 indexed sessions searched\)/);
  for (const title of ['Mystery m0', 'Mystery m1', 'Mystery m2']) await pane.locator('.monaco-list-row', { hasText: title }).first().waitFor({ timeout: HANG_GUARD_MS });
  assert.equal(await pane.locator('.monaco-list-row', { hasText: 'Elsewhere m3' }).count(), 0, 'not found');
});

test('one indexing run at a time: the view and its notification show one count, a second Index Sessions… is refused with a message, and Cancel Indexing stops the run', async () => {
  const pane = await searchPane();
  await ui.wb.runCommand('ACP Sessions: Index Sessions of an Agent…');
  await chooseInQuickInput(ui.page, 'Slow', 'Slow', until);
  const dialog = await ui.dialog(new RegExp(`Index ${SLOW_COUNT} sessions of Slow\\?`));
  await dialog.locator('.monaco-button', { hasText: /^Index$/ }).click();
  await dialog.waitFor({ state: 'detached', timeout: HANG_GUARD_MS });
  // From the notification center: whether or not a toast shows.
  await ui.wb.runCommand('Notifications: Show Notifications');
  const note = ui.page.locator('.notifications-center .notification-list-item', { hasText: 'Indexing sessions of Slow' });
  await note.waitFor({ timeout: HANG_GUARD_MS });

  // Asked again while it runs: a message, not a second question (nor a second run).
  await ui.wb.runCommand('ACP Sessions: Index Sessions of an Agent…');
  const refused = ui.page.locator('.notification-list-item', { hasText: /Sessions of Slow are being indexed \(\d+ of 40\): one run at a time\./ });
  const picker = ui.page.locator('.quick-input-widget input');
  await until('Index Sessions… answers: refused with a message, or with its agent picker', async () => (await refused.count()) > 0 || (await picker.isVisible()));
  const asked = ui.page.locator('.monaco-dialog-box');
  if ((await refused.count()) === 0) {
    // The picker: the agent chosen, it is refused now or asked again.
    await chooseInQuickInput(ui.page, 'Slow', 'Slow', until);
    await until('the second Index Sessions… is answered: refused with a message, or asked again', async () => (await refused.count()) > 0 || (await asked.isVisible()));
  }
  assert.equal(await asked.isVisible(), false, 'no second question while a run goes');
  await ui.wb.runCommand('Notifications: Show Notifications');
  await note.waitFor({ timeout: HANG_GUARD_MS });

  // One count, from one source: the view's message, its row under the agent and the notification.
  const count = async (where: Locator, pattern: RegExp) => (await where.innerText().catch(() => '')).replace(/\u200B/g, '').match(pattern)?.slice(1).join(' of ');
  const row = pane.locator('.monaco-list-row', { hasText: /^Indexing: \d+ of \d+ sessions…/ });
  await until('the view, its row and the notification show the same count of the run', async () => {
    const shown = await count(pane.locator('.message'), /Indexing Slow: (\d+) of (\d+) sessions…/);
    return shown !== undefined && shown === (await count(row, /Indexing: (\d+) of (\d+)/)) && shown === (await count(note.locator('.notification-list-item-message'), /(\d+) of (\d+)/));
  });
  assert.equal(await pane.locator('.monaco-list-row', { hasText: /Index \d+ sessions of/ }).count(), 0, 'no offer to click while the run goes');
  await ui.wb.screenshot('search-indexing');

  await ui.wb.runCommand('ACP Sessions: Cancel Indexing');
  await until('the view says the run was cancelled', async () => /Indexing Slow was cancelled after \d+ of 40 sessions; those stay indexed\./.test(await pane.locator('.message').innerText().catch(() => '')));
  await until('the run\'s notification is gone', async () => (await note.count()) === 0);
  await ui.page.keyboard.press('Escape');
  // The tree is drawn again after the message: its row of the run goes then.
  await until('the view\'s row of the run is gone', async () => (await row.count()) === 0);
});
