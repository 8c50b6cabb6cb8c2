// Property-based tests (fast-check) of the NDJSON reader and the timeline reducer. The seed is
// fixed unless ACP_PROPERTY_SEED says otherwise ("random" picks one), and printed, so that any
// failure can be replayed: ACP_PROPERTY_SEED=<seed> node --test out/test/unit/properties.test.mjs
// ACP_PROPERTY_RUNS sets the number of cases per property (default 200).
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Message } from 'vscode-jsonrpc/node';
import { AGENT_LINES, type AgentLines, MessageTracer, NdjsonMessageReader } from '../../src/acp/ndjson';
import { type CompactionEntity, partsText } from '../../src/transcript/model';
import { Timeline } from '../../src/transcript/timeline';
import { CapturingLog } from './acp-helpers';

const FIXED_SEED = 20_261_130;
const seedSetting = process.env.ACP_PROPERTY_SEED;
const seed = seedSetting === 'random' ? Math.floor(Math.random() * 2 ** 31) : seedSetting ? Number(seedSetting) : FIXED_SEED;
const numRuns = Number(process.env.ACP_PROPERTY_RUNS ?? 200);
console.log(`property tests: seed ${seed}, ${numRuns} runs per property (replay with ACP_PROPERTY_SEED=${seed})`);
const params = { seed, numRuns };

// --- the NDJSON reader ---------------------------------------------------------------------

interface ReadResult {
  /** What vscode-jsonrpc would get, batches unfolded into their session/update notifications. */
  messages: unknown[];
  /** The bytes handed on with each session/update notification (copied: the reader's view is for the call). */
  lines: (Uint8Array | undefined)[];
  tooLarge: boolean;
  warnings: number;
}

/** Feeds `chunks` to a real NdjsonMessageReader over a Node stream and collects what it delivers. */
async function readChunks(chunks: readonly Uint8Array[], maxMessageBytes = 1 << 20, sliceMs?: number): Promise<ReadResult> {
  const log = new CapturingLog();
  const stream = new Readable({ read() {} });
  let tooLarge = false;
  const reader = new NdjsonMessageReader(stream, {
    agentName: 'prop',
    log,
    tracer: new MessageTracer(log, () => 'off', 'prop'),
    maxMessageBytes,
    onMessageTooLarge: () => (tooLarge = true),
    sliceMs,
  });
  const messages: unknown[] = [];
  const lines: (Uint8Array | undefined)[] = [];
  const closed = new Promise<void>((resolve) => reader.onClose(() => resolve()));
  // vscode-jsonrpc's queue: one message per setImmediate; the agent's lines are parsed when drained.
  const queue: Message[] = [];
  let idle: (() => void) | undefined;
  const handle = () => {
    const message = queue.shift();
    if (message === undefined) return idle?.();
    const m = message as { method?: string; params?: unknown };
    if (m.method === AGENT_LINES) {
      reader.drain(m.params as AgentLines, (params, line) => {
        messages.push({ jsonrpc: '2.0', method: 'session/update', params });
        lines.push(line && Buffer.from(line));
      });
    } else {
      messages.push(message);
    }
    setImmediate(handle);
  };
  reader.listen((message: Message) => {
    queue.push(message);
    if (queue.length === 1) setImmediate(handle);
  });
  for (const chunk of chunks) stream.push(Buffer.from(chunk));
  stream.push(null);
  // A reader stopped by an oversized line no longer reports the end: the stream's own is enough.
  await Promise.race([closed, new Promise((resolve) => stream.once('end', resolve))]);
  if (queue.length > 0) await new Promise<void>((resolve) => (idle = resolve));
  reader.dispose();
  return { messages, lines, tooLarge, warnings: log.at('warn').length };
}

/** `bytes` cut at `cuts` (positions, any order, duplicates allowed: empty chunks). */
function split(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(start, p));
    start = p;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

