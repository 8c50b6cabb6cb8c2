// Kept copies (issue 33) in a real browser driving a real VS Code, against the reference agent: a
// session read once and then removed from the agent's store by another process (as Claude Code's
// clean-up removes its transcripts) stays under Kept Here, opens read-only from its copy with the
// same text, and is found by Search Sessions; deleting a session here removes its copy (the modal
// says so); a copy cut short on disk is never shown as a whole session.
// Screenshots: test-results/screenshots/kept-here.png (`--update-screenshots` copies it to media/screenshots/).
import assert from 'node:assert/strict';
import { existsSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { keptPath, readKeptMeta } from '../../src/keep/keptFile';
import { sessionFilePath, writeSession, type StoredSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, searchPane as searchPaneOf, useWorkbench } from './harness';

const AGENT = 'Reference';
const KEPT = { id: 'sess_orbit', title: 'Orbital relay plan' };
const DELETED = { id: 'sess_gone_here', title: 'Scratch to delete' };
const CUT = { id: 'sess_cut', title: 'Copy cut short' };
const STAYS = 'Still with the agent';

const text = (t: string) => ({ type: 'text', text: t });

function session(folder: string, sessionId: string, title: string, minutesAgo: number, lines: string[]): StoredSession {
  const updates = lines.map((line, i) => ({ sessionUpdate: i % 2 === 0 ? 'user_message_chunk' : 'agent_message_chunk', messageId: `${sessionId}-${i}`, content: text(line) }));
  return { sessionId, cwd: folder, title, updatedAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(), archived: false, deleted: false, updates: updates as never };
}

const ui = useWorkbench('kept', async ({ folder, store }) => {
  await writeSession(store, session(folder, KEPT.id, KEPT.title, 5, [
    'How does the orbital relay route its packets?',
    'The relay keeps a table of neighbours and forwards each packet to the nearest one.',
    'And when a neighbour drops out?',
    'It falls back to the ground station, which keeps the packet until a neighbour returns.',
  ]));
  await writeSession(store, session(folder, DELETED.id, DELETED.title, 10, ['Scratch question', 'Scratch answer']));
  await writeSession(store, session(folder, CUT.id, CUT.title, 15, ['A question whose copy is cut', 'An answer whose copy is cut']));
  await writeSession(store, session(folder, 'sess_stays', STAYS, 20, ['Nothing happens to me', 'Indeed']));
  return { agents: [referenceAgent(store)], folders: [folder] };
}, {
  ready: async ({ row }) => { await row(STAYS).waitFor({ timeout: HANG_GUARD_MS }); },
});
const { until } = ui;

const webview = (): FrameLocator => ui.wb.webviewFrame();
const keptRoot = () => join(ui.wb.dirs.userData, 'User', 'globalStorage', 'acp-sessions.acp-sessions', 'kept');
const copyOf = (sessionId: string) => keptPath(keptRoot(), AGENT, sessionId);

/** The transcript's rows as a reader sees them, in order. */
async function transcriptTexts(): Promise<string[]> {
  return (await webview().locator('#timeline .row').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
}

/** Opens the session from its row, waits for its replay and its copy, and closes it again. */
async function readOnce(title: string, sessionId: string): Promise<string[]> {
  await ui.wb.closeEditors();
  await ui.row(title).click();
  await ui.wb.transcriptShown(title);
  // Loaded, and its text rendered as Markdown (until then it shows plain: markdownPass.ts).
  await until(`the transcript "${title}" has finished loading and rendering`, async () => (await webview().locator('body[data-loading="false"][data-markdown="done"]').count().catch(() => 0)) > 0);
  const texts = await transcriptTexts();
  await until(`a whole copy of "${title}" is kept`, async () => readKeptMeta(copyOf(sessionId)).then(() => true, () => false));
  await ui.wb.closeEditors();
  return texts;
}

/** Another process removes the session from the agent's store (as Claude's clean-up does); then the view is refreshed. */
async function removeBehindTheAgentsBack(sessionId: string, title: string): Promise<void> {
  rmSync(sessionFilePath(ui.store, sessionId));
  await ui.wb.runCommand('ACP Sessions: Refresh');
  await until(`"${title}" left Active`, async () => (await ui.pane.locator('.monaco-list-row[aria-level="3"]', { hasText: title }).count()) === 0);
}

async function keptSection() {
  const section = ui.rowWithText(/^Kept Here/);
  await section.waitFor({ timeout: HANG_GUARD_MS });
  if ((await section.getAttribute('aria-expanded')) === 'false') await section.click();
  await until('Kept Here is expanded', async () => (await section.getAttribute('aria-expanded')) === 'true');
  return section;
}

test('a session read once and then removed from the agent\'s store stays in Kept Here, opens read-only with the same text, and is found by search', async () => {
  const read = await readOnce(KEPT.title, KEPT.id);
  assert.ok(read.some((t) => t.includes('forwards each packet to the nearest one')), `the transcript showed its text: ${read.join(' | ')}`);
  await removeBehindTheAgentsBack(KEPT.id, KEPT.title);
  await keptSection();
  const row = ui.row(KEPT.title);
  await row.waitFor({ timeout: HANG_GUARD_MS });
  assert.match((await row.innerText()).replace(/\s+/g, ' '), /kept copy/);
  // Its own icon, not a session's.
  assert.equal(await row.locator('.codicon-save').count(), 1);
  await ui.wb.screenshot('kept-here');

  await row.click();
  await ui.wb.transcriptShown(KEPT.title);
  await until('the kept copy has been read and rendered', async () => (await webview().locator('body[data-loading="false"][data-markdown="done"]').count().catch(() => 0)) > 0);
  const header = webview().locator('#header');
  await until('the header says it is a kept copy', async () => /Kept copy, read-only/.test((await header.innerText().catch(() => '')) ?? ''));
  assert.deepEqual(await transcriptTexts(), read, 'the same text as when it was read from the agent');
  // Nothing that needs the agent's session: no Resume, no Rename, no Copy Link.
  assert.equal(await header.locator('button', { hasText: /Resume|Rename|Copy Link/ }).count(), 0);
  await ui.wb.closeEditors();

  const pane = await searchPaneOf(ui);
  await ui.wb.runCommand('ACP Sessions: Search Sessions…');
  const input = await ui.quickInput();
  await input.fill('neighbours');
  const found = pane.locator('.monaco-list-row', { hasText: KEPT.title });
  await found.waitFor({ timeout: HANG_GUARD_MS });
  await input.press('Enter');
  const match = pane.locator('.monaco-list-row', { hasText: 'table of neighbours' }).first();
  await match.waitFor({ timeout: HANG_GUARD_MS });
  // Done once the find bar shows the match: it opens (and takes the focus) when the copy has been
  // read, so a key pressed before that (the palette's, below) would lose its quick input to it.
  await ui.wb.pressOnRow(match, 'Enter', {
    what: 'the match opens the kept copy with the find bar showing the match',
    holds: async () =>
      (await ui.page.locator('.tabs-container .tab', { hasText: KEPT.title }).count()) > 0 &&
      /Kept copy, read-only/.test((await webview().locator('#header').innerText().catch(() => '')) ?? '') &&
      /neighbours/i.test(await webview().locator('.find-bar input').inputValue().catch(() => '')),
  });
  await ui.wb.closeEditors();
});

test('deleting a session here deletes its kept copy too, and the modal says so', async () => {
  await readOnce(DELETED.title, DELETED.id);
  assert.ok(existsSync(copyOf(DELETED.id)));
  await ui.contextMenu(ui.row(DELETED.title), 'Delete…');
  const dialog = await ui.dialog(/Delete the session "Scratch to delete"\?/);
  assert.match(await dialog.innerText(), /The copy kept here is deleted too\./);
  await dialog.locator('.monaco-button', { hasText: /^Delete$/ }).click();
  await until('the session left the tree', async () => (await ui.row(DELETED.title).count()) === 0);
  await until('its copy left the disk', () => !existsSync(copyOf(DELETED.id)));
});

test('a copy cut short on disk is not shown as a whole session: Kept Here lists a damaged copy', async () => {
  await readOnce(CUT.title, CUT.id);
  const path = copyOf(CUT.id);
  truncateSync(path, Math.floor(statSync(path).size / 2));
  await removeBehindTheAgentsBack(CUT.id, CUT.title);
  await keptSection();
  await until('Kept Here lists a damaged copy', async () => (await ui.rowWithText(/Damaged copy/).count()) === 1);
  assert.equal(await ui.row(CUT.title).count(), 0, 'the cut copy is not shown as the session');
  // The copy read whole before is still there.
  assert.equal(await ui.row(KEPT.title).count(), 1);
});
