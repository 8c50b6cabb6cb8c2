// Agent text through the Search view in a real browser, as a person sees it: titles and said
// text carrying a command link, a $(icon), and markup render as the text they are in the result
// rows (session and match), in their tooltips, in the Index Sessions picker and in the
// notification that names the agent: no link to click, no icon, no element, no script run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { BASE } from '../hostile/corpus';
import { writeSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, searchPane as searchPaneOf, storedSession, useWorkbench } from './harness';

const LINK = BASE['command link'][0];
const ICON = BASE.codicon[0];
const SCRIPT = '<script>window.__acpHostile = 1</script>';
const IMAGE = '<img src=x onerror="window.__acpHostile = 2">';
/** A word no hostile string holds, to search for. */
const NEEDLE = 'quetzal';
const TITLES = [`${LINK} ${NEEDLE} title`, `${ICON} ${NEEDLE} icon`, `${IMAGE} ${NEEDLE} markup`];
const SAID = `${NEEDLE} ${LINK} ${ICON} ${SCRIPT}`;
const AGENT = `$(zap) [Agent](command:workbench.action.files.newUntitledFile)`;

const ui = useWorkbench('search-hostile', async ({ folder, store }) => {
  for (const [i, title] of TITLES.entries()) {
    await writeSession(store, storedSession(`h${i}`, title, folder, i + 1, {
      updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: SAID } }],
    }));
  }
  return { agents: [referenceAgent(store, [], AGENT)], folders: [folder] };
}, {
  ready: async ({ rowWithText }) => { await rowWithText(`${NEEDLE} title`).first().waitFor({ timeout: HANG_GUARD_MS }); },
});
const { until } = ui;

async function searchPane(): Promise<Locator> {
  // The Sessions view collapsed, so the Search view has the height to show every row.
  const sessionsHeader = ui.pane.locator('.pane-header').first();
  // On its name: the middle of the header holds the view's title actions.
  if ((await sessionsHeader.getAttribute('aria-expanded')) === 'true') await sessionsHeader.click({ position: { x: 30, y: 10 } });
  await until('the Sessions view is collapsed', async () => (await sessionsHeader.getAttribute('aria-expanded')) === 'false');
  return searchPaneOf(ui);
}

/** Nothing in `where` is a link, an icon drawn from `$(…)`, or an element an agent wrote. */
async function inert(where: Locator, what: string): Promise<void> {
  // (VS Code's own labels are <a class="label-name"> without a target: not a link.)
  assert.equal(await where.locator('a[href], [data-href], .monaco-link, a:not(.label-name)').count(), 0, `${what}: no link`);
  assert.equal(await where.locator('img, script, svg, iframe').count(), 0, `${what}: no element from agent text`);
  assert.equal(await ui.page.evaluate(() => (window as unknown as { __acpHostile?: number }).__acpHostile), undefined, `${what}: no agent script ran`);
}

/** The row's label and description (not its own icon, which is ours). */
const labelOf = (row: Locator) => row.locator('.monaco-icon-label-container');

/** The hover VS Code shows for the row (the pointer moved onto it once), which holds `part`. */
async function tooltipOf(row: Locator, part: string): Promise<Locator> {
  await ui.page.mouse.move(0, 0);
  await until('no tooltip is up', async () => (await ui.page.locator('.monaco-hover, .workbench-hover').filter({ visible: true }).count()) === 0);
  await row.hover();
  const hover = ui.page.locator('.monaco-hover, .workbench-hover').filter({ hasText: part }).first();
  await until(`the row's tooltip (with ${JSON.stringify(part)}) is up`, () => hover.isVisible().catch(() => false));
  return hover;
}

