// The imports of src/, read from the sources: every relative import and re-export (type-only
// ones and `import(…)` types too) of every .ts file, resolved to its file. They run without a
// circle anywhere; the ui/ feature folders import only below them (search -> transcripts ->
// sessions -> common); the layers under ui/ (acp, sessions, transcript, search, webview) import
// nothing of ui/ nor `vscode`; the two models, sessions/ and transcript/, import nothing of each
// other. (node ../shared/tools/imports.mjs reads the same graph; this test fails on what it prints.)
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The tests run bundled from out/test/unit/; the sources are found from the repository root.
const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** A path as the messages and rules write it: from the repository root, with '/'. */
const repoPath = (path: string) => relative(ROOT, path).split(sep).join('/');

/** The .ts files under `dir`, recursively, as repository paths. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? tsFiles(path) : name.endsWith('.ts') ? [repoPath(path)] : [];
    });
}

/**
 * What a module imports, as written: `import … from`, `export … from` (re-exports), bare
 * `import '…'`, `import('…')` (a type or a dynamic import) and `require('…')`. Static statements
 * count where they begin a line, so an import quoted in a comment does not; the others anywhere
 * but in a line comment or a doc comment's line.
 */
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/^[ \t]*(?:import|export)\b[^;'"`]*?\bfrom\s*(['"])(.+?)\1/gm)) found.push(m[2]);
  for (const m of source.matchAll(/^[ \t]*import\s*(['"])(.+?)\1/gm)) found.push(m[2]);
  for (const line of source.split('\n')) {
    if (/^\s*(\/\/|\*|\/\*)/.test(line)) continue;
    for (const m of line.matchAll(/\b(?:import|require)\(\s*(['"])(.+?)\1\s*\)/g)) found.push(m[2]);
  }
  return found;
}

const FILES = tsFiles(join(ROOT, 'src'));
const KNOWN = new Set(FILES);

/** The src/ module a relative specifier names (`./x`, `./x.js`, `./x/index`), or undefined. */
function resolveModule(from: string, specifier: string): string | undefined {
  const base = posix.join(posix.dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}/index.ts`, base.replace(/\.(m?js)$/, '.ts')];
  return candidates.find((c) => KNOWN.has(c));
}

interface Module {
  /** The src/ modules it imports (relative specifiers resolved). */
  readonly local: readonly string[];
  /** Its packages and built-ins, as written (`vscode`, `node:fs`). */
  readonly bare: readonly string[];
  /** Relative specifiers that name no module of src/ and no file. */
  readonly unresolved: readonly string[];
}

const MODULES = new Map<string, Module>(
  FILES.map((file) => {
    const local = new Set<string>();
    const bare: string[] = [];
    const unresolved: string[] = [];
    for (const specifier of specifiersOf(readFileSync(join(ROOT, file), 'utf8'))) {
      if (!specifier.startsWith('.')) {
        bare.push(specifier);
        continue;
      }
      const target = resolveModule(file, specifier);
      if (target !== undefined) {
        if (target !== file) local.add(target);
      } else if (!existsSync(join(ROOT, dirname(file), specifier))) unresolved.push(specifier);
    }
    return [file, { local: [...local].sort(), bare, unresolved }] as const;
  }),
);

/** Every arrow `from -> to` between modules of src/. */
const ARROWS = [...MODULES].flatMap(([from, m]) => m.local.map((to) => ({ from, to })));

/** The import circles: each group of modules that reach each other (Tarjan's strongly connected components). */
function circles(): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of MODULES.get(v)!.local) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const file of FILES) if (!index.has(file)) visit(file);
  return groups;
}

/** One shortest way round a circle's group, from its first module back to it. */
function wayRound(group: readonly string[]): string[] {
  const inGroup = new Set(group);
  const start = group[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of MODULES.get(v)!.local) {
      if (!inGroup.has(w)) continue;
      if (w === start) {
        const way: string[] = [];
        for (let u = v; u !== start; u = cameFrom.get(u)!) way.unshift(u);
        return [start, ...way, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...group, start];
}

/** The ui/ feature folders, lowest first, and the ones each may import. */
const FEATURES: Record<string, readonly string[]> = {
  common: [],
  sessions: ['common'],
  transcripts: ['sessions', 'common'],
  search: ['transcripts', 'sessions', 'common'],
};

/** The ui/ feature folder of a module, '' for a module of src/ui outside them, undefined outside src/ui. */
function featureOf(file: string): string | undefined {
  if (!file.startsWith('src/ui/')) return undefined;
  const folder = file.split('/')[2];
  return folder in FEATURES && file.split('/').length > 3 ? folder : '';
}

/** The layers under ui/: they run under plain Node (or in the webview), without VS Code. */
const BELOW_UI = ['src/acp/', 'src/sessions/', 'src/transcript/', 'src/search/', 'src/webview/', 'src/changes/'];

test('the sources are read: src/ has modules and every relative import resolves', () => {
  assert.ok(FILES.length > 50 && ARROWS.length > 100, `${FILES.length} modules, ${ARROWS.length} arrows: the test reads src/ wrong`);
  const unresolved = [...MODULES].flatMap(([file, m]) => m.unresolved.map((s) => `${file}: '${s}'`));
  assert.deepEqual(unresolved, []);
});

test('src/ has no import circle (type-only imports and re-exports count)', () => {
  const found = circles().map((group) => `import circle: ${wayRound(group).join(' -> ')}${group.length > 2 ? ` (the circle's modules: ${group.join(', ')})` : ''}`);
  assert.deepEqual(found, []);
});

test('src/ui holds the four feature folders and nothing beside them', () => {
  assert.deepEqual(FILES.filter((f) => featureOf(f) === ''), []);
});

test('ui/ feature folders import only below them: search -> transcripts -> sessions -> common', () => {
  const back = ARROWS.filter(({ from, to }) => {
    const a = featureOf(from);
    const b = featureOf(to);
    return a && b && a !== b && !FEATURES[a].includes(b);
  }).map(({ from, to }) => `arrow back up: ${from} -> ${to}`);
  assert.deepEqual(back, []);
});

test('acp, sessions, transcript, search, webview and changes import nothing of src/ui nor vscode', () => {
  const wrong: string[] = [];
  for (const [file, m] of MODULES) {
    if (!BELOW_UI.some((layer) => file.startsWith(layer))) continue;
    for (const to of m.local) if (to.startsWith('src/ui/')) wrong.push(`${file} -> ${to}`);
    for (const name of m.bare) if (name === 'vscode' || name.startsWith('vscode/')) wrong.push(`${file} -> '${name}'`);
  }
  assert.deepEqual(wrong, []);
});

test('the two models, src/sessions and src/transcript, import nothing of each other', () => {
  const crossing = ARROWS.filter(
    ({ from, to }) => (from.startsWith('src/sessions/') && to.startsWith('src/transcript/')) || (from.startsWith('src/transcript/') && to.startsWith('src/sessions/')),
  ).map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(crossing, []);
});
