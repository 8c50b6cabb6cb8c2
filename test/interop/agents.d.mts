export type InteropAgentName = 'claude' | 'codex' | 'gemini' | 'qwen' | 'opencode' | 'auggie';
export interface InstalledAgent {
  pkg: string;
  version: string;
  /** Start with Node: `node <script> ...args`; a native one as `<script> ...args`. */
  script: string;
  args: string[];
  native: boolean;
}
export const AGENTS: Record<InteropAgentName, { pkg: string; bin: string; args: string[]; native?: boolean }>;
export function ensureAgents(): { dir: string; agents: Record<InteropAgentName, InstalledAgent> };
export function makeAgentHome(prefix: string): { home: string; project: string };
export interface AgentEntry {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}
export function agentEntry(
  agent: Pick<InstalledAgent, 'script' | 'args'> & { native?: boolean },
  options: { name: string; home: string; node?: string; keepCredentials?: boolean; env?: Record<string, string> },
): AgentEntry;
export interface InstalledPi extends InstalledAgent {
  dir: string;
  /** The version of the pi coding agent pi-acp starts. */
  piVersion: string;
  /** pi's bin (pi-acp runs it as `pi --mode rpc`; PI_ACP_PI_COMMAND names it). */
  pi: string;
}
export function ensurePi(): InstalledPi;
