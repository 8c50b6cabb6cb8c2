#!/usr/bin/env node
// Installs the real ACP agents that the interop tests and `npm run demo -- --agent NAME` drive,
// from test/interop/agents/package-lock.json into ~/.cache/acp-sessions/agents-<hash>/ on first
// use. They are large (hundreds of MB of native binaries), so they are never devDependencies.
// Usable as a module (`ensureAgents()`) and as a CLI (`node test/interop/agents.mjs`).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

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
const MARKER = '.acp-sessions-installed';

/** The agents we drive: npm package, its bin script, and how it is started as an ACP agent. */
export const AGENTS = {
  claude: { pkg: '@agentclientprotocol/claude-agent-acp', bin: 'dist/index.js', args: [] },
  codex: { pkg: '@agentclientprotocol/codex-acp', bin: 'dist/index.js', args: [] },
  gemini: { pkg: '@google/gemini-cli', bin: 'bundle/gemini.js', args: ['--acp'] },
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
function fingerprint() {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(PACKAGE_DIR, file)));
  return hash.digest('hex');
}

function isInstalled(target, print) {
  try { return readFileSync(join(target, MARKER), 'utf8').trim() === print; } catch { return false; }
}

function pidAlive(pid) {
  try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; }
}

/** Runs `fn` holding a lock directory (mkdir is atomic); a lock whose owner died is taken over. */
function withLock(lockDir, fn) {
  for (let announced = false; ;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let owner = NaN;
      try { owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8')); } catch { /* being written */ }
      if (Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!announced) say(`waiting for another process (pid ${owner}) to finish installing the agents…`);
      announced = true;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    }
  }
  try { return fn(); } finally { rmSync(lockDir, { recursive: true, force: true }); }
}

/** `npm ci` into a private folder, renamed into place: a half-done install never looks done. */
function install() {
  const print = fingerprint();
  const target = join(CACHE_DIR, `agents-${print.slice(0, 12)}`);
  if (isInstalled(target, print)) return target;
  mkdirSync(CACHE_DIR, { recursive: true });
  return withLock(`${target}.lock`, () => {
    if (isInstalled(target, print)) return target;
    for (const entry of readdirSync(CACHE_DIR)) {
      if (entry.startsWith(`agents-${print.slice(0, 12)}.partial-`)) rmSync(join(CACHE_DIR, entry), { recursive: true, force: true });
    }
    const partial = `${target}.partial-${process.pid}`;
    mkdirSync(partial, { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(PACKAGE_DIR, file), join(partial, file));
    say(`installing the real agents into ${target} (first run only; about 1 GB)…`);
    const started = Date.now();
    const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: partial, stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (result.error || result.status !== 0) {
      throw new Error(`npm ci of the interop agents failed (${result.error?.message ?? `exit ${result.status}`}) in ${partial}; see the npm output above.`);
    }
    for (const { pkg, bin } of Object.values(AGENTS)) {
      if (!existsSync(join(partial, 'node_modules', pkg, bin))) throw new Error(`${pkg} installed without ${bin}.`);
    }
    writeFileSync(join(partial, MARKER), `${print}\n`);
    rmSync(target, { recursive: true, force: true });
    renameSync(partial, target);
    say(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
    return target;
  });
}

/**
 * Installs (once) and describes the agents: for each, its version and the script to start
 * with Node (`node <script> ...args`), so tests choose the Node that runs it.
 * @returns {{ dir: string, agents: Record<keyof typeof AGENTS, { pkg: string, version: string, script: string, args: string[] }> }}
 */
export function ensureAgents() {
  const dir = install();
  const agents = {};
  for (const [name, { pkg, bin, args }] of Object.entries(AGENTS)) {
    const root = join(dir, 'node_modules', pkg);
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    agents[name] = { pkg, version, script: join(root, bin), args };
  }
  return { dir, agents };
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
