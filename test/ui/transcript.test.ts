// The transcript in a real browser driving a real VS Code: compaction rows of every status,
// an in-progress row turning completed while its summary streams in (reference agent in slow
// mode), expand and collapse by keyboard, a hostile session whose text stays inert; a long
// session, of which the webview builds only the rows on screen: End, Home, Page Down, find in
// rows not built, and following the end while a summary streams in; tool titles with Markdown
// code spans (Auggie's "Run `ls src`") shown as code, and nothing else in them as markup.
// Screenshots go to test-results/.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FrameLocator, Page } from 'playwright-core';
import { seedStore, type SeedResult } from '../agent/seed';
import { writeSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, runPaletteCommand, workbenchStarted } from './harness';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const RESULTS = join(ROOT, 'test-results');
const STREAM_TITLE = 'Streaming compaction (slow replay)';
const STREAM_CHUNKS = 120;
const LONG_TITLE = 'A long session of 3,000 messages';
const LONG_ROWS = 3000;
const LONG_LAST = 'The very last line of the long session.';
/** Rows whose text holds the needle: 100, 250, ..., 2500 (17 rows). */
const NEEDLE_ROWS = Array.from({ length: 17 }, (_, i) => 100 + 150 * i);
const FOLLOW_TITLE = 'A long session whose last compaction streams in';
const FOLLOW_LAST = 'Compaction over: this is the last line.';
const TOOLS_TITLE = 'Tools titled with code spans';
const OWN_NAMES_TITLE = 'Kinds and statuses named like an object\'s own properties';
/** Tool titles as an agent sends them, and what the row's head shows: its text, and its code elements. */
const TOOL_TITLES: { title: string; text: string; code: string[] }[] = [
  { title: 'Run `ls src`', text: 'Run ls src', code: ['ls src'] },
  { title: 'Read `<img src=x onerror=alert(27)>` and [docs](https://example.com/d) ``a`b``', text: 'Read <img src=x onerror=alert(27)> and [docs](https://example.com/d) a`b', code: ['<img src=x onerror=alert(27)>', 'a`b'] },
  { title: 'Unclosed ` tick, **not bold**', text: 'Unclosed ` tick, **not bold**', code: [] },
];

interface Host {
  startServer(options: Record<string, unknown>): Promise<{ dirs: { userData: string; serverData: string }; remoteUri(path: string): string; workbenchUrl(o: Record<string, unknown>): string; stop(): Promise<void> }>;
  openBrowser(options?: Record<string, unknown>): Promise<{ page: Page; context: import('playwright-core').BrowserContext; close(): Promise<void> }>;
  QUIET_SETTINGS: Record<string, unknown>;
}

let work: string;
let seed: SeedResult;
let server: Awaited<ReturnType<Host['startServer']>> | undefined;
let browser: Awaited<ReturnType<Host['openBrowser']>> | undefined;
let page: Page;
/** Every URL the page or its frames asked for, to prove nothing remote was requested. */
const requests: string[] = [];
const dialogs: string[] = [];

