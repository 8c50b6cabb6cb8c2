// Small store fixtures for the reference agent's unit tests.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSession, type SessionUpdate, type StoredSession } from './store';

export async function tempStore(t: { after(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'acp-agent-store-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A stored session with a two-message transcript; `minutesAgo` orders it. */
export function storedSession(sessionId: string, overrides: Partial<StoredSession> & { minutesAgo?: number } = {}): StoredSession {
  const { minutesAgo = 0, ...rest } = overrides;
  const updates: SessionUpdate[] = [
    { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `question in ${sessionId}` } },
    { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer in ${sessionId}` } },
  ];
  return {
    sessionId,
    cwd: '/work/project-a',
    title: `Session ${sessionId}`,
    updatedAt: new Date(Date.UTC(2026, 0, 31, 12, 0) - minutesAgo * 60_000).toISOString(),
    archived: false,
    deleted: false,
    updates,
    ...rest,
  };
}

export async function writeAll(store: string, sessions: StoredSession[]): Promise<void> {
  for (const s of sessions) await writeSession(store, s);
}
