export type InteropAgentName = 'claude' | 'codex' | 'gemini';
export interface InstalledAgent {
  pkg: string;
  version: string;
  /** Start with Node: `node <script> ...args`. */
  script: string;
  args: string[];
}
export const AGENTS: Record<InteropAgentName, { pkg: string; bin: string; args: string[] }>;
export function ensureAgents(): { dir: string; agents: Record<InteropAgentName, InstalledAgent> };
