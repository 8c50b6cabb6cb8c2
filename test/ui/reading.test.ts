// Issue 32 in a real browser driving a real VS Code, against the reference agent: what a reader
// meets in a transcript. A match of Search Sessions for two words opens the transcript with its
// find stepping through each word, not the first alone; a link to a session the agent does not
// have opens a tab that says so in its title and header and offers nothing that needs the
// session; Go to Prompt… starts at the prompt being read, not at the first. A match's find bar,
// which comes once the replay is read, takes the focus only where the reader still is.
// Screenshots: test-results/screenshots/{find-each-word,find-bar-kept-out-of-the-palette,session-not-found,go-to-prompt-here}.png.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { writeSession, type StoredSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, searchPane as searchPaneOf, useWorkbench } from './harness';

const WALK_TITLE = 'Walk through the release';
const PROMPTS = ['First prompt: plan the release', 'Second prompt: bump the version', 'Third prompt: write the changelog'];
const FIND_TITLE = 'Mission planning';
/** "orbital" and "relay" each twice, apart: the words of the query below, in rows 1, 2 and 6. */
const FIND_TEXTS = [
  'Plan the orbital relay for the next launch.',
  'First, the relay needs a power budget.',
  'The antenna is folded during the ascent.',
  'Telemetry goes down the usual link.',
  'The crew reviews the checklist twice.',
  'The orbital window opens at noon.',
];

const text = (t: string) => ({ type: 'text', text: t });

function session(folder: string, sessionId: string, title: string, minutesAgo: number, updates: Record<string, unknown>[]): StoredSession {
  return { sessionId, cwd: folder, title, updatedAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(), archived: false, deleted: false, updates: updates as never };
}

function walkUpdates(): Record<string, unknown>[] {
  const updates: Record<string, unknown>[] = [];
  PROMPTS.forEach((prompt, i) => {
    updates.push({ sessionUpdate: 'user_message_chunk', messageId: `u${i}`, content: text(prompt) });
    for (let j = 0; j < 12; j++) updates.push({ sessionUpdate: 'agent_message_chunk', messageId: `a${i}-${j}`, content: text(`Answer ${i + 1}.${j + 1}: a paragraph long enough to take a line or two of the transcript.`) });
  });
  return updates;
}

function findUpdates(): Record<string, unknown>[] {
  return FIND_TEXTS.map((t, i) => ({ sessionUpdate: i === 0 ? 'user_message_chunk' : 'agent_message_chunk', messageId: `m${i}`, content: text(t) }));
}

const GATED_TITLE = 'Heliostat night shift';
const GATED_TEXT = 'Calibrate the heliostat array before dawn.';

/** A message, then a compaction the agent replays only as the gate file allows, then the answer. */
function gatedUpdates(): Record<string, unknown>[] {
  return [
    { sessionUpdate: 'user_message_chunk', messageId: 'g0', content: text(GATED_TEXT) },
    { sessionUpdate: 'compaction_update', compactionId: 'cmp_gated', status: 'in_progress' },
    { sessionUpdate: 'compaction_summary_chunk', compactionId: 'cmp_gated', content: text('The mirrors were aligned.') },
    { sessionUpdate: 'compaction_update', compactionId: 'cmp_gated', status: 'completed' },
    { sessionUpdate: 'agent_message_chunk', messageId: 'g1', content: text('The array tracks the sun again.') },
  ];
}

let gate = '';

const ui = useWorkbench('reading', async ({ work, folder, store }) => {
  await writeSession(store, session(folder, 'sess_walk', WALK_TITLE, 1, walkUpdates()));
  await writeSession(store, session(folder, 'sess_find', FIND_TITLE, 20, findUpdates()));
  const gatedStore = join(work, 'gated-store');
  await writeSession(gatedStore, session(folder, 'sess_gated', GATED_TITLE, 30, gatedUpdates()));
  gate = join(work, 'gate');
  writeFileSync(gate, 'all');
  return {
    agents: [
      // A resume command, so that the header would offer Resume in Terminal for a session it can resume.
      { ...referenceAgent(store), resume: ['true', '${sessionId}'] },
      // Its compactions are replayed only as far as the gate file allows: a transcript's load held on purpose.
      referenceAgent(gatedStore, ['--replay-gate', gate], 'Gated'),
    ],
    folders: [folder],
  };
}, {
  ready: async ({ row }) => { await row(WALK_TITLE).waitFor({ timeout: HANG_GUARD_MS }); },
});
const { until } = ui;

const webview = (): FrameLocator => ui.wb.webviewFrame();

/** The highlighted find match in the open transcript: its text and the row (1-based) it is in. */
async function highlighted(): Promise<{ text: string; row: number }> {
  return webview().locator('html').evaluate(() => {
    const h = (CSS as unknown as { highlights: Map<string, { values(): IterableIterator<Range> }> }).highlights.get('transcript-find');
    const range = h ? [...h.values()][0] : undefined;
    const rowEl = range?.startContainer.parentElement?.closest('.row');
    return { text: range?.toString() ?? '', row: Number(rowEl?.parentElement?.getAttribute('aria-posinset') ?? 0) };
  }).catch(() => ({ text: '', row: 0 }));
}

