// One piece of the agent's output (whole `\n`-separated lines, as the reader cut them) decoded and
// parsed into what the client does with each line, in wire order: a `session/update`
// notification's params (with where its line is in the piece's bytes), any other message's text
// (the connection parses it again: they are few and small), or a warning for a line that is not a
// message. Runs in the line worker (lineWorker.ts), off the extension host's thread; plain code,
// no Node API. With `merge`, consecutive text chunks of one message (or one compaction's summary)
// become one update whose text is theirs joined and whose line is their lines: the reducer makes
// of it exactly what it makes of them one by one (timeline.ts appends a text chunk to the text part
// before it; textPieces.ts notes the pieces), and what keeps lines (an export's update log, a
// kept copy) keeps every line as sent.
import { appendText } from './textPieces';

/** A `session/update` notification's params; `start`-`end`: its line's bytes in the piece (for a merged one, its `lines` lines, `\n`-separated). */
export interface ParsedUpdate {
  t: 0;
  params: unknown;
  start: number;
  end: number;
  lines: number;
}
/** Any other message, as its line's text. */
export interface ParsedMessage {
  t: 1;
  text: string;
}
/** A line that is not a JSON-RPC message object (or uses a reserved method): what the log says of it. */
export interface ParsedProblem {
  t: 2;
  text: string;
}
/**
 * Updates of a session the line worker reduces (lineWorker.ts): applied there already. `start`-`end`:
 * their lines (several text chunks: `\n`-separated); `params` where the host needs the parsed
 * update too (not for a text chunk); `problems`: what the check fixed in it, for the log.
 */
export interface ParsedReduced {
  t: 3;
  sessionId: string;
  kind: string;
  start: number;
  end: number;
  /** How many of the agent's lines `start`-`end` holds (counted where they were applied: the host need not count them again). */
  lines: number;
  params?: unknown;
  problems?: string;
  /** The host applies it too: one of the updates that make the reduction's first rows (see LineReducer.apply). */
  preview?: true;
}
/** How far the line worker's reduction of a session is (its reducer's progress), in order after the updates it covers. */
export interface ParsedProgress {
  t: 4;
  sessionId: string;
  progress: unknown;
}
export type ParsedEntry = ParsedUpdate | ParsedMessage | ParsedProblem | ParsedReduced | ParsedProgress;

/** The lines of one piece, parsed; `bytes` is the piece (the worker's entries come back to the host's own bytes of it). */
export interface ParsedPiece {
  readonly parsed: true;
  entries: ParsedEntry[];
  bytes: Uint8Array;
  /** How many of `entries` a drain has handed on (a drain that yields goes on from here). */
  at: number;
}

/** The namespace of the client's own messages (ndjson.ts): a line from the agent with such a method is dropped. */
export const INTERNAL_METHOD_PREFIX = '$/acpSessions/';

/** At most this much of a bad line is quoted in the log. */
const PREVIEW_CHARS = 200;

/** The byte that ends a message; never part of a multi-byte UTF-8 sequence. */
export const LF = 0x0a;

/** As the reader decodes the agent's lines (a BOM is kept, bad bytes become U+FFFD). */
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Chunk kinds whose text a merge joins, and the field (besides `content`) that names what they
 * belong to. A map: a kind is the agent's string, and an object's lookup would find `constructor`.
 */
const MERGED_KINDS: ReadonlyMap<string, 'messageId' | 'compactionId'> = new Map([
  ['agent_message_chunk', 'messageId'],
  ['user_message_chunk', 'messageId'],
  ['agent_thought_chunk', 'messageId'],
  ['compaction_summary_chunk', 'compactionId'],
]);

/** How many lines `bytes` holds (a merged update's line is its chunks' lines, `\n`-separated). */
export function linesIn(bytes: Uint8Array): number {
  let n = 1;
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, at + 1)) n++;
  return n;
}

