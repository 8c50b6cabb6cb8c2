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
}
export function writeCodexSession(home: string, spec: CodexSessionSpec): string;
export function writeClaudeDemoStore(home: string, cwd: string, now?: number): string[];
