// Figures 8 and 9, end to end in the real VS Code of the tests (VS Code's server, Debian
// Chromium, the production build staged by run.ts, the reference agent): open sessions of
// 2,000 and 20,000 (figure 8) or 200,000 and, with --huge, 2,000,000 (figure 9) agent message
// chunks (20 per messageId, 40 to 200 characters) with 50 compactions, from the Sessions tree.
// Each against a floor taken in the same run: the same clicks on a two-message session.
//   first screen     click in the tree until the first row is on screen
//   click to last    click, End as soon as the first screen shows, until the last line is on
//                    screen; its floor is the floor session's plus the ingest floor of the
//                    session (the reference agent's NDJSON read and JSON.parse'd from its pipe)
//   stall            the longest task of the workbench page meanwhile
//   memory           the extension host's resident memory and the webview's JS heap, grown
//                    over the floor session's, per character of text the session holds
// Every wait has a deadline and fails with what it waited for.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { generateChunkSession } from './generate';
import { ROOT, args, deadline, ingestFloor, log, report, scale, type Measurement } from './lib';
import { STAGE } from './stage';
import { writeSession } from '../test/agent/store';
import { summarizeThreads, type TraceEvent } from './page';
import { Timeline } from '../src/transcript/timeline';
import { partsText } from '../src/transcript/model';

const AGENT = join(ROOT, 'out/test/agent/agent.mjs');
/** A hang guard for each wait (not a speed limit). */
const WAIT_MS = 600_000;

interface Case {
  chunks: number;
  folder: string;
  title: string;
  sessionId: string;
  rows: number;
  /** The last row's text ends with this. */
  lastText: string;
  /** Characters of text the session holds. */
  chars: number;
  updates: number;
}

interface Result {
  firstScreen: number;
  toLast: number;
  endToLast: number;
  longest: number;
  hostRssMb: number;
  webviewHeapMb: number;
  ingestFloor: number;
}

/** The transcript's frame: the webview's inner document with a #timeline. */
async function transcriptFrame(page: Page): Promise<Frame> {
  return deadline('a transcript webview appeared', 60_000, async () => {
    for (;;) {
      for (const frame of page.frames()) {
        const found = await frame.evaluate(() => !!document.getElementById('timeline')).catch(() => false);
        if (found) return frame;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  });
}

async function closeEditors(page: Page): Promise<void> {
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>View: Close All Editors');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'View: Close All Editors' }).first().click({ timeout: 30_000 });
  await page.locator('iframe.webview').first().waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined);
}

/** The extension host's resident memory (MB): the server's child with `--type=extensionHost`. */
function extensionHostRssMb(serverPid: number): number {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== serverPid) continue;
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('extensionHost')) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (rss) return Number(rss[1]) / 1024;
    } catch {
      /* gone meanwhile */
    }
  }
  throw new Error('e2e: no extension host process found in the server group');
}

/** The ingest floor (see lib.ts) of the reference agent's replay of case `c`. */
async function caseIngestFloor(store: string, c: Case): Promise<number> {
  const child = spawn(process.execPath, [AGENT, '--store', store], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const { ms, notifications } = await ingestFloor(child, { sessionId: c.sessionId, cwd: c.folder }, WAIT_MS);
    if (notifications < c.updates) throw new Error(`e2e: the ingest floor read ${notifications} of ${c.updates} updates`);
    return ms;
  } finally {
    child.kill();
  }
}

