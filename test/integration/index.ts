// Runs every integration suite (out/test/integration/*.test.js) with mocha inside the real
// extension host. VS Code loads this module from `--extensionTestsPath` and calls `run()`.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

/** Counts the runner sums over layers, written to $ACP_INTEGRATION_RESULT and logged. */
export interface IntegrationResult {
  passed: number;
  failed: number;
  pending: number;
  failures: string[];
}

/**
 * Under test/host/launcher the workbench forwards its own logs along with ours; a marker on
 * every line mocha prints lets the launcher show only those. (The extension host's `console`
 * methods cannot be replaced, so mocha's own output function is.)
 */
const marker = process.env.ACP_EXT_TEST_MARKER ?? '';
const print = (...args: unknown[]) => console.log(marker + format(...args));

export function run(): Promise<void> {
  Mocha.reporters.Base.consoleLog = print;
  const mocha = new Mocha({
    ui: 'tdd',
    color: false,
    // A hang guard, not a speed limit: a test that waits this long is stuck, and saying which
    // one is better than a silent run.
    timeout: Number(process.env.ACP_INTEGRATION_TEST_TIMEOUT ?? 120_000),
    // Runs only the tests whose full title matches, e.g. ACP_INTEGRATION_GREP='Sessions tree'.
    ...(process.env.ACP_INTEGRATION_GREP ? { grep: process.env.ACP_INTEGRATION_GREP } : {}),
  });
  // ACP_INTEGRATION_FILES=hostile,chaos.test.js runs only those files (the long chaos run uses it).
  const only = process.env.ACP_INTEGRATION_FILES?.split(',').map((f) => f.trim()).filter(Boolean)
    .map((f) => (f.endsWith('.test.js') ? f : `${f}.test.js`));
  const files = readdirSync(__dirname).filter((f) => f.endsWith('.test.js') && (!only || only.includes(f)));
  // The foundation suite first: it checks that nothing activated the extension before it.
  files.sort((a, b) => Number(b === 'foundation.test.js') - Number(a === 'foundation.test.js') || a.localeCompare(b));
  for (const file of files) mocha.addFile(join(__dirname, file));

  return new Promise((resolve, reject) => {
    const result: IntegrationResult = { passed: 0, failed: 0, pending: 0, failures: [] };
    const runner = mocha.run((failures) => {
      const line = JSON.stringify(result);
      print(`INTEGRATION_RESULT ${line}`);
      if (process.env.ACP_INTEGRATION_RESULT) writeFileSync(process.env.ACP_INTEGRATION_RESULT, line);
      if (files.length === 0) reject(new Error(`no *.test.js files in ${__dirname}`));
      else if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    });
    runner.on('pass', () => { result.passed++; });
    runner.on('fail', (test) => { result.failed++; result.failures.push(test.fullTitle()); });
    runner.on('pending', () => { result.pending++; });
  });
}
