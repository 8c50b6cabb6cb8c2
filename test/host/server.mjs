// Starts VS Code's own server (from code-server) on 127.0.0.1 with fresh folders, and a
// Debian Chromium page on it through playwright-core. Shared by the test launcher, the UI
// harness and the demo; the recipe is in /work/shared/notes/vscode-host.md.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureHost } from './setup.mjs';

/** A port nobody listens on right now. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the server as a child and ends the whole process group when stdin closes, i.e. when
 * whoever started it dies without stopping it (a killed test run must not leave servers behind).
 */
const ORPHAN_GUARD = `
const { spawn } = require('node:child_process');
const [main, ...args] = process.argv.slice(1);
const server = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
const endGroup = () => { try { process.kill(-process.pid, 'SIGKILL'); } catch {} process.exit(1); };
process.stdin.on('end', endGroup);
process.stdin.on('error', endGroup);
process.stdin.resume();
process.on('SIGTERM', () => server.kill('SIGTERM'));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
`;

/**
 * Settings every test and demo workbench gets: no AI features (their background sign-in
 * attempts flood the log and use the CPU the tests need), no welcome page, no update checks.
 */
export const QUIET_SETTINGS = {
  'chat.disableAIFeatures': true,
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.tips.enabled': false,
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  // A remote window's extension host looks for ports to forward by reading /proc: every process's
  // command line, every few seconds (about 110 files a scan here). A desktop window does not. The
  // server has a tunnel provider, which keeps that scan on with autoForwardPorts off; a source of
  // "output" (the terminals' output) ends it.
  'remote.autoForwardPorts': false,
  'remote.autoForwardPortsSource': 'output',
};

/**
 * Starts the server. `machineSettings` go to <user-data>/Machine/settings.json: in a
 * browser window on a VS Code server these are the settings of the machine the extension host
 * runs on, which is where machine-scoped settings such as `acpSessions.agents` are read from
 * (the browser's own user settings live in its IndexedDB and cannot be preset from outside).
 */