/** Text with characters of 1 to 4 UTF-8 bytes, newlines escaped by JSON, control characters too. */
const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', 'é', '€', '👋', '\n', '"', '\\', '\u0000', '\u2028'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 20 });
const params_ = fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 3 });
const message = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), method: fc.constant('session/update'), params: fc.record({ sessionId: text, update: fc.record({ sessionUpdate: fc.constant('agent_message_chunk'), content: fc.record({ type: fc.constant('text'), text }) }) }) }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.nat(), result: params_ }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.nat(), error: fc.record({ code: fc.integer(), message: text }) }),
  fc.record({ jsonrpc: fc.constant('2.0'), method: text, params: params_ }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.nat(), method: fc.constantFrom('session/request_permission', 'fs/read_text_file'), params: params_ }),
);
const cuts = fc.array(fc.nat(), { maxLength: 12 });

test('NDJSON reader: any split of the byte stream into chunks gives the same messages, in order, drained whole or a line per slice', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(message, { maxLength: 12 }), cuts, fc.boolean(), fc.boolean(), async (messages, at, finalNewline, lineSlices) => {
      const wire = messages.map((m) => JSON.stringify(m)).join('\n') + (finalNewline || messages.length === 0 ? '\n' : '');
      const bytes = Buffer.from(wire, 'utf8');
      const result = await readChunks(split(bytes, at), 1 << 20, lineSlices ? 0 : undefined);
      // As they come off the wire (fast-check's objects may have no prototype).
      assert.deepEqual(result.messages, JSON.parse(JSON.stringify(messages)));
      assert.equal(result.tooLarge, false);
      assert.equal(result.warnings, 0);
    }),
    params,
  );
});

test('NDJSON reader: a huge line (up to 4 MB, multi-byte text) in any chunks is read whole', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 100_000, max: 1_000_000 }), fc.array(fc.nat(), { maxLength: 40 }), async (n, at) => {
      const big = { jsonrpc: '2.0', id: 1, result: { text: 'é👋a'.repeat(n / 3) } };
      const bytes = Buffer.from(`${JSON.stringify(big)}\n\n\n`);
      const result = await readChunks(split(bytes, at), 64 * 1024 * 1024);
      assert.deepEqual(result.messages, [big]);
    }),
    { ...params, numRuns: Math.max(1, Math.round(numRuns / 20)) },
  );
});

/** Raw bytes with many newlines: invalid UTF-8, empty lines, JSON and non-JSON lines, CR LF. */
const rawLine = fc.oneof(
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b.filter((x) => x !== 0x0a))),
  message.map((m) => Buffer.from(JSON.stringify(m))),
  fc.constantFrom(Buffer.from(''), Buffer.from('   '), Buffer.from('\r'), Buffer.from([0xff, 0xfe]), Buffer.from([0xf0, 0x9f]), Buffer.from('[1,2]'), Buffer.from('null'), Buffer.from('"x"')),
  // Invalid bytes decode to U+FFFD, three bytes each: a line's size is its bytes on the wire.
  fc.integer({ min: 1, max: 64 }).map((n) => Buffer.alloc(n, 0xff)),
);
const rawStream = fc.array(rawLine, { maxLength: 15 }).map((lines) => Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));

test('NDJSON reader: invalid UTF-8, empty and garbage lines never throw, deliver only objects, and do not depend on the split', async () => {
  await fc.assert(
    fc.asyncProperty(rawStream, cuts, cuts, async (bytes, at1, at2) => {
      const a = await readChunks(split(bytes, at1));
      const b = await readChunks(split(bytes, at2));
      for (const m of a.messages) assert.ok(typeof m === 'object' && m !== null && !Array.isArray(m));
      assert.deepEqual(a.messages, b.messages);
      assert.equal(a.warnings, b.warnings);
    }),
    params,
  );
});

test('NDJSON reader: each session/update notification comes with its line\'s bytes as read, whatever the split and the slices', async () => {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const isUpdate = (line: Uint8Array): boolean => {
    try {
      const m = JSON.parse(decoder.decode(line)) as { method?: unknown; id?: unknown } | null;
      return typeof m === 'object' && m !== null && m.method === 'session/update' && m.id === undefined;
    } catch {
      return false;
    }
  };
  await fc.assert(
    fc.asyncProperty(rawStream, cuts, fc.boolean(), async (bytes, at, lineSlices) => {
      const result = await readChunks(split(bytes, at), 1 << 20, lineSlices ? 0 : undefined);
      const expected: Uint8Array[] = [];
      for (let start = 0; start < bytes.length; ) {
        const end = bytes.indexOf(0x0a, start);
        if (isUpdate(bytes.subarray(start, end))) expected.push(Buffer.from(bytes.subarray(start, end)));
        start = end + 1;
      }
      assert.deepEqual(result.lines, expected);
    }),
    params,
  );
});

