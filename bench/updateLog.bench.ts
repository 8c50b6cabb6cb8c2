// The update log's cost on a replay's path and an export's (src/transcript/updateLog.ts), with a
// spill file: 200,000 updates of figure 9's session (agent message chunks, compactions), each
// pushed as the parsed update alone (V8's serialization, 64 at a time) or with the agent's line it
// was parsed from (its bytes copied into the write buffer), then read back. The lines are views
// of 64 KB reads, as the reader hands them on, and the event loop turns between reads
// (as between the client's drains: the file's writes end in the thread pool, not in the pushes'
// time). Not a figure of `npm run bench`:
//   node out/bench/updateLog.bench.mjs [--chunks=200000] [--rounds=5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionUpdate } from '../src/acp/types';
import { SpillFile } from '../src/transcript/spillFile';
import { UpdateLog } from '../src/transcript/updateLog';
import { chunkSession } from './generate';

const arg = (name: string, fallback: number): number => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const chunks = arg('chunks', 200_000);
const rounds = arg('rounds', 5);

const updates: SessionUpdate[] = [];
const lines: Uint8Array[] = [];
/** Where each read's lines end in `lines`. */
const reads: number[] = [];
{
  const wire = Buffer.from(
    [...chunkSession({ chunks, compactions: 50, summaryChunks: 4 })]
      .map((update) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'bench', update } }))
      .join('\n') + '\n',
  );
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  for (let start = 0; start < wire.length; ) {
    const end = wire.lastIndexOf(0x0a, Math.min(start + 65_536, wire.length - 1));
    for (let at = start; at <= end; ) {
      const newline = wire.indexOf(0x0a, at);
      const line = wire.subarray(at, newline);
      lines.push(line);
      updates.push((JSON.parse(decoder.decode(line)) as { params: { update: SessionUpdate } }).params.update);
      at = newline + 1;
    }
    start = end + 1;
    reads.push(lines.length);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'update-log-bench-'));
async function once(raw: boolean): Promise<{ push: number; read: number; bytes: number }> {
  const file = SpillFile.create(dir, 'updates');
  const log = new UpdateLog(file);
  let push = 0;
  for (let r = 0, i = 0; r < reads.length; r++) {
    const t = performance.now();
    for (; i < reads[r]; i++) log.push(updates[i], raw ? lines[i] : undefined);
    push += performance.now() - t;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const t1 = performance.now();
  let n = 0;
  for (const update of log) if (update.sessionUpdate) n++;
  const read = performance.now() - t1;
  if (n !== updates.length) throw new Error(`read back ${n} of ${updates.length}`);
  const bytes = file.size;
  log.dispose();
  return { push, read, bytes };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
type Round = Awaited<ReturnType<typeof once>>;
const results = { serialized: [] as Round[], raw: [] as Round[] };
for (let r = 0; r < rounds; r++) {
  results.serialized.push(await once(false));
  results.raw.push(await once(true));
}
rmSync(dir, { recursive: true, force: true });
const line = (name: keyof typeof results) => {
  const push = median(results[name].map((x) => x.push));
  const read = median(results[name].map((x) => x.read));
  return { push, read, text: `${name.padEnd(10)} push ${push.toFixed(0)} ms (${((push * 1e6) / updates.length).toFixed(0)} ns/update), read back ${read.toFixed(0)} ms, file ${(results[name][0].bytes / 1e6).toFixed(1)} MB` };
};
const serialized = line('serialized');
const raw = line('raw');
console.log(`${updates.length} updates, medians of ${rounds} rounds (alternating)`);
console.log(serialized.text);
console.log(raw.text);
console.log(`raw / serialized: push ${(raw.push / serialized.push).toFixed(2)}x, read back ${(raw.read / serialized.read).toFixed(2)}x`);
