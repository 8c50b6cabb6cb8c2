// Figure 7, memory: heap growth once the 100k replay is held in the timeline, against the
// bytes of text the timeline holds. Run with --expose-gc (bench/run.ts does).
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { replayFilesAtScale } from './generate';
import { DATA_DIR, log, report, scale } from './lib';
import { Timeline } from '../src/transcript/timeline';
import type { Entity, Part } from '../src/transcript/model';

function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('memory.bench needs node --expose-gc');
  for (let i = 0; i < 4; i++) gc();
}

/** Streams the NDJSON file line by line into `apply`, holding no more than one chunk of it. */
async function feed(file: string, apply: (update: unknown) => void): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    pending += decoder.write(chunk as Buffer);
    let start = 0;
    let newline: number;
    while ((newline = pending.indexOf('\n', start)) >= 0) {
      apply(JSON.parse(pending.slice(start, newline)).params.update);
      start = newline + 1;
    }
    pending = pending.slice(start);
  }
}

/** Text the user can read in the timeline: message and summary text, tool titles, inputs and output. */
function textHeld(entities: readonly Entity[]): { bytes: number; chars: number } {
  let bytes = 0;
  let chars = 0;
  const add = (s: string | undefined) => {
    if (!s) return;
    bytes += Buffer.byteLength(s);
    chars += s.length;
  };
  const addParts = (parts: readonly Part[]) => {
    for (const p of parts) if (p.type === 'text') add(p.text);
  };
  for (const e of entities) {
    switch (e.kind) {
      case 'user_message':
      case 'agent_message':
      case 'thought':
        addParts(e.parts);
        break;
      case 'compaction':
        addParts(e.summary);
        add(e.error);
        break;
      case 'tool_call':
        add(e.title);
        add(e.rawInput);
        add(e.rawOutput);
        for (const c of e.content) if (c.type === 'content' && c.part.type === 'text') add(c.part.text);
        for (const l of e.locations) add(l.path);
        break;
      default:
        break;
    }
  }
  return { bytes, chars };
}

async function main() {
  const files = replayFilesAtScale(DATA_DIR, scale());
  let timeline: Timeline | undefined = new Timeline();
  fullGc();
  const before = process.memoryUsage().heapUsed;
  await feed(files.ndjson, (u) => timeline!.apply(u));
  fullGc();
  const after = process.memoryUsage().heapUsed;
  const growth = after - before;
  const text = textHeld(timeline.entities);
  const entities = timeline.entities.length;
  if (timeline.updateCount !== files.lines) throw new Error(`memory: applied ${timeline.updateCount} of ${files.lines}`);
  timeline = undefined;
  log(`memory: heap +${(growth / 1e6).toFixed(1)} MB for ${(text.bytes / 1e6).toFixed(1)} MB of text in ${entities} entities`);
  report([
    {
      figure: '7',
      name: 'memory: heap growth / text held',
      value: growth / text.bytes,
      unit: 'x',
      goal: 3,
      goalOn: 'value',
      detail: {
        'heap growth MB': +(growth / 1e6).toFixed(1),
        'text MB (UTF-8)': +(text.bytes / 1e6).toFixed(1),
        'text M chars': +(text.chars / 1e6).toFixed(2),
        entities,
      },
    },
  ]);
}

await main();