export function preview(text: string): string {
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}… (${text.length} characters)` : text;
}

/** The message in one line, or what the log says of a line that is not one (undefined for a blank line). */
export function parseLine(text: string): { message: Record<string, unknown> } | { problem: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (text.trim() === '') return undefined;
    return { problem: `Skipped a line that is not JSON (${(error as Error).message}): ${preview(text)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: `Skipped a line that is not a JSON-RPC message object: ${preview(text)}` };
  }
  return { message: value as Record<string, unknown> };
}

/** Parses every line of `bytes` (whole lines, `\n`-separated, none at the end). */
export function parsePiece(bytes: Uint8Array, merge: boolean): ParsedPiece {
  const text = UTF8.decode(bytes);
  const entries: ParsedEntry[] = [];
  // The chunk the next one may join: its entry, its content, and what names its message.
  let open: { entry: ParsedUpdate; content: { text: string }; sessionId: string; kind: string; owner: string | undefined } | undefined;
  let start = 0;
  let byteStart = 0;
  for (;;) {
    const newline = text.indexOf('\n', start);
    const line = newline === -1 ? (start === 0 ? text : text.slice(start)) : text.slice(start, newline);
    const byteEnd = newline === -1 ? bytes.length : bytes.indexOf(LF, byteStart);
    start = newline + 1;
    const result = parseLine(line);
    if (result !== undefined) {
      if ('problem' in result) {
        entries.push({ t: 2, text: result.problem });
        open = undefined;
      } else {
        const m = result.message;
        if (m.method === 'session/update' && m.id === undefined) {
          const chunk = merge ? mergeable(m.params) : undefined;
          if (chunk && open && open.sessionId === chunk.sessionId && open.kind === chunk.kind && open.owner === chunk.owner) {
            appendText(open.content, chunk.content);
            open.entry.end = byteEnd;
            open.entry.lines++;
          } else {
            const entry: ParsedUpdate = { t: 0, params: m.params, start: byteStart, end: byteEnd, lines: 1 };
            entries.push(entry);
            open = chunk ? { entry, ...chunk } : undefined;
          }
        } else if (typeof m.method === 'string' && m.method.startsWith(INTERNAL_METHOD_PREFIX)) {
          entries.push({ t: 2, text: `Ignored a message with the reserved method ${preview(m.method)}.` });
          open = undefined;
        } else {
          entries.push({ t: 1, text: line });
          open = undefined;
        }
      }
    }
    if (newline === -1) break;
    byteStart = byteEnd + 1;
  }
  return { parsed: true, entries, bytes, at: 0 };
}

/**
 * A text chunk that a merge may join to the one before: params of exactly `sessionId` and
 * `update`, an update of exactly a merged kind, its owner id (or none) and `content`, and content of
 * exactly `type: "text"` and a string `text` (no annotations, no `_meta`: nothing the join could lose).
 */
function mergeable(params: unknown): { content: { text: string }; sessionId: string; kind: string; owner: string | undefined } | undefined {
  if (!isPlain(params) || typeof params.sessionId !== 'string' || !exactly(params, 2)) return undefined;
  const update = params.update;
  if (!isPlain(update) || typeof update.sessionUpdate !== 'string') return undefined;
  const field = MERGED_KINDS.get(update.sessionUpdate);
  if (field === undefined) return undefined;
  const owner = update[field];
  if (owner !== undefined && typeof owner !== 'string') return undefined;
  if (field === 'compactionId' && owner === undefined) return undefined;
  if (!exactly(update, owner === undefined ? 2 : 3)) return undefined;
  const content = update.content;
  if (!isPlain(content) || content.type !== 'text' || typeof content.text !== 'string' || !exactly(content, 2)) return undefined;
  return { content: content as { text: string }, sessionId: params.sessionId, kind: update.sessionUpdate, owner };
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` has exactly `count` own keys (the ones checked by name before). */
function exactly(value: Record<string, unknown>, count: number): boolean {
  let n = 0;
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key) && ++n > count) return false;
  return n === count;
}
