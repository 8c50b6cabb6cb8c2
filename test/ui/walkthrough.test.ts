// The Get Started walkthrough in a real VS Code, done as a new user would: the walkthrough stays
// open beside the work, each step's action is done from the walkthrough's own buttons, the
// Sessions view or the transcript, and each of its five steps turns checked when the user has
// done it (add an agent, open a session, search what was said, archive one and find it again,
// read a compaction), not before. Adding a ready-made agent whose command is missing shows its install command and
// installs nothing. An agent configured before the walkthrough first opens checks its step too.
// Its pictures come from here: test-results/screenshots/walkthrough-*.png.
//
// Focus: the Welcome editor focuses its selected step on a timer (250 ms, its slide animation)
// after it is opened or a step is selected; a quick input open at that moment loses the focus and
// closes. So a quick input is opened only after the walkthrough has focused its step.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { readSession, writeSession } from '../agent/store';
import { HANG_GUARD_MS, REFERENCE_AGENT, referenceAgent, repoRoot, useWorkbench, type WorkbenchFixture } from './harness';

const COMPACTED = 'Refactor the parser';
const DONE = 'Write the release notes';
const WALKTHROUGH_TITLE = 'Get Started with ACP Sessions';
const STEPS = ['addAgent', 'openSession', 'search', 'archive', 'readCompaction'];
const SHOTS = join(repoRoot(), 'test-results', 'screenshots');

/** A store with a compacted session and a finished one, in `folder`. */
async function seed(store: string, folder: string): Promise<void> {
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
  await writeSession(store, {
    sessionId: 's-parser', cwd: folder, title: COMPACTED, updatedAt: hoursAgo(1), archived: false, deleted: false,
    updates: [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Please split the parser in two.' } },
      { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed', summary: [{ type: 'text', text: '## Summary\n\nThe lexer now lives in `lexer.ts`; the parser only builds the tree.' }] },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done: the tests pass.' } },
    ] as never[],
  });
  await writeSession(store, {
    sessionId: 's-notes', cwd: folder, title: DONE, updatedAt: hoursAgo(2), archived: false, deleted: false,
    updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'notes' } }],
  });
}

/** The walkthrough as the page shows it. */
function walkthroughOf(ui: WorkbenchFixture) {
  const step = (id: string) => ui.page.locator(`.gettingStartedContainer button.getting-started-step[data-step-id$="#${id}"]`);
  return {
    step,
    /** The steps shown checked, once all five are on screen. */
    async checked(): Promise<string[]> {
      for (const id of STEPS) await step(id).waitFor({ timeout: HANG_GUARD_MS });
      const checked: string[] = [];
      for (const id of STEPS) if ((await step(id).getAttribute('aria-checked')) === 'true') checked.push(id);
      return checked;
    },
    /** Waits until the walkthrough, on screen, shows step `id` checked. */
    async untilChecked(id: string): Promise<void> {
      await ui.until(`the walkthrough shows "${id}" checked`, async () =>
        (await step(id).isVisible()) && (await step(id).getAttribute('aria-checked')) === 'true');
    },
    /** Opens it with ACP Sessions: Get Started and waits until it has focused its first open step. */
    async open(): Promise<void> {
      await ui.wb.runCommand('ACP Sessions: Get Started');
      await ui.page.locator('.gettingStartedContainer', { hasText: WALKTHROUGH_TITLE }).waitFor({ timeout: HANG_GUARD_MS });
      await ui.until('the walkthrough focuses its selected step', () =>
        ui.page.locator('button.getting-started-step.expanded').evaluate((e) => e === document.activeElement).catch(() => false));
    },
    /** Brings its editor tab to the front again (a transcript opened in the same group). */
    async show(): Promise<void> {
      await ui.page.locator('.tabs-container .tab', { hasText: /Welcome|Walkthrough/ }).click();
      await step(STEPS[0]).waitFor({ timeout: HANG_GUARD_MS });
    },
  };
}

