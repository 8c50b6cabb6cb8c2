#!/usr/bin/env node
// Installs the real ACP agents that the interop tests and `npm run demo -- --agent NAME` drive,
// from test/interop/agents/package-lock.json into ~/.cache/acp-sessions/agents-<hash>/ on first
// use. They are large (hundreds of MB of native binaries), so they are never devDependencies.
// Usable as a module (`ensureAgents()`) and as a CLI (`node test/interop/agents.mjs`).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { npmCiOnce } from '../host/npmCache.mjs';

// No import.meta: this file is also bundled into CommonJS tests for the extension host. Any file
// inside the repository (this one, a bundle under out/, the running script) leads to the root.
const PACKAGE_DIR = findPackageDir([
  typeof __dirname === 'string' ? __dirname : undefined,
  process.argv[1] ? dirname(resolve(process.argv[1])) : undefined,
  process.cwd(),
]);
const CACHE_DIR = process.env.ACP_SESSIONS_CACHE
  ? resolve(process.env.ACP_SESSIONS_CACHE)
  : join(homedir(), '.cache', 'acp-sessions');

/** The agents we drive: npm package, its bin script, and how it is started as an ACP agent. */
export const AGENTS = {
  claude: { pkg: '@agentclientprotocol/claude-agent-acp', bin: 'dist/index.js', args: [] },
  codex: { pkg: '@agentclientprotocol/codex-acp', bin: 'dist/index.js', args: [] },
  gemini: { pkg: '@google/gemini-cli', bin: 'bundle/gemini.js', args: ['--acp'] },
  // Needs Node 22 or later: the tests start it with the test host's Node 24 (ensureNode24).
  qwen: { pkg: '@qwen-code/qwen-code', bin: 'cli-entry.js', args: ['--acp'] },
  // A native binary (Bun), not a Node script: its postinstall links the platform package's binary
  // (opencode-linux-x64 here) to bin/opencode.exe, on every platform under that name.
  opencode: { pkg: 'opencode-ai', bin: 'bin/opencode.exe', args: ['acp'], native: true },
  auggie: { pkg: '@augmentcode/auggie', bin: 'augment.mjs', args: ['--acp'] },
};

/** test/interop/agents/, found above the first of `starts` that lies inside the repository. */
function findPackageDir(starts) {
  for (const start of starts) {
    if (!start) continue;
    for (let dir = start; ; dir = dirname(dir)) {
      const candidate = join(dir, 'test', 'interop', 'agents');
      if (existsSync(join(candidate, 'package-lock.json'))) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  throw new Error(`test/interop/agents/package-lock.json not found above ${starts.filter(Boolean).join(' or ')}`);
}

const say = (message) => process.stderr.write(`[agents] ${message}\n`);

/** Identifies an install: the exact package.json and lockfile it came from. */
function fingerprint(dir = PACKAGE_DIR) {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(dir, file)));
  return hash.digest('hex');
}

/** `npm ci` of test/interop/agents into CACHE_DIR/agents-<fingerprint> (see test/host/npmCache.mjs). */
function install() {
  const print = fingerprint();
  return npmCiOnce({
    from: PACKAGE_DIR,
    target: join(CACHE_DIR, `agents-${print.slice(0, 12)}`),
    fingerprint: print,
    label: 'the real agents',
    note: 'first run only; about 1 GB',
    say,
    check(partial) {
      for (const { pkg, bin } of Object.values(AGENTS)) {
        if (!existsSync(join(partial, 'node_modules', pkg, bin))) throw new Error(`${pkg} installed without ${bin}.`);
      }
    },
  });
}

/**
 * Installs (once) and describes the agents: for each, its version and the script to start
 * with Node (`node <script> ...args`), so tests choose the Node that runs it; a `native` one's
 * script is the program itself.
 * @returns {{ dir: string, agents: Record<keyof typeof AGENTS, { pkg: string, version: string, script: string, args: string[] }> }}
 */
export function ensureAgents() {
  const dir = install();
  const agents = {};
  for (const [name, { pkg, bin, args, native = false }] of Object.entries(AGENTS)) {
    const root = join(dir, 'node_modules', pkg);
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    agents[name] = { pkg, version, script: join(root, bin), args, native };
  }
  return { dir, agents };
}