before(async () => {
  const host = (await import(join(ROOT, 'test', 'host', 'server.mjs'))) as Host;
  work = mkdtempSync(join(tmpdir(), 'acp-ui-transcript-'));
  const folder = join(work, 'workspace');
  mkdirSync(folder);
  const store = join(work, 'store');
  seed = await seedStore({ store, folders: [folder], count: 10, seed: 5 });
  const slowStore = join(work, 'slow-store');
  await writeSession(slowStore, streamingSession(folder));
  // Paced holds only the seeded session with compactions, replayed one update at a time.
  const pacedStore = join(work, 'paced-store');
  await writeSession(pacedStore, seed.sessions.find((x) => x.sessionId === seed.special.compactions)!);
  const longStore = join(work, 'long-store');
  await writeSession(longStore, longSession(folder));
  await writeSession(longStore, toolTitlesSession(folder));
  await writeSession(longStore, ownNamesSession(folder));
  const followStore = join(work, 'follow-store');
  await writeSession(followStore, followSession(folder));
  const agents = [
    referenceAgent(store),
    referenceAgent(longStore, [], 'Long'),
    // Its last compaction streams only as far as the gate file allows.
    referenceAgent(followStore, ['--replay-gate', join(work, 'follow-gate')], 'Follow'),
    // Its compaction ends only once the test creates the gate file, after watching it stream.
    referenceAgent(slowStore, ['--replay-delay', '25', '--replay-gate', join(work, 'slow-gate')], 'Slow'),
    // A session of Reference's store, replayed one update at a time: other batches, same transcript.
    referenceAgent(pacedStore, ['--replay-delay', '3'], 'Paced'),
  ];
  const settings = { ...host.QUIET_SETTINGS, 'acpSessions.agents': agents };
  server = await host.startServer({ machineSettings: settings });
  browser = await host.openBrowser();
  page = browser.page;
  browser.context.on('request', (r) => requests.push(r.url()));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  mkdirSync(RESULTS, { recursive: true });
  await page.goto(server.workbenchUrl({ folders: [folder], payload: [['extensionDevelopmentPath', server.remoteUri(ROOT)]] }));
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  await page.click('.activitybar a[aria-label^="ACP Sessions"]');
  await workbenchStarted(page);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A session whose one compaction streams its summary slowly, between two messages. */
function streamingSession(cwd: string) {
  const id = 'cmp_stream';
  const text = (t: string) => ({ type: 'text' as const, text: t });
  const updates: Record<string, unknown>[] = [
    { sessionUpdate: 'user_message_chunk', content: text('Keep going; compact the context when it fills up.') },
    { sessionUpdate: 'agent_message_chunk', content: text('The context is nearly full, so I am compacting it now.') },
    { sessionUpdate: 'compaction_update', compactionId: id, status: 'in_progress' },
  ];
  updates.push({ sessionUpdate: 'compaction_summary_chunk', compactionId: id, content: text('## Retained context\n\n') });
  for (let i = 1; i < STREAM_CHUNKS; i++) {
    updates.push({ sessionUpdate: 'compaction_summary_chunk', compactionId: id, content: text(i % 10 === 0 ? `- Item ${i / 10} kept.\n` : 'word ') });
  }
  updates.push({ sessionUpdate: 'compaction_update', compactionId: id, status: 'completed' });
  updates.push({ sessionUpdate: 'agent_message_chunk', content: text('Compaction finished; continuing with the task.') });
  return { sessionId: 'sess_streaming', cwd, title: STREAM_TITLE, updatedAt: new Date().toISOString(), archived: false, deleted: false, updates } as Parameters<typeof writeSession>[1];
}

/** 3,000 agent messages of one to three lines; 17 of them hold "a needle". */
function longSession(cwd: string) {
  const updates: Record<string, unknown>[] = [];
  for (let i = 0; i < LONG_ROWS - 1; i++) {
    const text = NEEDLE_ROWS.includes(i) ? `Row ${i}: a needle in this one.` : `Row ${i}: nothing to see here.${'\nMore words on another line.'.repeat(i % 3)}`;
    updates.push({ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text } });
  }
  updates.push({ sessionUpdate: 'agent_message_chunk', messageId: 'last', content: { type: 'text', text: LONG_LAST } });
  return { sessionId: 'sess_long', cwd, title: LONG_TITLE, updatedAt: new Date().toISOString(), archived: false, deleted: false, updates } as Parameters<typeof writeSession>[1];
}

/** A session of three tool calls whose titles hold code spans, HTML and a link (see TOOL_TITLES). */
function toolTitlesSession(cwd: string) {
  const updates: Record<string, unknown>[] = [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'List the sources.' } }];
  TOOL_TITLES.forEach(({ title }, i) => updates.push({ sessionUpdate: 'tool_call', toolCallId: `tool-${i}`, title, kind: 'execute', status: 'completed' }));
  return { sessionId: 'sess_tool_titles', cwd, title: TOOLS_TITLE, updatedAt: new Date().toISOString(), archived: false, deleted: false, updates } as Parameters<typeof writeSession>[1];
}

/**
 * Names an object finds on its prototype, sent where the agent names a kind or a status: an
 * update kind, a tool kind and status, a plan entry's status. None is a function of ours.
 */
function ownNamesSession(cwd: string) {
  const text = (t: string) => ({ type: 'text' as const, text: t });
  const updates: Record<string, unknown>[] = [
    { sessionUpdate: 'user_message_chunk', content: text('Send what no client knows.') },
    { sessionUpdate: 'constructor', content: text('a kind named constructor') },
    { sessionUpdate: 'toString', content: text('a kind named toString') },
    { sessionUpdate: 'tool_call', toolCallId: 'tool-own', title: 'A tool of kind constructor', kind: 'constructor', status: 'hasOwnProperty' },
    { sessionUpdate: 'plan', entries: [{ content: 'An entry whose status is toString', status: 'toString', priority: 'high' }] },
  ];
  return { sessionId: 'sess_own_names', cwd, title: OWN_NAMES_TITLE, updatedAt: new Date().toISOString(), archived: false, deleted: false, updates } as Parameters<typeof writeSession>[1];
}

/** 600 messages, then a compaction whose summary streams in (gated), then the last line. */
function followSession(cwd: string) {
  const id = 'cmp_follow';
  const updates: Record<string, unknown>[] = [];
  for (let i = 0; i < 600; i++) updates.push({ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: `Message ${i} before the compaction.` } });
  updates.push({ sessionUpdate: 'compaction_update', compactionId: id, status: 'in_progress' });
  for (let i = 0; i < 200; i++) updates.push({ sessionUpdate: 'compaction_summary_chunk', compactionId: id, content: { type: 'text', text: `Kept fact number ${i}.\n` } });
  updates.push({ sessionUpdate: 'compaction_update', compactionId: id, status: 'completed' });
  updates.push({ sessionUpdate: 'agent_message_chunk', messageId: 'last', content: { type: 'text', text: FOLLOW_LAST } });
  return { sessionId: 'sess_follow', cwd, title: FOLLOW_TITLE, updatedAt: new Date().toISOString(), archived: false, deleted: false, updates } as Parameters<typeof writeSession>[1];
}

