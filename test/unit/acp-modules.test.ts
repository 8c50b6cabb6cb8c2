// The shape of src/acp: types.ts imports none of its modules, and the JetBrains AIR wire form
// lives in jetbrainsAir.ts alone. (No import circle anywhere in src/: test/unit/imports.test.ts.)
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The tests run bundled from out/test/unit/; the sources are found from the repository root.
function repositoryRoot(): string {
  let dir = fileURLToPath(new URL('.', import.meta.url));
  for (;;) {
    try {
      // out/src/acp holds the built line worker: the repository is where the sources are.
      readFileSync(join(dir, 'src', 'acp', 'types.ts'));
      return dir;
    } catch {
      const parent = join(dir, '..');
      if (parent === dir) throw new Error('src/acp not found above the test file');
      dir = parent;
    }
  }
}

const ACP = join(repositoryRoot(), 'src', 'acp');
const modules = new Map(
  readdirSync(ACP)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => [name.slice(0, -3), readFileSync(join(ACP, name), 'utf8')] as const),
);

/** The modules of this folder a module imports or re-exports (type-only ones too). */
function localImports(source: string): string[] {
  return [...source.matchAll(/^(?:import|export)\b[^;]*?from '\.\/([^']+)'/gms)].map((m) => m[1]);
}

test('types.ts holds the protocol types and imports nothing of src/acp', () => {
  assert.deepEqual(localImports(modules.get('types')!), []);
});

test('the JetBrains AIR wire form (methods, _meta keys) is spelt in jetbrainsAir.ts only', () => {
  for (const [name, source] of modules) {
    if (name === 'jetbrainsAir') continue;
    const code = source.replace(/^\s*(\/\/|\*|\/\*).*$/gm, '');
    assert.doesNotMatch(code, /'_session\/|jetbrains: \{|\.jetbrains\b|'jetbrains'/, `${name}.ts spells the AIR wire form`);
  }
});
