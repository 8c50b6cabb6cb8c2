// A headless Debian Chromium (through playwright-core, with the test host's flags) showing the
// real production webview bundle in a page that mimics the transcript webview: the panel's
// HTML shell, media/transcript.css, codicons, a dark theme's variables and acquireVsCodeApi.
// Floor pages are served from the same origin, so both run under the same conditions.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ROOT, args, benchFontconfig, log } from './lib';
import { PROD_WEBVIEW, STAGE } from './stage';

export const ORIGIN = 'http://bench.invalid';

/** The variables VS Code puts on the webview's <html> (a dark theme), for a realistic cascade. */
const THEME = [
  '--vscode-font-family: system-ui, "Ubuntu", "Droid Sans", sans-serif',
  '--vscode-font-size: 13px',
  '--vscode-font-weight: normal',
  '--vscode-editor-font-family: "Droid Sans Mono", monospace',
  '--vscode-editor-font-size: 14px',
  '--vscode-foreground: #cccccc',
  '--vscode-descriptionForeground: #9d9d9d',
  '--vscode-editor-background: #1f1f1f',
  '--vscode-widget-border: #313131',
  '--vscode-panel-border: #2b2b2b',
  '--vscode-textLink-foreground: #4daafc',
  '--vscode-textCodeBlock-background: #2b2b2b',
  '--vscode-focusBorder: #0078d4',
  '--vscode-progressBar-background: #0078d4',
  '--vscode-errorForeground: #f85149',
  '--vscode-button-background: #0078d4',
  '--vscode-button-foreground: #ffffff',
].join('; ');

/** The panel's HTML (src/ui/transcripts/transcriptPanel.ts html()) with plain URLs instead of webview URIs. */
export const WEBVIEW_HTML = `<!DOCTYPE html>
<html lang="en" style='${THEME}'>
<head>
<meta charset="UTF-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="codicon.css">
<link rel="stylesheet" href="transcript.css">
<title>Transcript</title>
<style>body { background: var(--vscode-editor-background); color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); margin: 0; padding: 0 20px; }</style>
</head>
<body data-loading="true">
<header id="header" class="header"></header>
<main id="timeline" class="timeline" aria-label="Transcript" data-rows="0"></main>
<script src="transcript.js"></script>
</body>
</html>`;

/** A page with the same theme and body style but no webview code: for the floors. */
export const FLOOR_HTML = `<!DOCTYPE html>
<html lang="en" style='${THEME}'>
<head>
<meta charset="UTF-8">
<style>
body { background: var(--vscode-editor-background); color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); margin: 0; padding: 0 20px; }
.row { display: block; margin: 0 0 8px; white-space: pre-wrap; content-visibility: auto; contain-intrinsic-size: auto 48px; }
</style>
</head>
<body><main id="timeline"></main></body>
</html>`;

/** Runs in every page before its scripts: the webview API stand-in and a long-task log. */
function initScript() {
  const bench = { fromWebview: [] as unknown[], longTasks: [] as { start: number; duration: number }[] };
  (window as any).__bench = bench;
  (window as any).acquireVsCodeApi = () => ({
    postMessage: (m: unknown) => bench.fromWebview.push(m),
    getState: () => undefined,
    setState: () => {},
  });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) bench.longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
}

export interface BenchBrowser {
  /** A fresh page at ORIGIN/<path> serving `files` (name -> body) besides the webview's own. */
  open(path: 'webview.html' | 'floor.html', files?: Record<string, string>): Promise<Page>;
  close(): Promise<void>;
}

/** `webview` replaces the production bundle (e.g. an unminified one, for readable profiles). */
export async function launch(webview = PROD_WEBVIEW): Promise<BenchBrowser> {
  const host = await import(join(ROOT, 'test/host/server.mjs'));
  const browser: { context: BrowserContext; close(): Promise<void> } = await host.openBrowser({ viewport: { width: 1280, height: 800 }, fontconfig: await benchFontconfig() });
  const assets: Record<string, { body: Buffer | string; type: string }> = {
    'webview.html': { body: WEBVIEW_HTML, type: 'text/html' },
    'floor.html': { body: FLOOR_HTML, type: 'text/html' },
    'transcript.js': { body: readFileSync(webview), type: 'text/javascript' },
    // Loaded by transcript.js beside itself when its first Markdown pass is due.
    'markdown.js': { body: readFileSync(join(dirname(webview), 'markdown.js')), type: 'text/javascript' },
    'transcript.css': { body: readFileSync(join(ROOT, 'media/transcript.css')), type: 'text/css' },
    'codicon.css': { body: readFileSync(join(STAGE, 'dist/codicons/codicon.css')), type: 'text/css' },
    'codicon.ttf': { body: readFileSync(join(STAGE, 'dist/codicons/codicon.ttf')), type: 'font/ttf' },
  };
  return {
    async open(path, files = {}) {
      const page = await browser.context.newPage();
      page.on('crash', () => log(`page ${path} crashed`));
      page.on('pageerror', (error) => log(`page ${path}: ${error.message}`));
      await page.addInitScript(initScript);
      await page.route(`${ORIGIN}/**`, (route) => {
        const name = new URL(route.request().url()).pathname.slice(1);
        if (name in files) return route.fulfill({ body: files[name], contentType: 'application/json' });
        const asset = assets[name];
        if (!asset) return route.fulfill({ status: 404, body: `bench: no ${name}` });
        return route.fulfill({ body: asset.body, contentType: asset.type });
      });
      await page.goto(`${ORIGIN}/${path}`);
      return page;
    },
    close: () => browser.close(),
  };
}

