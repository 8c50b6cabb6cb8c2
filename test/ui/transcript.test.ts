// The transcript in a real browser driving a real VS Code: compaction rows of every status,
// an in-progress row turning completed while its summary streams in (reference agent in slow
// mode), expand and collapse by keyboard, a hostile session whose text stays inert.
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

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const AGENT = join(ROOT, 'out', 'test', 'agent', 'agent.mjs');
const RESULTS = join(ROOT, 'test-results');
const STREAM_TITLE = 'Streaming compaction (slow replay)';
const STREAM_CHUNKS = 120;

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
  const agents = [
    { name: 'Reference', command: process.execPath, args: [AGENT, '--store', store] },
    // Its compaction ends only once the test creates the gate file, after watching it stream.
    { name: 'Slow', command: process.execPath, args: [AGENT, '--store', slowStore, '--replay-delay', '25', '--replay-gate', join(work, 'slow-gate')] },
    // A session of Reference's store, replayed one update at a time: other batches, same transcript.
    { name: 'Paced', command: process.execPath, args: [AGENT, '--store', pacedStore, '--replay-delay', '3'] },
  ];
  const settings = { ...host.QUIET_SETTINGS, 'acpSessions.agents': agents };
  server = await host.startServer({ machineSettings: settings });
  // The server reads machine settings from <user-data-dir>/Machine when --user-data-dir is given.
  mkdirSync(join(server.dirs.userData, 'Machine'), { recursive: true });
  writeFileSync(join(server.dirs.userData, 'Machine', 'settings.json'), JSON.stringify(settings, null, 2));
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
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>View: Close All Editors');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'View: Close All Editors' }).first().click();
  await page.locator('iframe.webview.ready').waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined);
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `${name}.png`) });
}

test('a transcript shows one row per compaction, each status presented as the RFD describes', async () => {
  const frame = await openFromTree('Long refactor with several context compactions');
  await frame.locator('body[data-loading="false"]').waitFor();
  const rows = frame.locator('details.compaction');
  const statuses = await rows.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.status));
  assert.deepEqual(statuses, ['completed', 'completed', 'completed', 'completed', 'failed', 'cancelled', '_vendor_status', 'completed', 'completed']);
  // Completed rows say so and fold their summary; failed and cancelled show the error text.
  assert.equal(await rows.nth(0).locator('summary .label').textContent(), 'Context compacted');
  assert.equal(await rows.nth(0).evaluate((e) => (e as HTMLDetailsElement).open), false);
  assert.equal(await rows.nth(4).locator('summary .label').textContent(), 'Context compaction failed');
  assert.match((await rows.nth(4).locator('summary .error-text').textContent()) ?? '', /rate limit/);
  assert.equal(await rows.nth(5).locator('summary .label').textContent(), 'Context compaction cancelled');
  // An unknown status is shown as its string, in a neutral style.
  assert.equal(await rows.nth(6).locator('summary .status-unknown').textContent(), '_vendor_status');
  assert.equal(await rows.nth(6).locator('.codicon-question').count(), 1);
  // A compaction whose summary was cleared says there is none.
  assert.match((await rows.nth(3).locator('.empty').textContent()) ?? '', /no summary/i);
  await shot('transcript-compactions');
  // "Expand all compactions" in the tab opens every row; the summaries are Markdown.
  await frame.locator('button[data-action="expandAll"]').click();
  assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => (e as HTMLDetailsElement).open)), Array(9).fill(true));
  await rows.nth(0).locator('.body h2').waitFor();
  assert.equal(await rows.nth(0).locator('.body h2').textContent(), 'Retained context after module 1');
  await rows.nth(0).scrollIntoViewIfNeeded();
  await shot('transcript-compactions-expanded');
  await frame.locator('button[data-action="collapseAll"]').click();
  assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => (e as HTMLDetailsElement).open)), Array(9).fill(false));
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
  await page.waitForTimeout(300);
  const place = () => failed.evaluate((e) => Math.round(e.getBoundingClientRect().top));
  const before = await place();
  const key = await failed.getAttribute('data-key');
  // Another editor hides the tab: its webview is discarded (no retainContextWhenHidden).
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>File: New Untitled Text File');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'New Untitled Text File' }).first().click();
  await page.locator('iframe.webview.ready').waitFor({ state: 'detached' });
  await page.locator('.tabs-container .tab', { hasText: 'Long refactor with several context compactions' }).click();
  const shown = webview();
  await shown.locator('#timeline:not([data-rows="0"])').waitFor();
  const row = shown.locator(`details[data-key="${key}"]`);
  assert.equal(await row.evaluate((e) => (e as HTMLDetailsElement).open), true, 'the row the user opened is still open');
  // Past the Markdown pass and the restore's hold: the place must stay put on its own.
  await page.waitForTimeout(2000);
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
  await shot('transcript-streaming');
  gate(80);
  const second = await grownPast(first, 'updates 41 to 80');
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
      scripts: [...document.scripts].map((s) => s.getAttribute('src') ?? `inline: ${s.textContent ?? ''}`),
      images: [...document.querySelectorAll('img')].map((i) => i.getAttribute('src')),
      handlers: all.flatMap((el) => [...el.attributes].filter((a) => a.name.toLowerCase().startsWith('on')).map((a) => `${el.tagName}.${a.name}`)),
      // The header's sparkline is the one SVG, ours: built element by element, lines only.
      dangerous: [...document.body.querySelectorAll('iframe, form, input, style, meta, svg:not(.usage-sparkline), object, embed, link, base')].map((e) => e.tagName),
      sparkline: [...document.querySelectorAll('svg.usage-sparkline *')].map((e) => e.tagName).filter((tag) => tag !== 'polyline' && tag !== 'polygon'),
      hrefs: [...document.body.querySelectorAll(':not(script)[href], :not(script)[src], [action]')].map((e) => e.outerHTML.slice(0, 80)),
      dataHrefs: [...document.querySelectorAll('[data-href]')].map((e) => (e as HTMLElement).dataset.href),
      text: document.body.textContent ?? '',
    };
  });
  assert.equal(report.pwned, undefined);
  assert.deepEqual(dialogs, [], 'no alert() ran');
  // Our bundle, plus the bootstrap VS Code injects into every webview (it defines acquireVsCodeApi).
  const ours = report.scripts.filter((s) => /\/dist\/webview\/transcript\.js$/.test(s));
  const injected = report.scripts.filter((s) => s.startsWith('inline:') && s.includes('acquireVsCodeApi'));
  assert.equal(ours.length, 1, `our script: ${report.scripts.join(' | ')}`);
  assert.equal(ours.length + injected.length, report.scripts.length, `no other script: ${report.scripts.join(' | ')}`);
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
