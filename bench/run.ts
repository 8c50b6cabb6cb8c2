// Runs the figure programs (each in its own process, several times), then prints the table or
// one JSON array, and writes the table into bench/README.md after a full run.
//   --only=1,3 | --only=ingest   some figures      --runs=N   runs per figure
//   --json                       JSON on stdout    --scale=0.1 smaller inputs (not for the README)
//   --readme                     after --only: update these figures in bench/README.md's table
//   --system-fonts               the browser figures with the system's fonts only (by default
//                                with Debian's CJK and emoji fonts added, as a desktop has)
//   --help                       this list and the figures, nothing run (it used to run every
//                                figure and rewrite the README); other options pass to the figures
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { ROOT, args, benchFontconfig, median, type Measurement } from './lib';
import { buildStage } from './stage';

interface Figure {
  id: string;
  name: string;
  script: string;
  nodeArgs?: string[];
  /** Arguments of the figure program itself. */
  args?: string[];
  /** Runs when --runs is not given (the real-VS-Code figures are slow to start). */
  defaultRuns: number;
}

const FIGURES: Figure[] = [
  { id: '1', name: 'ingest', script: 'ingest.bench.mjs', defaultRuns: 5 },
  { id: '2', name: 'messages', script: 'messages.bench.mjs', defaultRuns: 1 },
  { id: '3', name: 'render', script: 'render.bench.mjs', defaultRuns: 5 },
  { id: '4', name: 'streaming', script: 'streaming.bench.mjs', defaultRuns: 5 },
  { id: '5', name: 'listing', script: 'listing.bench.mjs', defaultRuns: 3 },
  { id: '6', name: 'size', script: 'size.bench.mjs', defaultRuns: 3 },
  { id: '7', name: 'memory', script: 'memory.bench.mjs', nodeArgs: ['--expose-gc'], defaultRuns: 3 },
  // One run of several rounds (e2e.bench.ts: floor session and each size in turn, medians over the rounds).
  { id: '8', name: 'e2e', script: 'e2e.bench.mjs', nodeArgs: ['--experimental-websocket'], args: ['--figure=8'], defaultRuns: 1 },
  // 200,000 chunks (and 2,000,000 with --huge: six minutes per run and ~0.9 GB RSS in the extension host).
  { id: '9', name: 'e2e-long', script: 'e2e.bench.mjs', nodeArgs: ['--experimental-websocket'], args: ['--figure=9'], defaultRuns: 1 },
  // Search Sessions (issue 23): figure 1's replay indexed, and a corpus of 1,000 sessions (200 M characters) queried.
  { id: '10', name: 'search', script: 'search.bench.mjs', nodeArgs: ['--expose-gc', '--max-old-space-size=4096'], args: ['--figure'], defaultRuns: 3 },
];

export interface Row {
  figure: string;
  name: string;
  value: number;
  unit: string;
  floor: number | null;
  ratio: number | null;
  goal: number | null;
  goalOn: 'ratio' | 'value';
  met: boolean | null;
  min: number;
  max: number;
  runs: number;
  peer?: number;
  peerName?: string;
  peerRatio?: number;
  detail?: Record<string, number | string>;
}

/**
 * Writes the result (the table or the JSON array): to fd 3 when bench/run.mjs started us (our
 * own stdout is then its stderr, where every set-up step's output goes), else to stdout.
 */
async function result(text: string): Promise<void> {
  const fd = Number(process.env.ACP_BENCH_RESULT_FD);
  if (!(fd > 2)) {
    await new Promise<void>((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
    return;
  }
  const out = createWriteStream('', { fd, autoClose: false });
  await new Promise<void>((resolve, reject) => {
    out.once('error', reject);
    out.end(text, () => resolve());
  });
}

function runFigure(figure: Figure, passArgs: string[]): Promise<Measurement[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(figure.nodeArgs ?? []), join(ROOT, 'out/bench', figure.script), ...(figure.args ?? []), ...passArgs], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: ROOT,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code, signal) => {
      const lines = out.trim().split('\n');
      const last = lines.pop() ?? '';
      if (code === 0 && last.startsWith('[')) {
        try {
          const measurements = JSON.parse(last);
          // What else the figure printed on its stdout (a set-up step's output) is for a human: stderr.
          if (lines.some((l) => l.trim())) process.stderr.write(lines.join('\n') + '\n');
          return resolve(measurements);
        } catch {
          /* reported below */
        }
      }
      process.stderr.write(out);
      reject(new Error(`figure ${figure.id} (${figure.script}) ended with ${signal ?? code} and no result`));
    });
  });
}

