// A store for search tests: `count` sessions of ordinary talk (messages, thoughts, tool calls,
// compactions), and three needles no other session holds: a phrase said only in the compaction
// summary of one session, a phrase said only in an archived session, and Japanese text written
// without spaces. Deterministic (no clock, no randomness beyond the session number).
import { mkdir } from 'node:fs/promises';
import { writeSession, type SessionUpdate, type StoredSession } from './store';

export const SEARCH_NEEDLES = {
  /** Said only in a compaction summary of `compactionSession`. */
  compactionPhrase: 'quokka ledger migration',
  compactionSession: 'search_0137',
  /** Said only (by the user) in the archived `archivedSession`. */
  archivedPhrase: 'Zephyr bootloader',
  archivedSession: 'search_0042',
  /** Said only in `cjkSession`, found by `cjkQuery` (no spaces around it). */
  cjkText: '東京都の天気予報を確認してから、デプロイの手順を整理しました。',
  cjkQuery: '天気予報',
  cjkSession: 'search_0171',
} as const;

const WORDS = ['refactor', 'tokenizer', 'cache', 'migration', 'database', 'schema', 'handler', 'request', 'timeout', 'retry', 'parser', 'render', 'layout', 'worker', 'queue', 'index', 'settings', 'résumé', 'naïve', 'Straße', 'café'];

function text(value: string) {
  return { type: 'text' as const, text: value };
}

function sentence(n: number, k: number): string {
  const w = (i: number) => WORDS[(n * 7 + k * 13 + i * 5) % WORDS.length];
  return `We looked at the ${w(0)} and the ${w(1)} in step ${k}; the ${w(2)} ${w(3)} needs a ${w(4)} before the ${w(5)}.`;
}

export function searchSession(n: number, cwd: string, now: number): StoredSession {
  const sessionId = `search_${String(n).padStart(4, '0')}`;
  const title = `Search session ${String(n).padStart(4, '0')}`;
  const updates: SessionUpdate[] = [
    { sessionUpdate: 'session_info_update', title } as SessionUpdate,
    { sessionUpdate: 'user_message_chunk', content: text(`Please look at ${sentence(n, 0)}`) },
    { sessionUpdate: 'agent_thought_chunk', content: text(`Thinking: ${sentence(n, 1)}`) },
    { sessionUpdate: 'agent_message_chunk', content: text(sentence(n, 2)) },
    { sessionUpdate: 'tool_call', toolCallId: `t${n}`, title: `Read src/file${n}.ts`, kind: 'read', status: 'completed', content: [{ type: 'content', content: text(`export const value${n} = ${n};`) }] } as SessionUpdate,
  ];
  const compactionId = `c${n}`;
  updates.push({ sessionUpdate: 'compaction_update', compactionId, status: 'in_progress' } as SessionUpdate);
  const summary = n === Number(SEARCH_NEEDLES.compactionSession.slice(-4))
    ? `Summary so far: the ${SEARCH_NEEDLES.compactionPhrase} is planned for Tuesday; ${sentence(n, 3)}`
    : `Summary so far: ${sentence(n, 3)}`;
  updates.push({ sessionUpdate: 'compaction_summary_chunk', compactionId, content: text(summary) } as SessionUpdate);
  updates.push({ sessionUpdate: 'compaction_update', compactionId, status: 'completed' } as SessionUpdate);
  if (sessionId === SEARCH_NEEDLES.archivedSession) updates.push({ sessionUpdate: 'user_message_chunk', content: text(`Does the ${SEARCH_NEEDLES.archivedPhrase} still hang on reset?`) });
  if (sessionId === SEARCH_NEEDLES.cjkSession) updates.push({ sessionUpdate: 'agent_message_chunk', content: text(SEARCH_NEEDLES.cjkText) });
  updates.push({ sessionUpdate: 'agent_message_chunk', content: text(`Done with ${sentence(n, 4)}`) });
  return {
    sessionId,
    cwd,
    title,
    // One hour apart, newest first.
    updatedAt: new Date(now - (n + 1) * 3_600_000).toISOString(),
    archived: sessionId === SEARCH_NEEDLES.archivedSession || n % 10 === 9,
    deleted: false,
    updates,
  };
}

/** Writes `count` search sessions (at least 172, so every needle is in) over `folders`, in turn. */
export async function seedSearch(store: string, folders: string[], count = 200, now = Date.now()): Promise<StoredSession[]> {
  await mkdir(store, { recursive: true });
  const sessions: StoredSession[] = [];
  for (let n = 0; n < count; n++) {
    const session = searchSession(n, folders[n % folders.length], now);
    await writeSession(store, session);
    sessions.push(session);
  }
  return sessions;
}
