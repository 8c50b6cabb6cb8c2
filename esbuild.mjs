// Builds the extension (cjs, node), the transcript webview (iife, browser) and, with --tests,
// the test and benchmark programs into out/. `--production` minifies; `--watch` rebuilds;
// `--metafile=<dir>` writes each extension bundle's esbuild metafile there (test/unit/bundles.test.ts).
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');
const withTests = args.has('--tests');
// `--only=<text>` builds just the test entry points whose path contains <text> (and skips the
// extension bundles unless --with-extension), so one part can be rebuilt while another is broken.
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const metafileDir = process.argv.find((a) => a.startsWith('--metafile='))?.slice('--metafile='.length);

/** Reports build results the way VS Code's esbuild problem matcher expects. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      console.log('[watch] build finished');
    });
  },
};

const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? 'external' : 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  plugins: watch ? [problemMatcher] : [],
};

/** Files under `dir` (recursively) whose name ends with one of `suffixes`. */
function files(dir, suffixes) {
  let found = [];
  let entries;
  try { entries = readdirSync(dir); } catch { return found; }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found = found.concat(files(path, suffixes));
    else if (suffixes.some((s) => name.endsWith(s))) found.push(path);
  }
  return found;
}

/** The extension host's bundles: CommonJS for Node, `vscode` provided by the host. */
const extensionHost = { ...common, format: 'cjs', platform: 'node', target: 'node18', external: ['vscode'] };

// What the extension host loads. extension.js is read before anything shows (activation), so it
// holds only what activation needs: the agents, the Sessions tree and its commands (src/ui/sessions/,
// src/ui/common/), and of each other feature its `register.ts`: what VS Code needs at once, with a
// stand-in that loads the rest on first use with a `require` of a path made at run time
// (src/ui/common/lazyBundle.ts), which esbuild leaves alone. Each such feature is one folder of
// src/ui/ with a `bundle.ts`, its bundle's entry: src/ui/<feature>/bundle.ts -> dist/<feature>.js.
// Today: dist/transcripts.js (the transcript panels, the host's timeline and webview feed, walking
// by prompts, Export Sessions) and dist/search.js (the index, the indexer, the Search view's
// provider, the query box and filters; with its own copy of the transcript reducer, which has no
// state, to index the sessions it loads).
// Each bundle has its own copy of what it imports, so the bundles share only modules without state
// (pure functions, constants, types); what exists once (the walkthrough's progress, the display
// language's words, classes that `instanceof` checks) is handed over by the register functions
// (src/ui/transcripts/hostParts.ts). test/unit/bundles.test.ts holds the bundles to that.
const lazyFeatures = readdirSync('src/ui').filter((name) => {
  try { return statSync(join('src/ui', name, 'bundle.ts')).isFile(); } catch { return false; }
});
const extensionBundles = [
  { ...extensionHost, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' },
  ...lazyFeatures.map((name) => ({ ...extensionHost, entryPoints: [join('src/ui', name, 'bundle.ts')], outfile: `dist/${name}.js` })),
];

const builds = [
  ...extensionBundles,
  {
    // The search index's worker thread (src/search/encoder.ts starts it by this file's path).
    ...common,
    entryPoints: ['src/search/indexWorker.ts'],
    outfile: 'dist/searchWorker.js',
    format: 'cjs',
    platform: 'node',
    target: 'node18',
  },
  {
    // Each agent connection's line worker (src/acp/ndjson.ts starts it by this file's path).
    ...common,
    entryPoints: ['src/transcript/lineWorkerMain.ts'],
    outfile: 'dist/lineWorker.js',
    format: 'cjs',
    platform: 'node',
    target: 'node18',
  },
  {
    ...common,
    entryPoints: ['src/webview/main.ts'],
    outfile: 'dist/webview/transcript.js',
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
  },
  {
    // markdown-it for the transcript, loaded by transcript.js when its first Markdown pass is due
    // (src/webview/markdownLoader.ts): the first screen does not wait for it.
    ...common,
    entryPoints: ['src/webview/markdownScript.ts'],
    outfile: 'dist/webview/markdown.js',
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
  },
];

if (withTests) {
  const node = {
    ...common,
    minify: false,
    sourcemap: 'inline',
    platform: 'node',
    target: 'node20',
    outbase: '.',
    outdir: 'out',
    packages: 'external',
  };
  builds.push(
    // Unit tests, benchmarks and scripts: plain Node, ESM so that the ESM-only SDK loads.
    {
      ...node,
      format: 'esm',
      outExtension: { '.js': '.mjs' },
      entryPoints: [
        ...files('test/unit', ['.test.ts']),
        ...files('test/ui', ['.test.ts']),
        // (test/interop/integration runs inside the extension host: built as CommonJS below.)
        ...files('test/interop', ['.test.ts']).filter((f) => !f.includes(join('test', 'interop', 'integration'))),
        ...files('test/agent', ['agent.ts', 'seed.ts']),
        ...files('bench', ['.bench.ts', 'run.ts']),
        // The search index's worker, for the engine's tests and benchmark (out/src/search/indexWorker.mjs).
        'src/search/indexWorker.ts',
        // The line worker, for the client's tests and benchmarks (out/src/transcript/lineWorkerMain.mjs).
        'src/transcript/lineWorkerMain.ts',
      ],
    },
    // Integration tests run inside the extension host, which loads CommonJS.
    {
      ...node,
      format: 'cjs',
      external: ['vscode'],
      packages: 'external',
      entryPoints: [...files('test/integration', ['.ts']), ...files(join('test', 'interop', 'integration'), ['.ts'])],
    },
  );
}

if (only) {
  for (const b of builds) {
    if (Array.isArray(b.entryPoints) && b.outdir) b.entryPoints = b.entryPoints.filter((e) => e.includes(only));
  }
  const keep = builds.filter((b) => b.outdir ? b.entryPoints.length > 0 : args.has('--with-extension'));
  builds.length = 0;
  builds.push(...keep);
}

function copyCodicons() {
  mkdirSync('dist/codicons', { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) {
    cpSync(join('node_modules/@vscode/codicons/dist', f), join('dist/codicons', f));
  }
}

/**
 * Removes a built test whose source is gone (a test renamed or deleted): the runners run every
 * built file under out/test, so an old build would run on, passing or failing, as if it were there.
 */
function pruneBuiltTests() {
  for (const built of files(join('out', 'test'), ['.mjs', '.js'])) {
    if (!existsSync(built.slice('out/'.length).replace(/\.m?js$/, '.ts'))) rmSync(built, { force: true });
  }
}

copyCodicons();
if (withTests && !only) pruneBuiltTests();
if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  if (metafileDir) for (const b of extensionBundles) b.metafile = true;
  const results = await Promise.all(builds.map((b) => esbuild.build(b)));
  if (metafileDir) {
    mkdirSync(metafileDir, { recursive: true });
    builds.forEach((b, i) => {
      if (b.metafile) writeFileSync(join(metafileDir, `${basename(b.outfile, '.js')}.json`), JSON.stringify(results[i].metafile));
    });
  }
}
