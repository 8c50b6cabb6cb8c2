export function claudeProjectDir(home: string, cwd: string): string;
export interface ClaudeSessionSpec {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt: string;
  turns: [string, string][];
  compactedAfter?: number;
  summary?: string;
}
export function writeClaudeSession(home: string, spec: ClaudeSessionSpec): string;
export function writeCodexAuth(home: string): void;
export interface CodexSessionSpec {
  sessionId: string;
  cwd: string;
  startedAt: string;
  updatedAt?: string;
  turns: [string, string][];
  compactedAfter?: number;
  summary?: string;
  /** Frame each turn as current Codex CLIs persist one (task_started with a turn_id, turn_context, task_complete). */
  turnIds?: boolean;
}
export function writeCodexSession(home: string, spec: CodexSessionSpec): string;
export function writeClaudeDemoStore(home: string, cwd: string, now?: number): string[];
export function qwenChatsDir(home: string, cwd: string): string;
export interface QwenSessionSpec {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt: string;
  turns: [string, string][];
  compressedAfter?: number;
  summary?: string;
}
export function writeQwenSession(home: string, spec: QwenSessionSpec): string;
export const QWEN_OFFLINE_LOGIN: Record<string, string>;
export interface GeminiSessionSpec {
  sessionId: string;
  cwd: string;
  startedAt: string;
  updatedAt?: string;
  /** [question, answer, optional [thought subject, thought description]] */
  turns: ([string, string] | [string, string, [string, string]])[];
}
export function writeGeminiSession(home: string, spec: GeminiSessionSpec): string;
export function writeGeminiOfflineLogin(home: string): Record<string, string>;
/** A turn of an OpenCode or Auggie session. */
export interface AgentTurn {
  user: string;
  /** OpenCode: a synthetic text part beside the prompt (its injected context). */
  context?: string;
  thought?: string;
  /** Auggie: the answer's text before its tool uses. */
  before?: string;
  tools?: { name: string; input: Record<string, unknown>; title?: string; output?: string; error?: string }[];
  answer: string;
}
export interface OpenCodeSessionSpec {
  sessionId: string;
  cwd: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  parentID?: string;
  turns: AgentTurn[];
  compactedAfter?: number;
  summary?: string;
}
export interface OpenCodeExport {
  info: { id: string; [key: string]: unknown };
  messages: { info: Record<string, unknown>; parts: Record<string, unknown>[] }[];
}
export function openCodeExport(spec: OpenCodeSessionSpec): OpenCodeExport;
export function importOpenCodeSession(opencode: string, env: Record<string, string>, cwd: string, exported: OpenCodeExport): void;
export function openCodeDb(opencode: string, env: Record<string, string>, sql: string): string;
export interface AuggieSessionSpec {
  sessionId: string;
  cwd: string;
  title?: string;
  createdAt: string;
  updatedAt: string;
  turns: AgentTurn[];
  parentConversationId?: string;
}
export function writeAuggieSession(home: string, spec: AuggieSessionSpec): string;
export interface PiSessionSpec {
  sessionId: string;
  cwd: string;
  createdAt: string;
  turns: [string, string][];
}
export function writePiSession(home: string, spec: PiSessionSpec): string;
