#!/usr/bin/env node
// `npm test`: builds, then runs the test layers and prints each layer's counts and, as the very
// last line, `N passed, N failed` summed over them. Usage:
//   node scripts/test.mjs [unit|unit-worker|integration|integration-fallback|integration-oldest|ui|ui-fallback|interop|chaos]...
//   (default: all but interop and chaos; integration-oldest runs the integration suite again in
//   VS Code 1.85.1, the oldest that engines.vscode claims; the -worker and -fallback layers run a
//   suite again on the other path of the agents' output, see LAYERS)
// `chaos` is the long chaos run (npm run test:chaos): the integration layer's chaos suite with
// many steps, once with its fixed seed and once with a random one (or ACP_CHAOS_SEED's only).
// Exits non-zero when a test failed or a layer ran no test at all.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// Each layer runs on both paths of the agents' output (issue 36): parsed in the line worker, as the
// extension does, and on the caller's thread, the fallback where a worker cannot start. The unit
// layer's clients parse on their own thread unless ACP_TEST_LINE_WORKER=on (unit-worker); the
// extension uses its worker unless ACP_SESSIONS_LINE_WORKER=off (integration-fallback, ui-fallback).
const LAYERS = ['unit', 'unit-worker', 'integration', 'integration-fallback', 'integration-oldest', 'ui', 'ui-fallback', 'interop', 'chaos'];
/** Steps of each long chaos run (the integration layer's short run takes 20). */
const LONG_CHAOS_STEPS = process.env.ACP_CHAOS_STEPS ?? '120';
const DEFAULT_LAYERS = ['unit', 'unit-worker', 'integration', 'integration-fallback', 'integration-oldest', 'ui', 'ui-fallback'];
// A hang guard per layer, not a speed limit: a layer still running after this is stuck.
const LAYER_TIMEOUT_MS = Number(process.env.ACP_TEST_LAYER_TIMEOUT_MS ?? 30 * 60_000);

// `--update-screenshots`: after a passing ui (or interop) layer, copy the screenshots the README shows to
// media/screenshots/ (they stay out of the VSIX).
const updateScreenshots = process.argv.includes('--update-screenshots');
const requested = process.argv.slice(2).filter((a) => a !== '--update-screenshots');
for (const layer of requested) {
  if (!LAYERS.includes(layer)) {
    console.error(`unknown layer "${layer}"; use one of: ${LAYERS.join(', ')}`);
    process.exit(2);
  }
}
const layers = requested.length ? requested : DEFAULT_LAYERS;

/** Test files under `dir` (recursively) whose name ends with `suffix`, sorted. */
function testFiles(dir, suffix) {
  const found = [];
  const walk = (d) => {
    let entries;
    try { entries = readdirSync(d); } catch { return; }
    for (const name of entries) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(suffix)) found.push(path);
    }
  };
  walk(dir);
  return found.sort();
}

/** Runs a command with inherited output in its own process group; resolves with its exit code. */
function run(command, args, { env = process.env, cwd = ROOT } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: 'inherit', detached: true });
    const guard = setTimeout(() => {
      console.error(`\n${relative(ROOT, args[0] ?? command)}: still running after ${LAYER_TIMEOUT_MS / 60000} min; stopping it`);
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    }, LAYER_TIMEOUT_MS);
    const interrupt = () => { try { process.kill(-child.pid, 'SIGINT'); } catch { /* gone */ } };
    process.on('SIGINT', interrupt);
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      process.off('SIGINT', interrupt);
      // Whatever the layer left behind in its group (servers, browsers, agents) ends with it.
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** Counts from node:test's TAP summary (`# pass N`, `# fail N`, `# cancelled N`). */
function tapCounts(file) {
  let text = '';
  try { text = readFileSync(file, 'utf8'); } catch { return undefined; }
  const count = (key) => {
    const all = [...text.matchAll(new RegExp(`^# ${key} (\\d+)$`, 'gm'))];
    return all.length ? Number(all[all.length - 1][1]) : undefined;
  };
  const pass = count('pass');
  if (pass === undefined) return undefined;
  return { passed: pass, failed: (count('fail') ?? 0) + (count('cancelled') ?? 0), skipped: (count('skipped') ?? 0) + (count('todo') ?? 0) };
}

