#!/usr/bin/env node
// `npm run demo`: builds and packages the extension, installs the VSIX into a fresh profile of
// the test host's VS Code, configures the reference agent on a seeded store, opens a workspace of
// two folders and serves it on 127.0.0.1 until Ctrl-C.
//   npm run demo -- --screenshot FILE   headless: save the ACP Sessions sidebar as FILE and a transcript with an
//                                       expanded compaction row as FILE-transcript.png, then exit
//   npm run demo -- --agent NAME        a real agent instead of the reference agent: claude, codex
//                                       or gemini over a fabricated store (test/interop/demoAgent.mjs),
//                                       or an Add Agent preset by name (e.g. "Qwen Code") as installed
//   npm run demo -- --port P            serve on port P (default: a free one)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const VSIX = join(ROOT, 'acp-sessions.vsix');
/** Things to undo when the demo ends (e.g. a real agent's temporary HOME). */
const cleanups = [];

function option(name) {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0) return process.argv[i + 1];
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}
const screenshot = option('screenshot');
const agentName = option('agent');
const port = option('port') ? Number(option('port')) : undefined;

function step(what, command, args, options = {}) {
  console.log(`demo: ${what}`);
  const r = spawnSync(command, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (r.status !== 0) {
    console.error(`demo: ${what} failed (${command} ${args.join(' ')} exited ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

/** The agent entries for `acpSessions.agents`: the reference agent on a seeded store, or a preset. */
async function agentEntries(demoDir, folders) {
  if (agentName) {
    // A real agent over a fabricated store in a private HOME (the interop part provides these).
    const demoAgent = join(ROOT, 'test', 'interop', 'demoAgent.mjs');
    if (existsSync(demoAgent)) {
      const { prepareDemoAgent, DEMO_AGENTS } = await import(pathToFileURL(demoAgent).href);
      if (DEMO_AGENTS.includes(agentName.toLowerCase())) {
        console.log(`demo: preparing ${agentName} (installs it on first use)`);
        const prepared = prepareDemoAgent(agentName.toLowerCase(), { folder: folders[0] });
        cleanups.push(() => prepared.cleanup());
        return [prepared.entry];
      }
    }
    // Otherwise one of the Add Agent presets, as installed on this machine.
    // The presets live in the extension's source (src/sessions/agentPresets.ts); bundle them to read.
    const out = join(demoDir, 'presets.mjs');
    step('reading the agent presets', process.execPath, [join(ROOT, 'node_modules', 'esbuild', 'bin', 'esbuild'),
      join(ROOT, 'src', 'sessions', 'agentPresets.ts'), '--bundle', '--platform=node', '--format=esm',
      '--packages=external', `--outfile=${out}`, '--log-level=warning']);
    const { AGENT_PRESETS } = await import(pathToFileURL(out).href);
    const wanted = agentName.toLowerCase();
    const preset = AGENT_PRESETS.find((p) => p.entry.name.toLowerCase() === wanted || p.id?.toLowerCase?.() === wanted
      || p.entry.name.toLowerCase().startsWith(wanted));
    if (!preset) {
      console.error(`demo: no agent preset "${agentName}"; choose one of: ${AGENT_PRESETS.map((p) => p.entry.name).join(', ')}`);
      process.exit(2);
    }
    return [preset.entry];
  }
  const agent = join(ROOT, 'out', 'test', 'agent', 'agent.mjs');
  const seed = join(ROOT, 'out', 'test', 'agent', 'seed.mjs');
  if (!existsSync(agent) || !existsSync(seed)) {
    console.log('demo: the reference agent is not built (out/test/agent); no agent is configured');
    return [];
  }
  const store = join(demoDir, 'store');
  step('seeding the reference agent\'s store', process.execPath, [seed, '--store', store, '--folders', folders.join(',')]);
  // A short pause between replayed updates, so that compaction summaries visibly stream in.
  return [{ name: 'Reference Agent', command: process.execPath, args: [agent, '--store', store, '--replay-delay', '25'] }];
}

async function main() {
  step('building the extension and the reference agent', process.execPath, [join(ROOT, 'esbuild.mjs'), '--tests', '--only=test/agent']);
  step('packaging the VSIX', 'npm', ['run', '--silent', 'package']);
  console.log(`demo: ${VSIX} (${Math.round(statSync(VSIX).size / 1024)} KiB)`);

  const { ensureHost } = await import('../test/host/setup.mjs');
  const { startServer, openBrowser } = await import('../test/host/server.mjs');
  const host = ensureHost();

  const demoDir = mkdtempSync(join(tmpdir(), 'acp-demo-'));
  const folders = ['webapp', 'cli-tool'].map((name) => {
    const dir = join(demoDir, 'projects', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'README.md'), `# ${name}\n\nA demo folder for ACP Sessions.\n`);
    return dir;
  });
  const agents = await agentEntries(demoDir, folders);

  // A profile nobody else uses. The screenshots need the extension there from the start; a
  // newcomer gets it installed in their window, as a user's install is (see writeInstaller).
  const extensionsDir = join(demoDir, 'extensions');
  if (screenshot) {
    step('installing the VSIX into a fresh profile', host.node, [host.serverMain, '--install-extension', VSIX,
      '--extensions-dir', extensionsDir, '--user-data-dir', join(demoDir, 'install-user-data'),
      '--server-data-dir', join(demoDir, 'install-server-data'), '--accept-server-license-terms']);
  } else {
    writeInstaller(join(extensionsDir, 'acp-sessions-demo.installer-0.0.1'));
  }

  const server = await startServer({
    host,
    root: join(demoDir, 'server'),
    extensionsDir,
    port,
    machineSettings: { 'acpSessions.agents': agents, 'acpSessions.scope': 'workspace' },
  });
  const url = server.workbenchUrl({ folders });
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    await server.stop();
    for (const undo of cleanups) { try { undo(); } catch { /* best effort */ } }
    rmSync(demoDir, { recursive: true, force: true, maxRetries: 3 });
  };

  if (screenshot) {
    const browser = await openBrowser({ host, viewport: { width: 1280, height: 800 } });
    try {
      const { page } = browser;
      await page.goto(url);
      await page.locator('.monaco-workbench').waitFor();
      await page.locator('.activitybar a[aria-label^="ACP Sessions"]').click();
      if (agents.length) {
        // Expand the agent and its Active section, whichever are collapsed.
        for (const label of [agents[0].name, 'Active']) {
          const row = page.locator('.monaco-list-row', { hasText: label }).first();
          await row.waitFor();
          if ((await row.getAttribute('aria-expanded')) === 'false') await row.click();
        }
        // The Active sessions are in once no section is loading any more.
        await page.locator('.monaco-list-row', { hasText: 'Loading sessions' }).first().waitFor({ state: 'detached' });
        await page.locator('.monaco-list-row[aria-level="4"]').first().waitFor();
      } else {
        await page.getByText('No agent is configured yet').waitFor();
      }
      // No hover tooltip in the picture: the pointer leaves, the focus moves into the tree.
      await page.mouse.move(800, 400);
      await page.locator('.pane-body .monaco-list').first().focus();
      await page.locator('.workbench-hover-container, .monaco-hover').first().waitFor({ state: 'hidden' }).catch(() => {});
      const file = resolve(screenshot);
      mkdirSync(dirname(file), { recursive: true });
      await page.screenshot({ path: file });
      console.log(`demo: screenshot saved to ${file}`);
      if (!agentName) {
        const transcriptFile = file.replace(/(\.png)?$/i, '-transcript.png');
        await saveTranscriptScreenshot(page, transcriptFile);
        console.log(`demo: transcript screenshot saved to ${transcriptFile}`);
      }
    } finally {
      await browser.close();
      await cleanup();
    }
    return;
  }

  console.log(`\nACP Sessions demo: open ${url}\n(the window installs ACP Sessions as a user would, and opens its view and walkthrough;`
    + ` agents: ${agents.map((a) => a.name).join(', ') || 'none'}; Ctrl-C to stop)`);
  await new Promise((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    server.exited.then(() => { if (!cleaned) console.error('demo: the VS Code server exited'); done(); });
  });
  await cleanup();
}

