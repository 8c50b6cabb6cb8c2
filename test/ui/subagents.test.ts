// Subagent lineage and context use in a real browser driving a real VS Code, against the
// reference agent's seeded store (`subagents`): a parent whose subagent children are nested,
// collapsed, under it; the parent's transcript shows a row per child that opens the child's
// transcript (click and keyboard); the header's sparkline marks each compaction and a marker
// scrolls to its row. Screenshots: test-results/screenshots/subagents.png, usage-sparkline.png.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { seedStore, type SeedResult } from '../agent/seed';
import { HANG_GUARD_MS, referenceAgent, useWorkbench } from './harness';

const PARENT = 'Prepare the 2.0 release with subagents';
const CHILDREN = ['Changelog writer', 'Test runner'];
const SHOWCASE = 'Long refactor with several context compactions';

let seed: SeedResult;

const ui = useWorkbench('subagents', async ({ folder, store }) => {
  seed = await seedStore({ store, folders: [folder], count: 8, seed: 4, subagents: true });
  return { agents: [referenceAgent(store)], folders: [folder] };
});
const { row, until } = ui;

function tab(title: string): Locator {
  return ui.page.locator('.tabs-container .tab', { hasText: title });
}

/** The active transcript tab's content (the one webview that is shown). */
function transcript() {
  return ui.page.frameLocator('iframe.webview.ready:visible').frameLocator('iframe#active-frame');
}

test('a parent lists its subagent children nested under it, collapsed until opened', async () => {
  const parent = row(PARENT);
  await parent.waitFor({ timeout: HANG_GUARD_MS });
  assert.equal(await parent.getAttribute('aria-expanded'), 'false', 'the parent is collapsed');
  for (const child of CHILDREN) assert.equal(await row(child).count(), 0, `${child} is not at the top level`);
  await parent.locator('.monaco-tl-twistie').click();
  await until('the children show under the parent', async () => (await row(CHILDREN[1]).count()) === 1);
  const level = Number(await parent.getAttribute('aria-level'));
  for (const child of CHILDREN) assert.equal(Number(await row(child).getAttribute('aria-level')), level + 1, `${child} is one level below its parent`);
});

test('the parent\'s transcript shows a row per subagent; a click opens the child\'s transcript in its own tab', async () => {
  await row(PARENT).locator('.label-name').click();
  await tab(PARENT).waitFor({ timeout: HANG_GUARD_MS });
  const rows = transcript().locator('.row.subagent');
  await until('both subagent rows show', async () => (await rows.count()) === 2);
  assert.deepEqual(await rows.locator('.subagent-title').allInnerTexts(), CHILDREN);
  assert.deepEqual(await rows.locator('.subagent-state').allInnerTexts(), ['idle', 'idle']);
  await ui.wb.screenshot('subagents');
  await rows.first().locator('.subagent-open').click();
  await tab(CHILDREN[0]).waitFor({ timeout: HANG_GUARD_MS });
  await until('the child\'s own transcript shows', async () => (await transcript().locator('.row.agent_message', { hasText: 'Faster session lists' }).count()) === 1);
});

test('Enter on a subagent row opens that child too', async () => {
  await tab(PARENT).click();
  const open = transcript().locator('.row.subagent .subagent-open').nth(1);
  await open.waitFor({ timeout: HANG_GUARD_MS });
  await open.focus();
  await ui.page.keyboard.press('Enter');
  await tab(CHILDREN[1]).waitFor({ timeout: HANG_GUARD_MS });
  await until('the second child\'s transcript shows', async () => (await transcript().locator('.row.agent_message', { hasText: 'Ran 412 tests' }).count()) === 1);
});

test('the header draws context use with a marker per compaction; a marker scrolls to its compaction row', async () => {
  const showcase = row(SHOWCASE);
  await showcase.waitFor({ timeout: HANG_GUARD_MS });
  await showcase.locator('.label-name').click();
  await tab(SHOWCASE).waitFor({ timeout: HANG_GUARD_MS });
  const frame = transcript();
  const markers = frame.locator('.usage-chart .usage-marker');
  await until('a marker per compaction shows and the replay ended', async () =>
    (await markers.count()) === 9 && (await frame.locator('.header .progress .codicon-check').count()) === 1);
  const points = await frame.locator('.usage-sparkline .usage-line').getAttribute('points');
  const stored = seed.sessions.find((s) => s.sessionId === seed.special.compactions)!.updates.filter((u) => u.sessionUpdate === 'usage_update');
  assert.equal(points?.trim().split(/\s+/).length, stored.length, 'one point per usage_update the agent sent');
  assert.match((await markers.first().getAttribute('aria-label')) ?? '', /^Compaction 1: 190k → \d+(\.\d)?k, freed \d+(\.\d)?k$/);
  await ui.wb.screenshot('usage-sparkline');

  // The last compaction's row is below the fold until its marker is clicked.
  const last = markers.nth(8);
  const key = await last.getAttribute('data-compaction-key');
  const target = frame.locator(`.row[data-key="${key}"]`);
  const inView = () => target.evaluate((el) => {
    const top = el.getBoundingClientRect().top;
    const headerBottom = document.getElementById('header')!.getBoundingClientRect().bottom;
    return top >= headerBottom - 1 && top < window.innerHeight;
  });
  await frame.locator('html').evaluate(() => window.scrollTo(0, 0));
  assert.equal(await inView(), false, 'the last compaction starts out of view');
  await last.click();
  await until('the clicked compaction\'s row is just below the header', inView);

  // By keyboard: the first marker, activated with Enter, brings the first compaction back.
  const first = markers.first();
  const firstRow = frame.locator(`.row[data-key="${await first.getAttribute('data-compaction-key')}"]`);
  await first.focus();
  await ui.page.keyboard.press('Enter');
  await until('the first compaction\'s row is in view and has the focus', () =>
    firstRow.evaluate((el) => {
      const top = el.getBoundingClientRect().top;
      return top >= document.getElementById('header')!.getBoundingClientRect().bottom - 1 && top < window.innerHeight && el.contains(document.activeElement);
    }),
  );
});
