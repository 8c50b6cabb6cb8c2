// `npm run bench`: builds the benchmark programs (and the reference agent they start), then
// runs bench/run.ts. All arguments pass through (see bench/README.md).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;

function run(argv) {
  const r = spawnSync(node, argv, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Build output goes to stderr so that `--json` keeps stdout to the one JSON array.
for (const only of ['bench', 'test/agent', 'src/search/indexWorker']) {
  const r = spawnSync(node, ['esbuild.mjs', '--tests', `--only=${only}`], { cwd: root, stdio: ['ignore', 2, 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
run([join(root, 'out/bench/run.mjs'), ...process.argv.slice(2)]);
