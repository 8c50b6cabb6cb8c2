// Localization: every user-visible string is extracted (npm run l10n), the German translation
// covers every one of them with the same placeholders, and the manifest's %keys% all resolve.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const json = (...path: string[]) => JSON.parse(readFileSync(join(ROOT, ...path), 'utf8')) as Record<string, unknown>;

test('l10n/bundle.l10n.json holds exactly the strings of the sources, and each translation all of them with the same placeholders', () => {
  const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'l10n.mjs'), '--check'], { encoding: 'utf8' });
  assert.equal(run.status, 0, `npm run l10n -- --check:\n${run.stdout}${run.stderr}`);
});

test('every %key% of package.json is in package.nls.json and package.nls.de.json', () => {
  const manifest = readFileSync(join(ROOT, 'package.json'), 'utf8');
  const keys = [...manifest.matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]);
  assert.ok(keys.length > 40, 'the manifest is localized');
  for (const file of ['package.nls.json', 'package.nls.de.json']) {
    const nls = json(file);
    for (const key of keys) assert.equal(typeof nls[key], 'string', `${file} lacks ${key}`);
  }
});

test('the German translation is German, not a copy of the English', () => {
  const en = json('l10n', 'bundle.l10n.json');
  const de = json('l10n', 'bundle.l10n.de.json');
  const same = Object.keys(en).filter((k) => de[k] === k && /[a-z]{4,}/.test(k.replace(/\{\d+\}/g, '')));
  // Words that are the same in both languages (Agent, Plan, Terminal, Audio, …) are few.
  assert.ok(same.length < 12, `untranslated: ${same.join(' | ')}`);
  assert.equal(de['Archived'], 'Archiviert');
});
