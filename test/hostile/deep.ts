// A session of the reference agent whose replay holds one update nested far deeper than any
// engine's recursive copy survives (v8.serialize, JSON.stringify and structured clone throw
// "Maximum call stack size exceeded" from a few thousand levels), among ordinary ones. The deep
// line is written into the store's sidecar as text (this process could not stringify it); the
// agent that replays it must run with a larger stack (DEEP_AGENT_NODE_FLAGS) to read and send it.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readSession, writeSession, type SessionUpdate } from '../agent/store';

/** Levels of the deep update's `rawInput`: well past what 1 MB of stack copies. */
export const DEEP_LEVELS = 10_000;
/** Node flags for the agent that replays it: 4 MB of stack (within the 8 MB a main thread has) sends 10,000 levels; the default 1 MB copies about 3,000. */
export const DEEP_AGENT_NODE_FLAGS = ['--stack-size=4000'];

const MARK = 'the deep update goes here';
const INFO_MARK = 'the deep info update goes here';

/** JSON text of an object `levels` deep: `{"a":{"a":…1…}}`. */
export function deepJson(levels: number): string {
  return '{"a":'.repeat(levels - 1) + '{"a":1}' + '}'.repeat(levels - 1);
}

/** The text of the update the deep line holds: a tool call whose `rawInput` is `levels` deep. */
export function deepToolCallLine(levels = DEEP_LEVELS): string {
  return `{"sessionUpdate":"tool_call","toolCallId":"deep","title":"A deep tool call","status":"completed","rawInput":${deepJson(levels)}}`;
}

/**
 * A `session_info_update` with a title of the wrong type (so the client fixes it and no line of
 * the agent's is kept for it) and a `_meta` `levels` deep.
 */
export function deepInfoLine(levels = DEEP_LEVELS): string {
  return `{"sessionUpdate":"session_info_update","title":42,"_meta":${deepJson(levels)}}`;
}

/**
 * Writes session `sessionId` to `store`: `before` ordinary chunks, the deep tool call (and with
 * `info`, the deep info update after it), `after` more; returns the ordinary updates' texts in
 * order (what every transcript must still show).
 */
export async function writeDeepSession(store: string, sessionId: string, cwd: string, { before = 40, after = 40, levels = DEEP_LEVELS, info = false } = {}): Promise<string[]> {
  const texts: string[] = [];
  const updates: SessionUpdate[] = [];
  const chunk = (i: number): SessionUpdate => {
    const text = `chunk ${i} of ${sessionId}`;
    texts.push(text);
    return { sessionUpdate: i % 2 ? 'agent_message_chunk' : 'user_message_chunk', messageId: `m${i}`, content: { type: 'text', text } } as SessionUpdate;
  };
  for (let i = 0; i < before; i++) updates.push(chunk(i));
  updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: MARK } } as SessionUpdate);
  if (info) updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: INFO_MARK } } as SessionUpdate);
  for (let i = before; i < before + after; i++) updates.push(chunk(i));
  await writeSession(store, { sessionId, cwd, title: `Deep ${sessionId}`, updatedAt: new Date().toISOString(), archived: false, deleted: false, updates: [] }, updates);
  const record = await readSession(store, sessionId);
  const sidecar = join(store, record!.updatesFile!);
  const lines = (await readFile(sidecar, 'utf8')).split('\n');
  const deep = lines.map((line) => (line.includes(INFO_MARK) ? deepInfoLine(levels) : line.includes(MARK) ? deepToolCallLine(levels) : line));
  await writeFile(sidecar, deep.join('\n'));
  return texts;
}
