// What needs you (issue 34) in a real browser driving a real VS Code, against the reference agent
// serving a live list (--air-index, as claude-agent-acp does): a session another process updates
// after it was read shows as unread (its row's decoration, its words) and the view's badge counts
// it; opening it clears both; Show Only Unread lists exactly the unread sessions among 200, says
// so in the view's description, and Show All Sessions brings every row back. The Active section
// counts its 200 sessions as "200": one page of 250 without a cursor is the end, not a cap.
// Screenshot: test-results/screenshots/sessions-unread.png (`--update-screenshots` copies it to media/screenshots/).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { readSession, writeSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, storedSession, useWorkbench, viewBadge } from './harness';

const COUNT = 200;
const title = (i: number) => `Chore ${String(i).padStart(3, '0')}`;
const id = (i: number) => `s-chore-${i}`;
/** The sessions another process updates once the tree has shown them. */
const UPDATED = [3, 17, 42, 120, 199];
const READ = 1;

const ui = useWorkbench('read-state', async ({ folder, store }) => {
  for (let i = 0; i < COUNT; i++) await writeSession(store, storedSession(id(i), title(i), folder, 2 + i * 0.1));
  // Every session in one page: the filter is checked against all 200 rows.
  return { agents: [referenceAgent(store, ['--air-index', '--page-size', '250'])], folders: [folder], settings: { 'acpSessions.pageSize': 250 } };
}, {
  ready: async ({ row }) => { await row(title(0)).first().waitFor({ timeout: HANG_GUARD_MS }); },
});
const { row, until } = ui;

/** The view's badge as the activity bar shows it ('' when there is none). */
const badge = () => viewBadge(ui.page);

/** What the row says to a screen reader (its accessible label), and the decoration's badge VS Code draws after its label. */
async function rowMarks(target: Locator): Promise<{ label: string; dot: string }> {
  const label = (await target.getAttribute('aria-label')) ?? '';
  const dot = await target.locator('.monaco-icon-label').first().evaluate((el) => getComputedStyle(el, '::after').content).catch(() => '');
  return { label, dot: dot === 'none' || dot === 'normal' ? '' : dot };
}

/** Another process writes the session again: a new turn, a new date; the live list reports it. */
async function updateElsewhere(i: number): Promise<void> {
  const stored = await readSession(ui.store, id(i));
  assert.ok(stored, `${id(i)} is in the store`);
  await writeSession(ui.store, { ...stored, updatedAt: new Date().toISOString(), updates: [...stored.updates, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done in a terminal.' } }] as never });
}

test('a session updated by another process after it was read shows as unread and the badge counts it; opening it clears both', async () => {
  assert.equal(await badge(), '', 'sessions first seen here count as read: no badge');
  const active = row('Active').first();
  const counted = async () => (await active.locator('.label-description').innerText().catch(() => '')).trim();
  await until('the Active section shows its count', async () => (await counted()) !== '');
  assert.equal(await counted(), '200', 'exactly 200 sessions on one page of 250: no "+", the reference agent holds no more');
  assert.doesNotMatch((await rowMarks(row(title(READ)).first())).label, /unread/);
  // Read it, then another process adds a turn.
  await row(title(READ)).first().click();
  await ui.wb.transcriptShown(title(READ));
  await until('the transcript has finished loading', async () => (await ui.wb.webviewFrame().locator('body[data-loading="false"]').count().catch(() => 0)) > 0);
  await ui.wb.closeEditors();
  await updateElsewhere(READ);
  const target = row(title(READ)).first();
  await until('the updated session\'s row says it is unread', async () => /unread/.test((await rowMarks(target)).label));
  await until('the view\'s badge counts it', async () => (await badge()) === '1');
  await until('the row carries the unread decoration (its dot after the label)', async () => /●/.test((await rowMarks(target)).dot));
  await ui.wb.screenshot('sessions-unread');
  // Opening it clears both.
  await target.click();
  await ui.wb.transcriptShown(title(READ));
  await until('opened, the row is read again', async () => !/unread/.test((await rowMarks(row(title(READ)).first())).label));
  await until('and the badge is gone', async () => (await badge()) === '');
  await ui.wb.closeEditors();
});

test('Show Only Unread lists exactly the unread sessions among 200; Show All Sessions brings every row back', async () => {
  for (const i of UPDATED) await updateElsewhere(i);
  await until(`the badge counts the ${UPDATED.length} updated sessions`, async () => (await badge()) === String(UPDATED.length));
  await ui.wb.runCommand('ACP Sessions: Show Only Unread Sessions');
  const sessionRows = ui.pane.locator('.monaco-list-row[aria-level="3"]');
  const expected = UPDATED.map(title).sort();
  await until('only the unread sessions are listed', async () => JSON.stringify((await sessionRows.locator('.label-name').allInnerTexts()).map((t) => t.trim()).sort()) === JSON.stringify(expected));
  const header = ui.pane.locator('.pane-header').first();
  assert.match(await header.innerText(), /Unread only/, 'the view says which filter is on');
  // Mark as Read from a row's menu: it leaves the filtered list.
  await ui.contextMenu(row(title(UPDATED[0])).first(), 'Mark as Read');
  await until('the session marked read left the unread list', async () => (await row(title(UPDATED[0])).count()) === 0);
  await until('the badge counts one less', async () => (await badge()) === String(UPDATED.length - 1));
  await ui.wb.runCommand('ACP Sessions: Show All Sessions (Filter Off)');
  await until('every session is listed again', async () => (await row(title(0)).count()) === 1 && !/Unread only/.test(await header.innerText()));
  // Mark as Unread by hand: counted again.
  await ui.contextMenu(row(title(0)).first(), 'Mark as Unread');
  await until('a session marked unread by hand is counted', async () => (await badge()) === String(UPDATED.length));
});

test('a session the agent reports waiting for you has its own mark, the badge counts it and says which is which, and Show Only Waiting lists it alone', async () => {
  const waiting = 6; // on screen: the list builds only the rows it shows
  const stored = await readSession(ui.store, id(waiting));
  assert.ok(stored);
  const before = Number((await badge()) || '0');
  await writeSession(ui.store, { ...stored, state: 'requires_action' });
  const target = row(title(waiting)).first();
  await until('the row says it waits for input', async () => /Waiting for input/.test((await rowMarks(target)).label));
  await until('the row carries the waiting decoration', async () => /!/.test((await rowMarks(target)).dot));
  await until('the badge counts it', async () => (await badge()) === String(before + 1));
  const entry = ui.page.locator('.activitybar li.action-item', { has: ui.page.locator('a[aria-label^="ACP Sessions"]') });
  const said = async () => `${(await entry.locator('a').first().getAttribute('aria-label')) ?? ''} ${(await entry.getAttribute('aria-label')) ?? ''} ${(await entry.locator('.badge').first().getAttribute('title').catch(() => '')) ?? ''}`;
  await until('the badge says which is which', async () => /1 waiting for you/.test(await said()) && new RegExp(`${before} unread`).test(await said()));
  await ui.wb.runCommand('ACP Sessions: Show Only Sessions Waiting for You');
  const sessionRows = ui.pane.locator('.monaco-list-row[aria-level="3"]');
  await until('only the waiting session is listed', async () => JSON.stringify((await sessionRows.locator('.label-name').allInnerTexts()).map((t) => t.trim())) === JSON.stringify([title(waiting)]));
  await ui.wb.runCommand('ACP Sessions: Show All Sessions (Filter Off)');
  await writeSession(ui.store, { ...stored, state: 'idle' });
  await until('no longer waiting, it leaves the badge', async () => (await badge()) === String(before || ''));
});
