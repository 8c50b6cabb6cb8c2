// The shipping build, staged apart from the working tree: the repository's own esbuild.mjs
// run with --production in out/bench/stage (so dist/ of the tree, which the tests use, is
// left alone), plus what the VSIX carries. Figures 3, 4 and 6 use these bundles.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, log } from './lib';

export const STAGE = join(ROOT, 'out/bench/stage');
export const VSIX = join(STAGE, 'acp-sessions.vsix');
export const PROD_WEBVIEW = join(STAGE, 'dist/webview/transcript.js');
export const PROD_EXTENSION = join(STAGE, 'dist/extension.js');

function run(command: string, argv: string[], cwd: string): void {
  const r = spawnSync(command, argv, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
}

/** Builds the production bundles and the VSIX into STAGE, from the tree as it is now. */
export function buildStage(): void {
  rmSync(STAGE, { recursive: true, force: true });
  mkdirSync(STAGE, { recursive: true });
  // esbuild.mjs reads src/ and node_modules/ relative to its working directory.
  for (const name of ['src', 'node_modules', 'tsconfig.json']) symlinkSync(join(ROOT, name), join(STAGE, name));
  run(process.execPath, [join(ROOT, 'esbuild.mjs'), '--production'], STAGE);
  for (const name of ['src', 'node_modules', 'tsconfig.json']) rmSync(join(STAGE, name));

  // What vsce packages: the manifest (its prepublish build already ran above) and the files
  // that .vscodeignore lets through.
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  delete manifest.scripts?.['vscode:prepublish'];
  writeFileSync(join(STAGE, 'package.json'), JSON.stringify(manifest, null, 2));
  // The manifest's strings (`%…%`) and the extension's translations come from the nls files.
  const nls = readdirSync(ROOT).filter((name) => /^package\.nls(\..+)?\.json$/.test(name));
  for (const name of ['.vscodeignore', 'README.md', 'CHANGELOG.md', 'LICENSE', 'LICENSE.md', 'media', 'l10n', ...nls]) {
    if (existsSync(join(ROOT, name))) cpSync(join(ROOT, name), join(STAGE, name), { recursive: true });
  }
  try {
    run(process.execPath, [join(ROOT, 'node_modules/@vscode/vsce/vsce'), 'package', '--no-dependencies', '--skip-license', '--out', VSIX], STAGE);
  } catch (error) {
    log(`stage: vsce could not package: ${(error as Error).message.slice(0, 600)}`);
  }
}

export function sizeKB(file: string): number | undefined {
  return existsSync(file) ? statSync(file).size / 1024 : undefined;
}