async function openCase(page: Page, c: Case, serverPid: number): Promise<Omit<Result, 'ingestFloor'>> {
  const row = page.locator('.monaco-list-row', { hasText: c.title }).first();
  await row.waitFor({ timeout: 60_000 });
  const rssBefore = extensionHostRssMb(serverPid);
  await page.evaluate(() => {
    const w = window as unknown as { __benchLong: { start: number; duration: number }[]; __benchObserver?: PerformanceObserver };
    w.__benchLong = [];
    w.__benchObserver?.disconnect();
    w.__benchObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__benchLong.push({ start: e.startTime, duration: e.duration });
    });
    w.__benchObserver.observe({ type: 'longtask' });
  });
  const traceFile = args().get('trace');
  const cdp = traceFile ? await page.context().newCDPSession(page) : undefined;
  const traceEvents: TraceEvent[] = [];
  if (cdp) {
    cdp.on('Tracing.dataCollected', (e) => traceEvents.push(...(e.value as unknown as TraceEvent[])));
    await cdp.send('Tracing.start', { categories: 'devtools.timeline,v8.execute,blink,toplevel,__metadata', transferMode: 'ReportEvents' });
  }
  const t0 = Date.now();
  await row.click();
  const frame = await transcriptFrame(page);
  // First screen: the first row on screen, timed inside the webview in the frame it shows.
  const firstAt = (await deadline('the first row was on screen', WAIT_MS, async () => (await frame.waitForFunction(() => {
    const first = document.querySelector('#timeline [aria-posinset="1"] > .row');
    const box = first?.getBoundingClientRect();
    return box && box.height > 0 && box.top < window.innerHeight && first!.textContent ? performance.timeOrigin + performance.now() : false;
  }, undefined, { polling: 'raf', timeout: WAIT_MS })).jsonValue())) as number;
  // End at once (focus into the transcript: its title, which does nothing when clicked).
  await frame.locator('#header .title').click({ timeout: 30_000 });
  const endAt = Date.now();
  await page.keyboard.press('End');
  const lastAt = (await deadline('the last line was on screen', WAIT_MS, async () => (await frame.waitForFunction(({ rows, lastText }) => {
    if (document.body.dataset.loading !== 'false') return false;
    const last = document.querySelector(`#timeline [aria-posinset="${rows}"] > .row`);
    if (!last || !(last.textContent ?? '').trimEnd().endsWith(lastText)) return false;
    const box = last.getBoundingClientRect();
    return box.bottom <= window.innerHeight + 1 && box.bottom > 0 ? performance.timeOrigin + performance.now() : false;
  }, { rows: c.rows, lastText: c.lastText }, { polling: 'raf', timeout: WAIT_MS })).jsonValue())) as number;
  if (cdp) {
    const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
    await cdp.send('Tracing.end');
    await done;
    writeFileSync(`${traceFile}.${c.chunks}.json`, JSON.stringify({ traceEvents }));
    for (const line of summarizeThreads(traceEvents)) log(line);
  }
  const longest = await page.evaluate((since: number) => {
    const w = window as unknown as { __benchLong: { start: number; duration: number }[] };
    const from = since - performance.timeOrigin;
    return Math.max(0, ...w.__benchLong.filter((t) => t.start + t.duration >= from).map((t) => t.duration));
  }, t0);
  const webviewHeapMb = await frame.evaluate(() => ((performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0) / 1048576);
  const hostRssMb = extensionHostRssMb(serverPid) - rssBefore;
  return { firstScreen: firstAt - t0, toLast: lastAt - t0, endToLast: lastAt - endAt, longest, hostRssMb, webviewHeapMb };
}

async function makeCase(store: string, work: string, chunks: number, compactions: number): Promise<Case> {
  const updates = chunks <= 2
    ? [
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Hello.' } },
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello; how can I help?' } },
      ]
    : generateChunkSession({ chunks, compactions, summaryChunks: 4, seed: chunks });
  const timeline = new Timeline();
  for (const u of updates) timeline.apply(u);
  let chars = 0;
  for (const e of timeline.entities) if (e.kind === 'agent_message' || e.kind === 'user_message') chars += partsText(e.parts).length;
  else if (e.kind === 'compaction') chars += partsText(e.summary).length;
  const last = timeline.entities[timeline.entities.length - 1];
  const lastText = last.kind === 'agent_message' ? partsText(last.parts).trimEnd().slice(-20) : '';
  const folder = join(work, `workspace-${chunks}`);
  mkdirSync(folder, { recursive: true });
  const c: Case = {
    chunks, folder, title: chunks <= 2 ? 'Bench floor session' : `Bench session of ${chunks} chunks`, sessionId: `bench_${chunks}`,
    rows: timeline.entities.length, lastText, chars, updates: updates.length,
  };
  await writeSession(store, {
    sessionId: c.sessionId, cwd: folder, title: c.title,
    updatedAt: new Date(Date.UTC(2025, 5, 1, 12, chunks % 60)).toISOString(), archived: false, deleted: false, updates: updates as never,
  });
  return c;
}

