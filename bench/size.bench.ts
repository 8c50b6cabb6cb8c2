// Figure 6, size and start: the production bundles and the VSIX in KB (staged by run.ts), and
// the time activate() takes inside the real extension host (VS Code's server with Chromium,
// through the test host's launcher), measured in the host by bench/host/activateProbe.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as esbuild from 'esbuild';
import { ROOT, log, report, type Measurement } from './lib';
import { PROD_EXTENSION, PROD_WEBVIEW, STAGE, VSIX, sizeKB } from './stage';

const PROBE = join(ROOT, 'out/bench/host/activateProbe.js');
/** The bundles extension.js loads on first use (esbuild.mjs says what each holds). */
const LAZY_BUNDLES = ['transcripts.js', 'search.js'];

interface Activation {
  codeLoadingMs: number;
  activateCallMs: number;
  activateResolvedMs: number;
  roundTripMs: number;
  wasActive: boolean;
}

async function measureActivation(): Promise<Activation> {
  await esbuild.build({
    entryPoints: [join(ROOT, 'bench/host/activateProbe.ts')],
    outfile: PROBE,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'warning',
  });
  const dir = mkdtempSync(join(tmpdir(), 'acp-bench-activate-'));
  const resultFile = join(dir, 'result.json');
  const folder = join(dir, 'workspace');
  await import('node:fs').then((fs) => fs.mkdirSync(folder));
  try {
    const code = await new Promise<number>((resolve) => {
      const child = spawn(
        process.execPath,
        [join(ROOT, 'test/host/launcher'), `--extensionDevelopmentPath=${STAGE}`, `--extensionTestsPath=${PROBE}`, folder],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ACP_BENCH_RESULT: resultFile } },
      );
      child.stdout.on('data', (d) => process.stderr.write(d));
      child.stderr.on('data', (d) => process.stderr.write(d));
      child.on('exit', (c) => resolve(c ?? 1));
    });
    if (code !== 0) throw new Error(`the activation probe failed (launcher exit ${code})`);
    return JSON.parse(readFileSync(resultFile, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const extensionKB = sizeKB(PROD_EXTENSION);
  const webviewKB = sizeKB(PROD_WEBVIEW);
  const markdownKB = sizeKB(join(dirname(PROD_WEBVIEW), 'markdown.js'));
  const vsixKB = sizeKB(VSIX);
  const lazyKB = LAZY_BUNDLES.map((file) => [file, sizeKB(join(dirname(PROD_EXTENSION), file))] as const);
  if (extensionKB === undefined || webviewKB === undefined || markdownKB === undefined || lazyKB.some(([, kb]) => kb === undefined)) throw new Error(`no production build in ${STAGE} (run through bench/run.mjs)`);
  const measurements: Measurement[] = [
    // 200 KB since the hardening (issue 11): input checks, deadlines, process lifetime and plain-text surfaces come first.
    // What activation reads; the bundles loaded on first use are in the detail and rows of their own.
    {
      figure: '6',
      name: 'size: dist/extension.js (minified)',
      value: extensionKB,
      unit: 'KB',
      goal: 200,
      goalOn: 'value',
      detail: Object.fromEntries(lazyKB.map(([file, kb]) => [`${file} KB (on first use)`, Number(kb!.toFixed(1))])),
    },
    ...lazyKB.map(([file, kb]): Measurement => ({ figure: '6', name: `size: dist/${file} (minified, loaded on first use)`, value: kb!, unit: 'KB', goal: null, goalOn: 'value' })),
    // What the webview evaluates before its first row; markdown.js (markdown-it) comes after it, for the Markdown pass.
    { figure: '6', name: 'size: dist/webview/transcript.js (minified)', value: webviewKB, unit: 'KB', goal: 150, goalOn: 'value', detail: { 'markdown.js KB': Number(markdownKB.toFixed(1)) } },
    { figure: '6', name: 'size: the webview, transcript.js + markdown.js', value: webviewKB + markdownKB, unit: 'KB', goal: 150, goalOn: 'value' },
  ];
  if (vsixKB !== undefined) measurements.push({ figure: '6', name: 'size: VSIX', value: vsixKB, unit: 'KB', goal: 400, goalOn: 'value' });
  else log('size: no VSIX was packaged (see the stage log above)');
  const activation = await measureActivation();
  const activateMs = activation.activateCallMs + activation.activateResolvedMs;
  log(`size: activation: load ${activation.codeLoadingMs} ms, activate ${activateMs} ms, ext.activate() ${activation.roundTripMs.toFixed(0)} ms`);
  measurements.push({
    figure: '6',
    name: 'start: activate() in the extension host',
    value: activateMs,
    unit: 'ms',
    goal: 20,
    goalOn: 'value',
    detail: {
      'load code ms': activation.codeLoadingMs,
      'call activate ms': activation.activateCallMs,
      'finish activate ms': activation.activateResolvedMs,
      'ext.activate() round trip ms': +activation.roundTripMs.toFixed(0),
      'active before': String(activation.wasActive),
    },
  });
  report(measurements);
}

await main();