/**
 * The demo's installer, an extension of the demo's profile only: when a window opens, it installs
 * the VSIX through VS Code's own Install from VSIX and opens the new ACP Sessions view, so the
 * newcomer meets ACP Sessions as a user who just installed it does: its walkthrough opens. (An
 * install from the command line before the server starts is never "just installed" in a window;
 * VS Code notes fresh installs only once its Welcome page exists in the window, hence Help: Welcome.)
 */
function writeInstaller(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({
    name: 'installer', publisher: 'acp-sessions-demo', version: '0.0.1', engines: { vscode: '^1.85.0' },
    displayName: 'ACP Sessions demo installer', description: 'Installs ACP Sessions into the demo window, as a user would.',
    main: './extension.js', activationEvents: ['onStartupFinished'],
  }));
  writeFileSync(join(dir, 'extension.js'), `const vscode = require('vscode');
const ID = 'acp-sessions.acp-sessions';
exports.activate = async () => {
  if (vscode.extensions.getExtension(ID)) return; // installed in an earlier window
  await vscode.commands.executeCommand('workbench.action.openWalkthrough');
  await vscode.commands.executeCommand('workbench.extensions.installExtension', vscode.Uri.file(${JSON.stringify(VSIX)}));
  await new Promise((resolve) => {
    if (vscode.extensions.getExtension(ID)) return resolve();
    const listener = vscode.extensions.onDidChange(() => {
      if (vscode.extensions.getExtension(ID)) { listener.dispose(); resolve(); }
    });
  });
  // The newcomer's first click, on the new ACP Sessions icon: the extension's first activation
  // opens its walkthrough (VS Code does too, for an install it saw from its Welcome page).
  await vscode.commands.executeCommand('workbench.view.extension.acpSessions')
    .then(undefined, () => vscode.extensions.getExtension(ID).activate());
};
`);
}

/** Opens the seeded session with compactions and saves it with its first compaction row expanded. */
async function saveTranscriptScreenshot(page, file) {
  const title = 'Long refactor with several context compactions';
  await page.locator('.monaco-list-row', { hasText: title }).first().click();
  const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  // The slow replay streams; the picture is taken once it has finished.
  await frame.locator('body[data-loading="false"]').waitFor({ timeout: 60_000 });
  // Replayed compactions that ended are closed until the reader opens one (one rule, whatever
  // the batching), so this click always opens it.
  const row = frame.locator('details.compaction').first();
  await row.locator('summary').click();
  await row.locator('.body h2').waitFor();
  // Just below the transcript's sticky header, so the row's own head is in the picture.
  await row.evaluate((e) => window.scrollBy(0, e.getBoundingClientRect().top - document.getElementById('header').getBoundingClientRect().bottom - 8));
  await page.mouse.move(800, 790);
  await page.screenshot({ path: file });
}

main().then(() => process.exit(0), (e) => { console.error(`demo: ${e?.stack ?? e}`); process.exit(1); });
