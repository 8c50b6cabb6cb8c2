// The test host's nested installs, run the way a newcomer runs them: from inside an npm script
// (`npm test`, `npm run demo`), into an empty cache, with Node 24 first on PATH. The outer npm
// (Node 20 here) exports its own state as npm_* variables; a nested install that inherits them
// describes itself as the outer npm, and code-server's postinstall then refused Node 24 as
// "node v20" (issue 10). The fixture's postinstall makes code-server's very check.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const HOST = join(ROOT, 'test', 'host');

/** A package with no dependencies whose postinstall records what the install saw. */
function fixturePackage(dir: string, record: string): void {
  mkdirSync(dir, { recursive: true });
  // code-server's postinstall.sh reads the major version from npm_config_user_agent this way.
  const check = [
    'const agent = process.env.npm_config_user_agent ?? "";',
    'const fromAgent = (agent.match(/node\\/v(\\d+)/) ?? [])[1];',
    `require("fs").writeFileSync(${JSON.stringify(record)}, JSON.stringify({ agent, fromAgent, node: process.versions.node }));`,
    'if (fromAgent !== process.versions.node.split(".")[0]) { console.error("requires node v" + process.versions.node + ", detected node v" + fromAgent); process.exit(1); }',
  ].join(' ');
  const pkg = { name: 'acp-host-fixture', version: '1.0.0', private: true, scripts: { postinstall: `node -e '${check}'` } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({
    name: pkg.name, version: pkg.version, lockfileVersion: 3, requires: true,
    packages: { '': { name: pkg.name, version: pkg.version } },
  }, null, 2));
}

test('a nested install run from inside an npm script describes the Node it runs on, not the outer npm\'s', async () => {
  const { ensureNode24 } = (await import(pathToFileURL(join(HOST, 'setup.mjs')).href)) as { ensureNode24(): string };
  const node24 = ensureNode24();
  const work = mkdtempSync(join(tmpdir(), 'acp-host-setup-'));
  try {
    const record = join(work, 'seen.json');
    fixturePackage(join(work, 'fixture'), record);
    // The outer project: an npm script that installs the fixture as setup.mjs installs code-server.
    const outer = join(work, 'outer');
    mkdirSync(outer);
    writeFileSync(join(outer, 'install.mjs'), `
      import { dirname, join } from 'node:path';
      import { npmCiOnce } from ${JSON.stringify(pathToFileURL(join(HOST, 'npmCache.mjs')).href)};
      const node24 = ${JSON.stringify(node24)};
      npmCiOnce({
        from: ${JSON.stringify(join(work, 'fixture'))},
        target: join(${JSON.stringify(join(work, 'empty-cache'))}, 'fixture-1.0.0'),
        fingerprint: 'fixture',
        label: 'the fixture',
        say: (m) => console.error(m),
        env: { ...process.env, PATH: dirname(node24) + ':' + process.env.PATH },
        npmConfig: { npm_config_yes: 'true' },
      });
    `);
    writeFileSync(join(outer, 'package.json'), JSON.stringify({ name: 'outer', version: '1.0.0', private: true, scripts: { nested: 'node install.mjs' } }));
    const run = spawnSync('npm', ['run', 'nested'], { cwd: outer, encoding: 'utf8' });
    const seen = JSON.parse(readFileSync(record, 'utf8')) as { agent: string; fromAgent: string; node: string };
    assert.equal(run.status, 0, `npm run nested failed:\n${run.stderr}`);
    assert.equal(seen.node.split('.')[0], '24', 'the install scripts run on Node 24');
    assert.equal(seen.fromAgent, '24', `the nested npm's user agent names Node 24 (was "${seen.agent}")`);
    assert.match(readFileSync(join(work, 'empty-cache', 'fixture-1.0.0', '.acp-sessions-installed'), 'utf8'), /fixture/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('the oldest test host runs the oldest VS Code that engines.vscode claims, and its API types match', async () => {
  const { HOSTS } = (await import(pathToFileURL(join(HOST, 'setup.mjs')).href)) as { HOSTS: Record<string, { vscode: string }> };
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    engines: { vscode: string }; devDependencies: Record<string, string>;
  };
  const minor = (version: string) => version.replace(/^\^/, '').split('.').slice(0, 2).join('.');
  // `node scripts/test.mjs integration-oldest` runs the integration suite in HOSTS.oldest.
  assert.equal(minor(HOSTS.oldest.vscode), minor(pkg.engines.vscode), 'engines.vscode and the oldest host name one VS Code');
  assert.equal(minor(pkg.devDependencies['@types/vscode']), minor(pkg.engines.vscode), '@types/vscode allows only the API of engines.vscode');
});