/** A node:test layer: every `*.test.mjs` under out/test/<name>, spec output on screen. */
async function nodeTestLayer(name, { concurrency, label = name, env } = {}) {
  // ACP_NODE_TEST_FILES=claude,claudeIndex runs only those files of a node:test layer (a name
  // that matches none runs none: `ACP_NODE_TEST_FILES=none node scripts/test.mjs interop` runs
  // the extension-host part alone, with ACP_INTEGRATION_FILES and ACP_INTEGRATION_GREP).
  const only = process.env.ACP_NODE_TEST_FILES?.split(',').map((f) => f.trim().replace(/\.test\.(mjs|ts)$/, '')).filter(Boolean);
  const files = testFiles(join(ROOT, 'out', 'test', name), '.test.mjs').filter((f) => !only || only.some((o) => f.endsWith(`/${o}.test.mjs`)));
  if (files.length === 0) return { passed: 0, failed: 0, note: `no tests in out/test/${name}${only ? ` named ${only.join(', ')}` : ''}` };
  mkdirSync(join(ROOT, 'test-results'), { recursive: true });
  const tap = join(ROOT, 'test-results', `${label}.tap`);
  rmSync(tap, { force: true });
  const args = [
    '--test',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
  ];
  if (concurrency) args.push(`--test-concurrency=${concurrency}`);
  const code = await run(process.execPath, [...args, ...files], env ? { env: { ...process.env, ...env } } : {});
  const counts = tapCounts(tap);
  if (!counts) return { passed: 0, failed: 1, note: `node --test exited ${code} without a summary` };
  // A non-zero exit with no failing test (a crash outside any test) still fails the layer.
  if (code !== 0 && counts.failed === 0) return { ...counts, failed: 1, note: `node --test exited ${code}` };
  return counts;
}

/**
 * The integration layer: the mocha suite inside a real VS Code extension host, started through
 * @vscode/test-electron's runTests with our launcher as the "VS Code executable".
 */
async function integrationLayer(testsPath = join(ROOT, 'out', 'test', 'integration', 'index.js'), { vscode = 'latest', env = {} } = {}) {
  const { ensureHost } = await import('../test/host/setup.mjs');
  ensureHost(vscode);
  const { runTests } = await import('@vscode/test-electron');
  const work = mkdtempSync(join(tmpdir(), 'acp-integration-'));
  // The workspace tries to name an agent; the extension must ignore it (foundation suite).
  const folder = join(work, 'workspace');
  mkdirSync(join(folder, '.vscode'), { recursive: true });
  writeFileSync(join(folder, '.vscode', 'settings.json'), JSON.stringify({
    'acpSessions.agents': [{
      name: 'workspace-agent',
      command: '/bin/sh',
      args: ['-c', `touch '${join(folder, 'workspace-agent-ran')}'`],
    }],
    // Settings a workspace could turn against the user; both must be ignored (foundation suite).
    'acpSessions.requestTimeout': 0,
    'acpSessions.trace.server': 'verbose',
  }, null, 2));
  const resultFile = join(work, 'result.json');
  let code = 0;
  try {
    await runTests({
      vscodeExecutablePath: join(ROOT, 'test', 'host', 'launcher'),
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: testsPath,
      launchArgs: [folder],
      // The launcher starts the server of the host that ACP_SESSIONS_VSCODE names.
      extensionTestsEnv: { ACP_INTEGRATION_RESULT: resultFile, ACP_REPO_ROOT: ROOT, ACP_SESSIONS_VSCODE: vscode, ...env },
    });
  } catch (e) {
    code = e?.code ?? 1;
  }
  let result;
  try { result = JSON.parse(readFileSync(resultFile, 'utf8')); } catch { /* the run broke before mocha finished */ }
  rmSync(work, { recursive: true, force: true });
  if (!result) return { passed: 0, failed: 1, note: `the extension host run exited ${code} without results` };
  if (code !== 0 && result.failed === 0) return { passed: result.passed, failed: 1, note: `the run exited ${code}` };
  return { passed: result.passed, failed: result.failed, skipped: result.pending };
}

/** The real agents: our client under node:test, then the extension in its host (test/interop/integration). */
async function interopLayer() {
  const client = await nodeTestLayer('interop');
  const extension = await integrationLayer(join(ROOT, 'out', 'test', 'interop', 'integration', 'index.js'));
  const note = [client.note, extension.note].filter(Boolean).join('; ');
  return {
    passed: client.passed + extension.passed,
    failed: client.failed + extension.failed,
    skipped: (client.skipped ?? 0) + (extension.skipped ?? 0),
    ...(note ? { note } : {}),
  };
}

/** The long chaos run: the chaos suite alone, with the fixed seed and a random one (printed by the suite). */
async function chaosLayer() {
  const seeds = process.env.ACP_CHAOS_SEED ? [process.env.ACP_CHAOS_SEED] : ['11', 'random'];
  const figures = join(ROOT, 'test-results', 'chaos-figures.jsonl');
  mkdirSync(dirname(figures), { recursive: true });
  rmSync(figures, { force: true });
  const total = { passed: 0, failed: 0 };
  for (const seed of seeds) {
    const r = await integrationLayer(undefined, { env: { ACP_INTEGRATION_FILES: 'chaos.test.js', ACP_CHAOS_SEED: seed, ACP_CHAOS_STEPS: LONG_CHAOS_STEPS, ACP_CHAOS_FIGURES: figures } });
    total.passed += r.passed;
    total.failed += r.failed;
  }
  let lines = [];
  try { lines = readFileSync(figures, 'utf8').split('\n').filter(Boolean); } catch { /* no run got that far */ }
  for (const line of lines) console.log(`chaos figures: ${line}`);
  return { ...total, note: `figures in ${relative(ROOT, figures)}` };
}