/** Waits (at most 60 s, failing with `what` and what `detail` says then) until `condition` holds. */
async function until(what: string, condition: () => Promise<boolean>, detail?: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      await shot(`timed-out-${what.replace(/\W+/g, '-')}`).catch(() => undefined);
      assert.fail(`timed out after 60 s waiting until ${what}${detail ? `: ${JSON.stringify(await detail().catch((e) => String(e)))}` : ''}`);
    }
    await page.waitForTimeout(50);
  }
}

/** What the view shows: the built rows, the first and last row on screen, whether it is at the end. */
function view(frame: FrameLocator) {
  return frame.locator('html').evaluate(() => {
    const header = document.getElementById('header')!.getBoundingClientRect().bottom;
    const rows = [...document.querySelectorAll<HTMLElement>('#timeline .row')];
    const onScreen = rows.filter((r) => {
      const b = r.getBoundingClientRect();
      return b.bottom > header && b.top < window.innerHeight;
    });
    const pos = (r: HTMLElement | undefined) => Number(r?.parentElement?.getAttribute('aria-posinset') ?? 0);
    const s = document.scrollingElement!;
    return {
      built: rows.length,
      setSize: Number(rows[0]?.parentElement?.getAttribute('aria-setsize') ?? 0),
      first: pos(onScreen[0]),
      last: pos(onScreen[onScreen.length - 1]),
      lastText: onScreen[onScreen.length - 1]?.textContent ?? '',
      atEnd: s.scrollTop + window.innerHeight >= s.scrollHeight - 4,
      scrollTop: s.scrollTop,
      /** Rows the webview holds (got from the host), built or not. */
      held: (([a, b]) => b - a)(document.getElementById('timeline')!.dataset.held!.split('-').map(Number)),
    };
  });
}

/** Keyboard focus into the transcript (its title, which does nothing when clicked). */
async function focusTranscript(frame: FrameLocator): Promise<void> {
  await frame.locator('#header .title').click();
}

interface CompactionSeen {
  key: string;
  status: string;
  open: boolean;
  label: string;
  error: string;
  unknownStatus: string;
  questionIcons: number;
  empty: string;
}

/** Every compaction of the transcript, in order: from the top, Page Down until the end. */
async function walkCompactions(frame: FrameLocator): Promise<CompactionSeen[]> {
  await focusTranscript(frame);
  await page.keyboard.press('Home');
  await until('the view is at the top', async () => (await view(frame)).first === 1);
  const seen = new Map<number, CompactionSeen>();
  for (;;) {
    const rows = await frame.locator('details.compaction').evaluateAll((els) => els.map((e) => ({
      pos: Number(e.parentElement?.getAttribute('aria-posinset')),
      key: (e as HTMLElement).dataset.key ?? '',
      status: (e as HTMLElement).dataset.status ?? '',
      open: (e as HTMLDetailsElement).open,
      label: e.querySelector('summary .label')?.textContent ?? '',
      error: e.querySelector('summary .error-text')?.textContent ?? '',
      unknownStatus: e.querySelector('summary .status-unknown')?.textContent ?? '',
      questionIcons: e.querySelectorAll('.codicon-question').length,
      empty: e.querySelector('.empty')?.textContent ?? '',
    })));
    for (const { pos, ...row } of rows) seen.set(pos, row);
    const before = await view(frame);
    if (before.atEnd) break;
    await page.keyboard.press('PageDown');
    await until('Page Down moved the view', async () => (await view(frame)).scrollTop > before.scrollTop, async () => ({
      before,
      now: await view(frame),
      page: await frame.locator('html').evaluate(() => ({
        active: `${document.activeElement?.tagName}.${document.activeElement?.className}`,
        hasFocus: document.hasFocus(),
        scrollHeight: document.scrollingElement!.scrollHeight,
        innerHeight: window.innerHeight,
        built: document.getElementById('timeline')!.dataset.built,
      })),
    }));
  }
  return [...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, row]) => row);
}

function webview(): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/** Opens a session by clicking its row in the Sessions tree, and waits for its rows. */
/** Opens the `nth` row titled `title` (agents are listed in their settings' order). */
async function openFromTree(title: string, nth = 0): Promise<FrameLocator> {
  await closeEditors();
  const row = page.locator('.monaco-list-row', { hasText: title }).nth(nth);
  await row.waitFor({ timeout: 30_000 });
  await row.click();
  const frame = webview();
  await frame.locator('#timeline:not([data-rows="0"])').waitFor({ timeout: 30_000 });
  return frame;
}

