// Deterministic inputs for the benchmarks: a realistic 100k-update replay, the end-to-end
// sessions of figure 8 and the 10,000-session store for listing. Same seed, same bytes.
import { mkdirSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionUpdate } from '../src/acp/types';
import { prng } from '../test/agent/prng';
import type { StoredSession } from '../test/agent/store';

export { prng } from '../test/agent/prng';

// Words that exercise JSON escaping and UTF-8: quotes, backslashes, tabs, non-ASCII, emoji.
const WORDS = [
  'the', 'session', 'agent', 'client', 'update', 'timeline', 'render', 'patch', 'summary',
  'compaction', 'message', 'file', 'function', 'returns', 'value', 'error', 'test', 'build',
  'because', 'with', 'which', 'into', 'from', 'should', 'could', 'would', 'then', 'after',
  '`npm run build`', '"quoted"', "'single'", 'C:\\Users\\dev\\src', 'a\\nb', 'path/to/file.ts',
  'naïve', 'café', 'über', 'Straße', 'déjà vu', '日本語', '中文', 'Ελληνικά', 'русский', '→', '—',
  '🚀', '✅', '{ "key": 1 }', 'x => x * 2', '<div>', '&amp;', '\t', '**bold**', '_em_', '#1234',
];

/** Text of `min`..`max` characters with newlines, quotes, backslashes and non-ASCII. */
export function makeText(rand: () => number, min: number, max: number): string {
  const target = min + Math.floor(rand() * (max - min + 1));
  let text = '';
  while (text.length < target) {
    const r = rand();
    if (r < 0.06) text += '\n';
    else if (r < 0.08) text += '\n\n';
    else {
      if (text.length > 0 && !text.endsWith('\n')) text += ' ';
      text += WORDS[Math.floor(rand() * WORDS.length)];
    }
  }
  // Cut at a code point boundary so the length bound holds without splitting a surrogate pair.
  const cut = [...text.slice(0, target + 1)];
  let out = '';
  for (const ch of cut) {
    if (out.length + ch.length > target) break;
    out += ch;
  }
  while (out.length < min) out += '.';
  return out;
}

export interface ReplayOptions {
  /** Total number of `session/update` notifications (100,000 for the figures). */
  updates: number;
  /** Number of compactions, each `in_progress`, `summaryChunks` chunks, then `completed`. */
  compactions: number;
  summaryChunks: number;
  seed?: number;
}

export const REPLAY_100K: ReplayOptions = { updates: 100_000, compactions: 50, summaryChunks: 100, seed: 20250601 };

/**
 * The replay: ~70% agent message chunks (20 per messageId), ~10% thoughts, ~12% tool calls and
 * their updates, ~3% user messages and the compactions, interleaved the way turns interleave.
 */
export function generateReplay(options: ReplayOptions): SessionUpdate[] {
  const rand = prng(options.seed ?? 1);
  const n = options.updates;
  const compactionLines = options.compactions * (options.summaryChunks + 2);
  const quota = {
    thought: Math.round(n * 0.1),
    tool: Math.floor((n * 0.12) / 3) * 3,
    user: Math.round(n * 0.03),
    agent: 0,
  };
  quota.agent = n - compactionLines - quota.thought - quota.tool - quota.user;
  if (quota.agent < 0) throw new Error(`generateReplay: ${n} updates cannot hold ${options.compactions} compactions`);

  const updates: SessionUpdate[] = [];
  let messages = 0;
  let thoughts = 0;
  let users = 0;
  let calls = 0;
  let compactions = 0;
  const compactionEvery = options.compactions > 0 ? n / (options.compactions + 1) : Infinity;

  const emitCompaction = () => {
    const compactionId = `cmp_${String(++compactions).padStart(3, '0')}`;
    updates.push({ sessionUpdate: 'compaction_update', compactionId, status: 'in_progress' } as SessionUpdate);
    for (let i = 0; i < options.summaryChunks; i++) {
      updates.push({
        sessionUpdate: 'compaction_summary_chunk',
        compactionId,
        content: { type: 'text', text: makeText(rand, 40, 200) },
      } as SessionUpdate);
    }
    updates.push({ sessionUpdate: 'compaction_update', compactionId, status: 'completed' } as SessionUpdate);
  };

  while (quota.agent + quota.thought + quota.tool + quota.user > 0) {
    if (compactions < options.compactions && updates.length >= compactionEvery * (compactions + 1)) emitCompaction();
    const total = quota.agent + quota.thought + quota.tool + quota.user;
    let pick = rand() * total;
    if ((pick -= quota.user) < 0) {
      quota.user--;
      updates.push({
        sessionUpdate: 'user_message_chunk',
        messageId: `user_${++users}`,
        content: { type: 'text', text: makeText(rand, 40, 200) },
      } as SessionUpdate);
    } else if ((pick -= quota.thought) < 0) {
      const messageId = `thought_${++thoughts}`;
      const count = Math.min(quota.thought, 5 + Math.floor(rand() * 11));
      quota.thought -= count;
      for (let i = 0; i < count; i++) {
        updates.push({
          sessionUpdate: 'agent_thought_chunk',
          messageId,
          content: { type: 'text', text: makeText(rand, 40, 200) },
        } as SessionUpdate);
      }
    } else if ((pick -= quota.tool) < 0) {
      quota.tool -= 3;
      const toolCallId = `call_${++calls}`;
      const path = `src/module${calls % 97}/file${calls % 13}.ts`;
      updates.push({
        sessionUpdate: 'tool_call',
        toolCallId,
        title: `Read ${path}`,
        kind: 'read',
        status: 'pending',
        locations: [{ path: `/work/project/${path}` }],
        rawInput: { path: `/work/project/${path}` },
      } as SessionUpdate);
      updates.push({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' } as SessionUpdate);
      updates.push({
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: makeText(rand, 80, 400) } }],
      } as SessionUpdate);
    } else {
      const messageId = `msg_${++messages}`;
      const count = Math.min(quota.agent, 20);
      quota.agent -= count;
      for (let i = 0; i < count; i++) {
        updates.push({
          sessionUpdate: 'agent_message_chunk',
          messageId,
          content: { type: 'text', text: makeText(rand, 40, 200) },
        } as SessionUpdate);
      }
    }
  }
  while (compactions < options.compactions) emitCompaction();
  return updates;
}