/**
 * With `--profile=<file.cpuprofile>`: an unminified webview bundle to run instead, and a
 * function that records a CPU profile of `page` around `work` into that file.
 */
export async function profiling(): Promise<{ webview: string | undefined; around<T>(page: Page, work: () => Promise<T>): Promise<T> }> {
  const file = args().get('profile');
  const traceFile = args().get('trace');
  const unminified = async () => {
    const webview = join(ROOT, 'out/bench/profile/transcript.js');
    const esbuild = await import('esbuild');
    await esbuild.build({ entryPoints: [join(ROOT, 'src/webview/main.ts')], outfile: webview, bundle: true, format: 'iife', platform: 'browser', target: 'es2022', logLevel: 'warning' });
    await esbuild.build({ entryPoints: [join(ROOT, 'src/webview/markdownScript.ts')], outfile: join(dirname(webview), 'markdown.js'), bundle: true, format: 'iife', platform: 'browser', target: 'es2022', logLevel: 'warning' });
    return webview;
  };
  // `--unminified` with `--trace`: the trace names our functions.
  if (traceFile && !file) return { webview: args().has('unminified') ? await unminified() : undefined, around: (page, work) => tracing(page, traceFile, work) };
  if (!file) return { webview: undefined, around: (_page, work) => work() };
  const webview = await unminified();
  return {
    webview,
    async around(page, work) {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
      const result = await work();
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      log(`profile written to ${file}`);
      return result;
    },
  };
}

/**
 * With `--trace=<file.json>`: a Chromium trace (devtools.timeline) of `page` around `work`,
 * written to the file, and the main thread's time per event kind (self time) in the log, which
 * shows what the CPU profile lumps together as "(program)": parsing messages, style, layout.
 */
async function tracing<T>(page: Page, file: string, work: () => Promise<T>): Promise<T> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as TraceEvent[])));
  // `--trace-categories=a,b`: more categories (e.g. fonts,disabled-by-default-fonts,disabled-by-default-v8.gc).
  const more = args().get('trace-categories');
  const categories = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink', ...(more ? more.split(',') : [])].join(',');
  await cdp.send('Tracing.start', { categories, transferMode: 'ReportEvents' });
  const result = await work();
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.end');
  await done;
  writeFileSync(file, JSON.stringify({ traceEvents: events }));
  log(`trace written to ${file}`);
  for (const line of summarizeTrace(events)) log(line);
  return result;
}

export interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** The thread's CPU time within the event. */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { data?: { frame?: string; message?: string }; name?: string };
}

/** Self time per event name on the busiest thread (the page's main thread). */
export function summarizeTrace(events: TraceEvent[]): string[] {
  const complete = events.filter((e) => e.ph === 'X' && e.dur !== undefined);
  // `console.timeStamp('bench:start')` in the page marks where the measured part begins.
  const start = events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === 'bench:start')?.ts ?? 0;
  const busy = new Map<string, number>();
  for (const e of complete) if (e.name === 'RunTask' && e.ts >= start) busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) ?? 0) + e.dur!);
  const main = [...busy].sort((a, b) => b[1] - a[1])[0]?.[0];
  const mine = complete.filter((e) => `${e.pid}:${e.tid}` === main && e.ts >= start).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const self = new Map<string, number>();
  const stack: TraceEvent[] = [];
  for (const e of mine) {
    while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur! <= e.ts) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - e.dur!);
    self.set(e.name, (self.get(e.name) ?? 0) + e.dur!);
    stack.push(e);
  }
  const longest = Math.max(0, ...mine.filter((e) => e.name === 'RunTask').map((e) => e.dur!));
  // With the `fonts` category: the system font lookups for characters the page's fonts lack, each
  // a synchronous round trip to the browser process (wall time against the thread's own CPU).
  const lookups = mine.filter((e) => e.name === 'FontCache::FallbackFontForCharacter');
  const ms = (us: number) => (us / 1000).toFixed(0);
  const fonts = lookups.length
    ? [`trace: ${lookups.length} font fallback lookups, ${ms(lookups.reduce((n, e) => n + e.dur!, 0))} ms (thread CPU ${ms(lookups.reduce((n, e) => n + (e.tdur ?? 0), 0))} ms), the longest ${(Math.max(...lookups.map((e) => e.dur!)) / 1000).toFixed(1)} ms`]
    : [];
  return [
    `trace: main thread busy ${((busy.get(main ?? '') ?? 0) / 1000).toFixed(0)} ms, longest task ${(longest / 1000).toFixed(0)} ms; self time by event:`,
    ...[...self].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([name, us]) => `  ${(us / 1000).toFixed(1).padStart(8)} ms  ${name}`),
    ...fonts,
  ];
}

/** Busy time (top-level tasks) per thread of every process in the trace, busiest first. */
export function summarizeThreads(events: TraceEvent[]): string[] {
  const names = new Map<string, string>();
  for (const e of events) {
    if (e.ph !== 'M') continue;
    if (e.name === 'process_name') names.set(`${e.pid}`, e.args?.name ?? '');
    if (e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '');
  }
  const busy = new Map<string, number>();
  for (const e of events) if (e.ph === 'X' && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && e.dur) busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) ?? 0) + e.dur);
  return [...busy]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([key, us]) => `trace: ${(us / 1000).toFixed(0).padStart(6)} ms busy  ${names.get(key.split(':')[0]) ?? ''} ${names.get(key) ?? ''} (${key})`);
}
