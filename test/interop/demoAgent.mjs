#!/usr/bin/env node
// Points the demo at a real agent: installs the agents (once), fabricates the agent's store in a
// fresh HOME with sessions in the demo's folder, and returns the one `acpSessions.agents` entry
// that starts it. `npm run demo -- --agent claude` uses this; as a CLI it prints the entry:
//   node test/interop/demoAgent.mjs claude --folder /abs/folder [--home DIR] [--node PATH]
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AGENTS, agentEntry, ensureAgents } from './agents.mjs';
import { writeClaudeDemoStore, writeCodexAuth, writeCodexSession } from './stores.mjs';

export const DEMO_AGENTS = Object.keys(AGENTS);

/**
 * @param {string} name one of DEMO_AGENTS ('claude', 'codex', 'gemini')
 * @param {{ folder: string, node?: string, home?: string }} options `folder`: where the demo
 *   sessions were made (the demo's workspace folder); `node`: the Node that runs the agent
 *   (default: this one); `home`: the agent's HOME (default: a new temporary folder).
 * @returns {{ entry: { name: string, command: string, args: string[], cwd: string, env: Record<string, string> }, home: string, version: string, cleanup(): void }}
 */
export function prepareDemoAgent(name, { folder, node = process.execPath, home } = {}) {
  if (!DEMO_AGENTS.includes(name)) throw new Error(`unknown agent "${name}"; use one of: ${DEMO_AGENTS.join(', ')}`);
  if (!folder) throw new Error('prepareDemoAgent needs the folder the demo sessions belong to');
  const { agents } = ensureAgents();
  const agent = agents[name];
  const owned = !home;
  home = realpathSync(home ?? mkdtempSync(join(tmpdir(), `acp-demo-${name}-`)));
  mkdirSync(join(home, '.codex'), { recursive: true });
  const cwd = realpathSync(resolve(folder));
  if (name === 'claude') writeClaudeDemoStore(home, cwd);
  if (name === 'codex') {
    writeCodexAuth(home);
    const day = (n) => new Date(Date.now() - n * 86_400_000).toISOString().replace(/\.\d+Z$/, '.000Z');
    writeCodexSession(home, {
      sessionId: '0196a1b2-0000-7000-8000-00000000d001', cwd, startedAt: day(1),
      turns: [['Add a --json flag to the CLI', 'Added `--json`; the output is one object per line.'], ['Test it', 'Two new tests pass.']],
    });
    writeCodexSession(home, {
      sessionId: '0196a1b2-0000-7000-8000-00000000d002', cwd, startedAt: day(4),
      turns: [['Why does CI time out?', 'The integration job waits for a port that never opens; fixed the port.']],
    });
  }
  const label = {
    claude: 'Claude (real agent)', codex: 'Codex (real agent)', gemini: 'Gemini CLI (real agent)',
    qwen: 'Qwen Code (real agent)', opencode: 'OpenCode (real agent)', auggie: 'Auggie (real agent)',
  }[name];
  return {
    // The user's own API keys (if any) reach the agent, as they would from a shell.
    entry: agentEntry(agent, { name: label, home, node, keepCredentials: true }),
    home,
    version: agent.version,
    cleanup: () => { if (owned) rmSync(home, { recursive: true, force: true }); },
  };
}

if (process.argv[1] && /[\\/]test[\\/]interop[\\/]demoAgent\.mjs$/.test(resolve(process.argv[1]))) {
  const arg = (flag) => {
    const i = process.argv.indexOf(flag);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const name = process.argv[2];
  try {
    const { entry } = prepareDemoAgent(name, { folder: arg('--folder') ?? process.cwd(), home: arg('--home'), node: arg('--node') });
    console.log(JSON.stringify({ 'acpSessions.agents': [entry], 'acpSessions.scope': 'all' }, null, 2));
  } catch (e) {
    console.error(`[demo agent] ${e.message}`);
    console.error('usage: node test/interop/demoAgent.mjs claude|codex|gemini --folder /abs/folder [--home DIR] [--node PATH]');
    process.exit(2);
  }
}