async function uiLayer({ label, env } = {}) {
  const { ensureHost } = await import('../test/host/setup.mjs');
  ensureHost();
  // The UI tests share two cores with a VS Code server and a browser each: one file at a time.
  // (The servers they start inherit this environment, and their extension hosts with it.)
  return nodeTestLayer('ui', { concurrency: 1, label, env });
}

/** The extension parses the agents' output on its host's thread, as where its line worker cannot start. */
const FALLBACK = { ACP_SESSIONS_LINE_WORKER: 'off' };

function build() {
  // Types first: esbuild strips them without a look, so a type error would otherwise pass.
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const args of [[tsc, '-p', ROOT], ['esbuild.mjs'], ['esbuild.mjs', '--tests']]) {
    const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`build failed: node ${args.join(' ')}`);
      console.log('0 passed, 1 failed');
      process.exit(1);
    }
  }
}

build();
const results = [];
for (const layer of layers) {
  console.log(`\n=== ${layer} ===`);
  let result;
  try {
    if (layer === 'unit') result = await nodeTestLayer('unit');
    else if (layer === 'unit-worker') result = await nodeTestLayer('unit', { label: 'unit-worker', env: { ACP_TEST_LINE_WORKER: 'on' } });
    else if (layer === 'integration') result = await integrationLayer();
    else if (layer === 'integration-fallback') result = await integrationLayer(undefined, { env: FALLBACK });
    else if (layer === 'ui-fallback') result = await uiLayer({ label: 'ui-fallback', env: FALLBACK });
    else if (layer === 'integration-oldest') result = await integrationLayer(undefined, { vscode: 'oldest' });
    else if (layer === 'ui') result = await uiLayer();
    else if (layer === 'chaos') result = await chaosLayer();
    else result = await interopLayer();
  } catch (e) {
    result = { passed: 0, failed: 1, note: e?.message ?? String(e) };
  }
  results.push({ layer, ...result });
}

// The interop layer takes the real agents' screenshots (test/interop/claudeUi.test.ts).
const shooting = results.filter((r) => r.layer === 'ui' || r.layer === 'interop');
if (updateScreenshots && shooting.length > 0 && shooting.every((r) => r.failed === 0 && r.passed > 0)) {
  const from = join(ROOT, 'test-results', 'screenshots');
  const to = join(ROOT, 'media', 'screenshots');
  mkdirSync(to, { recursive: true });
  // Only the pictures the README shows.
  const shown = new Set([...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/media\/screenshots\/([\w.-]+\.png)/g)].map((m) => m[1]));
  for (const name of readdirSync(from).filter((n) => shown.has(n))) cpSync(join(from, name), join(to, name));
  // The walkthrough's pictures (package.json): walkthrough-NAME.png becomes media/walkthrough/NAME.png.
  const steps = new Set([...readFileSync(join(ROOT, 'package.json'), 'utf8').matchAll(/media\/walkthrough\/([\w.-]+\.png)/g)].map((m) => m[1]));
  for (const name of readdirSync(from).filter((n) => steps.has(n.replace(/^walkthrough-/, '')))) {
    cpSync(join(from, name), join(ROOT, 'media', 'walkthrough', name.replace(/^walkthrough-/, '')));
  }
  // The walkthrough's pictures ship in the VSIX, where a PNG's own compression is all it gets:
  // recompressed losslessly where optipng is there (apt-get install optipng), 18% smaller.
  const walkthrough = readdirSync(join(ROOT, 'media', 'walkthrough')).filter((n) => steps.has(n)).map((n) => join(ROOT, 'media', 'walkthrough', n));
  const optipng = spawnSync('optipng', ['-quiet', '-o5', '-strip', 'all', ...walkthrough], { stdio: 'inherit' });
  if (optipng.error) console.log('media/walkthrough/: optipng is not installed; the pictures are as Chromium wrote them (apt-get install optipng makes them about 18% smaller).');
  console.log(`\nscreenshots copied to ${relative(ROOT, to)}/ and media/walkthrough/`);
}

console.log('');
let passed = 0;
let failed = 0;
let empty = false;
for (const r of results) {
  passed += r.passed;
  failed += r.failed;
  if (r.passed + r.failed === 0) empty = true;
  const extra = [r.skipped ? `${r.skipped} skipped` : '', r.note ?? ''].filter(Boolean).join('; ');
  console.log(`${r.layer}: ${r.passed} passed, ${r.failed} failed${extra ? ` (${extra})` : ''}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || empty ? 1 : 0);
