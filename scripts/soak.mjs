#!/usr/bin/env node
// The UI layer, run again and again on a loaded machine: flaky is broken, and a loaded machine
// is where it shows. Usage:
//   node scripts/soak.mjs [--runs N] [--throttle R] [--busy K] [layer…]
// runs `node scripts/test.mjs <layers>` (default: ui) N times (default 10) in a row, with the
// workbench page's CPU slowed R times (ACP_UI_CPU_THROTTLE, default 4) and K processes that keep
// a core busy each (default 1), and prints each run's counts and, last, `N of N runs passed`.
// It stops at the first failing run: that run's output says which test and why.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [value] = args.splice(i, 2).slice(1);
  if (value === undefined || !/^\d+$/.test(value)) {
    console.error(`${name} takes a whole number`);
    process.exit(2);
  }
  return Number(value);
};
const runs = option('--runs', 10);
const throttle = option('--throttle', 4);
const busy = option('--busy', 1);
const layers = args.length ? args : ['ui'];

// A core kept busy: the load CI's machine may have beside the suite. It ends by itself once this
// script is gone (a busy loop handles no signal it is sent after a kill of its parent).
const BURN = `const parent = process.ppid; for (let i = 0; ; i++) if (i % 1e8 === 0 && process.ppid !== parent) process.exit();`;
const burners = Array.from({ length: busy }, () => spawn(process.execPath, ['-e', BURN], { stdio: 'ignore' }));
const stopBurners = () => burners.forEach((b) => b.kill('SIGKILL'));
process.on('exit', stopBurners);
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

let passed = 0;
for (let run = 1; run <= runs; run++) {
  const started = Date.now();
  const { code, last } = await new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'test.mjs'), ...layers], {
      cwd: ROOT,
      env: { ...process.env, ACP_UI_CPU_THROTTLE: String(throttle) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let tail = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      tail = (tail + chunk).slice(-2000);
    });
    child.on('exit', (exitCode) => resolve({ code: exitCode ?? 1, last: tail.trim().split('\n').pop() }));
  });
  const minutes = ((Date.now() - started) / 60000).toFixed(1);
  console.log(`\nsoak run ${run}/${runs} (${layers.join(' ')}, CPU slowed ${throttle}x, ${busy} busy core${busy === 1 ? '' : 's'}): ${last} in ${minutes} min`);
  if (code !== 0) break;
  passed++;
}
stopBurners();
console.log(`${passed} of ${runs} runs passed`);
process.exit(passed === runs ? 0 : 1);