test('NDJSON reader: a line over the limit stops it after the messages before that line, whatever the split', async () => {
  const max = 64;
  await fc.assert(
    fc.asyncProperty(rawStream, cuts, async (bytes, at) => {
      const limited = await readChunks(split(bytes, at), max);
      // The lines before the first one over the limit, read without a limit, are what must come through.
      const lines: Buffer[] = [];
      let start = 0;
      let over = false;
      for (let i = bytes.indexOf(0x0a); i !== -1; start = i + 1, i = bytes.indexOf(0x0a, start)) {
        if (i - start > max) {
          over = true;
          break;
        }
        lines.push(bytes.subarray(start, i + 1));
      }
      const expected = await readChunks([Buffer.concat(lines)]);
      assert.equal(limited.tooLarge, over, 'stopped exactly when a line was over the limit');
      assert.deepEqual(limited.messages, expected.messages);
    }),
    params,
  );
});

// --- the timeline reducer ------------------------------------------------------------------

const ids = fc.constantFrom('a', 'b', 'c');
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('image'), mimeType: fc.constant('image/png'), data: fc.constant('iVBORw0KGgo=') }),
  fc.record({ type: fc.constant('resource_link'), uri: text, name: text }),
  fc.jsonValue({ maxDepth: 2 }),
);
const update = fc.oneof(
  fc.record({ sessionUpdate: fc.constantFrom('user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk'), content: block }, { requiredKeys: ['sessionUpdate', 'content'] }),
  fc.record({ sessionUpdate: fc.constantFrom('user_message_chunk', 'agent_message_chunk'), content: block, messageId: ids }),
  fc.record({ sessionUpdate: fc.constant('tool_call'), toolCallId: ids, title: text, kind: fc.constantFrom('read', 'edit', 'x'), status: fc.constantFrom('pending', 'completed', 'failed'), content: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 2 }), locations: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 2 }), rawInput: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: ['sessionUpdate', 'toolCallId'] }),
  fc.record({ sessionUpdate: fc.constant('tool_call_update'), toolCallId: ids, status: fc.constantFrom('in_progress', 'completed'), content: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 2 }), rawOutput: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: ['sessionUpdate', 'toolCallId'] }),
  fc.record({ sessionUpdate: fc.constant('plan'), entries: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }) }),
  fc.record({ sessionUpdate: fc.constant('plan_update'), plan: fc.record({ planId: ids, type: fc.constantFrom('items', 'markdown', 'file'), entries: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }), markdown: text }, { requiredKeys: ['planId'] }) }),
  fc.record({ sessionUpdate: fc.constant('plan_removed'), planId: ids }),
  fc.record({ sessionUpdate: fc.constant('compaction_update'), compactionId: ids, status: fc.constantFrom('in_progress', 'completed', 'failed', 'cancelled', '_vendor'), summary: fc.option(fc.array(block, { maxLength: 3 })), error: fc.option(text), _meta: fc.option(fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })) }, { requiredKeys: ['sessionUpdate', 'compactionId', 'status'] }),
  fc.record({ sessionUpdate: fc.constant('compaction_summary_chunk'), compactionId: ids, content: block }),
  fc.record({ sessionUpdate: fc.constantFrom('usage_update', 'notice', 'session_info_update', 'current_mode_update', 'available_commands_update', 'config_option_update'), used: fc.nat(), size: fc.nat(), title: fc.oneof(text, fc.integer()), currentModeId: text, availableCommands: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }) }, { requiredKeys: ['sessionUpdate'] }),
  fc.record({ sessionUpdate: text }),
  fc.jsonValue({ maxDepth: 3 }),
);

function replay(updates: readonly unknown[]): Timeline {
  const timeline = new Timeline();
  for (const u of updates) timeline.apply(u);
  return timeline;
}

