// `npm run bench`: builds the benchmark programs (and the reference agent they start), then
// runs bench/run.ts. All arguments pass through (see bench/README.md).
// Only the result (the table, or with --json the one JSON array) goes to stdout: bench/run.ts
// runs with its own stdout on our stderr and writes the result to fd 3, our stdout. So whatever
// a set-up step prints (apt-get and dpkg fetching the fonts, esbuild, vsce, a child process that
// inherits stdout) lands on stderr, on a first run too. (`npm run` itself prints its two-line
// banner on stdout before any of this: `npm run -s bench -- --json` leaves it out.)
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;

function run(argv) {
  const r = spawnSync(node, argv, { cwd: root, stdio: ['ignore', 2, 'inherit', 1], env: { ...process.env, ACP_BENCH_RESULT_FD: '3' } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Build output goes to stderr so that `--json` keeps stdout to the one JSON array.
for (const only of ['bench', 'test/agent', 'src/search/indexWorker', 'src/transcript/lineWorkerMain']) {
  const r = spawnSync(node, ['esbuild.mjs', '--tests', `--only=${only}`], { cwd: root, stdio: ['ignore', 2, 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
run([join(root, 'out/bench/run.mjs'), ...process.argv.slice(2)]);