test('hostile titles and said text show as plain text in the Search view\'s rows and tooltips: no link, no icon, no element, no script', async () => {
  const pane = await searchPane();
  await pane.locator('.monaco-list-row', { hasText: /3 of 3 sessions indexed/ }).waitFor({ timeout: HANG_GUARD_MS });
  await ui.wb.runCommand('ACP Sessions: Search Sessions…');
  const input = await ui.quickInput();
  await input.fill(NEEDLE);
  await until('the query box says 3 results in 3 sessions', async () => /\b3 results in 3 sessions\b/.test(await ui.page.locator('.quick-input-widget').innerText().catch(() => '')));
  await input.press('Enter');
  const rows = pane.locator('.monaco-list-row');
  for (const title of TITLES) await pane.locator('.monaco-list-row', { hasText: title }).first().waitFor({ timeout: HANG_GUARD_MS });
  await ui.wb.screenshot('search-hostile');

  for (const title of TITLES) {
    const row = pane.locator('.monaco-list-row', { hasText: title }).first();
    assert.equal(await row.locator('.label-name').innerText(), title, 'the session row shows the title as written');
    assert.match(await row.locator('.label-description').innerText(), /^\$\(zap\) \[Agent\]\(command:workbench\.action\.files\.newUntitledFile\) · project · /, 'the agent\'s name as written');
    assert.equal(await labelOf(row).locator('.codicon').count(), 0, `${title}: no icon in its label or description`);
    await inert(labelOf(row), `session row "${title}"`);
  }
  const matchRows = rows.filter({ hasText: `${NEEDLE} ${LINK} ${ICON}` });
  await until('every match row shows', async () => (await matchRows.count()) === 3);
  for (const row of await matchRows.all()) {
    // The label as written, with only the word found highlighted.
    assert.equal(await row.locator('.label-name').innerText(), SAID);
    assert.deepEqual(await row.locator('.label-name .highlight').allInnerTexts(), [NEEDLE]);
    assert.equal(await labelOf(row).locator('.codicon').count(), 0, 'no icon in a match row\'s label');
    // (Its inline Open Match button is ours.)
    await inert(labelOf(row), 'match row');
  }

  const sessionTip = await tooltipOf(pane.locator('.monaco-list-row', { hasText: TITLES[0] }).first(), `${NEEDLE} title`);
  assert.equal((await sessionTip.innerText()).split('\n')[0].trim(), TITLES[0], 'the title as written');
  assert.equal(await sessionTip.locator('.codicon').count(), 0, 'no icon in the session tooltip');
  await inert(sessionTip, 'session tooltip');
  const matchTip = await tooltipOf(matchRows.first(), `you: ${NEEDLE}`);
  assert.equal((await matchTip.innerText()).trim(), `you: ${SAID}`, 'the line as written');
  assert.equal(await matchTip.locator('.codicon').count(), 0, 'no icon in the match tooltip');
  await inert(matchTip, 'match tooltip');
  await ui.page.mouse.move(0, 0);
});

/** Runs the palette command `title`, whose quick pick lists the agent; checks its row shows the name as written, and returns it. */
async function agentChoice(title: string): Promise<Locator> {
  await ui.wb.runCommand(title);
  await ui.quickInput();
  const choice = ui.page.locator('.quick-input-list .monaco-list-row', { hasText: '[Agent](command:' });
  await choice.waitFor({ timeout: HANG_GUARD_MS });
  const label = choice.locator('.label-name').first();
  assert.equal((await label.innerText()).trim(), AGENT);
  assert.equal(await label.locator('.codicon').count(), 0, `no icon in the picker of ${title}`);
  await inert(label, `the picker of ${title}`);
  return choice;
}

test('the agent\'s name shows as written in the Index Sessions picker and in the notification: no icon, no link', async () => {
  await agentChoice('ACP Sessions: Index Sessions of an Agent…');
  await ui.page.keyboard.press('Enter');

  await ui.wb.runCommand('Notifications: Show Notifications');
  const text = `Every listed session of ${AGENT} is indexed.`;
  const items = ui.page.locator('.notifications-center .notification-list-item');
  let found: Locator | undefined;
  await until(`a notification says ${JSON.stringify(text)}`, async () => {
    for (const item of await items.all()) {
      if ((await item.locator('.notification-list-item-message').innerText().catch(() => '')).replace(/\u200B/g, '') === text) found = item;
    }
    return found !== undefined;
  });
  const message = found!.locator('.notification-list-item-message');
  assert.equal(await message.locator('.codicon').count(), 0, 'no icon in the notification');
  await inert(message, 'notification');
  await ui.page.keyboard.press('Escape');
});

test('the agent\'s name shows as written in the Filter picker and in the view\'s filter row: no icon, no link', async () => {
  const pane = await searchPane();
  const choice = await agentChoice('ACP Sessions: Filter Search Results…');
  await choice.click();
  await until('the agent is checked', async () => (await choice.getAttribute('aria-checked')) === 'true');
  await ui.page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).click();
  const filterRow = pane.locator('.monaco-list-row', { hasText: /^Filters: / });
  await filterRow.waitFor({ timeout: HANG_GUARD_MS });
  // As written, cut at 60 characters as every agent name in the filter summary is.
  assert.equal(await filterRow.locator('.label-name').innerText(), `Filters: ${AGENT.slice(0, 59)}…`);
  assert.equal(await labelOf(filterRow).locator('.codicon').count(), 0, 'no icon in the filter row');
  await inert(labelOf(filterRow), 'filter row');
  await ui.wb.runCommand('ACP Sessions: Clear Search Filters');
  await until('the filter row is gone', async () => (await filterRow.count()) === 0);
});