test('timeline: any sequence of updates never throws, counts every update and keeps keys unique', () => {
  fc.assert(
    fc.property(fc.array(update, { maxLength: 40 }), (updates) => {
      const timeline = replay(updates);
      assert.equal(timeline.updateCount, updates.length);
      const keys = timeline.entities.map((e) => e.key);
      assert.equal(new Set(keys).size, keys.length);
      for (const key of keys) assert.equal(timeline.get(key)?.key, key);
    }),
    params,
  );
});

test('timeline: replaying the same updates twice gives the same timeline', () => {
  fc.assert(
    fc.property(fc.array(update, { maxLength: 40 }), (generated) => {
      // Two copies as parsed off the wire: the reducer must not depend on (or change) the objects it was given.
      const updates = JSON.parse(JSON.stringify(generated)) as unknown[];
      const again = JSON.parse(JSON.stringify(generated)) as unknown[];
      const first = replay(updates);
      const second = replay(again);
      assert.deepEqual(second.entities, first.entities);
      assert.deepEqual(second.state, first.state);
    }),
    params,
  );
});

/** The compaction RFD's rules, written from its text ("Optional fields and patch semantics"). */
interface ModelCompaction {
  status: string;
  summary: string[];
  error?: string;
  meta?: Record<string, unknown>;
  /** Index among everything first seen: its place in the timeline. */
  position: number;
}

test("timeline: compactions follow the RFD's patch rules for random patch sequences", () => {
  const textBlock = fc.record({ type: fc.constant('text'), text });
  const patch = fc.oneof(
    fc.record(
      {
        sessionUpdate: fc.constant('compaction_update'),
        compactionId: ids,
        status: fc.constantFrom('in_progress', 'completed', 'failed', 'cancelled', '_vendor'),
        summary: fc.option(fc.array(textBlock, { maxLength: 3 })),
        error: fc.option(text),
        _meta: fc.option(fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 })),
      },
      { requiredKeys: ['sessionUpdate', 'compactionId', 'status'] },
    ),
    fc.record({ sessionUpdate: fc.constant('compaction_summary_chunk'), compactionId: ids, content: textBlock }),
    fc.record({ sessionUpdate: fc.constant('agent_message_chunk'), content: textBlock, messageId: fc.constantFrom('m1', 'm2') }),
  );
  fc.assert(
    fc.property(fc.array(patch, { maxLength: 30 }), (updates) => {
      const model = new Map<string, ModelCompaction>();
      const firstSeen = new Set<string>();
      let seen = 0;
      for (const u of updates as Record<string, unknown>[]) {
        if (u.sessionUpdate === 'agent_message_chunk') {
          if (!firstSeen.has(`m:${u.messageId}`)) firstSeen.add(`m:${u.messageId}`), seen++;
          continue;
        }
        const id = u.compactionId as string;
        let c = model.get(id);
        // First seen: in_progress, no optional values, placed in receive order.
        if (!c) model.set(id, (c = { status: 'in_progress', summary: [], position: seen++ }));
        if (u.sessionUpdate === 'compaction_summary_chunk') {
          c.summary.push((u.content as { text: string }).text); // a chunk appends
          continue;
        }
        c.status = u.status as string;
        // Omitted: unchanged; null clears ([] too, for summary); a value replaces.
        if ('summary' in u) c.summary = u.summary === null ? [] : (u.summary as { text: string }[]).map((b) => b.text);
        if ('error' in u) c.error = u.error === null ? undefined : (u.error as string);
        if ('_meta' in u) c.meta = u._meta === null ? undefined : (u._meta as Record<string, unknown>);
      }
      const timeline = replay(updates);
      for (const [id, expected] of model) {
        const actual = timeline.compaction(id) as CompactionEntity;
        assert.ok(actual, `compaction ${id} exists`);
        assert.equal(actual.status, expected.status);
        assert.equal(partsText(actual.summary), expected.summary.join(''));
        assert.equal(actual.error, expected.error);
        assert.deepEqual(actual.meta, expected.meta);
        assert.equal(timeline.entities.indexOf(actual), expected.position, `compaction ${id} stays where it was first seen`);
      }
      assert.equal(timeline.entities.length, seen, 'patches never add or split entities');
    }),
    params,
  );
});