function aggregate(runs: Measurement[][]): Row[] {
  const byName = new Map<string, Measurement[]>();
  for (const run of runs) for (const m of run) byName.set(m.name, [...(byName.get(m.name) ?? []), m]);
  const rows: Row[] = [];
  for (const [name, ms] of byName) {
    const first = ms[0];
    const values = ms.map((m) => m.value);
    const floors = ms.filter((m) => m.floor !== undefined).map((m) => m.floor!);
    // Each run's ratio is against the floor of the same run, so load drift cancels out.
    const ratios = ms.filter((m) => m.floor !== undefined && m.floor > 0).map((m) => m.value / m.floor!);
    const peers = ms.filter((m) => m.peer !== undefined);
    const value = median(values);
    const ratio = ratios.length ? median(ratios) : null;
    const judged = first.goalOn === 'ratio' ? ratio : value;
    rows.push({
      figure: first.figure,
      name,
      value,
      unit: first.unit,
      floor: floors.length ? median(floors) : null,
      ratio,
      goal: first.goal,
      goalOn: first.goalOn,
      met: first.goal === null || judged === null ? null : judged <= first.goal,
      min: Math.min(...values),
      max: Math.max(...values),
      runs: ms.length,
      ...(peers.length
        ? {
            peer: median(peers.map((m) => m.peer!)),
            peerName: first.peerName,
            peerRatio: median(peers.filter((m) => m.floor).map((m) => m.peer! / m.floor!)),
          }
        : {}),
      detail: ms[ms.length - 1].detail,
    });
  }
  return rows;
}

function fmt(n: number | null | undefined, unit = ''): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '';
  const abs = Math.abs(n);
  const s = abs >= 100 ? n.toFixed(0) : abs >= 10 ? n.toFixed(1) : abs >= 1 ? n.toFixed(2) : n.toFixed(3);
  return unit ? `${s} ${unit}` : s;
}

export function table(rows: Row[]): string {
  const header = ['figure', 'value (median, min–max)', 'floor / peer', 'ratio', 'goal', 'met?'];
  const lines = rows.map((r) => {
    const value =
      r.runs > 1 && r.min !== r.max ? `${fmt(r.value, r.unit)} (${fmt(r.min)}–${fmt(r.max)})` : fmt(r.value, r.unit);
    const floorPeer = [
      r.floor !== null ? `floor ${fmt(r.floor, r.unit)}` : '',
      r.peer !== undefined ? `${r.peerName ?? 'peer'} ${fmt(r.peer, r.unit)} (${fmt(r.peerRatio)}x)` : '',
    ]
      .filter(Boolean)
      .join('; ');
    const goal = r.goal === null ? '' : r.goalOn === 'ratio' ? `≤ ${r.goal}x` : `≤ ${fmt(r.goal, r.unit)}`;
    const met = r.met === null ? '' : r.met ? 'yes' : 'NO';
    return [`${r.figure} ${r.name}`, value, floorPeer, r.ratio === null ? '' : `${fmt(r.ratio)}x`, goal, met];
  });
  const all = [header, ...lines];
  const widths = header.map((_, i) => Math.max(...all.map((l) => l[i].length)));
  const row = (l: string[]) => '| ' + l.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  return [row(header), '| ' + widths.map((w) => '-'.repeat(w)).join(' | ') + ' |', ...lines.map(row)].join('\n');
}

function machine(): string {
  const model = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown';
  return `${cpus().length} cores (nproc), ${model}, Node ${process.version}, ${process.platform}`;
}

function writeReadme(rows: Row[], command: string): void {
  const file = join(ROOT, 'bench/README.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- bench:results -->';
  const end = '<!-- /bench:results -->';
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`bench/README.md has no ${start} … ${end} section`);
  const details = rows
    .filter((r) => r.detail && Object.keys(r.detail).length)
    .map((r) => `- ${r.figure} ${r.name}: ${Object.entries(r.detail!).map(([k, v]) => `${k} ${v}`).join(', ')}`)
    .join('\n');
  const block = [
    start,
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}, with \`${command}\`.`,
    '',
    table(rows),
    '',
    details,
    end,
  ].join('\n');
  writeFileSync(file, text.slice(0, i) + block + text.slice(j + end.length));
}

