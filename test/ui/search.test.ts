// Search Sessions in a real browser driving a real VS Code, against the reference agent serving
// 200 sessions nobody opened: the background indexing fills the index (the reference agent's
// loads change nothing), then a phrase said only in a compaction summary, a phrase of an archived
// session and CJK text written without spaces are each found from the query box, and Enter on
// the match opens that transcript with its find bar showing the match.
// The results' screenshot is test-results/screenshots/search.png.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SEARCH_NEEDLES, seedSearch } from '../agent/searchSeed';
import { HANG_GUARD_MS, referenceAgent, searchPane as searchPaneOf, useWorkbench } from './harness';

const COUNT = 200;

const ui = useWorkbench('search', async ({ folder, store }) => {
  await seedSearch(store, [folder], COUNT);
  return { agents: [referenceAgent(store)], folders: [folder] };
}, {
  ready: async ({ rowWithText }) => { await rowWithText('Search session').first().waitFor({ timeout: HANG_GUARD_MS }); },
});
const { until } = ui;

const searchPane = () => searchPaneOf(ui);

const closeEditors = () => ui.wb.closeEditors();

/** The highlighted find match in the open transcript: its text, and whether it is on screen. */
async function highlighted(): Promise<{ text: string; onScreen: boolean }> {
  return ui.wb.webviewFrame().locator('html').evaluate(() => {
    const h = (CSS as unknown as { highlights: Map<string, { values(): IterableIterator<Range> }> }).highlights.get('transcript-find');
    const range = h ? [...h.values()][0] : undefined;
    const box = range?.getBoundingClientRect();
    return { text: range?.toString() ?? '', onScreen: !!box && box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight };
  }).catch(() => ({ text: '', onScreen: false }));
}

/**
 * Searches `query` from the query box (Enter accepts it and moves to the first match), then
 * presses Enter on the match row holding `shown`: the transcript titled `title` opens with the find
 * bar holding `find.input` (the matched text unless said), at `find.count`, `shown` highlighted on screen.
 */
async function findAndOpen(query: string, shown: string, title: string, find = { input: shown, count: '1 of 1' }): Promise<void> {
  const pane = await searchPane();
  await ui.wb.runCommand('ACP Sessions: Search Sessions…');
  const input = await ui.quickInput();
  await input.fill(query);
  const widget = ui.page.locator('.quick-input-widget');
  await until(`the query box says "${query}" has 1 result`, async () => /\b1 result in 1 session\b/.test(await widget.innerText().catch(() => '')));
  await input.press('Enter');
  const sessionRow = pane.locator('.monaco-list-row', { hasText: title });
  const matchRow = pane.locator('.monaco-list-row', { hasText: shown }).filter({ hasNotText: 'Search session' }).first();
  await sessionRow.waitFor({ timeout: HANG_GUARD_MS });
  assert.equal(await pane.locator('.monaco-list-row', { hasText: /^Search session/ }).count(), 1, 'one session is listed');
  const tab = ui.page.locator('.tabs-container .tab', { hasText: title });
  const frame = ui.wb.webviewFrame();
  await ui.wb.pressOnRow(matchRow, 'Enter', {
    what: `the transcript of "${title}" opens with the find bar showing "${find.input}"`,
    holds: async () =>
      (await tab.count()) > 0 &&
      (await frame.locator('.find-bar input').inputValue().catch(() => '')).toLowerCase() === find.input.toLowerCase() &&
      (await frame.locator('.find-bar .find-count').textContent().catch(() => '')) === find.count &&
      (await highlighted()).onScreen,
  });
  assert.equal((await highlighted()).text.toLowerCase(), shown.toLowerCase());
}

test('the reference agent\'s 200 sessions are indexed in the background, and the view says so', async () => {
  const pane = await searchPane();
  const coverage = pane.locator('.monaco-list-row', { hasText: `Reference: ${COUNT} of ${COUNT} sessions indexed` });
  await coverage.waitFor({ timeout: HANG_GUARD_MS });
});

test('a phrase said only in a compaction summary of a session nobody opened is found; Enter opens the transcript with the match shown', async () => {
  await findAndOpen(`"${SEARCH_NEEDLES.compactionPhrase}"`, SEARCH_NEEDLES.compactionPhrase, 'Search session 0137');
  // The pointer off the rows, so no tooltip covers the picture.
  await ui.page.mouse.move(0, 0);
  await until('no tooltip is up', async () => (await ui.page.locator('.monaco-hover, .workbench-hover').filter({ visible: true }).count()) === 0);
  await ui.wb.screenshot('search');
  await closeEditors();
});

test('a phrase of an archived session is found (any case), and opens the same way', async () => {
  // Two words: the find steps through each of them (issue 32).
  await findAndOpen('zephyr BOOTLOADER', 'Zephyr', 'Search session 0042', { input: 'zephyr BOOTLOADER', count: '1 of 2' });
  const pane = await searchPane();
  assert.match(await pane.locator('.monaco-list-row', { hasText: 'Search session 0042' }).innerText(), /Archived/);
  await closeEditors();
});

test('CJK text written without spaces is found by a word inside it, and opens the same way', async () => {
  await findAndOpen(SEARCH_NEEDLES.cjkQuery, SEARCH_NEEDLES.cjkQuery, 'Search session 0171');
  await closeEditors();
});

test('the match stays in view: the context before it is a few words, so the word found shows whole in the default sidebar width', async () => {
  const word = SEARCH_NEEDLES.compactionPhrase.split(' ')[0];
  const pane = await searchPane();
  await ui.wb.runCommand('ACP Sessions: Search Sessions…');
  const input = await ui.quickInput();
  await input.fill(word);
  await until(`the query box says "${word}" has 1 result`, async () => /\b1 result in 1 session\b/.test(await ui.page.locator('.quick-input-widget').innerText().catch(() => '')));
  await input.press('Enter');
  // Enter moved to the match: selected, so its inline Open Match button takes room at the end too.
  const row = pane.locator('.monaco-list-row', { has: ui.page.locator('.label-name .highlight') }).first();
  await until('the match row is selected and drawn', async () => (await row.getAttribute('aria-selected').catch(() => null)) === 'true');
  const seen = await row.evaluate((e) => {
    const highlight = e.querySelector('.label-name .highlight')!.getBoundingClientRect();
    // The label's box clips what does not fit (with an ellipsis); the row's buttons cover its end.
    const label = e.querySelector('.monaco-icon-label-container')!.getBoundingClientRect();
    const buttons = [...e.querySelectorAll('.actions .action-label')].map((b) => b.getBoundingClientRect()).filter((b) => b.width > 0);
    // Where the label is cut, its last visible characters give way to the ellipsis.
    const container = e.querySelector<HTMLElement>('.monaco-icon-label-container')!;
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = getComputedStyle(container).font;
    const ellipsis = container.scrollWidth > container.clientWidth ? context.measureText('…').width : 0;
    const right = Math.min(label.right - ellipsis, ...buttons.map((b) => b.left));
    return { text: e.querySelector('.label-name')!.textContent, left: highlight.left - label.left, right: highlight.right, visibleRight: right };
  });
  assert.ok(seen.left >= 0 && seen.right <= seen.visibleRight, `"${word}" is wholly in view in "${seen.text}" (it ends at ${seen.right}, the row shows up to ${seen.visibleRight})`);
});
