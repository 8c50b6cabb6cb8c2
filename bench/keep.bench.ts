// Kept copies (issue 33), not a figure of the table yet: what keeping a copy of figure 1's replay
// (100,000 updates, 33.4 MB of NDJSON) costs the extension host's thread, against the plainest
// part of the ingest it rides on (JSON.parse of every line, the floor), and its size on disk.
// The copy's push copies each line into a staging buffer; gzip runs on libuv's threads and is
// timed apart (until the copy is in place). Prints one JSON object.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { KeptWriter } from '../src/keep/keptFile';
import { generateReplay, REPLAY_100K, toNdjson } from './generate';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 5);
const ndjson = toNdjson('bench-keep', generateReplay(REPLAY_100K));
const lines = ndjson.split('\n').filter(Boolean).map((l) => Buffer.from(l, 'utf8'));
const rawBytes = lines.reduce((n, l) => n + l.length + 1, 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const parse: number[] = [];
const push: number[] = [];
const placed: number[] = [];
let size = 0;
for (let r = 0; r < runs; r++) {
  const decoder = new TextDecoder();
  let t = performance.now();
  for (const l of lines) JSON.parse(decoder.decode(l));
  parse.push(performance.now() - t);
  const dir = mkdtempSync(join(tmpdir(), 'acp-keep-bench-'));
  const writer = new KeptWriter(join(dir, 'a', 'copy.kept'));
  t = performance.now();
  for (const l of lines) writer.push(l);
  push.push(performance.now() - t);
  const meta = await writer.finish({ agentName: 'bench', sessionId: 'bench-keep', cwd: '/bench' }, async () => true);
  placed.push(performance.now() - t);
  size = meta!.bodyBytes;
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({
  updates: lines.length,
  ndjsonBytes: rawBytes,
  copyBytes: size,
  sizeRatio: Math.round((size / rawBytes) * 1000) / 1000,
  floorParseMs: Math.round(median(parse)),
  hostPushMs: Math.round(median(push)),
  hostShareOfFloor: Math.round((median(push) / median(parse)) * 1000) / 1000,
  untilInPlaceMs: Math.round(median(placed)),
  runs,
}));