async function closeEditors(): Promise<void> {
  await runPaletteCommand(page, 'View: Close All Editors', until);
  await page.locator('iframe.webview.ready').waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined);
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `${name}.png`) });
}

test('a transcript shows one row per compaction, each status presented as the RFD describes', async () => {
  const frame = await openFromTree('Long refactor with several context compactions');
  await frame.locator('body[data-loading="false"]').waitFor();
  // The webview builds the rows on screen: the whole transcript is seen by paging through it.
  const rows = await walkCompactions(frame);
  assert.deepEqual(rows.map((r) => r.status), ['completed', 'completed', 'completed', 'completed', 'failed', 'cancelled', '_vendor_status', 'completed', 'completed']);
  // Completed rows say so and fold their summary; failed and cancelled show the error text.
  assert.equal(rows[0].label, 'Context compacted');
  assert.equal(rows[0].open, false);
  assert.equal(rows[4].label, 'Context compaction failed');
  assert.match(rows[4].error, /rate limit/);
  assert.equal(rows[5].label, 'Context compaction cancelled');
  // An unknown status is shown as its string, in a neutral style.
  assert.equal(rows[6].unknownStatus, '_vendor_status');
  assert.equal(rows[6].questionIcons, 1);
  // A compaction whose summary was cleared says there is none.
  assert.match(rows[3].empty, /no summary/i);
  await page.keyboard.press('Home');
  await shot('transcript-compactions');
  // "Expand all compactions" in the tab opens every row of the session, built or not; the
  // summaries are Markdown.
  await frame.locator('button[data-action="expandAll"]').click();
  assert.deepEqual((await walkCompactions(frame)).map((r) => r.open), Array(9).fill(true));
  await page.keyboard.press('Home');
  const first = frame.locator(`details[data-key="${rows[0].key}"]`);
  await first.locator('.body h2').waitFor();
  assert.equal(await first.locator('.body h2').textContent(), 'Retained context after module 1');
  await first.scrollIntoViewIfNeeded();
  await shot('transcript-compactions-expanded');
  await frame.locator('button[data-action="collapseAll"]').click();
  assert.deepEqual((await walkCompactions(frame)).map((r) => r.open), Array(9).fill(false));
});

test('a compaction row expands and collapses by keyboard, and arrow keys move between rows', async () => {
  const frame = await openFromTree('Long refactor with several context compactions');
  const row = frame.locator('details.compaction').first();
  const summary = row.locator('summary');
  await summary.focus();
  await page.keyboard.press('Enter');
  await frame.locator('details.compaction[open]').first().waitFor();
  assert.equal(await row.evaluate((e) => (e as HTMLDetailsElement).open), true);
  await page.keyboard.press(' ');
  await frame.locator('details.compaction:not([open])').first().waitFor();
  assert.equal(await row.evaluate((e) => (e as HTMLDetailsElement).open), false);
  // ArrowDown moves focus to the next row (here a tool call's summary).
  await page.keyboard.press('ArrowDown');
  const focused = await frame.locator('html').evaluate(() => {
    const el = document.activeElement as HTMLElement;
    return (el.closest('.row') as HTMLElement | null)?.dataset.kind;
  });
  assert.equal(focused, 'tool_call');
  // The tool call folds the same way: Enter opens it (its body is built then), Space closes it.
  const tool = frame.locator('.tool_call:has(> .row-head:focus)');
  await page.keyboard.press('Enter');
  await tool.locator('.tool-body').waitFor();
  assert.equal(await tool.locator('.row-head').getAttribute('aria-expanded'), 'true');
  await page.keyboard.press(' ');
  await frame.locator('.tool_call:not(.open)').first().waitFor();
  assert.equal(await tool.locator('.row-head').getAttribute('aria-expanded'), 'false');
  assert.equal(await tool.locator('.tool-body').isVisible(), false);
});