async function main() {
  const a = args();
  if (a.has('help')) {
    const usage = readFileSync(join(ROOT, 'bench/run.ts'), 'utf8').split('\n').filter((l) => l.startsWith('//')).map((l) => l.slice(3)).join('\n');
    await result(`${usage}\nFigures: ${FIGURES.map((f) => `${f.id}/${f.name}`).join(', ')}\n`);
    return;
  }
  const only = a.get('only')?.split(',');
  const selected = only
    ? FIGURES.filter((f) => only.includes(f.id) || only.includes(f.name))
    : FIGURES;
  if (selected.length === 0) throw new Error(`--only=${a.get('only')} names no figure (${FIGURES.map((f) => `${f.id}/${f.name}`).join(', ')})`);
  const runsArg = a.get('runs');
  const passArgs = process.argv.slice(2).filter((x) => !/^--(only|runs|json)(=|$)/.test(x));

  const rows: Row[] = [];
  const failures: string[] = [];
  // Figures 3, 4, 6 and 8 use the production build, staged once per invocation.
  if (selected.some((f) => ['3', '4', '6', '8', '9'].includes(f.id))) {
    process.stderr.write('[bench] building the production bundles and the VSIX into out/bench/stage\n');
    buildStage();
  }
  // The browser figures' fonts, fetched once here (each figure's process then finds them).
  if (selected.some((f) => ['3', '4', '8', '9'].includes(f.id))) {
    const fonts = await benchFontconfig();
    if (fonts) process.env.ACP_SESSIONS_FONTCONFIG = fonts;
    process.stderr.write(`[bench] the browser's fonts: ${fonts ? `the system's and Debian's CJK and emoji fonts (${fonts})` : "the system's only (--system-fonts)"}\n`);
  }
  for (const figure of selected) {
    const n = runsArg ? Number(runsArg) : figure.defaultRuns;
    const runs: Measurement[][] = [];
    for (let i = 0; i < n; i++) {
      process.stderr.write(`[bench] figure ${figure.id} ${figure.name}: run ${i + 1} of ${n}\n`);
      try {
        runs.push(await runFigure(figure, passArgs));
      } catch (error) {
        failures.push(String((error as Error).message));
        break;
      }
    }
    rows.push(...aggregate(runs));
  }

  if (a.has('json')) {
    await result(
      JSON.stringify(
        rows.map(({ figure, name, value, unit, floor, ratio, goal, ...rest }) => ({
          name: `${figure} ${name}`,
          value,
          unit,
          floor,
          ratio,
          goal,
          figure,
          ...rest,
        })),
      ) + '\n',
    );
  } else {
    await result(table(rows) + '\n' + (failures.length ? '\nFailed:\n' + failures.map((f) => `- ${f}`).join('\n') + '\n' : ''));
  }
  // The latest rows of every figure are kept, so that `--only=... --readme` can refresh some
  // figures of the README's table and keep the others.
  const full = !only && !a.has('scale') && failures.length === 0;
  if (!a.has('scale')) {
    const kept = join(ROOT, 'out/bench/latest.json');
    let latest: { rows: Row[]; commands: Record<string, string> } = { rows: [], commands: {} };
    try {
      latest = JSON.parse(readFileSync(kept, 'utf8'));
    } catch {
      /* first run */
    }
    const command = `npm run bench -- ${process.argv.slice(2).filter((x) => x !== '--readme' && x !== '--json').join(' ')}`.trim().replace(/ --$/, '');
    const ran = new Set(rows.map((r) => r.figure));
    latest.rows = [...latest.rows.filter((r) => !ran.has(r.figure)), ...rows].sort((x, y) => x.figure.localeCompare(y.figure, 'en', { numeric: true }));
    for (const f of ran) latest.commands[f] = command;
    writeFileSync(kept, JSON.stringify(latest));
    if (full || a.has('readme')) {
      const commands = [...new Set(Object.values(latest.commands))];
      writeReadme(latest.rows, commands.join('` and `'));
    }
  }
  if (failures.length) process.exitCode = 1;
}

await main();
