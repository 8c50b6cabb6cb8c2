// The extension's bundles, as the production build makes them (esbuild.mjs --production, staged
// apart from dist/), by folder: each lazy feature is a folder of src/ui/ (its bundle.ts is the
// entry of dist/<folder>.js); extension.js, which VS Code reads before anything shows, holds of
// such a folder only its register.ts; a lazy bundle holds its folder's code and of the other ui/
// folders only those it may import; the bundles loaded on first use carry no module with state of
// their own (a second copy would be a second walkthrough, untranslated words, another error class)
// and share with extension.js only the modules listed here; and the VSIX carries each of them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** Modules both extension.js and a lazy bundle may carry, and why that is safe. */
const MAY_SHARE: Record<string, string> = {
  'src/acp/errors.ts': 'only messageOf, messageWithDetails and isResourceNotFound, pure functions; the error classes come from src/ui/transcripts/hostParts.ts',
  'src/sessions/format.ts': 'pure functions; its words are the main bundle\'s, adopted with useFormatText',
  'src/sessions/cleanup.ts': 'pure rule matching',
  'src/sessions/resume.ts': 'pure template checks',
  'src/transcript/protocol.ts': 'constants and types',
  'src/ui/common/plainText.ts': 'pure text cleaning',
  'src/ui/common/messages.ts': 'a class whose instances hold the state; the recorder is handed over',
  'src/ui/common/settings.ts': 'reads the settings; the list of agents it keeps is the main bundle\'s, adopted with useAgentConfigs',
  'src/ui/common/rulePick.ts': 'quick pick steps, no state',
  'src/acp/lineParse.ts': 'splitting and parsing an agent\'s lines: pure functions and constants (its decoder is used whole, never streamed)',
  'src/acp/textPieces.ts': 'the pieces a text was appended from, kept on the objects themselves (under a registered symbol): functions, no state of its own',
  'src/acp/validate.ts': 'pure checks of what an agent sent; its Problems are per call (the update log checks the lines it reads back as the client did)',
  'src/transcript/replayReader.ts': 'reading a replay file or a kept copy\'s lines: functions, the state is per call',
  'src/common/fileLock.ts': 'a lock file between windows: functions, the lock is on disk',
  'src/keep/keptFile.ts': 'a kept copy\'s file format: functions and a writer whose instances hold the state; the store (state) is the main bundle\'s',
  'src/sessions/loadEffects.ts': 'what a load changes per agent: a pure function',
  'src/changes/changes.ts': 'counting what a session changed: pure functions and a collector whose instances hold the state; the store (state) is the main bundle\'s',
  'src/transcript/spillOwner.ts': 'how a spill file names its process, and the clean-up at activation: pure but for a memo of this process\'s start time, the same in every copy',
};

/** Modules with state, or classes `instanceof` checks across bundles: extension.js's alone. */
const MAIN_ONLY = [
  'src/ui/sessions/walkthrough.ts',
  'src/ui/l10n.ts',
  'src/ui/sessions/commandTargets.ts',
  'src/sessions/agentRegistry.ts',
  'src/sessions/sessionsModel.ts',
  // The model's error classes (ListCancelledError, CapabilityMissingError): instanceof checks them.
  'src/sessions/modelTypes.ts',
  'src/sessions/health.ts',
  'src/acp/client.ts',
  'src/acp/connection.ts',
  'src/acp/updateRouting.ts',
  'src/acp/listSubscriptions.ts',
  'src/ui/common/lazyBundle.ts',
];

/**
 * The features loaded on first use: the folders of src/ui/ with a bundle.ts (esbuild.mjs makes
 * dist/<folder>.js of each), and the ui/ folders each may import (DESIGN.md: search ->
 * transcripts -> sessions -> common).
 */
const LAZY = readdirSync(join(ROOT, 'src', 'ui')).filter((name) => existsSync(join(ROOT, 'src', 'ui', name, 'bundle.ts')));
const MAY_IMPORT: Record<string, string[]> = {
  transcripts: ['transcripts', 'sessions', 'common'],
  search: ['search', 'transcripts', 'sessions', 'common'],
};

/** The ui/ feature folder of a module (src/ui/<folder>/…), else undefined. */
function uiFolder(module: string): string | undefined {
  return /^src\/ui\/([^/]+)\//.exec(module)?.[1];
}

interface Metafile {
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }>;
}

let stage: string;
const inputs: Record<string, Set<string>> = {};

before(() => {
  stage = mkdtempSync(join(tmpdir(), 'acp-bundles-'));
  for (const name of ['src', 'node_modules', 'tsconfig.json']) symlinkSync(join(ROOT, name), join(stage, name));
  const run = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs'), '--production', `--metafile=${join(stage, 'meta')}`], { cwd: stage, encoding: 'utf8' });
  assert.equal(run.status, 0, `esbuild.mjs --production:\n${run.stdout}${run.stderr}`);
  for (const bundle of ['extension', ...LAZY]) {
    const meta = JSON.parse(readFileSync(join(stage, 'meta', `${bundle}.json`), 'utf8')) as Metafile;
    const output = Object.values(meta.outputs).find((o) => o.entryPoint);
    assert.ok(output, `${bundle}.json has the bundle's output`);
    // Code in the output, not modules whose only contribution was types; paths from the
    // repository (esbuild names the staged links' targets relative to the stage).
    inputs[bundle] = new Set(Object.entries(output.inputs).filter(([, i]) => i.bytesInOutput > 0).map(([path]) => relative(ROOT, resolve(stage, path))));
  }
});