test('a tab hidden and shown again is rebuilt from the host with its open rows and place kept', async () => {
  const frame = await openFromTree('Long refactor with several context compactions');
  await frame.locator('body[data-loading="false"]').waitFor();
  const failed = frame.locator('details.compaction[data-status="failed"]');
  await failed.locator('summary').click();
  await frame.locator('details.compaction[data-status="failed"][open]').waitFor();
  // Put the failed compaction just under the header, then let the scroll be recorded.
  await failed.evaluate((e) => window.scrollBy(0, e.getBoundingClientRect().top - document.getElementById('header')!.getBoundingClientRect().bottom - 5));
  // The webview records its place in the animation frame after the scroll event: two frames on.
  await failed.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
  const place = () => failed.evaluate((e) => Math.round(e.getBoundingClientRect().top));
  const before = await place();
  const key = await failed.getAttribute('data-key');
  // Another editor hides the tab: its webview is discarded (no retainContextWhenHidden).
  await runPaletteCommand(page, 'File: New Untitled Text File', until);
  await page.locator('iframe.webview.ready').waitFor({ state: 'detached' });
  await page.locator('.tabs-container .tab', { hasText: 'Long refactor with several context compactions' }).click();
  const shown = webview();
  await shown.locator('#timeline:not([data-rows="0"])').waitFor();
  const row = shown.locator(`details[data-key="${key}"]`);
  assert.equal(await row.evaluate((e) => (e as HTMLDetailsElement).open), true, 'the row the user opened is still open');
  // Once loaded and past the Markdown pass (rows change height then), the place must have held.
  await shown.locator('body[data-loading="false"][data-markdown="done"]').waitFor({ timeout: HANG_GUARD_MS });
  const after = await row.evaluate((e) => Math.round(e.getBoundingClientRect().top));
  assert.ok(Math.abs(after - before) <= 2, `the row is back where it was on screen (${before} then ${after})`);
  await closeEditors();
  await page.keyboard.press('Escape');
});

test('an in-progress compaction turns completed while its summary streams in, in place', async () => {
  const gate = (allowed: number | 'all') => writeFileSync(join(work, 'slow-gate'), String(allowed));
  gate(40);
  const frame = await openFromTree(STREAM_TITLE);
  const row = frame.locator('details.compaction');
  await frame.locator('details.compaction[data-status="in_progress"]').waitFor({ timeout: 30_000 });
  // Running compactions start open, with the spinner and "Compacting context…".
  assert.equal(await row.evaluate((e) => (e as HTMLDetailsElement).open), true);
  assert.equal(await row.locator('summary .label').textContent(), 'Compacting context…');
  assert.equal(await row.locator('.codicon-loading.codicon-modifier-spin').count(), 1);
  // Measured inside the webview: where the row stands on the transcript's own page.
  const top = () => row.evaluate((e) => e.getBoundingClientRect().top + document.scrollingElement!.scrollTop);
  const summaryLength = async () => ((await row.locator('.body').textContent()) ?? '').length;
  const firstTop = await top();
  // The agent sends the compaction's updates only as far as the gate file allows: first its
  // start and some chunks, then more, then the rest (its end), so each stage is seen for sure.
  const grownPast = async (length: number, stage: string) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const now = await summaryLength();
      if (now > length) return now;
      assert.ok(Date.now() < deadline, `${stage}: the summary did not grow past ${length} characters within 30 s`);
      await page.waitForTimeout(50);
    }
  };
  const first = await grownPast(0, 'the first 40 updates');
  assert.equal(await row.evaluate((e) => (e as HTMLDetailsElement).open), true, 'a running compaction is open');
  // The header's bar, once updates came: no animation of its own (it would run the compositor
  // every frame for the whole replay); it moves a place each time the count grows.
  const bar = frame.locator('.progress-bar');
  assert.equal(await bar.evaluate((e) => getComputedStyle(e, '::before').animationName), 'none', 'the bar slides by no animation once updates come');
  await frame.locator('body').evaluate((body) => {
    const w = window as unknown as { barMoves: number };
    w.barMoves = 0;
    new MutationObserver((records) => (w.barMoves += records.filter((r) => (r.target as Element).classList.contains('progress-bar')).length)).observe(body, { subtree: true, attributes: true, attributeFilter: ['data-step'] });
  });
  await shot('transcript-streaming');
  gate(80);
  const second = await grownPast(first, 'updates 41 to 80');
  assert.ok(await frame.locator('body').evaluate(() => (window as unknown as { barMoves: number }).barMoves) > 0, 'the bar moved in place as the updates came');
  assert.equal(await row.getAttribute('data-status'), 'in_progress');
  assert.equal(await row.evaluate((e) => (e as HTMLDetailsElement).open), true, 'a running compaction stays open');
  assert.equal(await top(), firstTop, 'the row does not move while its summary streams in');
  assert.ok(second > first);
  gate('all');
  await frame.locator('details.compaction[data-status="completed"]').waitFor();
  assert.equal(await row.locator('summary .label').textContent(), 'Context compacted');
  assert.equal(await top(), firstTop);
  // Ended and never opened by the reader: it folds, as a completed row of any replay does.
  await frame.locator('details.compaction[data-status="completed"]:not([open])').waitFor();
  await frame.locator('body[data-loading="false"]').waitFor({ timeout: 30_000 });
  // Opened, the streamed summary is rendered as Markdown, whole.
  await row.locator('summary').click();
  await row.locator('.body h2').waitFor();
  assert.match((await row.locator('.body').textContent()) ?? '', /Item 11 kept\./);
  await shot('transcript-streamed-completed');
});