/** Searches `query` with no editor open and returns the Search view's row of the match that shows `matchText` in session `title`. */
async function searchMatch(query: string, title: string, matchText: string): Promise<Locator> {
  await ui.wb.closeEditors();
  const pane = await searchPaneOf(ui);
  await ui.wb.runCommand('ACP Sessions: Search Sessions…');
  const input = await ui.quickInput();
  await input.fill(query);
  // The results follow the index as it fills: the session shows once it is indexed.
  await pane.locator('.monaco-list-row', { hasText: title }).waitFor({ timeout: HANG_GUARD_MS });
  await input.press('Enter');
  const matchRow = pane.locator('.monaco-list-row', { hasText: matchText }).filter({ hasNotText: title }).first();
  await matchRow.waitFor({ timeout: HANG_GUARD_MS });
  return matchRow;
}

test('a match of two words opens the transcript with its find stepping through each word, in order', async () => {
  const matchRow = await searchMatch('orbital relay', FIND_TITLE, 'Plan the orbital relay');
  const findInput = webview().locator('.find-bar input');
  const count = webview().locator('.find-bar .find-count');
  await ui.wb.pressOnRow(matchRow, 'Enter', {
    what: 'the transcript opens with its find bar counting the matches',
    holds: async () => (await ui.page.locator('.tabs-container .tab', { hasText: FIND_TITLE }).count()) > 0 && /^1 of \d+$/.test((await count.textContent().catch(() => '')) ?? ''),
  });
  // The reader stayed in the tab: the bar has the keyboard focus, so Enter steps at once.
  await until('the find bar\'s input has the keyboard focus', () => findInput.evaluate((e) => e === document.activeElement && document.hasFocus()).catch(() => false));
  // Both words, as searched: the find counts every "orbital" and every "relay".
  assert.equal(await findInput.inputValue(), 'orbital relay');
  await until('the count says 1 of 4', async () => (await count.textContent()) === '1 of 4');
  await until('the first word of the match is highlighted', async () => (await highlighted()).row === 1);
  assert.deepEqual(await highlighted(), { text: 'orbital', row: 1 });
  // Enter steps to the next match of either word: the second word in the same row, then on.
  const steps: [string, string, number][] = [['2 of 4', 'relay', 1], ['3 of 4', 'relay', 2], ['4 of 4', 'orbital', 6]];
  for (const [counted, word, row] of steps) {
    await findInput.press('Enter');
    await until(`the count says ${counted} and "${word}" of row ${row} is highlighted`, async () => {
      const now = await highlighted();
      return (await count.textContent()) === counted && now.row === row && now.text === word;
    });
  }
  await ui.wb.screenshot('find-each-word');
  await ui.wb.closeEditors();
});

test('a match whose transcript is still loading when the reader opens the palette shows in the find bar without taking the focus from the palette', async () => {
  const matchRow = await searchMatch('heliostat', GATED_TITLE, 'heliostat array');
  // From now on the transcript's replay stops before its compaction.
  writeFileSync(gate, '0');
  const count = webview().locator('.find-bar .find-count');
  try {
    await ui.wb.pressOnRow(matchRow, 'Enter', {
      what: 'the transcript opens, showing its first row, and its page has the keyboard focus',
      holds: async () => (await webview().locator('#timeline .row', { hasText: GATED_TEXT }).count()) > 0
        && (await webview().locator('body').evaluate(() => document.hasFocus()).catch(() => false)),
    });
    assert.equal(await count.isVisible().catch(() => false), false, 'the find bar waits for the replay');
    // The reader goes to the palette while the replay is held.
    await ui.page.keyboard.press('F1');
    const palette = await ui.quickInput();
    writeFileSync(gate, 'all');
    await until('the find bar counts the match', async () => /^1 of \d+$/.test((await count.textContent().catch(() => '')) ?? ''));
    assert.equal(await webview().locator('.find-bar input').inputValue(), 'heliostat');
    assert.ok(await palette.evaluate((e) => e === document.activeElement), 'the palette keeps the keyboard focus');
    assert.equal(await webview().locator('body').evaluate(() => document.hasFocus()), false, 'the transcript did not take the focus');
    await ui.wb.screenshot('find-bar-kept-out-of-the-palette');
    await palette.press('Escape');
  } finally {
    writeFileSync(gate, 'all');
  }
  await ui.wb.closeEditors();
});

const contextMenu = (row: Locator, item: string) => ui.contextMenu(row, item);

