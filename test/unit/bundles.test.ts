// The extension's bundles, as the production build makes them (esbuild.mjs --production, staged
// apart from dist/): extension.js, which VS Code reads before anything shows, holds none of the
// transcript or search code; the bundles loaded on first use carry no module with state of its
// own (a second copy would be a second walkthrough, untranslated words, another error class) and
// share with extension.js only the modules listed here; and the VSIX carries each of them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** Modules both extension.js and a lazy bundle may carry, and why that is safe. */
const MAY_SHARE: Record<string, string> = {
  'src/acp/errors.ts': 'only messageOf and isResourceNotFound, pure functions; the error classes come from src/ui/transcripts/hostParts.ts',
  'src/sessions/format.ts': 'pure functions; its words are the main bundle\'s, adopted with useFormatText',
  'src/sessions/cleanup.ts': 'pure rule matching',
  'src/sessions/resume.ts': 'pure template checks',
  'src/transcript/protocol.ts': 'constants and types',
  'src/ui/common/plainText.ts': 'pure text cleaning',
  'src/ui/common/messages.ts': 'a class whose instances hold the state; the recorder is handed over',
  'src/ui/sessions/resumeTerminal.ts': 'resumeTemplate only: reads the settings',
  'src/ui/common/settings.ts': 'reads the settings',
  'src/ui/common/rulePick.ts': 'quick pick steps, no state',
  'src/acp/validate.ts': 'pure checks of what an agent sent; its Problems are per call (the update log checks the lines it reads back as the client did)',
  'src/transcript/spillOwner.ts': 'how a spill file names its process, and the clean-up at activation: pure but for a memo of this process\'s start time, the same in every copy',
  'src/ui/transcripts/toolLinks.ts': 'ToolDiffs is made once, by extension.ts, and handed over in src/ui/transcripts/hostParts.ts; the rest are pure functions',
};

/** Modules with state, or classes `instanceof` checks across bundles: extension.js's alone. */
const MAIN_ONLY = [
  'src/ui/sessions/walkthrough.ts',
  'src/ui/l10n.ts',
  'src/ui/sessions/commandTargets.ts',
  'src/sessions/agentRegistry.ts',
  'src/sessions/sessionsModel.ts',
  'src/sessions/health.ts',
  'src/acp/client.ts',
  'src/ui/common/lazyBundle.ts',
];

/** What each lazy bundle is for: none of it may be in extension.js. */
const LAZY: Record<string, string[]> = {
  transcripts: ['src/ui/transcripts/transcriptPanel.ts', 'src/transcript/feed.ts', 'src/transcript/spillFile.ts', 'src/ui/transcripts/exportSessions.ts', 'src/ui/transcripts/transcriptWalk.ts'],
  search: ['src/ui/search/searchWiring.ts', 'src/ui/search/searchView.ts', 'src/search/searchIndex.ts', 'src/search/indexer.ts'],
};

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
  for (const bundle of ['extension', ...Object.keys(LAZY)]) {
    const meta = JSON.parse(readFileSync(join(stage, 'meta', `${bundle}.json`), 'utf8')) as Metafile;
    const output = Object.values(meta.outputs).find((o) => o.entryPoint);
    assert.ok(output, `${bundle}.json has the bundle's output`);
    // Code in the output, not modules whose only contribution was types; paths from the
    // repository (esbuild names the staged links' targets relative to the stage).
    inputs[bundle] = new Set(Object.entries(output.inputs).filter(([, i]) => i.bytesInOutput > 0).map(([path]) => relative(ROOT, resolve(stage, path))));
  }
});

after(() => rmSync(stage, { recursive: true, force: true }));

test('extension.js holds none of the transcripts\' or the search\'s code, and loads each bundle by its file name', () => {
  const main = readFileSync(join(stage, 'dist', 'extension.js'), 'utf8');
  for (const [bundle, modules] of Object.entries(LAZY)) {
    for (const module of modules) {
      assert.ok(inputs[bundle].has(module), `${module} is in dist/${bundle}.js`);
      assert.ok(!inputs.extension.has(module), `${module} is not in dist/extension.js`);
    }
    assert.ok(existsSync(join(stage, 'dist', `${bundle}.js`)), `dist/${bundle}.js is built`);
    assert.ok(main.includes(`"${bundle}.js"`), `extension.js names ${bundle}.js to load it`);
  }
});

test('the lazy bundles carry no module with state, and share with extension.js only modules without it', () => {
  for (const bundle of Object.keys(LAZY)) {
    const carried = [...inputs[bundle]];
    assert.deepEqual(carried.filter((m) => MAIN_ONLY.includes(m) || m.includes('node_modules/vscode-jsonrpc')), [], `dist/${bundle}.js has its own copy of these`);
    const shared = carried.filter((m) => inputs.extension.has(m) && !(m in MAY_SHARE));
    assert.deepEqual(shared, [], `dist/${bundle}.js shares these with extension.js; add them to MAY_SHARE only when they hold no state`);
  }
});

test('.vscodeignore lets every extension bundle into the VSIX', () => {
  const ignore = readFileSync(join(ROOT, '.vscodeignore'), 'utf8').split('\n').map((l) => l.trim());
  for (const bundle of ['extension', 'searchWorker', ...Object.keys(LAZY)]) {
    assert.ok(ignore.includes(`!dist/${bundle}.js`), `.vscodeignore has !dist/${bundle}.js`);
  }
});
