// The Get Started walkthrough in a real VS Code, done as a new user would: each of its four
// steps turns checked when the user has done it (add an agent, open a session, archive one and
// find it again, read a compaction), not before. Adding a ready-made agent whose command is
// missing shows its install command and installs nothing. Its pictures come from here:
// test-results/screenshots/walkthrough-*.png.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { readSession, writeSession } from '../agent/store';
import { HANG_GUARD_MS, repoRoot, startWorkbench, type Workbench } from './harness';

const AGENT = join(repoRoot(), 'out', 'test', 'agent', 'agent.mjs');
const COMPACTED = 'Refactor the parser';
const DONE = 'Write the release notes';
const WALKTHROUGH_TITLE = 'Get Started with ACP Sessions';

let work: string;
let store: string;
let wb: Workbench;
let page: Page;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'acp-ui-walkthrough-'));
  const folder = join(work, 'project');
  mkdirSync(folder);
  store = join(work, 'store');
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
  wb = await startWorkbench({ agents: [], folders: [folder] });
  page = wb.page;
});

after(async () => {
  await wb?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const step = (id: string) => page.locator(`button.getting-started-step[data-step-id$="${id}"]`);
const STEPS = ['addAgent', 'openSession', 'archive', 'readCompaction'];

/** Brings the walkthrough's tab to the front and says which steps it shows checked. */
async function checkedSteps(): Promise<string[]> {
  // In VS Code's Welcome editor, which shows its start page again once it was in the background.
  await wb.runCommand('ACP Sessions: Get Started');
  await page.locator('.gettingStartedContainer', { hasText: WALKTHROUGH_TITLE }).waitFor({ timeout: HANG_GUARD_MS });
  // The palette has closed before anything else is typed.
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: HANG_GUARD_MS });
  await step('addAgent').waitFor({ timeout: HANG_GUARD_MS });
  const checked: string[] = [];
  for (const id of STEPS) if ((await step(id).getAttribute('aria-checked')) === 'true') checked.push(id);
  // Closed again: left open, the Welcome editor takes the focus back (closing the palette) whenever a context key changes.
  await page.locator('.tabs-container .tab.active .tab-actions .codicon-close').click();
  await page.locator('.gettingStartedContainer').waitFor({ state: 'detached', timeout: HANG_GUARD_MS });
  return checked;
}

async function untilChecked(id: string): Promise<void> {
  await wb.until(`the walkthrough checks "${id}"`, async () => (await checkedSteps()).includes(id));
}

/** Types into the quick input once it shows `title`, then Enter. */
async function quickInput(title: string, text: string): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: HANG_GUARD_MS });
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(text);
  await page.keyboard.press('Enter');
}

test('Get Started opens the walkthrough with four steps, none done yet', async () => {
  assert.deepEqual(await checkedSteps(), []);
  await wb.screenshot('walkthrough-start');
});

test('step 1: a ready-made agent whose command is missing shows its install command and installs nothing; adding an agent checks the step', async () => {
  // What the step's Add Agent… button runs.
  await wb.runCommand('ACP Sessions: Add Agent…');
  await quickInput('Add Agent', 'Qwen Code');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: HANG_GUARD_MS });
  await wb.until('the dialog shows the install command', async () => /npm install -g @qwen-code\/qwen-code/.test(await dialog.innerText()));
  await page.screenshot({ path: join(repoRoot(), 'test-results', 'screenshots', 'walkthrough-add-agent.png'), clip: await dialog.boundingBox() ?? undefined });
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(await checkedSteps(), [], 'cancelled: no agent, the step stays open');

  await wb.runCommand('ACP Sessions: Add Agent…');
  await quickInput('Add Agent', 'Custom Command');
  await quickInput('Add Agent (1/3)', 'Reference');
  await quickInput('Add Agent (2/3)', process.execPath);
  await quickInput('Add Agent (3/3)', `${AGENT} --store ${store}`);
  await untilChecked('addAgent');
});

test('step 2: opening a session\'s transcript checks it', async () => {
  const pane = await wb.openSessionsView();
  await pane.locator('.monaco-list-row', { hasText: COMPACTED }).first().click({ timeout: HANG_GUARD_MS });
  await wb.webviewFrame().locator('body[data-loading="false"]').waitFor({ timeout: HANG_GUARD_MS });
  await wb.screenshot('walkthrough-open-session');
  await untilChecked('openSession');
  assert.deepEqual(await checkedSteps(), ['addAgent', 'openSession']);
});

test('step 4: opening a compaction row in the transcript checks it', async () => {
  await page.locator('.tabs-container .tab', { hasText: COMPACTED }).click();
  const frame = wb.webviewFrame();
  await frame.locator('details.compaction > summary').click();
  await frame.locator('details.compaction[open] .body h2').waitFor();
  await wb.screenshot('walkthrough-compaction');
  await untilChecked('readCompaction');
});

test('step 3: archiving a session alone does not check it; finding it under Archived does', async () => {
  const pane = await wb.openSessionsView();
  const target = pane.locator('.monaco-list-row', { hasText: DONE }).first();
  await target.hover();
  await target.locator('.action-label[aria-label="Archive"]').click();
  await wb.until('the agent stores it archived', async () => (await readSession(store, 's-notes'))?.archived === true);
  assert.ok(!(await checkedSteps()).includes('archive'), 'archived but not yet found again');
  const archived = pane.locator('.monaco-list-row', { hasText: 'Archived' }).first();
  await (await wb.openSessionsView()).locator('.monaco-list-row', { hasText: 'Archived' }).first().click();
  await pane.locator('.monaco-list-row', { hasText: DONE }).first().waitFor();
  assert.equal(await archived.getAttribute('aria-expanded'), 'true');
  await wb.screenshot('walkthrough-archive');
  await untilChecked('archive');
  assert.deepEqual(await checkedSteps(), STEPS);
  await wb.screenshot('walkthrough-done');
});