export async function startServer({
  host = ensureHost(),
  machineSettings,
  extensionsDir,
  env = {},
  root = mkdtempSync(join(tmpdir(), 'acp-vscode-')),
  port,
  keepRoot = false,
  // Off by default (no trust prompt); on, a folder opens in Restricted Mode until trusted.
  workspaceTrust = false,
  // A language id (e.g. 'de'): VS Code's display language, as after installing its language pack and choosing it.
  displayLanguage,
} = {}) {
  const dirs = {
    root,
    userData: join(root, 'user-data'),
    serverData: join(root, 'server-data'),
    extensions: extensionsDir ?? join(root, 'extensions'),
    xdgConfig: join(root, 'xdg-config'),
    xdgData: join(root, 'xdg-data'),
    home: join(root, 'home'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  writeMachineSettings(dirs.userData, { ...QUIET_SETTINGS, ...machineSettings });
  if (displayLanguage) writeLanguagePack(root, dirs.userData, displayLanguage);
  port ??= await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const logFile = join(root, 'server.log');
  const log = createWriteStream(logFile);
  const child = spawn(host.node, [
    '-e', ORPHAN_GUARD,
    host.serverMain,
    '--host', '127.0.0.1',
    '--port', String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--enable-smoke-test-driver',
    '--telemetry-level', 'off',
    ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
    ...(displayLanguage ? ['--locale', displayLanguage] : []),
    '--user-data-dir', dirs.userData,
    '--server-data-dir', dirs.serverData,
    '--extensions-dir', dirs.extensions,
  ], {
    // Its own process group, so that stopping it also ends the extension host and pty host.
    detached: true,
    // stdin stays open for as long as we live: the guard ends the group when it closes.
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      XDG_CONFIG_HOME: dirs.xdgConfig,
      XDG_DATA_HOME: dirs.xdgData,
      ...env,
    },
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  let exited = null;
  const exit = new Promise((r) => child.once('exit', (code, signal) => { exited = { code, signal }; r(exited); }));

  const stop = async () => {
    if (!exited) {
      try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
      const killed = await Promise.race([exit, sleep(3000).then(() => null)]);
      if (!killed) {
        try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
        await exit;
      }
    }
    // The group may outlive its leader (extension host, pty host): end it too.
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
    log.end();
    if (!keepRoot) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };

  // The server answers GET /version once it is ready.
  for (;;) {
    if (exited) {
      const text = safeRead(logFile);
      await stop();
      throw new Error(`VS Code server exited (${exited.code ?? exited.signal}) before it was ready:\n${text}`);
    }
    try {
      const response = await fetch(`${origin}/version`);
      if (response.ok) break;
    } catch { /* not listening yet */ }
    await sleep(100);
  }

  return {
    port,
    origin,
    dirs,
    logFile,
    process: child,
    exited: exit,
    /** The vscode-remote URI of a path on this server, as the workbench payload wants it. */
    remoteUri: (path) => `vscode-remote://127.0.0.1:${port}${resolve(path)}`,
    /** The workbench address for `folders` (one folder, or a generated multi-root workspace). */
    workbenchUrl({ folders = [], workspace, payload = [] } = {}) {
      const params = new URLSearchParams();
      if (workspace) params.set('workspace', resolve(workspace));
      else if (folders.length === 1) params.set('folder', resolve(folders[0]));
      else if (folders.length > 1) {
        const file = join(root, 'workspace.code-workspace');
        writeFileSync(file, JSON.stringify({ folders: folders.map((f) => ({ path: resolve(f) })) }, null, 2));
        params.set('workspace', file);
      }
      if (payload.length) params.set('payload', JSON.stringify(payload));
      const query = params.toString();
      return `${origin}/${query ? `?${query}` : ''}`;
    },
    stop,
  };
}

function safeRead(file) {
  try { return readFileSync(file, 'utf8'); } catch { return ''; }
}

/**
 * Writes the remote machine's settings.json (see startServer). The server keeps it under its
 * --user-data-dir (<server-data-dir>/data when that flag is not given).
 */
export function writeMachineSettings(userDataDir, settings) {
  const dir = join(userDataDir, 'Machine');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
}

/**
 * A language pack for `languageId` whose VS Code strings are all left in English (an empty
 * translation): what our extension shows in that language is then ours alone. Recorded in
 * <user-data>/languagepacks.json as VS Code's language pack service records an installed pack
 * (the server's --install-extension does not; the running server's install does), which is
 * where the server looks when `--locale` asks for that language: the workbench then runs in it
 * (`vscode.env.language`), and extensions get their package.nls.<id>.json and l10n bundles.
 */
export function writeLanguagePack(root, userDataDir, languageId) {
  const translations = join(root, `language-pack-${languageId}`, 'translations', 'main.i18n.json');
  mkdirSync(join(translations, '..'), { recursive: true });
  writeFileSync(translations, JSON.stringify({ version: '1.0.0', contents: {} }));
  const record = {
    [languageId]: {
      hash: `acp-tests-${languageId}`,
      extensions: [{ extensionIdentifier: { id: `acp-tests.language-pack-${languageId}` }, version: '0.0.1' }],
      translations: { vscode: translations },
      label: languageId,
    },
  };
  writeFileSync(join(userDataDir, 'languagepacks.json'), JSON.stringify(record));
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Waits until the workbench in `page` has finished starting: VS Code makes the parts it starts
 * "when restored" (phase 3) and then "eventually" (phase 4) in idle time, each phase ending with
 * the mark `code/didCreateWorkbenchContributions/<phase>`, well after the window shows. One of
 * the restored parts registers the Output view's log channels, and VS Code drops a
 * LogOutputChannel.show() that comes before it without a trace; the eventual parts are the
 * workbench's own work, which a benchmark's clock must not count as ours.
 * @param {import('playwright-core').Page} page
 * @param {{ phase?: 3 | 4, timeoutMs?: number }} [options]
 * @returns {Promise<number>} when the mark was made, in ms after the page began to load
 */
export async function whenWorkbenchStarted(page, { phase = 3, timeoutMs = 120_000 } = {}) {
  const mark = `code/didCreateWorkbenchContributions/${phase}`;
  try {
    const handle = await page.waitForFunction((name) => performance.getEntriesByName(name)[0]?.startTime, mark, { timeout: timeoutMs, polling: 50 });
    return Math.round(await handle.jsonValue());
  } catch (e) {
    throw new Error(`the workbench did not finish starting (no "${mark}" mark) within ${timeoutMs} ms: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Runs before each page's scripts: the workbench reads its configuration (the server's product
 * settings) with telemetry off. A browser workbench takes its telemetry level from the browser's
 * own settings, not the machine's (QUIET_SETTINGS' `telemetry.telemetryLevel` does not reach it),
 * and the server's `--telemetry-level` covers the server only; so the built-in extensions' 1DS
 * telemetry went out (git's, TypeScript's), and with its first request the extension host loaded
 * and parsed the system's certificates: 70-230 ms of its thread, at a time of its own, which fell
 * into the bench's measured opens. Only the top page's first read of that element is changed;
 * the hook is removed then, and frames (the webviews) never get it.
 */
function TELEMETRY_OFF() {
  if (window !== window.top) return;
  const read = Element.prototype.getAttribute;
  Element.prototype.getAttribute = function (name) {
    const value = read.call(this, name);
    if (name !== 'data-settings' || this.id !== 'vscode-workbench-web-configuration' || !value) return value;
    Element.prototype.getAttribute = read;
    const config = JSON.parse(value);
    config.productConfiguration = { ...config.productConfiguration, enableTelemetry: false };
    return JSON.stringify(config);
  };
}

/**
 * A fresh Chromium profile with one page, through playwright-core and Debian's Chromium.
 * `permissions` are granted to every origin (playwright's names, e.g. 'clipboard-read');
 * `fontconfig`, a fonts.conf for the browser (the benchmarks': setup.mjs ensureBenchFonts).
 */
export async function openBrowser({
  host = ensureHost(),
  root = mkdtempSync(join(tmpdir(), 'acp-chromium-')),
  headless = true,
  viewport = { width: 1280, height: 800 },
  permissions = [],
  fontconfig,
} = {}) {
  const { chromium } = await import('playwright-core');
  const profile = join(root, 'profile');
  const home = join(root, 'home');
  mkdirSync(profile, { recursive: true });
  mkdirSync(home, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: host.chromium,
    headless,
    args: CHROMIUM_ARGS,
    viewport,
    permissions,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), ...(fontconfig ? { FONTCONFIG_FILE: fontconfig } : {}) },
  });
  await context.addInitScript(TELEMETRY_OFF);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => {});
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
