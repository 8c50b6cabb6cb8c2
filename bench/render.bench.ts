// Figure 3, render: the production webview bundle in headless Chromium, fed the messages the
// host posts for the 100k replay (all at once, as a burst): time to the first frame showing the
// top of the transcript, and until every message is applied (the webview builds only the rows
// on screen plus a margin, so "whole" is the row count and the header, not every row in the
// DOM as before issue 14). Floor: a static page that
// appends the same number of plain rows (same text, content-visibility: auto) in one batch.
import { join } from 'node:path';
import { replayFilesAtScale } from './generate';
import { hostMessages } from './hostMessages';
import { DATA_DIR, ROOT, log, report, scale } from './lib';
import { launch, profiling } from './page';
import type { Entity } from '../src/transcript/model';
import { partsText } from '../src/transcript/model';

/** What a plain row of the floor shows for an entity: its text, or its title line when collapsed. */
function plainText(entity: Entity): string {
  switch (entity.kind) {
    case 'user_message':
    case 'agent_message':
      return partsText(entity.parts);
    case 'thought':
      return 'Thinking';
    case 'tool_call':
      return `${entity.title} ${entity.status ?? ''}`;
    case 'compaction':
      return `Compaction ${entity.status}`;
    default:
      return entity.kind;
  }
}

async function main() {
  const files = replayFilesAtScale(DATA_DIR, scale());
  const host = await hostMessages(join(ROOT, 'bench/replayAgent.mjs'), ['--file', files.ndjson], files.sessionId);
  const rowCount = host.entities;
  const messagesJson = '[' + host.messages.join(',') + ']';
  const rowsJson = JSON.stringify(host.timeline.entities.map(plainText));
  log(`render: ${host.messages.length} messages (${(messagesJson.length / 1e6).toFixed(1)} MB) for ${rowCount} rows`);

  const profile = await profiling();
  const browser = await launch(profile.webview);
  try {
    // Floor first, then ours, each in a fresh page of the same browser.
    const floorPage = await browser.open('floor.html', { 'rows.json': rowsJson });
    const floor = await floorPage.evaluate(async () => {
      const texts: string[] = await (await fetch('rows.json')).json();
      const timeline = document.getElementById('timeline')!;
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
      const t0 = performance.now();
      const fragment = document.createDocumentFragment();
      for (const text of texts) {
        const row = document.createElement('div');
        row.className = 'row';
        row.textContent = text;
        fragment.append(row);
      }
      timeline.append(fragment);
      // The rAF after the one that follows the append: that frame has been painted.
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return { ms: performance.now() - t0, rows: timeline.childElementCount };
    });
    await floorPage.close();
    if (floor.rows !== rowCount) throw new Error(`render floor: ${floor.rows} of ${rowCount} rows`);

    const page = await browser.open('webview.html', { 'messages.json': messagesJson });
    const ours = await profile.around(page, () => page.evaluate(async (expectedRows: number) => {
      // The messages come from a worker, as a webview's come from another frame's process:
      // serialized elsewhere, deserialized and dispatched here one task per message.
      const json = await (await fetch('messages.json')).text();
      const source = `let messages; onmessage = (e) => {
        if (typeof e.data === 'string') { messages = JSON.parse(e.data); postMessage('loaded'); }
        else for (const m of messages) postMessage(m);
      };`;
      const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
      await new Promise<void>((resolve) => {
        worker.onmessage = (e) => {
          if (e.data === 'loaded') return resolve();
          window.dispatchEvent(new MessageEvent('message', { data: e.data }));
        };
        worker.postMessage(json);
      });
      const timeline = document.getElementById('timeline')!;
      const rowEls = timeline.getElementsByClassName('row');
      const bench = (window as any).__bench;
      // The webview has said `ready`; let its start-up settle.
      if (!bench.fromWebview.some((m: { type: string }) => m.type === 'ready')) throw new Error('the webview never posted ready');
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
      bench.longTasks.length = 0;
      console.timeStamp('bench:start');
      const t0 = performance.now();
      worker.postMessage({ go: true });
      let first: number | undefined;
      let whole = 0;
      await new Promise<void>((resolve) => {
        // A tick that sees a row saw it painted in the frame before.
        const tick = () => {
          const now = performance.now();
          if (first === undefined && rowEls.length && document.scrollingElement!.scrollTop === 0) first = now;
          if (Number(timeline.dataset.rows) >= expectedRows && document.body.dataset.loading === 'false') {
            whole = now;
            return resolve();
          }
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      // Long-task entries are delivered after the task: give them a moment.
      await new Promise((r) => setTimeout(r, 100));
      worker.terminate();
      const longest = Math.max(0, ...bench.longTasks.filter((t: { start: number }) => t.start >= t0).map((t: { duration: number }) => t.duration));
      return { first: first! - t0, whole: whole - t0, longest, rows: rowEls.length };
    }, rowCount));
    await page.close();
    log(`render: floor ${floor.ms.toFixed(0)} ms, ours first ${ours.first.toFixed(0)} ms, whole ${ours.whole.toFixed(0)} ms (longest task ${ours.longest.toFixed(0)} ms)`);
    report([
      {
        figure: '3',
        name: `render ${rowCount.toLocaleString('en')} rows: first frame`,
        value: ours.first,
        unit: 'ms',
        floor: floor.ms,
        goal: 1.3,
        goalOn: 'ratio',
      },
      {
        figure: '3',
        name: `render ${rowCount.toLocaleString('en')} rows: every message applied`,
        value: ours.whole,
        unit: 'ms',
        floor: floor.ms,
        goal: 1.3,
        goalOn: 'ratio',
        detail: { messages: host.messages.length, 'longest task ms': Math.round(ours.longest), 'rows built': ours.rows },
      },
    ]);
  } finally {
    await browser.close();
  }
}

await main();
