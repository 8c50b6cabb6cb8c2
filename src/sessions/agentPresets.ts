// Ready-made `acpSessions.agents` entries for the agents people use, and how to tell whether
// their command is installed. Data and plain Node only (no `vscode`): the "Add Agent…" quick
// pick shows these, and the tree uses the login hints when an agent asks for authentication.
import type { AgentConfig } from '../acp/types';

export interface AgentPreset {
  /** Stable id, also accepted as the argument of `acpSessions.addAgent`. */
  id: 'claude' | 'codex' | 'gemini' | 'qwen' | 'opencode' | 'auggie';
  /**
   * The entry written into settings (the user may edit it afterwards). `resume` is the CLI's own
   * resume-by-id, as its installed `--help` says (test/interop/resume.test.ts checks each).
   */
  entry: { name: string; command: string; args: string[]; resume?: string[] };
  /** One line for the quick pick. */
  description: string;
  /** The command that installs `entry.command`; we never run it for the user. */
  install: string;
  /** What to do when the agent answers "authentication required". */
  login: string;
  /** Names the agent reports in `initialize`'s agentInfo, to recognise entries written by hand. */
  agentInfoNames: string[];
}

export const AGENT_PRESETS: readonly AgentPreset[] = [
  {
    id: 'claude',
    entry: { name: 'Claude', command: 'claude-agent-acp', args: [], resume: ['claude', '--resume', '${sessionId}'] },
    description: 'Claude Code sessions, through the ACP adapter @agentclientprotocol/claude-agent-acp',
    install: 'npm install -g @agentclientprotocol/claude-agent-acp',
    login: 'Run `claude` in a terminal and log in, or set ANTHROPIC_API_KEY in the entry\'s "env".',
    agentInfoNames: ['@agentclientprotocol/claude-agent-acp', '@zed-industries/claude-code-acp'],
  },
  {
    id: 'codex',
    entry: { name: 'Codex', command: 'codex-acp', args: [], resume: ['codex', 'resume', '${sessionId}'] },
    description: 'OpenAI Codex sessions, through the ACP adapter @agentclientprotocol/codex-acp',
    install: 'npm install -g @agentclientprotocol/codex-acp',
    login: 'Run `codex login` in a terminal (or `codex login --with-api-key`), then Retry.',
    agentInfoNames: ['@agentclientprotocol/codex-acp', '@zed-industries/codex-acp', 'codex-acp'],
  },
  {
    id: 'gemini',
    // Probed offline (test/interop/gemini.test.ts), gemini-cli 0.61.0: advertises loadSession only (no
    // list, archive, delete, title, resume); session/load needs a login (-32000), and with one it answers
    // after the first replayed update and streams the rest after the response.
    // No `resume`: gemini-cli 0.61.0's `--resume` takes "latest" or an index, not a session id.
    entry: { name: 'Gemini CLI', command: 'gemini', args: ['--acp'] },
    description: 'Gemini CLI in ACP mode (it cannot list its sessions yet)',
    install: 'npm install -g @google/gemini-cli',
    login: 'Run `gemini` in a terminal and log in, or set GEMINI_API_KEY in the entry\'s "env".',
    agentInfoNames: ['gemini-cli'],
  },
  // Probed offline (test/interop/qwen.test.ts), qwen-code 0.24.4 on Node 24: advertises list, loadSession
  // and resume only (no archive, delete, title, close; no answer to JetBrains AIR's _meta); lists one
  // folder per request (its own cwd without one); session/load needs a login (-32000) and replays every
  // message, never its chat_compression checkpoint.
  {
    id: 'qwen',
    entry: { name: 'Qwen Code', command: 'qwen', args: ['--acp'], resume: ['qwen', '--resume', '${sessionId}'] },
    description: 'Qwen Code in ACP mode',
    install: 'npm install -g @qwen-code/qwen-code',
    login: 'Run `qwen` in a terminal and log in, or set OPENAI_API_KEY in the entry\'s "env".',
    agentInfoNames: ['qwen-code'],
  },
  // Probed offline (test/interop/opencode.test.ts), OpenCode 1.18.33: advertises loadSession, list, close,
  // fork and resume (no archive, delete or title); lists at most 100 sessions of a folder without a
  // cursor, ignores `archived`; session/load needs `mcpServers` and no login, changes nothing in its
  // store; initialize waits about 15 s for a models list unless OPENCODE_DISABLE_MODELS_FETCH=1.
  {
    id: 'opencode',
    entry: { name: 'OpenCode', command: 'opencode', args: ['acp'], resume: ['opencode', '--session', '${sessionId}'] },
    description: 'OpenCode sessions, through its own ACP server (opencode acp)',
    install: 'npm install -g opencode-ai',
    login: 'Run `opencode auth login` in a terminal, then Retry.',
    agentInfoNames: ['OpenCode'],
  },
  // Probed offline (test/interop/auggie.test.ts), Auggie 0.36.0: advertises loadSession and list only;
  // lists every session with an exchange (no paging; `cursor` and `archived` ignored); session/load needs
  // no login and changes nothing; session/new needs `auggie login`.
  {
    id: 'auggie',
    entry: { name: 'Auggie', command: 'auggie', args: ['--acp'], resume: ['auggie', '--resume', '${sessionId}'] },
    description: 'Augment\'s Auggie CLI in ACP mode',
    install: 'npm install -g @augmentcode/auggie',
    login: 'Run `auggie login` in a terminal, then Retry.',
    agentInfoNames: ['auggie'],
  },
];

/** The preset an entry (or a connected agent) comes from, by agentInfo name or by command. */
export function presetFor(config: Pick<AgentConfig, 'command'>, agentInfoName?: string): AgentPreset | undefined {
  if (agentInfoName) {
    const byInfo = AGENT_PRESETS.find((p) => p.agentInfoNames.includes(agentInfoName));
    if (byInfo) return byInfo;
  }
  const base = config.command.split(/[\\/]/).pop()!.replace(/\.(cmd|exe|bat|ps1)$/i, '');
  return AGENT_PRESETS.find((p) => p.entry.command === base);
}

/** `name`, or `name (2)`, `name (3)`… : the first one no existing entry uses. */
export function uniqueAgentName(name: string, existing: readonly string[]): string {
  const taken = new Set(existing);
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) if (!taken.has(`${name} (${n})`)) return `${name} (${n})`;
}

/**
 * Splits an argument line as a POSIX shell would for plain words and quotes (no expansion):
 * `--model "gpt 5" 'a b'` -> ['--model', 'gpt 5', 'a b']. Throws on an unclosed quote.
 */
export function splitArgs(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && (line[i + 1] === '"' || line[i + 1] === '\\')) current += line[++i];
      else current += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) args.push(current);
      current = '';
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} quote`);
  if (inWord) args.push(current);
  return args;
}
