// What the interop tests share: the installed real agents, a temporary HOME per test, and our
// client started against an agent with a log that remembers what was written to it.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AcpClient } from '../../src/acp/client';
import type { AgentConfig, Logger, SessionInfo } from '../../src/acp/types';
import { repoRoot } from '../ui/harness';
import { agentEntry, ensureAgents, makeAgentHome, type InteropAgentName } from './agents.mjs';

export const installed = ensureAgents();

// The test host's Node 24 (test/host/setup.mjs, loaded from the repository: it finds its lockfiles
// beside it): Qwen Code 0.24.4 needs Node 22 or later, and the machine's own node may be older.
const host = (await import(pathToFileURL(join(repoRoot(), 'test', 'host', 'setup.mjs')).href)) as { ensureNode24(): string };
export const node24 = host.ensureNode24();

export interface LogLine {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

/**
 * What the README's compatibility table calls "Live state: not reported": the agent advertises
 * no `session/status` and answers no AIR session index (no live list, no state in its entries),
 * and none of the list entries it gave carries a state.
 */
export function assertNoLiveState(client: AcpClient, listed: readonly SessionInfo[]): void {
  const { status, sessionState, listSubscribe } = client.capabilities;
  assert.deepEqual({ status, sessionState, listSubscribe }, { status: false, sessionState: undefined, listSubscribe: false });
  assert.ok(listed.length > 0, 'some entries to look at');
  assert.deepEqual(listed.filter((s) => s.state !== undefined || (s._meta as { jetbrains?: unknown } | undefined)?.jetbrains !== undefined).map((s) => s.sessionId), [], 'no entry carries a state');
}

/** A Logger that keeps every line, so a test can assert that nothing went wrong quietly. */
export class RecordingLog implements Logger {
  readonly lines: LogLine[] = [];
  trace(message: string) { this.lines.push({ level: 'trace', message }); }
  debug(message: string) { this.lines.push({ level: 'debug', message }); }
  info(message: string) { this.lines.push({ level: 'info', message }); }
  warn(message: string) { this.lines.push({ level: 'warn', message }); }
  error(message: string) { this.lines.push({ level: 'error', message }); }
  /** Warnings and errors: what a user would see as a problem in the output channel. */
  get problems(): string[] {
    return this.lines.filter((l) => l.level === 'warn' || l.level === 'error').map((l) => `${l.level}: ${l.message}`);
  }
}

/** A fresh HOME and a project folder inside it (see makeAgentHome). */
export function tempHome(): { home: string; project: string; cleanup(): void } {
  const { home, project } = makeAgentHome('acp-interop-');
  // Retries: an agent's own children may still be finishing a write when the test ends.
  return { home, project, cleanup: () => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) };
}

/** The `acpSessions.agents` entry for an installed agent, with its store in `home` and no credentials. */
export function agentConfig(name: InteropAgentName, home: string, node = name === 'qwen' ? node24 : process.execPath, extraEnv: Record<string, string> = {}): AgentConfig {
  return agentEntry(installed.agents[name], { name, home, node, env: extraEnv });
}

export function startClient(config: AgentConfig, log = new RecordingLog()): Promise<AcpClient> {
  return AcpClient.start(config, {
    clientInfo: { name: 'acp-sessions-interop', version: '0.0.0' },
    log,
    // Real agents start slower than ours (codex starts its app server first).
    initializeTimeoutMs: 120_000,
  });
}

/**
 * Disposes the client and waits until every process of the agent's group is gone: claude-agent-acp's
 * Claude Code child finishes writing ~/.claude a moment after the agent itself exits.
 */
export async function stopAgent(client: AcpClient | undefined): Promise<void> {
  if (!client) return;
  const pid = client.pid;
  await client.dispose();
  if (pid === undefined || process.platform === 'win32') return;
  for (;;) {
    try {
      process.kill(-pid, 0);
    } catch {
      return; // ESRCH: the group is empty
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whole seconds: the agents report a file's mtime, and a test compares dates exactly. */
export function hoursAgo(hours: number): string {
  return new Date(Math.floor(Date.now() / 1000) * 1000 - hours * 3_600_000).toISOString();
}

/** Resolves with the first value `take` returns for a live update of `sessionId`. */
export function nextUpdate<T>(client: AcpClient, sessionId: string, take: (u: Record<string, unknown>) => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const subscription = client.onSessionUpdate(sessionId, (update) => {
      const value = take(update as Record<string, unknown>);
      if (value !== undefined) {
        subscription.dispose();
        resolve(value);
      }
    });
  });
}
