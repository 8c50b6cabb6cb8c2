// The Sessions view in a real browser driving a real VS Code, against the real claude-agent-acp on
// a Claude Code store fabricated in a temporary HOME: archive through a row's inline action (the
// JetBrains AIR extension underneath), both sections on screen. Saves the README's screenshot,
// test-results/screenshots/claude-sessions-both-sections.png (`npm run test:interop`, since it
// needs the interop agents installed).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { HANG_GUARD_MS, startWorkbench, type Workbench } from '../ui/harness';
import { agentEntry } from './agents.mjs';
import { claudeProjectDir, writeClaudeSession } from './stores.mjs';
import { hoursAgo, installed, node24, tempHome } from './support';

const { home, project, cleanup } = tempHome();
let wb: Workbench;
let pane: Locator;

const SESSIONS: { title: string; hours: number; turns: [string, string][] }[] = [
  { title: 'Split the parser into a lexer and a parser', hours: 1, turns: [['Split the parser.', 'The lexer is done; the parser reads tokens now.']] },
  { title: 'Fix the login bug after a password reset', hours: 3, turns: [['The login fails after a reset.', 'The reset now clears the old session.']] },
  { title: 'Add cursor pagination to GET /users', hours: 26, turns: [['Add pagination.', 'Added `cursor` and `limit`.']] },
  { title: 'Why is the build slow?', hours: 50, turns: [['The build takes 4 minutes.', 'Type checking runs twice; drop one.']] },
  { title: 'Spike: a WebAssembly tokenizer', hours: 120, turns: [['Try a wasm tokenizer.', 'It is 2x faster but adds 400 KB.']] },
];

before(async () => {
  SESSIONS.forEach((s, i) => writeClaudeSession(home, {
    sessionId: `0a1b2c3d-0000-4000-8000-0000000000e${i}`, cwd: project, title: s.title, updatedAt: hoursAgo(s.hours), turns: s.turns,
  }));
  const agents = [agentEntry(installed.agents.claude, { name: 'Claude', home, node: node24 })];
  // The agents go into the machine settings with the quiet ones (no chat, no tips) before the
  // server starts: rewriting them later dropped those, and the chat side bar could then open
  // and move the rows between a hover and its click.
  wb = await startWorkbench({ agents, folders: [project] });
  pane = await wb.openSessionsView();
});

after(async () => {
  await wb?.close();
  cleanup();
});

function row(label: string): Locator {
  return pane.locator('.monaco-list-row', { hasText: label });
}

/** Which section a session row is in: the nearest section header above it. */
async function sectionOf(title: string): Promise<string | undefined> {
  const all = await pane.locator('.monaco-list-row .label-name').allInnerTexts();
  const index = all.indexOf(title);
  if (index < 0) return undefined;
  return all.slice(0, index).reverse().find((l) => l === 'Active' || l === 'Archived');
}

/** Archives a session through its row's inline action and waits until it shows under Archived. */
async function archive(title: string): Promise<void> {
  const target = row(title).first();
  await target.hover();
  await target.locator('.action-label[aria-label="Archive"]').click();
  const header = row('Archived').first();
  await wb.until('an Archived section shows', async () => (await header.count()) > 0);
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  await wb.until(`"${title}" is under Archived`, async () => (await sectionOf(title)) === 'Archived');
}

test('claude\'s sessions show under Active; archiving two through the inline action shows both sections', async () => {
  await wb.until('claude\'s sessions are listed', async () => (await row(SESSIONS[0].title).count()) > 0);
  assert.equal(await sectionOf(SESSIONS[0].title), 'Active');
  await archive('Spike: a WebAssembly tokenizer');
  await archive('Why is the build slow?');
  assert.equal(await sectionOf('Split the parser into a lexer and a parser'), 'Active');
  assert.equal(await sectionOf('Add cursor pagination to GET /users'), 'Active');
  // A wider sidebar, so the titles and dates show whole: drag the sash at its right edge.
  const sidebar = await wb.page.locator('.part.sidebar').boundingBox();
  if (sidebar) {
    const x = sidebar.x + sidebar.width + 1;
    const y = sidebar.y + sidebar.height / 2;
    await wb.page.mouse.move(x, y);
    await wb.page.mouse.down();
    await wb.page.mouse.move(x + 200, y, { steps: 5 });
    await wb.page.mouse.up();
  }
  // Out of the row being hovered, so the screenshot shows the tree at rest.
  await wb.page.mouse.move(0, 0);
  await wb.screenshot('claude-sessions-both-sections');
});

test('F2 on a claude session renames it through the session index: the row, and the record claude keeps in its file', async () => {
  const title = 'Fix the login bug after a password reset';
  const target = row(title).first();
  // A click selects the row and opens its transcript; closed again so the tree keeps the focus.
  await target.click();
  await wb.transcriptShown(title);
  await wb.closeEditors();
  await wb.focusSessionsView();
  const input = wb.page.locator('.quick-input-widget input');
  await wb.pressOnRow(target, 'F2', { what: 'the Rename box asks for a title', holds: () => input.isVisible() });
  await wb.quickInput();
  assert.equal(await input.inputValue(), title);
  await input.fill('Login bug: the reset keeps the old session');
  await wb.page.keyboard.press('Enter');
  await row('Login bug: the reset keeps the old session').first().waitFor({ timeout: HANG_GUARD_MS });
  const file = readFileSync(join(claudeProjectDir(home, project), '0a1b2c3d-0000-4000-8000-0000000000e1.jsonl'), 'utf8');
  assert.ok(file.includes('custom-title') && file.includes('Login bug: the reset keeps the old session'), 'claude stored the title in the session\'s file');
});

test('a session another claude process writes shows in the tree with no Refresh (the live list)', async () => {
  const title = 'Written by claude in a terminal';
  const written = Date.now();
  writeClaudeSession(home, { sessionId: '0a1b2c3d-0000-4000-8000-0000000000f0', cwd: project, title, updatedAt: new Date().toISOString(), turns: [['Run the tests.', 'All 412 pass.']] });
  await wb.until(`"${title}" shows under Active`, async () => (await sectionOf(title)) === 'Active');
  console.log(`# the new claude session showed ${Date.now() - written} ms after its file was written`);
  await wb.screenshot('claude-live-list');
});