export interface ChunkSessionOptions {
  /** Agent message chunks, 20 per messageId, 40 to 200 characters each. */
  chunks: number;
  compactions: number;
  /** Summary chunks per compaction. */
  summaryChunks: number;
  seed?: number;
}

/**
 * Figures 8 and 9's session: agent message chunks with compactions spread evenly between them,
 * one update at a time (the store writes them to its sidecar as they come: 2,000,000 chunks
 * never exist whole in memory).
 */
export function* chunkSession(options: ChunkSessionOptions): Generator<SessionUpdate> {
  const rand = prng(options.seed ?? 8);
  const every = options.chunks / (options.compactions + 1);
  let compactions = 0;
  for (let i = 0; i < options.chunks; i++) {
    if (compactions < options.compactions && i >= every * (compactions + 1)) {
      const compactionId = `cmp_${++compactions}`;
      yield { sessionUpdate: 'compaction_update', compactionId, status: 'in_progress' } as SessionUpdate;
      for (let c = 0; c < options.summaryChunks; c++) {
        yield {
          sessionUpdate: 'compaction_summary_chunk',
          compactionId,
          content: { type: 'text', text: makeText(rand, 40, 200) },
        } as SessionUpdate;
      }
      yield { sessionUpdate: 'compaction_update', compactionId, status: 'completed' } as SessionUpdate;
    }
    yield {
      sessionUpdate: 'agent_message_chunk',
      messageId: `msg_${Math.floor(i / 20) + 1}`,
      content: { type: 'text', text: makeText(rand, 40, 200) },
    } as SessionUpdate;
  }
}

/**
 * What the transcript of a chunk session shows, counted as its updates stream past (the
 * Timeline's rows for these kinds: one per messageId run, one per compaction): rows, the text
 * held, and how the last row ends.
 */
export class ChunkSessionShape {
  rows = 0;
  chars = 0;
  textBytes = 0;
  updates = 0;
  private lastMessage: string | undefined;
  private lastMessageText = '';
  private lastRowIsMessage = false;
  private readonly compactions = new Set<string>();

  *observe(updates: Iterable<SessionUpdate>): Generator<SessionUpdate> {
    for (const update of updates) {
      this.add(update as SessionUpdate & { messageId?: string; compactionId?: string; content?: { type: string; text?: string } });
      yield update;
    }
  }

  private add(u: SessionUpdate & { messageId?: string; compactionId?: string; content?: { type: string; text?: string } }): void {
    this.updates++;
    const text = u.content?.type === 'text' ? (u.content.text ?? '') : '';
    if (u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'user_message_chunk') {
      // A message's chunks after a compaction still go to its row (above the compaction).
      const key = `${u.sessionUpdate}:${u.messageId ?? ''}`;
      if (key !== this.lastMessage) {
        this.rows++;
        this.lastMessageText = '';
        this.lastRowIsMessage = true;
      }
      this.lastMessage = key;
      this.lastMessageText = u.sessionUpdate === 'agent_message_chunk' ? (this.lastMessageText + text).slice(-400) : '';
    } else if (u.sessionUpdate === 'compaction_update' || u.sessionUpdate === 'compaction_summary_chunk') {
      if (!this.compactions.has(u.compactionId!)) {
        this.compactions.add(u.compactionId!);
        this.rows++;
        this.lastRowIsMessage = false;
      }
    } else throw new Error(`chunk session: no ${u.sessionUpdate} expected`);
    if (u.sessionUpdate !== 'compaction_update') {
      this.chars += text.length;
      this.textBytes += Buffer.byteLength(text);
    }
  }