/** Types into the quick input once it shows `title`, then Enter. */
async function quickInput(page: Page, title: string, text: string): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: HANG_GUARD_MS });
  const input = page.locator('.quick-input-widget input');
  await input.fill(text);
  await page.keyboard.press('Enter');
}

describe('a new user', () => {
  const ui = useWorkbench('walkthrough', async ({ folder, store }) => {
    await seed(store, folder);
    return { agents: [], folders: [folder] };
  }, { sessionsView: false });
  const wt = walkthroughOf(ui);

  /** The agents the user's (remote machine's) settings hold. */
  const configuredAgents = (): unknown[] => {
    const file = join(ui.wb.dirs.userData, 'Machine', 'settings.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8'))['acpSessions.agents'] ?? []) : [];
  };

  test('Get Started opens the walkthrough with five steps, search among them, none done yet', async () => {
    await wt.open();
    assert.deepEqual(await wt.checked(), []);
    const description = await ui.page.locator('.gettingStartedContainer', { hasText: WALKTHROUGH_TITLE }).innerText();
    assert.match(description, /Browse, search, archive and read your coding agents' sessions in five steps/);
    await ui.wb.screenshot('walkthrough-start');
  });

  test('step 1, from its Add Agent… button: a ready-made agent whose command is missing shows its install command and adds nothing; adding an agent checks the step', async () => {
    const addAgent = wt.step('addAgent').locator('.monaco-button', { hasText: 'Add Agent…' });
    await addAgent.click();
    await quickInput(ui.page, 'Add Agent', 'Qwen Code');
    const dialog = await ui.dialog(/npm install -g @qwen-code\/qwen-code/);
    mkdirSync(SHOTS, { recursive: true });
    await ui.page.screenshot({ path: join(SHOTS, 'walkthrough-add-agent.png'), clip: (await dialog.boundingBox()) ?? undefined });
    await ui.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.deepEqual(configuredAgents(), [], 'cancelled: no agent added');
    assert.deepEqual(await wt.checked(), [], 'cancelled: the step stays open');

    await addAgent.click();
    await quickInput(ui.page, 'Add Agent', 'Custom Command');
    await quickInput(ui.page, 'Add Agent (1/3)', 'Reference');
    await quickInput(ui.page, 'Add Agent (2/3)', process.execPath);
    await quickInput(ui.page, 'Add Agent (3/3)', `${REFERENCE_AGENT} --store ${ui.store}`);
    await wt.untilChecked('addAgent');
    assert.equal(configuredAgents().length, 1);
  });

  test('step 2: opening a session\'s transcript from the Sessions view checks it', async () => {
    const pane = await ui.wb.openSessionsView();
    await pane.locator('.monaco-list-row', { hasText: COMPACTED }).first().click({ timeout: HANG_GUARD_MS });
    await ui.wb.webviewFrame().locator('body[data-loading="false"]').waitFor({ timeout: HANG_GUARD_MS });
    await ui.page.mouse.move(800, 790);
    await ui.wb.screenshot('walkthrough-open-session');
    await wt.show();
    await wt.untilChecked('openSession');
    assert.deepEqual(await wt.checked(), ['addAgent', 'openSession']);
  });

  test('step 5: opening a compaction row in the transcript checks it', async () => {
    await ui.page.locator('.tabs-container .tab', { hasText: COMPACTED }).click();
    const frame = ui.wb.webviewFrame();
    await frame.locator('details.compaction > summary').click();
    await frame.locator('details.compaction[open] .body h2').waitFor({ timeout: HANG_GUARD_MS });
    await ui.page.mouse.move(800, 790);
    await ui.wb.screenshot('walkthrough-compaction');
    await wt.show();
    await wt.untilChecked('readCompaction');
  });

  // After step 5: a compaction read after a search was not shown checked (the extension completed
  // the step; VS Code's Welcome page, back on its home page by then, did not show it), so the
  // search comes after the compaction here.
  test('step 3, from its Show the Search View button: the view opens, and a search that shows what it found checks the step', async () => {
    const step = wt.step('search');
    assert.ok(!(await wt.checked()).includes('search'), 'not before a search');
    await step.click();
    await ui.until('the walkthrough expands and focuses the Search step', () =>
      step.evaluate((e) => e.classList.contains('expanded') && e === document.activeElement).catch(() => false));
    // A click in a step also selects it, and the walkthrough focuses it 250 ms later: the query
    // box is opened only after that, or the focus leaving it would close it.
    await step.evaluate((e) => {
      e.removeAttribute('data-refocused');
      e.addEventListener('focus', () => e.setAttribute('data-refocused', 'true'), { once: true });
    });
    await step.locator('.monaco-button', { hasText: 'Show the Search View' }).click();
    const search = ui.page.locator('.pane', { has: ui.page.locator('.pane-header', { hasText: /^Search/ }) }).first();
    await ui.until('the Search view is open and the walkthrough has focused its step again', async () =>
      (await search.locator('.pane-header').first().getAttribute('aria-expanded').catch(() => null)) === 'true' &&
      (await step.getAttribute('data-refocused')) === 'true');
    // The view's own Search Sessions… (its title bar shows its actions under the pointer).
    await search.hover();
    await search.locator('.pane-header .action-label[aria-label^="Search Sessions"]').click();
    await ui.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Search Sessions' }).waitFor({ timeout: HANG_GUARD_MS });
    await (await ui.quickInput()).fill('lexer');
    await ui.page.keyboard.press('Enter');
    const match = search.locator('.monaco-list-row', { hasText: 'The lexer now lives' }).first();
    await match.waitFor({ timeout: HANG_GUARD_MS });
    // The step's picture: the Search view showing the match.
    await ui.page.mouse.move(800, 790);
    await search.screenshot({ path: join(SHOTS, 'walkthrough-search.png') });
    await wt.show();
    await wt.untilChecked('search');
    assert.deepEqual(await wt.checked(), ['addAgent', 'openSession', 'search', 'readCompaction']);
  });

  test('step 4: archiving a session alone does not check it; finding it under Archived does', async () => {
    // The walkthrough in front, the Sessions view (open since step 2) beside it.
    const pane = ui.page.locator('.pane', { has: ui.page.locator('.pane-header', { hasText: 'Sessions' }) }).first();
    const target = pane.locator('.monaco-list-row', { hasText: DONE }).first();
    await target.hover();
    await target.locator('.action-label[aria-label="Archive"]').click();
    await ui.until('the agent stores it archived', async () => (await readSession(ui.store, 's-notes'))?.archived === true);
    const archived = pane.locator('.monaco-list-row', { hasText: 'Archived' }).first();
    await ui.until('the session has left Active', async () => (await pane.locator('.monaco-list-row', { hasText: DONE }).count()) === 0);
    assert.ok(!(await wt.checked()).includes('archive'), 'archived but not yet found again');
    await archived.click();
    await pane.locator('.monaco-list-row', { hasText: DONE }).first().waitFor({ timeout: HANG_GUARD_MS });
    assert.equal(await archived.getAttribute('aria-expanded'), 'true');
    await wt.untilChecked('archive');
    assert.deepEqual(await wt.checked(), STEPS);
    // The step's picture: the Sessions view with the session found again under Archived.
    await ui.page.mouse.move(800, 790);
    const box = (await pane.boundingBox())!;
    const last = (await pane.locator('.monaco-list-row').last().boundingBox())!;
    await ui.page.screenshot({ path: join(SHOTS, 'walkthrough-archive.png'), clip: { x: box.x, y: box.y, width: box.width, height: last.y + last.height + 12 - box.y } });
    await ui.wb.screenshot('walkthrough-done');
  });
});

describe('a user with an agent configured before the walkthrough first opens', () => {
  const ui = useWorkbench('walkthrough', async ({ folder, store }) => {
    await seed(store, folder);
    return { agents: [referenceAgent(store)], folders: [folder] };
  }, { sessionsView: false });

  test('sees "Add an agent" checked, and only that step', async () => {
    const wt = walkthroughOf(ui);
    await wt.open();
    await wt.untilChecked('addAgent');
    assert.deepEqual(await wt.checked(), ['addAgent']);
  });
});