/**
 * pi-acp and the `pi` it starts, installed apart from the other agents (test/interop/pi: pi's
 * many dependencies would move theirs in one tree) into CACHE_DIR/pi-<fingerprint>.
 * @returns {{ dir: string, pkg: string, version: string, piVersion: string, script: string, args: string[], native: false, pi: string }}
 */
export function ensurePi() {
  const from = join(PACKAGE_DIR, '..', 'pi');
  const print = fingerprint(from);
  const dir = npmCiOnce({
    from,
    target: join(CACHE_DIR, `pi-${print.slice(0, 12)}`),
    fingerprint: print,
    label: 'pi-acp and pi',
    note: 'first run only; about 150 MB',
    say,
    check(partial) {
      for (const file of [join('pi-acp', 'dist', 'index.js'), join('.bin', 'pi')]) {
        if (!existsSync(join(partial, 'node_modules', file))) throw new Error(`pi-acp and pi installed without ${file}.`);
      }
    },
  });
  const version = (pkg) => JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  return {
    dir, pkg: 'pi-acp', version: version('pi-acp'), piVersion: version('@mariozechner/pi-coding-agent'),
    script: join(dir, 'node_modules', 'pi-acp', 'dist', 'index.js'), args: [], native: false, pi: join(dir, 'node_modules', '.bin', 'pi'),
  };
}

/** A fresh HOME for an agent, with a project folder inside it (real paths: the agents resolve symlinks). */
export function makeAgentHome(prefix) {
  const home = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const project = join(home, 'work', 'my-project');
  mkdirSync(project, { recursive: true });
  // CODEX_HOME points into it, and codex refuses to start when that does not exist.
  mkdirSync(join(home, '.codex'), { recursive: true });
  return { home, project };
}

/** No API keys from the machine: the tests must not depend on (or use) anyone's account. */
const NO_CREDENTIALS = {
  ANTHROPIC_API_KEY: '',
  OPENAI_API_KEY: '',
  CODEX_API_KEY: '',
  GEMINI_API_KEY: '',
  GOOGLE_API_KEY: '',
};

/**
 * The `acpSessions.agents` entry that starts an installed agent (from `ensureAgents()`) with `node`,
 * everything it stores kept in `home`: the agents' own overrides of their folders are pinned too,
 * so a developer's real sessions never leak in.
 * @param {{ script: string, args: string[], native?: boolean }} agent
 * @param {{ name: string, home: string, node?: string, keepCredentials?: boolean, env?: Record<string, string> }} options
 */
export function agentEntry(agent, { name, home, node = process.execPath, keepCredentials = false, env = {} }) {
  return {
    name,
    command: agent.native ? agent.script : node,
    args: agent.native ? [...agent.args] : [agent.script, ...agent.args],
    cwd: home,
    env: {
      HOME: home,
      // OpenCode keeps its store, config and cache in the XDG folders: the machine's must not leak in.
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      // Offline: OpenCode waits about 15 s for a models list before it answers initialize.
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      AUGMENT_DISABLE_AUTO_UPDATE: '1',
      PI_CODING_AGENT_DIR: join(home, '.pi', 'agent'),
      PI_OFFLINE: '1',
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      CODEX_HOME: join(home, '.codex'),
      GEMINI_CLI_HOME: home,
      QWEN_HOME: join(home, '.qwen'),
      // claude-agent-acp refuses to run as root outside a sandbox (CI runs as root); this HOME is one.
      IS_SANDBOX: '1',
      // Offline: Claude Code's CLI would otherwise try to send telemetry (and write it to HOME on exit).
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      ...(keepCredentials ? {} : NO_CREDENTIALS),
      ...env,
    },
  };
}

// Run as a program (not when bundled into a test under out/).
if (process.argv[1] && resolve(process.argv[1]) === join(PACKAGE_DIR, '..', 'agents.mjs')) {
  try {
    console.log(JSON.stringify(ensureAgents(), null, 2));
  } catch (e) {
    console.error(`[agents] ${e.message}`);
    process.exit(1);
  }
}