test('a compaction row is open exactly while in progress, however the replay was batched', async () => {
  const title = 'Long refactor with several context compactions';
  const openStates = async (nth: number) => {
    const frame = await openFromTree(title, nth);
    await frame.locator('body[data-loading="false"]').waitFor({ timeout: 60_000 });
    return frame.locator('details.compaction').evaluateAll((els) => els.map((e) => ({
      status: (e as HTMLElement).dataset.status,
      open: (e as HTMLDetailsElement).open,
    })));
  };
  // Reference replays in bursts; Paced sends the same session's updates 3 ms apart, so its rows
  // are first seen in progress and then patched to their end state in later batches.
  const burst = await openStates(0);
  const paced = await openStates(1);
  assert.equal(burst.length, 9, 'the seeded session has 9 compactions');
  assert.deepEqual(paced, burst, 'the same transcript opens the same rows whatever the batching');
  assert.deepEqual(burst.map((r) => r.open), burst.map((r) => r.status === 'in_progress'));
  // The reader's choice wins over the rule: a row they open stays open.
  const frame = webview();
  await frame.locator('details.compaction summary').first().click();
  await frame.locator('details.compaction').first().locator('.body h2').waitFor();
  await closeEditors();
});

test('a hostile session renders as inert text: no script runs and nothing remote loads', async () => {
  const before = requests.length;
  const frame = await openFromTree('<script>alert("title")</script>');
  await frame.locator('body[data-loading="false"]').waitFor();
  // Open every collapsed row (compactions are <details>, the other foldable rows have a
  // button head) so their bodies are built too, then let Markdown render.
  await frame.locator('html').evaluate(() => {
    document.querySelectorAll('details').forEach((d) => ((d as HTMLDetailsElement).open = true));
    document.querySelectorAll<HTMLElement>('.disclosure:not(.open) > .row-head').forEach((head) => head.click());
  });
  await frame.locator('.user_message .md').waitFor();
  await frame.locator('.tool_call .tool-output').waitFor();
  const report = await frame.locator('html').evaluate(() => {
    const all = [...document.querySelectorAll('*')];
    return {
      pwned: (window as unknown as { __pwned?: unknown }).__pwned,
      // A JSON data block (the l10n bundle) never runs; named apart so that any other script still counts.
      scripts: [...document.scripts].map((s) => s.getAttribute('src') ?? (s.type === 'application/json' ? `data: ${s.id}` : `inline: ${s.textContent ?? ''}`)),
      images: [...document.querySelectorAll('img')].map((i) => i.getAttribute('src')),
      handlers: all.flatMap((el) => [...el.attributes].filter((a) => a.name.toLowerCase().startsWith('on')).map((a) => `${el.tagName}.${a.name}`)),
      // Ours: the header's sparkline (built element by element, lines only) and the find bar's
      // input; nothing of the kind may come from the session.
      dangerous: [...document.body.querySelectorAll(':is(iframe, form, input, style, meta, svg, object, embed, link, base):not(.find-bar > input, svg.usage-sparkline)')].map((e) => e.tagName),
      sparkline: [...document.querySelectorAll('svg.usage-sparkline *')].map((e) => e.tagName).filter((tag) => tag !== 'polyline' && tag !== 'polygon'),
      hrefs: [...document.body.querySelectorAll(':not(script)[href], :not(script)[src], [action]')].map((e) => e.outerHTML.slice(0, 80)),
      dataHrefs: [...document.querySelectorAll('[data-href]')].map((e) => (e as HTMLElement).dataset.href),
      text: document.body.textContent ?? '',
    };
  });
  assert.equal(report.pwned, undefined);
  assert.deepEqual(dialogs, [], 'no alert() ran');
  // Our bundle and the Markdown renderer it loaded beside itself for the rows rendered as Markdown
  // above, plus the bootstrap VS Code injects into every webview (it defines acquireVsCodeApi).
  const ours = report.scripts.filter((s) => /\/dist\/webview\/(transcript|markdown)\.js$/.test(s));
  const injected = report.scripts.filter((s) => s.startsWith('inline:') && s.includes('acquireVsCodeApi'));
  assert.deepEqual(ours.map((s) => s.replace(/^.*\//, '')).sort(), ['markdown.js', 'transcript.js'], `our scripts: ${report.scripts.join(' | ')}`);
  const bundle = report.scripts.filter((s) => s === 'data: l10n-bundle');
  assert.ok(bundle.length <= 1, 'at most one l10n bundle');
  assert.equal(ours.length + injected.length + bundle.length, report.scripts.length, `no other script: ${report.scripts.join(' | ')}`);
  assert.ok(!report.scripts.some((s) => /alert|__pwned/.test(s)));
  assert.deepEqual(report.images, [], 'the SVG image and remote images are not loaded');
  assert.deepEqual(report.handlers, []);
  assert.deepEqual(report.dangerous, []);
  assert.deepEqual(report.sparkline, [], 'the sparkline holds only its line and area');
  assert.deepEqual(report.hrefs, []);
  for (const href of report.dataHrefs) assert.match(href ?? '', /^(https?:|mailto:)/i);
  // The hostile text is there, as text.
  assert.match(report.text, /<script>alert\(1\)<\/script>/);
  assert.match(report.text, /<img src=x onerror=alert\(24\)>/, 'the hostile status string is shown verbatim');
  const remote = requests.slice(before).filter((u) => /example\.com/.test(u));
  assert.deepEqual(remote, [], 'no request went to a remote host named in the session');
  await shot('transcript-hostile');
});

test('a tool title\'s code spans show as code, without their backticks; nothing else in it becomes markup or a link', async () => {
  const frame = await openFromTree(TOOLS_TITLE);
  await frame.locator('body[data-loading="false"]').waitFor();
  await frame.locator('.tool_call').nth(TOOL_TITLES.length - 1).waitFor();
  const heads = await frame.locator('.tool_call > .row-head > .label').evaluateAll((labels) => labels.map((label) => ({
    text: label.textContent,
    code: [...label.querySelectorAll('code')].map((c) => c.textContent),
    // Only text and code elements holding text: no image, link, bold or other element from the title.
    elements: [...label.querySelectorAll('*')].map((e) => `${e.tagName.toLowerCase()}${e.children.length ? '+' : ''}`).filter((tag) => tag !== 'code'),
  })));
  assert.deepEqual(heads, TOOL_TITLES.map(({ text, code }) => ({ text, code, elements: [] })));
  const head = frame.locator('.tool_call > .row-head').first();
  const fonts = await head.evaluate((h) => ({ head: getComputedStyle(h).fontFamily, code: getComputedStyle(h.querySelector('code')!).fontFamily }));
  assert.notEqual(fonts.code, fonts.head, 'the code span is set in the editor\'s font');
  await shot('transcript-tool-titles');
});

test('an update kind, tool kind or status named like an object\'s own property (constructor, toString) shows as the unknown string it is', async () => {
  const frame = await openFromTree(OWN_NAMES_TITLE);
  await frame.locator('body[data-loading="false"]').waitFor();
  await frame.locator('.plan-entry').waitFor();
  const seen = await frame.locator('html').evaluate(() => ({
    unknown: [...document.querySelectorAll('[data-kind="unknown"] > .row-head .label')].map((e) => e.textContent),
    kinds: [...document.querySelectorAll('[data-kind]')].map((e) => (e as HTMLElement).dataset.kind),
    toolIcon: document.querySelector('[data-kind="tool_call"] > .row-head > .codicon')?.className,
    toolStatus: document.querySelector('[data-kind="tool_call"] .tool-status')?.textContent,
    toolStatusIcon: document.querySelector('[data-kind="tool_call"] .tool-status > .codicon')?.className,
    planIcon: document.querySelector('.plan-entry .codicon')?.className,
    // Every icon names one codicon: a function's source as a class would be several words.
    icons: [...document.querySelectorAll('.codicon')].map((e) => e.className).filter((c) => !/^codicon codicon-[a-z0-9-]+( codicon-modifier-spin)?$/.test(c)),
  }));
  assert.deepEqual(seen.unknown, ['Update “constructor”', 'Update “toString”']);
  assert.deepEqual(seen.kinds, ['user_message', 'unknown', 'unknown', 'tool_call', 'plan'], 'no message row was made of them');
  assert.equal(seen.toolIcon, 'codicon codicon-tools', 'an unknown tool kind has the tool icon');
  assert.match(seen.toolStatus ?? '', /hasOwnProperty/);
  assert.equal(seen.toolStatusIcon, 'codicon codicon-question', 'an unknown tool status has the question icon');
  assert.equal(seen.planIcon, 'codicon codicon-circle-large-outline');
  assert.deepEqual(seen.icons, []);
});

test('End on a long session shows its last line, with only the rows on screen built', async () => {
  const frame = await openFromTree(LONG_TITLE);
  await frame.locator('body[data-loading="false"]').waitFor({ timeout: 60_000 });
  const top = await view(frame);
  assert.equal(top.first, 1, 'the transcript opens at its first row');
  assert.equal(top.setSize, LONG_ROWS, 'rows tell assistive technology the size of the whole session');
  // The host sends the rows that fill the viewport and a margin, not a fixed 120 rows.
  assert.ok(top.held < 80, `the webview holds a screen and a margin of rows (${top.held} held)`);
  await focusTranscript(frame);
  await page.keyboard.press('End');
  await until('the last row is on screen', async () => (await view(frame)).last === LONG_ROWS);
  const end = await view(frame);
  assert.match(end.lastText, new RegExp(LONG_LAST.replace(/\./g, '\\.')));
  assert.ok(end.atEnd, 'the view is at the end');
  assert.ok(end.built < 400, `the webview builds a screen and a margin, not ${LONG_ROWS} rows (${end.built} built)`);
  assert.ok(end.held < 80, `at the end too, the webview holds a screen and a margin (${end.held} held)`);
  await shot('transcript-long-end');
});

test('Home, End and Page Down move over the whole session', async () => {
  const frame = await openFromTree(LONG_TITLE);
  await frame.locator('body[data-loading="false"]').waitFor({ timeout: 60_000 });
  await focusTranscript(frame);
  const start = await view(frame);
  await page.keyboard.press('PageDown');
  await until('Page Down showed the next rows', async () => (await view(frame)).first > start.first);
  const paged = await view(frame);
  // A page, not a jump: the row that was last on screen is still on screen (or just above).
  assert.ok(paged.first <= start.last + 1, `Page Down moved by a page (rows ${start.first}-${start.last}, then ${paged.first}-${paged.last})`);
  await page.keyboard.press('End');
  await until('End showed the last row', async () => (await view(frame)).last === LONG_ROWS);
  await page.keyboard.press('Home');
  await until('Home showed the first row', async () => (await view(frame)).first === 1);
  assert.equal((await view(frame)).scrollTop, 0);
});

test('find matches rows that are not built, counts the matches and shows each in turn', async () => {
  const frame = await openFromTree(LONG_TITLE);
  await frame.locator('body[data-loading="false"]').waitFor({ timeout: 60_000 });
  await focusTranscript(frame);
  // Row 2,501 (the 17th needle) is far from the first screen: it is not in the page.
  const needleRow = (n: number) => frame.locator(`#timeline [aria-posinset="${NEEDLE_ROWS[n] + 1}"] > .row`);
  assert.equal(await needleRow(16).count(), 0, 'the last matching row is not built before the search');
  await page.keyboard.press('Control+f');
  const input = frame.locator('.find-bar input');
  await input.waitFor();
  await input.fill('NEEDLE');
  const count = frame.locator('.find-bar .find-count');
  await until('the count says 1 of 17', async () => (await count.textContent()) === '1 of 17');
  // The first match is shown, highlighted.
  const highlighted = () => frame.locator('html').evaluate(() => {
    const h = (CSS as unknown as { highlights: Map<string, { values(): IterableIterator<Range> }> }).highlights.get('transcript-find');
    const range = h ? [...h.values()][0] : undefined;
    const rowEl = range?.startContainer.parentElement?.closest('.row');
    const box = range?.getBoundingClientRect();
    return { text: range?.toString() ?? '', row: Number(rowEl?.parentElement?.getAttribute('aria-posinset') ?? 0), onScreen: !!box && box.top >= 0 && box.bottom <= window.innerHeight };
  });
  await until('the first match is highlighted', async () => (await highlighted()).row === NEEDLE_ROWS[0] + 1);
  assert.deepEqual(await highlighted(), { text: 'needle', row: NEEDLE_ROWS[0] + 1, onScreen: true });
  // Shift+Enter from the first wraps to the last: a row that was not built.
  await input.press('Shift+Enter');
  await until('the count says 17 of 17', async () => (await count.textContent()) === '17 of 17');
  await until('the last match is highlighted', async () => (await highlighted()).row === NEEDLE_ROWS[16] + 1);
  assert.deepEqual(await highlighted(), { text: 'needle', row: NEEDLE_ROWS[16] + 1, onScreen: true });
  await input.press('Enter');
  await until('the count says 1 of 17 again', async () => (await count.textContent()) === '1 of 17');
  await shot('transcript-find');
  await input.press('Escape');
  await frame.locator('.find-bar').waitFor({ state: 'hidden' });
});

test('a reader at the end keeps seeing the last line while a summary streams in', async () => {
  const gate = (allowed: number | 'all') => writeFileSync(join(work, 'follow-gate'), String(allowed));
  gate(40);
  const frame = await openFromTree(FOLLOW_TITLE);
  const running = frame.locator('details.compaction[data-status="in_progress"]');
  await focusTranscript(frame);
  await page.keyboard.press('End');
  await running.waitFor({ timeout: 60_000 });
  await until('the running compaction is the last row on screen', async () => {
    const v = await view(frame);
    return v.atEnd && v.last === 601;
  });
  const summary = async () => ((await running.locator('.body').textContent()) ?? '').length;
  const before = await summary();
  gate(120);
  await until('the summary grew', async () => (await summary()) > before);
  await until('more of the summary arrived', async () => /Kept fact number 110\./.test((await running.locator('.body').textContent()) ?? ''));
  const following = await view(frame);
  assert.ok(following.atEnd, 'the view followed the summary to its end');
  assert.equal(following.last, 601);
  gate('all');
  await frame.locator('body[data-loading="false"]').waitFor({ timeout: 60_000 });
  await until('the last line is on screen', async () => (await view(frame)).last === 602);
  const end = await view(frame);
  assert.ok(end.atEnd, 'still at the end');
  assert.match(end.lastText, /Compaction over: this is the last line\./);
  await shot('transcript-follow-end');
});
