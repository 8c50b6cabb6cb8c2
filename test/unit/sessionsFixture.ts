// What the sessions model's unit tests share: stored sessions for the reference agent, a store
// in a temporary folder, the registry and model over the reference agent as a real process, and
// a bounded wait. Each test file registers `cleanUpAfterEach()` once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../src/acp/types';
import { AgentRegistry } from '../../src/sessions/agentRegistry';
import { SessionsModel, type SessionList } from '../../src/sessions/sessionsModel';
import { writeSession, type StoredSession } from '../agent/store';
import { LINE_WORKER } from './acp-helpers';

export const agentScript = fileURLToPath(new URL('../agent/agent.mjs', import.meta.url));
/** "Now" of the stored sessions' dates. */
export const base = Date.parse('2026-01-10T12:00:00Z');
export const quiet: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

const cleanup: (() => Promise<void> | void)[] = [];

/** Undoes what each test made (models, agents, folders), last made first. */
export function cleanUpAfterEach(): void {
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
}

/** Runs `c` after the current test. */
export function onCleanUp(c: () => Promise<void> | void): void {
  cleanup.push(c);
}

export function record(sessionId: string, cwd: string, hoursAgo: number, extra: Partial<StoredSession> = {}): StoredSession {
  return {
    sessionId,
    cwd,
    title: `Session ${sessionId}`,
    updatedAt: new Date(base - hoursAgo * 3_600_000).toISOString(),
    archived: false,
    deleted: false,
    updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `hello from ${sessionId}` } }],
    ...extra,
  };
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A store in a temporary folder holding `records`. */
export async function store(records: StoredSession[], prefix = 'acp-sessions-model-'): Promise<string> {
  const dir = tempDir(prefix);
  for (const r of records) await writeSession(dir, r);
  return dir;
}

/** The registry with one reference agent "ref" over `storeDir` with `flags`, and a model over it. */
export function setupModel(storeDir: string, flags: string[] = [], { pageSize = 50, warnings }: { pageSize?: number; warnings?: string[] } = {}) {
  const registry = new AgentRegistry({
    // ACP_TEST_LINE_WORKER=on (the unit-worker layer): the agents' output is parsed, and the survey's loads reduced, in the line worker.
    start: { clientInfo: { name: 'acp-sessions-tests', version: '0' }, log: quiet, defaultCwd: tmpdir(), killGraceMs: 500, ...(process.env.ACP_TEST_LINE_WORKER === 'on' ? { lineWorker: LINE_WORKER } : {}) },
    backoffMs: 50,
  });
  registry.setConfigs([{ name: 'ref', command: process.execPath, args: [agentScript, '--store', storeDir, ...flags] }]);
  const model = new SessionsModel(registry, { pageSize, ...(warnings ? { log: { warn: (m: string) => warnings.push(m) } } : {}) });
  cleanup.push(async () => {
    model.dispose();
    await registry.dispose();
  });
  return { registry, model };
}

export const ids = (list: SessionList) => list.sessions.map((s) => s.sessionId);

/** Waits for a condition that an agent's notification makes true (bounded: a hang guard, not a speed limit). */
export async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