async function main() {
  const s = scale();
  const figure = args().get('figure') ?? '8';
  const sizes = (figure === '9' ? [20_000, 200_000, ...(args().has('huge') ? [2_000_000] : [])] : [2_000, 20_000]).map((n) => Math.round(n * s));
  const work = mkdtempSync(join(tmpdir(), 'acp-bench-e2e-'));
  const store = join(work, 'store');
  const floorCase = await makeCase(store, work, 2, 0);
  const cases: Case[] = [floorCase];
  for (const chunks of sizes) cases.push(await makeCase(store, work, chunks, 50));

  const host = await import(join(ROOT, 'test/host/server.mjs'));
  const settings = {
    ...host.QUIET_SETTINGS,
    'acpSessions.agents': [{ name: 'Bench', command: process.execPath, args: [AGENT, '--store', store] }],
  };
  const server = await host.startServer({ machineSettings: settings });
  mkdirSync(join(server.dirs.userData, 'Machine'), { recursive: true });
  writeFileSync(join(server.dirs.userData, 'Machine', 'settings.json'), JSON.stringify(settings, null, 2));
  const results: { c: Case; r: Result }[] = [];
  try {
    // Each case in a fresh browser (VS Code's webview host runs a service-worker update check
    // before every webview but a page's first: 1 to 2.5 s here).
    for (const c of cases) {
      const ingest = c === floorCase ? 0 : await caseIngestFloor(store, c);
      const browser = await host.openBrowser();
      try {
        const page: Page = browser.page;
        await page.goto(server.workbenchUrl({ folders: [c.folder], payload: [['extensionDevelopmentPath', server.remoteUri(STAGE)]] }));
        await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
        await page.click('.activitybar a[aria-label^="ACP Sessions"]', { timeout: 60_000 });
        await closeEditors(page);
        // Let the workbench settle (the tree, the closed editor) before the clock starts.
        await page.waitForTimeout(1000);
        const r = { ...(await openCase(page, c, server.process.pid)), ingestFloor: ingest };
        log(`e2e: ${c.chunks} chunks (${c.rows} rows): first screen ${r.firstScreen} ms, click to last line ${r.toLast} ms (End to last ${r.endToLast} ms), ingest floor ${ingest.toFixed(0)} ms, longest task ${r.longest.toFixed(0)} ms, extension host +${r.hostRssMb.toFixed(1)} MB, webview heap ${r.webviewHeapMb.toFixed(1)} MB`);
        results.push({ c, r });
      } finally {
        await browser.close();
      }
    }
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const floor = results[0].r;
  const measurements: Measurement[] = [];
  const k = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
  let previous: { c: Case; r: Result } | undefined;
  for (const { c, r } of results.slice(1)) {
    const size = `${c.chunks.toLocaleString('en')} chunks`;
    measurements.push(
      { figure, name: `e2e ${size}: first screen`, value: r.firstScreen, unit: 'ms', floor: floor.firstScreen, goal: 1.15, goalOn: 'ratio', detail: { rows: c.rows, 'M chars': +(c.chars / 1e6).toFixed(2) } },
      {
        figure, name: `e2e ${size}: click, End, last line`, value: r.toLast, unit: 'ms', floor: floor.toLast + r.ingestFloor, goal: 1.2, goalOn: 'ratio',
        detail: { 'End to last line ms': Math.round(r.endToLast), 'floor session ms': Math.round(floor.toLast), 'ingest floor ms': Math.round(r.ingestFloor) },
      },
      { figure, name: `e2e ${size}: longest workbench stall`, value: r.longest, unit: 'ms', goal: 100, goalOn: 'value', detail: { 'floor session ms': Math.round(floor.longest) } },
      {
        figure, name: `e2e ${size}: extension host memory / text held`, value: Math.max(0, r.hostRssMb - floor.hostRssMb) * 1048576 / (c.chars * 2), unit: 'x', goal: 3, goalOn: 'value',
        detail: { 'RSS growth MB': +r.hostRssMb.toFixed(1), 'text MB (UTF-16)': +((c.chars * 2) / 1048576).toFixed(1) },
      },
      // performance.memory in the webview is the renderer's heap, which the workbench shares
      // here (an in-process frame): only its growth over the floor session's is the webview's.
      { figure, name: `e2e ${size}: webview JS heap over the floor session's`, value: r.webviewHeapMb - floor.webviewHeapMb, unit: 'MB', goal: 50, goalOn: 'value', detail: { 'heap MB': +r.webviewHeapMb.toFixed(1), 'floor session MB': +floor.webviewHeapMb.toFixed(1) } },
    );
    if (previous) {
      const growth = (r.toLast - floor.toLast) / Math.max(1, previous.r.toLast - floor.toLast);
      measurements.push({ figure, name: `e2e growth ${k(c.chunks)}/${k(previous.c.chunks)} above the floor`, value: growth, unit: 'x', goal: 11, goalOn: 'value' });
    }
    previous = { c, r };
  }
  report(measurements);
}

await main();