test('a link to a session the agent does not have opens a tab that says it was not found and offers nothing that needs the session', async () => {
  await ui.wb.closeEditors();
  await ui.wb.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ui.wb.url).origin });
  // A link Copy Link made (VS Code's callback page, a fresh request id), its session made up.
  await contextMenu(ui.row(WALK_TITLE), 'Copy Link');
  let link = '';
  await until('the link is on the clipboard', async () => {
    link = await ui.page.evaluate(() => navigator.clipboard.readText()).catch(() => '');
    return link.includes('callback?');
  });
  const url = new URL(link);
  const query = new URLSearchParams(url.searchParams.get('vscode-query') ?? '');
  query.set('session', 'sess_madeup');
  url.searchParams.set('vscode-query', query.toString());
  const other = await ui.wb.context.newPage();
  await other.goto(url.toString());
  await other.close();
  await ui.page.bringToFront();
  const dialog = await ui.dialog(/Open the session this link names\?/);
  await dialog.locator('.monaco-button', { hasText: /^Open Session$/ }).click();
  const header = webview().locator('#header');
  await until('the tab has heard the agent\'s answer', async () => (await webview().locator('body[data-loading="false"] #header .problem').count().catch(() => 0)) > 0);
  const tab = ui.page.locator('.tabs-container .tab.active').first();
  assert.match(await tab.innerText(), /not found/i, 'the tab\'s title says the session was not found');
  assert.doesNotMatch(await tab.innerText(), /Untitled session/);
  assert.match(await header.locator('.title').innerText(), /not found/i, 'the header\'s title says so');
  assert.match(await header.locator('.problem-text').innerText(), /does not have/);
  assert.equal(await header.locator('.deleted').count(), 0, 'not "Deleted": it was never there');
  // Nothing that needs the session: no Rename, Resume, Copy Link, Go to Prompt, Export, Try Again.
  const offered = await header.locator('button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? b.textContent ?? ''));
  assert.deepEqual(offered, ['Show Log']);
  await ui.wb.screenshot('session-not-found');
  await ui.wb.closeEditors();
  await ui.wb.runCommand('Notifications: Clear All Notifications');
});

/** The text of the webview's focused row. */
async function focusedRowText(): Promise<string> {
  return webview().locator('body').evaluate(() => (document.activeElement?.closest('.row') as HTMLElement | null)?.innerText ?? '');
}

/** The webview's focused row's text, when the page's focus is in it and the row's top is just under the header (else ''). */
async function focusedRowUnderHeader(): Promise<{ text: string }> {
  return webview().locator('body').evaluate(() => {
    const row = document.activeElement?.closest('.row') as HTMLElement | null;
    if (!row || !document.hasFocus()) return { text: '' };
    const gap = row.getBoundingClientRect().top - document.getElementById('header')!.getBoundingClientRect().bottom;
    return { text: Math.abs(gap) < 10 ? row.innerText : '' };
  });
}

test('Go to Prompt… starts at the prompt at or above the view, not at the first', async () => {
  await ui.wb.closeEditors();
  await ui.row(WALK_TITLE).click();
  await until('the walk transcript has replayed', async () => (await webview().locator('body[data-loading="false"]').count()) > 0 && (await webview().locator('.row').count()) > 0);
  await webview().locator('.row').first().click();
  await ui.page.keyboard.press('Control+Alt+ArrowDown');
  await until('the second prompt has the focus', async () => (await focusedRowText()).includes(PROMPTS[1]));
  // The reader reads on, a few answers into the second prompt's turn.
  await webview().locator('html').evaluate(() => window.scrollBy(0, 150));
  // The webview tells the host where it is in the animation frame after the scroll: two frames on.
  await webview().locator('html').evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
  const top = await webview().locator('html').evaluate(() => {
    const header = document.getElementById('header')!.getBoundingClientRect().bottom;
    const first = [...document.querySelectorAll<HTMLElement>('#timeline .row')].find((r) => r.getBoundingClientRect().bottom > header + 10);
    return first?.innerText ?? '';
  });
  assert.match(top, /Answer 2\./, `the view shows the second prompt's answers at its top: ${top}`);
  await webview().locator('#header button[aria-label="Go to Prompt…"]').click();
  await ui.quickInput();
  const active = ui.page.locator('.quick-input-list .monaco-list-row.focused');
  await until('the quick pick shows its prompts', async () => (await ui.page.locator('.quick-input-list .monaco-list-row').count()) === 3);
  assert.match(await active.innerText(), new RegExp(PROMPTS[1]), 'the prompt being read is the one chosen');
  await ui.wb.screenshot('go-to-prompt-here');
  // Enter goes to it: the same prompt, focused just under the header. The prompt had the focus
  // before (scrolled above the header since), so only its place shows the step was taken: acting
  // before it, the next step's command palette lost the keyboard to the row focused after it.
  await ui.page.keyboard.press('Enter');
  await until('Go to Prompt closed its pick and focused the second prompt just under the header', async () =>
    !(await ui.page.locator('.quick-input-widget').isVisible()) && (await focusedRowUnderHeader()).text.includes(PROMPTS[1]),
  );
  await ui.wb.closeEditors();
});
