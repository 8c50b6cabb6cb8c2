// Figure 2, webview messages: for the 100k replay, how many postMessage calls the transcript
// panel's batching makes from host to webview, and how many bytes they carry.
import { join } from 'node:path';
import { replayFilesAtScale } from './generate';
import { hostMessages } from './hostMessages';
import { DATA_DIR, ROOT, log, report, scale } from './lib';

async function main() {
  const files = replayFilesAtScale(DATA_DIR, scale());
  const host = await hostMessages(join(ROOT, 'bench/replayAgent.mjs'), ['--file', files.ndjson], files.sessionId);
  if (host.updates !== files.lines) throw new Error(`messages: applied ${host.updates} of ${files.lines} updates`);
  const count = host.messages.length;
  log(`messages: ${count} postMessage calls, ${(host.bytes / 1e6).toFixed(1)} MB for ${files.lines} updates (${host.ms.toFixed(0)} ms replay)`);
  report([
    {
      figure: '2',
      name: `webview messages for ${files.lines.toLocaleString('en')} updates`,
      value: count,
      unit: 'msgs',
      goal: Math.floor(files.lines / 100),
      goalOn: 'value',
      detail: { 'updates per message': Math.round(files.lines / count), 'replay ms': Math.round(host.ms) },
    },
    {
      figure: '2',
      name: 'webview bytes posted',
      value: host.bytes / 1e6,
      unit: 'MB',
      goal: null,
      goalOn: 'value',
      detail: { 'agent wire MB': +(files.bytes / 1e6).toFixed(1), entities: host.entities },
    },
  ]);
}

await main();
