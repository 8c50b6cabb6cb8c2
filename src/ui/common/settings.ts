import * as vscode from 'vscode';
import type { AgentConfig } from '../../acp/types';
import { isResumeTemplate } from '../../sessions/resume';

/**
 * The configured agents, read from user and remote-machine settings only. `acpSessions.agents`
 * is machine-scoped, so VS Code already ignores workspace values; we read `globalValue`
 * explicitly as well, so that a workspace can never name a program to run.
 */
export function readAgentConfigs(): AgentConfig[] {
  const inspected = vscode.workspace.getConfiguration('acpSessions').inspect<unknown>('agents');
  const value = inspected?.globalValue ?? inspected?.defaultValue ?? [];
  if (!Array.isArray(value)) return [];
  const agents: AgentConfig[] = [];
  const seen = new Set<string>();
  for (const raw of value) {
    if (!raw || typeof raw !== 'object') continue;
    const entry = raw as Record<string, unknown>;
    if (typeof entry.name !== 'string' || typeof entry.command !== 'string') continue;
    if (!entry.name.trim() || !entry.command.trim() || seen.has(entry.name)) continue;
    seen.add(entry.name);
    agents.push({
      name: entry.name,
      command: entry.command,
      args: Array.isArray(entry.args) ? entry.args.filter((a): a is string => typeof a === 'string') : [],
      env: isStringRecord(entry.env) ? entry.env : {},
      cwd: typeof entry.cwd === 'string' && entry.cwd ? entry.cwd : undefined,
      protocol: entry.protocol === 2 ? 2 : 1,
      ...(isResumeTemplate(entry.resume) ? { resume: entry.resume } : {}),
    });
  }
  return agents;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return !!value && typeof value === 'object' && Object.values(value).every((v) => typeof v === 'string');
}

export type TraceLevel = 'off' | 'messages' | 'verbose';

/**
 * Tracing writes whole transcripts into the log, so only the user (or the remote machine)
 * turns it on: the setting is machine-scoped and a workspace's value is never read.
 */
export function readTraceLevel(): TraceLevel {
  const value = vscode.workspace.getConfiguration('acpSessions').inspect<unknown>('trace.server')?.globalValue;
  return value === 'messages' || value === 'verbose' ? value : 'off';
}

/**
 * The trace level, read again only when the setting changes: the connection asks for it with
 * every piece of an agent's output (reading the settings each time was a sixth of the extension
 * host's CPU in a 200,000-chunk replay).
 */
export function watchTraceLevel(): vscode.Disposable & { current: () => TraceLevel } {
  let level = readTraceLevel();
  const watch = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('acpSessions.trace.server')) level = readTraceLevel();
  });
  return { current: () => level, dispose: () => watch.dispose() };
}

export const requestTimeoutBounds = { min: 1_000, max: 600_000, default: 30_000 };

/**
 * Milliseconds to wait for an agent, from user or machine settings only, clamped: 0 would give
 * up on every agent at once, and a huge value would leave the view spinning.
 */
export function readRequestTimeout(): number {
  const value = vscode.workspace.getConfiguration('acpSessions').inspect<unknown>('requestTimeout')?.globalValue;
  if (typeof value !== 'number' || !Number.isFinite(value)) return requestTimeoutBounds.default;
  return Math.min(requestTimeoutBounds.max, Math.max(requestTimeoutBounds.min, Math.round(value)));
}

export const startTimeoutBounds = { min: 1_000, max: 600_000, default: 120_000 };

/**
 * Milliseconds an agent may take to start and answer `initialize`, from user or machine settings
 * only, clamped: a start has its own deadline, since some agents wait for the network first.
 */
export function readStartTimeout(): number {
  const value = vscode.workspace.getConfiguration('acpSessions').inspect<unknown>('startTimeout')?.globalValue;
  if (typeof value !== 'number' || !Number.isFinite(value)) return startTimeoutBounds.default;
  return Math.min(startTimeoutBounds.max, Math.max(startTimeoutBounds.min, Math.round(value)));
}

/**
 * Where {@link resumeTemplate} reads the agents: the settings themselves, or the list the main bundle
 * keeps ({@link watchAgentConfigs}), which a bundle loaded on first use adopts with
 * {@link useAgentConfigs} (each bundle has its own copy of this module).
 */
let agentConfigsSource: () => readonly AgentConfig[] = readAgentConfigs;

/**
 * Keeps the agents read until the setting changes: a transcript's header asks whether its agent
 * can resume with every batch of a replay, and the tree with every row (reading the settings each
 * time was 20 ms of the extension host's thread in a 200,000-chunk open).
 */
export function watchAgentConfigs(): vscode.Disposable & { current: () => readonly AgentConfig[] } {
  let latest: AgentConfig[] | undefined;
  const watch = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('acpSessions.agents')) latest = undefined;
  });
  const current = () => (latest ??= readAgentConfigs());
  agentConfigsSource = current;
  return {
    current,
    dispose: () => {
      watch.dispose();
      if (agentConfigsSource === current) agentConfigsSource = readAgentConfigs;
    },
  };
}

/** This bundle's copy reads the main bundle's list (HostParts.agentConfigs). */
export function useAgentConfigs(source: () => readonly AgentConfig[]): void {
  agentConfigsSource = source;
}

/** The entry's resume array, as the setting is now (a change to it needs no agent restart). */
export function resumeTemplate(agent: string, configs: readonly AgentConfig[] = agentConfigsSource()): string[] | undefined {
  return configs.find((c) => c.name === agent)?.resume;
}