  /** The last row's text ends with this ('' when it is not an agent message). */
  get lastText(): string {
    return this.lastRowIsMessage ? this.lastMessageText.trimEnd().slice(-20) : '';
  }
}

/** One JSON-RPC `session/update` notification line per update, as an agent writes them. */
export function toNdjson(sessionId: string, updates: readonly SessionUpdate[]): string {
  let out = '';
  for (const update of updates) {
    out += JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } }) + '\n';
  }
  return out;
}

export interface ReplayFiles {
  /** Raw NDJSON of the notifications (what a replaying agent writes to stdout). */
  ndjson: string;
  /** The updates as one JSON array (for in-process figures: no re-generation per run). */
  updatesJson: string;
  sessionId: string;
  lines: number;
  bytes: number;
}

/** Writes (once; cached by name) the replay into `dir`. */
export function ensureReplayFiles(dir: string, name: string, options: ReplayOptions, sessionId = `bench-${name}`): ReplayFiles {
  mkdirSync(dir, { recursive: true });
  const ndjson = join(dir, `${name}.ndjson`);
  const updatesJson = join(dir, `${name}.updates.json`);
  const meta = join(dir, `${name}.meta.json`);
  const key = JSON.stringify({ options, sessionId, version: 1 });
  if (existsSync(meta) && existsSync(ndjson) && existsSync(updatesJson)) {
    const m = JSON.parse(readFileSync(meta, 'utf8'));
    if (m.key === key) return { ndjson, updatesJson, sessionId, lines: m.lines, bytes: m.bytes };
  }
  const updates = generateReplay(options);
  const text = toNdjson(sessionId, updates);
  writeFileSync(ndjson, text);
  writeFileSync(updatesJson, JSON.stringify(updates));
  const bytes = Buffer.byteLength(text);
  writeFileSync(meta, JSON.stringify({ key, lines: updates.length, bytes }));
  return { ndjson, updatesJson, sessionId, lines: updates.length, bytes };
}

export const LIST_FOLDERS = ['/bench/workspace/alpha', '/bench/workspace/beta', '/bench/workspace/gamma'];

/**
 * The listing store: `count` small active sessions spread over `folders`, with
 * distinct dates, written with the reference agent's own store code. Cached in `dir`.
 */
export async function ensureSessionStore(
  dir: string,
  count: number,
  writeSession: (dir: string, record: StoredSession) => Promise<void>,
  folders = LIST_FOLDERS,
): Promise<string> {
  const marker = join(dir, `.bench-store-${count}`);
  if (existsSync(marker)) return dir;
  mkdirSync(dir, { recursive: true });
  const rand = prng(5);
  const start = Date.UTC(2025, 0, 1);
  const records: StoredSession[] = [];
  for (let i = 0; i < count; i++) {
    const sessionId = `sess_${String(i).padStart(5, '0')}`;
    records.push({
      sessionId,
      cwd: folders[i % folders.length],
      title: makeText(rand, 20, 60).replace(/\s+/g, ' '),
      updatedAt: new Date(start + i * 60_000 + Math.floor(rand() * 30_000)).toISOString(),
      archived: false,
      deleted: false,
      updates: [
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: makeText(rand, 40, 120) } },
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: makeText(rand, 40, 200) } },
      ] as SessionUpdate[],
    });
  }
  // Parallel in small groups: each write is atomic (fsync and rename).
  for (let i = 0; i < records.length; i += 64) {
    await Promise.all(records.slice(i, i + 64).map((r) => writeSession(dir, r)));
  }
  writeFileSync(marker, new Date().toISOString());
  return dir;
}


/** The 100,000-update replay's files, or a replay scaled down by `scale` (for quick runs). */
export function replayFilesAtScale(dataDir: string, scale: number): ReturnType<typeof ensureReplayFiles> {
  const name = scale === 1 ? 'replay100k' : `replay${Math.round(100_000 * scale)}`;
  return ensureReplayFiles(dataDir, name, {
    ...REPLAY_100K,
    updates: Math.round(REPLAY_100K.updates * scale),
    compactions: Math.max(1, Math.round(REPLAY_100K.compactions * scale)),
  });
}
