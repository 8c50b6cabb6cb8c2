// `npm run l10n`: extracts every user-visible string into l10n/bundle.l10n.json with
// @vscode/l10n-dev (the host's `vscode.l10n.t` calls and the webview's `t` calls, which reach the
// webview through the host's bundle), then says which translation lacks or keeps what.
// `--check` writes nothing and exits 1 when l10n/bundle.l10n.json is not up to date.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getL10nJson } from '@vscode/l10n-dev';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const files = tsFiles(join(root, 'src')).map((file) => {
  let contents = readFileSync(file, 'utf8');
  // l10n-dev finds `l10n.t(…)` of @vscode/l10n; the webview calls its own `t(…)` (src/webview/l10n.ts), same form.
  if (relative(root, file).startsWith(join('src', 'webview'))) {
    contents = `import * as l10n from '@vscode/l10n';\n${contents.replace(/(?<![\w$.])t\(/g, 'l10n.t(')}`;
  }
  return { contents, extension: '.ts' };
});
const extracted = await getL10nJson(files);
const sorted = Object.fromEntries(Object.keys(extracted).sort().map((k) => [k, extracted[k]]));
const text = `${JSON.stringify(sorted, null, 2)}\n`;
const bundlePath = join(root, 'l10n', 'bundle.l10n.json');
let failed = false;
if (check) {
  let old = '';
  try { old = readFileSync(bundlePath, 'utf8'); } catch { /* missing counts as stale */ }
  if (old !== text) {
    console.error('l10n/bundle.l10n.json is out of date: run npm run l10n');
    failed = true;
  }
} else {
  writeFileSync(bundlePath, text);
  console.log(`l10n/bundle.l10n.json: ${Object.keys(sorted).length} strings`);
}

// Each translation against its source: missing keys, keys no longer used, placeholders that differ.
const placeholders = (s) => [...String(s).matchAll(/\{\d+\}/g)].map((m) => m[0]).sort().join();
const sources = [
  ['l10n', 'bundle.l10n', sorted],
  ['.', 'package.nls', JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8'))],
];
for (const [dir, stem, source] of sources) {
  for (const name of readdirSync(join(root, dir)).filter((n) => n.startsWith(`${stem}.`) && n !== `${stem}.json` && n.endsWith('.json'))) {
    const translation = JSON.parse(readFileSync(join(root, dir, name), 'utf8'));
    const missing = Object.keys(source).filter((k) => !(k in translation));
    const unused = Object.keys(translation).filter((k) => !(k in source));
    const mismatched = Object.keys(source).filter((k) => k in translation && placeholders(typeof source[k] === 'string' ? source[k] : source[k].message) !== placeholders(translation[k]));
    for (const [what, keys] of [['missing', missing], ['unused', unused], ['with other placeholders', mismatched]]) {
      if (keys.length) {
        console.error(`${join(dir, name)}: ${keys.length} ${what}:\n  ${keys.map((k) => JSON.stringify(k)).join('\n  ')}`);
        failed = failed || check;
      }
    }
  }
}
process.exitCode = failed ? 1 : 0;
