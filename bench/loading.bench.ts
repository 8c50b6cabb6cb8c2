// Not a figure of the table: what the transcript page costs the browser while it shows a replay
// coming in, against the same page once it has ended. The production webview (page.ts) gets one
// snapshot with a header that says `loading` and two rows, then for `--seconds` (5) the header
// with a grown count once per LOADING_FLUSH_MS, as the host sends it while a replay comes in: the
// CPU time of every Chromium process over that time (Linux's /proc, clock ticks of 10 ms). Then
// the same page with the header loaded, sent nothing. Whatever the page does while loading shows
// here: a moving background (painted again every frame) cost 0.5 s of a core per 5 s; a bar that
// a transform slid by itself still ran the compositor every frame (0.08 to 0.12 of a core); one
// that moves a place as the count grows costs what the count's own text does.
//   node out/bench/loading.bench.mjs [--rounds=3] [--seconds=5]
import { args, log, median, processesCpuMs } from './lib';
import { launch } from './page';
import type { HostToWebview, TranscriptHeader } from '../src/transcript/protocol';
import { LOADING_FLUSH_MS } from '../src/transcript/feed';

/** CPU time (ms) of every process whose command line names Chromium, every thread. */
const browserCpuMs = (): number => processesCpuMs((cmdline) => cmdline.includes('chrom'));

function snapshot(loading: boolean): HostToWebview {
  const header: TranscriptHeader = { agentName: 'Bench', sessionId: 'bench_loading', cwd: '/tmp', title: 'Bench session', archived: false, loading, updateCount: 2, live: false, notices: [] };
  return {
    type: 'snapshot', header, count: 2, start: 0,
    entities: [
      { kind: 'user_message', key: 'e1', parts: [{ type: 'text', text: 'Hello.' }] },
      { kind: 'agent_message', key: 'e2', parts: [{ type: 'text', text: 'Hello; how can I help?' }] },
    ],
  } as unknown as HostToWebview;
}

async function main() {
  const rounds = Number(args().get('rounds') ?? 3);
  const seconds = Number(args().get('seconds') ?? 5);
  const browser = await launch();
  const results: Record<'loading' | 'loaded', number[]> = { loading: [], loaded: [] };
  try {
    for (let round = 0; round < rounds; round++) {
      for (const state of ['loading', 'loaded'] as const) {
        const page = await browser.open('webview.html');
        await page.waitForFunction(() => (window as unknown as { __bench: { fromWebview: { type: string }[] } }).__bench.fromWebview.some((m) => m.type === 'ready'), undefined, { timeout: 30_000 });
        await page.evaluate((message) => window.dispatchEvent(new MessageEvent('message', { data: message })), snapshot(state === 'loading'));
        // The header as the state says, painted: then the clock starts.
        await page.waitForFunction((loading) => document.querySelector('.progress-bar') !== null === loading && document.querySelector('.progress') !== null, state === 'loading', { timeout: 30_000 });
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const cpu0 = browserCpuMs();
        if (state === 'loading') {
          // As a replay comes in: the header, its count grown, once per LOADING_FLUSH_MS (feed.ts).
          await page.evaluate(({ ms, every, header }) => new Promise<void>((resolve) => {
            const end = performance.now() + ms;
            let updateCount = header.updateCount;
            const timer = setInterval(() => {
              updateCount += 1_700;
              window.dispatchEvent(new MessageEvent('message', { data: { type: 'update', count: 2, patches: [], header: { ...header, updateCount } } }));
              if (performance.now() >= end) {
                clearInterval(timer);
                resolve();
              }
            }, every);
          }), { ms: seconds * 1000, every: LOADING_FLUSH_MS, header: (snapshot(true) as { header: TranscriptHeader }).header });
        } else {
          await page.waitForTimeout(seconds * 1000);
        }
        results[state].push(browserCpuMs() - cpu0);
        await page.close();
      }
    }
  } finally {
    await browser.close();
  }
  const loading = median(results.loading);
  const loaded = median(results.loaded);
  log(`loading: the browser's CPU over ${seconds} s, loading ${results.loading.join(', ')} ms, loaded ${results.loaded.join(', ')} ms`);
  process.stdout.write(JSON.stringify({ seconds, loadingCpuMs: loading, loadedCpuMs: loaded, extraShareOfACore: +((loading - loaded) / (seconds * 1000)).toFixed(3), rounds }) + '\n');
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
