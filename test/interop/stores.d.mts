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