after(() => rmSync(stage, { recursive: true, force: true }));

test('the lazy features are the folders src/ui/transcripts and src/ui/search, each built into dist/<folder>.js', () => {
  assert.deepEqual([...LAZY].sort(), Object.keys(MAY_IMPORT).sort());
});

test('extension.js holds of a lazy feature\'s folder only its register.ts, and loads the bundle by its file name', () => {
  const main = readFileSync(join(stage, 'dist', 'extension.js'), 'utf8');
  for (const bundle of LAZY) {
    const folder = `src/ui/${bundle}/`;
    assert.deepEqual([...inputs.extension].filter((m) => m.startsWith(folder) && m !== `${folder}register.ts`), [], `extension.js holds these of ${folder}`);
    assert.ok(inputs.extension.has(`${folder}register.ts`), `extension.js holds ${folder}register.ts`);
    assert.ok(existsSync(join(stage, 'dist', `${bundle}.js`)), `dist/${bundle}.js is built`);
    assert.ok(main.includes(`"${bundle}.js"`), `extension.js names ${bundle}.js to load it`);
  }
  // The lower layers' parts that only the lazy bundles use.
  assert.deepEqual([...inputs.extension].filter((m) => m.startsWith('src/search/')), [], 'extension.js holds none of the search index');
  assert.deepEqual([...inputs.extension].filter((m) => m.startsWith('src/transcript/') && !(m in MAY_SHARE)), [], 'extension.js holds of src/transcript/ only modules without state');
});

test('a lazy bundle holds its folder\'s code, never its register.ts, and of src/ui/ only the folders it may import', () => {
  for (const bundle of LAZY) {
    const folder = `src/ui/${bundle}/`;
    const carried = [...inputs[bundle]];
    assert.ok(inputs[bundle].has(`${folder}bundle.ts`), `dist/${bundle}.js is built from ${folder}bundle.ts`);
    assert.ok(!inputs[bundle].has(`${folder}register.ts`), `dist/${bundle}.js holds no copy of ${folder}register.ts`);
    // Every module of the folder with code (not only types) is in the bundle, except the stand-in.
    const own = readdirSync(join(ROOT, folder)).filter((f) => f.endsWith('.ts') && f !== 'register.ts').map((f) => `${folder}${f}`);
    const missing = own.filter((m) => !inputs[bundle].has(m) && /^\s*export\s+(?:async\s+)?(?:function|class|const|let)\b/m.test(readFileSync(join(ROOT, m), 'utf8')));
    assert.deepEqual(missing, [], `these modules of ${folder} have code but are not in dist/${bundle}.js`);
    const foreign = carried.filter((m) => uiFolder(m) !== undefined && !MAY_IMPORT[bundle].includes(uiFolder(m)!));
    assert.deepEqual(foreign, [], `dist/${bundle}.js carries these of ui/ folders it may not import`);
  }
});

test('the lazy bundles carry no module with state, and share with extension.js only modules without it', () => {
  for (const bundle of LAZY) {
    const carried = [...inputs[bundle]];
    assert.deepEqual(carried.filter((m) => MAIN_ONLY.includes(m) || m.includes('node_modules/vscode-jsonrpc')), [], `dist/${bundle}.js has its own copy of these`);
    const shared = carried.filter((m) => inputs.extension.has(m) && !(m in MAY_SHARE));
    assert.deepEqual(shared, [], `dist/${bundle}.js shares these with extension.js; add them to MAY_SHARE only when they hold no state`);
  }
});

test('the reducer has one copy on the extension host\'s side: dist/search.js carries no timeline, store or spill file of its own (the survey\'s loads are reduced in the line worker, or by dist/transcripts.js)', () => {
  const reducer = ['src/transcript/timeline.ts', 'src/transcript/entityStore.ts', 'src/transcript/spillFile.ts', 'src/transcript/spillCodec.ts', 'src/transcript/replayReduction.ts'];
  assert.deepEqual(reducer.filter((m) => inputs.search.has(m)), [], 'dist/search.js holds these');
  for (const m of reducer) assert.ok(inputs.transcripts.has(m), `dist/transcripts.js holds ${m}`);
});

test('.vscodeignore lets every extension bundle into the VSIX', () => {
  const ignore = readFileSync(join(ROOT, '.vscodeignore'), 'utf8').split('\n').map((l) => l.trim());
  for (const bundle of ['extension', 'searchWorker', 'lineWorker', ...LAZY]) {
    assert.ok(ignore.includes(`!dist/${bundle}.js`), `.vscodeignore has !dist/${bundle}.js`);
  }
});
