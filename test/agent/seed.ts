// Writes a realistic, deterministic session store for the reference agent: a few dozen
// sessions over the given folders, some archived, dates spread over weeks before `now`,
// transcripts with Markdown messages, thoughts, tool calls, plans, usage, an unknown update
// kind and compactions of every kind, plus a hostile session (for transcript security tests),
// an untitled one and a long one.
//
// CLI: node out/test/agent/seed.mjs --store DIR --folders /abs/a,/abs/b [--count N] [--seed S] [--now ISO]
//      ... [--many N [--missing-folders /abs/gone,...]]: N small sessions instead (seedMany)
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdir } from 'node:fs/promises';
import { prng } from './prng';
import { writeSession, type SessionUpdate, type StoredSession } from './store';

export interface SeedOptions {
  store: string;
  /** Absolute workspace folders; sessions are spread over them. */
  folders: string[];
  /** Number of sessions (default 36, at least 8 so every special session fits). */
  count?: number;
  /** PRNG seed (default 1): the same seed and `now` give the same store. */
  seed?: number;
  /** Dates are offsets back from this instant (default: the current time). */
  now?: Date;
  /** Also a parent session whose replay announces two subagent children, listed with their parent. */
  subagents?: boolean;
}

/** What was written, so tests and the demo need not re-read the store. */
export interface SeedResult {
  sessions: StoredSession[];
  /** IDs of the special sessions. */
  special: { hostile: string; untitled: string; compactions: string; long: string; bothFolders: string[]; sameTime: [string, string] };
  /** With `subagents`: the parent and its children (in announcement order). */
  subagents?: { parent: string; children: string[] };
}


const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type Update = SessionUpdate;
const text = (t: string) => ({ type: 'text' as const, text: t });

/** Splits `t` into stream-like chunks at word boundaries. */
function chunks(t: string, rand: () => number): string[] {
  const out: string[] = [];
  let rest = t;
  while (rest.length > 0) {
    let n = Math.min(rest.length, 12 + Math.floor(rand() * 60));
    const space = rest.indexOf(' ', n);
    if (space > 0 && space - n < 15) n = space + 1;
    out.push(rest.slice(0, n));
    rest = rest.slice(n);
  }
  return out;
}

class Transcript {
  readonly updates: Update[] = [];
  private messages = 0;
  private tools = 0;
  private compactions = 0;
  constructor(
    private readonly sessionId: string,
    private readonly rand: () => number,
  ) {}

  private message(kind: 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk', body: string): this {
    const messageId = `${this.sessionId}-msg-${++this.messages}`;
    for (const piece of chunks(body, this.rand)) this.updates.push({ sessionUpdate: kind, messageId, content: text(piece) } as Update);
    return this;
  }
  user(body: string): this {
    return this.message('user_message_chunk', body);
  }
  agent(body: string): this {
    return this.message('agent_message_chunk', body);
  }
  thought(body: string): this {
    return this.message('agent_thought_chunk', body);
  }
  raw(update: Record<string, unknown>): this {
    this.updates.push(update as unknown as Update);
    return this;
  }
  /** A tool call through pending, in progress and a final status. */
  tool(call: { title: string; kind: string; path?: string; line?: number; status?: 'completed' | 'failed'; output?: string; diff?: { path: string; oldText: string; newText: string }; rawInput?: unknown }): this {
    const toolCallId = `${this.sessionId}-tool-${++this.tools}`;
    const locations = call.path ? [{ path: call.path, ...(call.line ? { line: call.line } : {}) }] : [];
    this.raw({ sessionUpdate: 'tool_call', toolCallId, title: call.title, kind: call.kind, status: 'pending', locations, ...(call.rawInput ? { rawInput: call.rawInput } : {}) });
    this.raw({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
    const content: unknown[] = [];
    if (call.diff) content.push({ type: 'diff', ...call.diff });
    if (call.output !== undefined) content.push({ type: 'content', content: text(call.output) });
    this.raw({ sessionUpdate: 'tool_call_update', toolCallId, status: call.status ?? 'completed', ...(content.length ? { content } : {}) });
    return this;
  }
  plan(entries: Array<[string, 'pending' | 'in_progress' | 'completed', ('high' | 'medium' | 'low')?]>): this {
    return this.raw({ sessionUpdate: 'plan', entries: entries.map(([content, status, priority]) => ({ content, status, priority: priority ?? 'medium' })) });
  }
  usage(used: number, size = 200_000, cost?: number): this {
    return this.raw({ sessionUpdate: 'usage_update', used, size, ...(cost !== undefined ? { cost: { amount: cost, currency: 'USD' } } : {}) });
  }
  nextCompactionId(): string {
    return `${this.sessionId}-cmp-${++this.compactions}`;
  }
  summaryChunks(compactionId: string, body: string): this {
    for (const piece of chunks(body, this.rand)) this.raw({ sessionUpdate: 'compaction_summary_chunk', compactionId, content: text(piece) });
    return this;
  }
  /** One compaction of the given kind, as an agent would have streamed it live. */
  compaction(kind: CompactionKind, summary: string): this {
    const id = this.nextCompactionId();
    const c = (status: string, patch: Record<string, unknown> = {}) => this.raw({ sessionUpdate: 'compaction_update', compactionId: id, status, ...patch });
    switch (kind) {
      case 'streamed':
        c('in_progress');
        this.summaryChunks(id, summary);
        c('completed');
        break;
      case 'completed-only':
        c('completed', { summary: [text(summary)] });
        break;
      case 'replacement':
        c('in_progress');
        this.summaryChunks(id, 'Draft: ' + summary.slice(0, Math.floor(summary.length / 2)));
        c('completed', { summary: [text(summary)] });
        break;
      case 'clear':
        c('in_progress');
        this.summaryChunks(id, 'Summary withheld: it quoted tool output the user never saw. ' + summary.slice(0, 40));
        c('completed', { summary: [] });
        break;
      case 'failed':
        c('in_progress');
        this.summaryChunks(id, summary.slice(0, Math.floor(summary.length / 3)));
        c('failed', { error: 'The summarizer hit the provider rate limit (HTTP 429); the full context was kept.' });
        break;
      case 'cancelled':
        c('in_progress');
        this.summaryChunks(id, summary.slice(0, 30));
        c('cancelled');
        break;
      case 'unknown-status':
        c('in_progress');
        c('_vendor_status', { _meta: { vendor: { phase: 'offloading to cold storage' } } });
        break;
      case 'chunks-after-terminal':
        c('in_progress');
        this.summaryChunks(id, summary);
        c('completed');
        this.summaryChunks(id, '\n\n_Addendum streamed after completion: the retained context also includes the open TODO list._');
        break;
      case 'null-summary':
        c('in_progress', { summary: [text('Working summary that the final update clears with null.')] });
        c('completed', { summary: null, _meta: { reason: 'summary unavailable' } });
        break;
    }
    return this;
  }
}

export type CompactionKind =
  | 'streamed'
  | 'completed-only'
  | 'replacement'
  | 'clear'
  | 'failed'
  | 'cancelled'
  | 'unknown-status'
  | 'chunks-after-terminal'
  | 'null-summary';
const COMPACTION_KINDS: CompactionKind[] = ['streamed', 'completed-only', 'replacement', 'clear', 'failed', 'cancelled', 'unknown-status', 'chunks-after-terminal', 'null-summary'];

interface Topic {
  title: string;
  ask: string;
  file: string;
  lang: string;
  before: string;
  after: string;
  command: string;
  failure: string;
}

const TOPICS: Topic[] = [
  {
    title: 'Fix flaky test in the tokenizer',
    ask: 'The `tokenizer.spec.ts` test fails about one run in ten on CI. Can you find out why and fix it?',
    file: 'src/parser/tokenizer.ts',
    lang: 'ts',
    before: 'export function tokenize(input: string): Token[] {\n  const tokens = cache.get(input) ?? scan(input);\n  tokens.sort(() => Math.random() - 0.5);\n  return tokens;\n}',
    after: 'export function tokenize(input: string): Token[] {\n  const tokens = cache.get(input) ?? scan(input);\n  return [...tokens].sort((a, b) => a.start - b.start);\n}',
    command: 'npm test -- tokenizer',
    failure: 'FAIL src/parser/tokenizer.spec.ts\n  ● tokenize › keeps source order\n    expected [ "let", "x" ] to equal [ "x", "let" ]',
  },
  {
    title: 'Add a dark mode toggle to the settings page',
    ask: 'Add a dark mode toggle to **Settings → Appearance**. It should remember the choice in `localStorage`.',
    file: 'web/settings/Appearance.tsx',
    lang: 'tsx',
    before: 'export function Appearance() {\n  return <section><h2>Appearance</h2></section>;\n}',
    after: 'export function Appearance() {\n  const [dark, setDark] = useStoredState("theme.dark", false);\n  return (\n    <section>\n      <h2>Appearance</h2>\n      <Toggle label="Dark mode" checked={dark} onChange={setDark} />\n    </section>\n  );\n}',
    command: 'npm run test:web -- Appearance',
    failure: 'ReferenceError: useStoredState is not defined',
  },
  {
    title: 'Migrate the build from webpack to esbuild',
    ask: 'Our webpack build takes 90 s. Migrate it to esbuild, keeping source maps and the two entry points.',
    file: 'build/build.mjs',
    lang: 'js',
    before: "module.exports = { entry: { app: './src/app.ts', worker: './src/worker.ts' }, devtool: 'source-map' };",
    after: "await esbuild.build({\n  entryPoints: ['src/app.ts', 'src/worker.ts'],\n  bundle: true,\n  sourcemap: true,\n  outdir: 'dist',\n});",
    command: 'node build/build.mjs && ls -la dist',
    failure: '✘ [ERROR] Could not resolve "fs" (platform is browser)',
  },
  {
    title: 'Investigate a memory leak in the worker pool',
    ask: 'RSS of the `jobs` service grows by ~40 MB per hour. Heap snapshots point at `WorkerPool`. What is leaking?',
    file: 'services/jobs/pool.ts',
    lang: 'ts',
    before: 'run(job: Job) {\n  const worker = this.next();\n  worker.on("message", (m) => this.done(job, m));\n  worker.postMessage(job);\n}',
    after: 'run(job: Job) {\n  const worker = this.next();\n  worker.once("message", (m) => this.done(job, m));\n  worker.postMessage(job);\n}',
    command: 'node --expose-gc scripts/soak.mjs --minutes 5',
    failure: 'MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 11 message listeners added',
  },
  {
    title: 'Refactor the auth middleware',
    ask: 'Split `authMiddleware` into token parsing and permission checks; it is 300 lines and untestable.',
    file: 'server/middleware/auth.ts',
    lang: 'ts',
    before: 'export async function authMiddleware(req, res, next) {\n  // 300 lines of parsing, lookups and checks\n}',
    after: 'export const authMiddleware = compose(parseBearerToken, loadPrincipal, requirePermissions);',
    command: 'npm test -- middleware',
    failure: 'TypeError: Cannot read properties of undefined (reading "scopes")',
  },
  {
    title: 'Write a README for the CLI',
    ask: 'Write a README for `tools/cli`: install, the three commands, and examples.',
    file: 'tools/cli/README.md',
    lang: 'md',
    before: '# cli\n\nTODO',
    after: '# acme-cli\n\n## Install\n\n```sh\nnpm install -g @acme/cli\n```\n\n## Commands\n\n- `acme deploy` — deploys the current folder\n- `acme logs` — tails the logs\n- `acme rollback` — reverts the last deploy',
    command: 'npx markdownlint tools/cli/README.md',
    failure: 'tools/cli/README.md:3 MD041/first-line-heading',
  },
  {
    title: 'Speed up CI by caching node_modules',
    ask: 'CI spends 4 minutes in `npm ci`. Can we cache it safely?',
    file: '.github/workflows/ci.yml',
    lang: 'yaml',
    before: 'steps:\n  - uses: actions/checkout@v4\n  - run: npm ci',
    after: 'steps:\n  - uses: actions/checkout@v4\n  - uses: actions/setup-node@v4\n    with:\n      node-version: 20\n      cache: npm\n  - run: npm ci',
    command: 'act -j test',
    failure: 'Error: Some specified paths were not resolved, unable to cache dependencies.',
  },
  {
    title: 'Implement pagination for /api/orders',
    ask: 'Add cursor pagination to `GET /api/orders` (newest first, 50 per page).',
    file: 'server/routes/orders.ts',
    lang: 'ts',
    before: 'router.get("/api/orders", async (req, res) => {\n  res.json(await db.orders.findAll());\n});',
    after: 'router.get("/api/orders", async (req, res) => {\n  const page = await db.orders.page({ after: req.query.cursor, limit: 50, order: "created_at desc" });\n  res.json({ orders: page.items, nextCursor: page.nextCursor });\n});',
    command: 'npm test -- orders',
    failure: 'AssertionError: expected 51 orders, got 50',
  },
  {
    title: 'Upgrade to TypeScript 5.9',
    ask: 'Upgrade TypeScript to 5.9 and fix whatever breaks.',
    file: 'src/util/types.ts',
    lang: 'ts',
    before: 'export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };',
    after: 'export type Json = string | number | boolean | null | readonly Json[] | { readonly [k: string]: Json };',
    command: 'npx tsc -p . --noEmit',
    failure: "src/util/types.ts(4,3): error TS2589: Type instantiation is excessively deep and possibly infinite.",
  },
  {
    title: 'Debug the websocket reconnect loop',
    ask: 'After a server restart the client reconnects ~100 times a second. Please find the loop.',
    file: 'web/net/socket.ts',
    lang: 'ts',
    before: 'ws.onclose = () => connect();',
    after: 'ws.onclose = () => setTimeout(connect, backoff.next());',
    command: 'npm run e2e -- reconnect',
    failure: 'Timeout: expected at most 5 connection attempts in 10 s, saw 1042',
  },
  {
    title: 'Add retry with backoff to the HTTP client',
    ask: 'Retry idempotent requests on 502/503/504 with exponential backoff and jitter.',
    file: 'src/http/client.ts',
    lang: 'ts',
    before: 'export const get = (url: string) => fetch(url);',
    after: 'export const get = (url: string) => retry(() => fetch(url), { retries: 3, base: 200, jitter: true, when: isRetriableStatus });',
    command: 'npm test -- http',
    failure: 'expected fetch to be called 4 times, but it was called 1 time',
  },
  {
    title: 'Explain the event sourcing module',
    ask: 'I am new here. How does `src/events` work, end to end?',
    file: 'src/events/store.ts',
    lang: 'ts',
    before: 'export class EventStore {\n  append(stream: string, events: Event[], expectedVersion: number) { /* ... */ }\n}',
    after: 'export class EventStore {\n  /** Appends atomically; throws ConcurrencyError when the stream moved past expectedVersion. */\n  append(stream: string, events: Event[], expectedVersion: number) { /* ... */ }\n}',
    command: 'rg "append\\(" src/events',
    failure: '',
  },
  {
    title: 'Rename config keys and keep backwards compatibility',
    ask: 'Rename `server.port` to `http.port` but keep reading the old key with a deprecation warning.',
    file: 'src/config/load.ts',
    lang: 'ts',
    before: 'const port = cfg.server?.port ?? 8080;',
    after: 'const port = cfg.http?.port ?? deprecated(cfg.server?.port, "server.port", "http.port") ?? 8080;',
    command: 'npm test -- config',
    failure: 'expected warning "server.port is deprecated" to be logged once, logged 3 times',
  },
  {
    title: 'Fix a race in cache invalidation',
    ask: 'Sometimes a stale price is served right after an update. I suspect the cache.',
    file: 'src/cache/prices.ts',
    lang: 'ts',
    before: 'await db.update(price);\ncache.delete(price.id);',
    after: 'cache.delete(price.id);\nawait db.update(price);\ncache.delete(price.id); // a read between the two deletes may have refilled it',
    command: 'npm run test:race -- prices',
    failure: 'stale read observed in 3 of 1000 iterations',
  },
  {
    title: 'Add unit tests for the date utilities',
    ask: 'There are no tests for `src/util/dates.ts`. Please add some, especially around DST.',
    file: 'src/util/dates.spec.ts',
    lang: 'ts',
    before: '',
    after: 'test("addDays crosses the DST change", () => {\n  expect(addDays(new Date("2026-03-28T12:00:00+01:00"), 1).getHours()).toBe(12);\n});',
    command: 'TZ=Europe/Berlin npm test -- dates',
    failure: 'expected 13 to be 12',
  },
  {
    title: 'Convert fs helpers from callbacks to async/await',
    ask: 'Modernise `src/fs/helpers.js` to async/await without changing behaviour.',
    file: 'src/fs/helpers.js',
    lang: 'js',
    before: 'function readJson(p, cb) {\n  fs.readFile(p, "utf8", (err, s) => err ? cb(err) : cb(null, JSON.parse(s)));\n}',
    after: 'async function readJson(p) {\n  return JSON.parse(await fs.promises.readFile(p, "utf8"));\n}',
    command: 'npm test -- fs',
    failure: 'UnhandledPromiseRejection: SyntaxError: Unexpected end of JSON input',
  },
  {
    title: 'Set up the ESLint flat config',
    ask: 'Move us from `.eslintrc` to `eslint.config.js`.',
    file: 'eslint.config.js',
    lang: 'js',
    before: '',
    after: 'import js from "@eslint/js";\nimport ts from "typescript-eslint";\nexport default [js.configs.recommended, ...ts.configs.recommended];',
    command: 'npx eslint .',
    failure: 'Oops! Something went wrong! :( ESLint: 9.0.0 — Could not find config file.',
  },
  {
    title: 'Optimise the SQL query for the dashboard',
    ask: 'The dashboard query takes 4 s on production data. Can you speed it up?',
    file: 'server/sql/dashboard.sql',
    lang: 'sql',
    before: 'SELECT * FROM orders o JOIN customers c ON c.id = o.customer_id WHERE date(o.created_at) > now() - interval \'30 days\';',
    after: 'SELECT o.id, o.total, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.created_at > now() - interval \'30 days\';\n-- uses orders_created_at_idx',
    command: 'psql -c "EXPLAIN ANALYZE $(cat server/sql/dashboard.sql)"',
    failure: 'Seq Scan on orders  (cost=0.00..48213.00 rows=1203 width=64) (actual time=3921.2..3921.9)',
  },
  {
    title: 'Port the release shell scripts to Node',
    ask: 'Our release scripts are bash and break on Windows. Port `scripts/release.sh` to Node.',
    file: 'scripts/release.mjs',
    lang: 'js',
    before: '#!/bin/bash\nset -e\nVERSION=$(jq -r .version package.json)\ngit tag "v$VERSION"',
    after: "import { readFileSync } from 'node:fs';\nimport { execFileSync } from 'node:child_process';\nconst { version } = JSON.parse(readFileSync('package.json', 'utf8'));\nexecFileSync('git', ['tag', `v${version}`], { stdio: 'inherit' });",
    command: 'node scripts/release.mjs --dry-run',
    failure: "fatal: tag 'v2.3.0' already exists",
  },
  {
    title: 'Review PR #482: session archive',
    ask: 'Please review PR #482 (session archive support). Focus on the list filter and idempotency.',
    file: 'src/sessions/archive.ts',
    lang: 'ts',
    before: 'if (session.archived) throw new Error("already archived");',
    after: 'if (session.archived) return; // archiving an archived session succeeds (idempotent)',
    command: 'gh pr diff 482',
    failure: '',
  },
];

function fence(lang: string, code: string): string {
  return '```' + lang + '\n' + code + '\n```';
}

/** A normal working session on `topic` in `cwd`. */
function workSession(t: Transcript, topic: Topic, cwd: string, rand: () => number, compaction: CompactionKind | undefined, otherFolder?: string): void {
  const path = join(cwd, topic.file);
  t.raw({ sessionUpdate: 'session_info_update', title: topic.title });
  t.user(topic.ask);
  t.thought(`The user wants: ${topic.title.toLowerCase()}. I should read \`${topic.file}\` before changing anything, then run \`${topic.command}\` to confirm.`);
  t.agent(`I'll start by reading \`${topic.file}\`.`);
  t.tool({ title: `Read ${topic.file}`, kind: 'read', path, line: 1, output: topic.before ? fence(topic.lang, topic.before) : '(file does not exist yet)', rawInput: { path } });
  t.plan([
    [`Understand the current code in ${topic.file}`, 'completed', 'high'],
    ['Make the change', 'in_progress', 'high'],
    [`Verify with \`${topic.command}\``, 'pending'],
  ]);
  if (otherFolder) {
    const shared = join(otherFolder, 'packages/shared/src/index.ts');
    t.tool({ title: 'Search the shared package for usages', kind: 'search', path: shared, line: 12, output: `${shared}:12: export { ${topic.file.split('/').pop()?.replace(/\..*$/, '')} } from "../../app";` });
    t.agent(`This also touches the shared package in \`${otherFolder}\`, so I'll keep its export in sync.`);
  }
  if (topic.failure) {
    t.tool({ title: `Run ${topic.command}`, kind: 'execute', status: 'failed', output: '$ ' + topic.command + '\n' + topic.failure, rawInput: { command: topic.command } });
    t.agent(`That reproduces the problem:\n\n${fence('text', topic.failure)}\n\nThe cause is in \`${topic.file}\`. Here is the fix.`);
  }
  t.tool({ title: `Edit ${topic.file}`, kind: 'edit', path, line: 1, diff: { path, oldText: topic.before, newText: topic.after } });
  if (compaction) {
    t.usage(183_000 + Math.floor(rand() * 10_000), 200_000, Math.round(rand() * 300) / 100);
    t.compaction(compaction, `## Retained context\n\n- Task: ${topic.title}.\n- File under change: \`${topic.file}\`.\n- Verified with \`${topic.command}\`.\n\n${fence(topic.lang, topic.after.split('\n')[0] ?? '')}`);
    t.usage(21_000 + Math.floor(rand() * 5_000), 200_000);
  }
  t.tool({ title: `Run ${topic.command}`, kind: 'execute', output: '$ ' + topic.command + '\n✓ all tests passed (' + (3 + Math.floor(rand() * 40)) + ' tests)', rawInput: { command: topic.command } });
  t.plan([
    [`Understand the current code in ${topic.file}`, 'completed', 'high'],
    ['Make the change', 'completed', 'high'],
    [`Verify with \`${topic.command}\``, 'completed'],
  ]);
  t.agent(
    `Done. Summary of the change:\n\n1. **${topic.file}**: ${topic.title.toLowerCase()}.\n2. Verified with \`${topic.command}\`.\n\n${fence(topic.lang, topic.after)}\n\n> Note: nothing else in the repository depends on the old behaviour.`,
  );
  t.usage(40_000 + Math.floor(rand() * 60_000), 200_000, Math.round(rand() * 200) / 100);
  if (rand() < 0.5) {
    t.user('Thanks! Can you also add a short entry to the CHANGELOG?');
    t.tool({ title: 'Edit CHANGELOG.md', kind: 'edit', path: join(cwd, 'CHANGELOG.md'), diff: { path: join(cwd, 'CHANGELOG.md'), oldText: '## Unreleased\n', newText: `## Unreleased\n\n- ${topic.title}.\n` } });
    t.agent('Added under **Unreleased**.');
  }
}

function hostileSession(t: Transcript, cwd: string): void {
  t.raw({ sessionUpdate: 'session_info_update', title: '<script>alert("title")</script><img src=x onerror=alert(1)> Hostile' });
  t.user(
    'Render this safely: <script>alert(1)</script> and <img src=x onerror=alert(2)> and [click me](javascript:alert(3)) ' +
      'and ![tracking pixel](https://tracker.example.com/pixel.png?user=42) and <a href="javascript:alert(4)">a link</a> ' +
      'and <iframe src="https://evil.example.com/frame"></iframe> and <svg onload=alert(5)></svg>',
  );
  t.thought('<b onmouseover="alert(6)">Thinking</b> about <style>body { display: none }</style> and <meta http-equiv="refresh" content="0;url=https://evil.example.com">');
  t.agent(
    'Here are more: [upper-case scheme](JAVASCRIPT:alert(7)), [data URL](data:text/html;base64,PHNjcmlwdD5hbGVydCg4KTwvc2NyaXB0Pg==), ' +
      '[vbscript](vbscript:msgbox(9)), <a href="https://example.com" onclick="alert(10)">onclick</a>, ' +
      '![remote](http://images.example.com/cat.jpg "remote image"), <form action="https://evil.example.com"><input name=q></form>\n\n' +
      'A code block must show tags literally:\n\n' +
      fence('html', '<script>alert("in code")</script>\n<img src=x onerror=alert(11)>') +
      '\n\n<!-- hidden comment <script>alert(12)</script> -->\n\n<details open ontoggle=alert(13)><summary>details</summary>x</details>',
  );
  t.tool({
    title: '<img src=x onerror=alert(14)> Read "><script>alert(15)</script>',
    kind: 'read',
    path: join(cwd, '"><img src=x onerror=alert(16)>.ts'),
    output: '<script>alert(17)</script>\n[x](javascript:alert(18))',
  });
  t.raw({ sessionUpdate: 'agent_message_chunk', messageId: 'hostile-links', content: { type: 'resource_link', name: '<b>resource</b>', uri: 'javascript:alert(19)' } });
  t.raw({ sessionUpdate: 'agent_message_chunk', messageId: 'hostile-image', content: { type: 'image', mimeType: 'image/svg+xml', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(20)"/>').toString('base64'), uri: 'https://tracker.example.com/img.svg' } });
  t.plan([['<script>alert(21)</script> plan entry', 'pending', 'high']]);
  const id = t.nextCompactionId();
  t.raw({ sessionUpdate: 'compaction_update', compactionId: id, status: 'in_progress' });
  t.summaryChunks(id, 'Summary with <script>alert(22)</script> and ![pixel](https://tracker.example.com/summary.png) and [link](javascript:alert(23))');
  t.raw({ sessionUpdate: 'compaction_update', compactionId: id, status: '<img src=x onerror=alert(24)>', error: '<script>alert(25)</script>' });
  t.raw({
    sessionUpdate: 'subagent_update',
    sessionId: '"><img src=x onerror=alert(26)>',
    title: '<script>alert(27)</script> subagent',
    description: '[x](javascript:alert(28)) ![pixel](https://tracker.example.com/subagent.png)',
    state: { state: '<b onmouseover=alert(29)>' },
  });
  t.raw({ sessionUpdate: 'usage_update', used: 120_000, size: 200_000, cost: { amount: 1, currency: '<img src=x onerror=alert(30)>' } });
}

function compactionShowcase(t: Transcript, cwd: string, rand: () => number): void {
  t.raw({ sessionUpdate: 'session_info_update', title: 'Long refactor with several context compactions' });
  t.user('Let us refactor the whole `src/legacy` folder into modules. This will take a while.');
  t.agent('Plan: I will go module by module and summarise as the context fills up.');
  const file = join(cwd, 'src/legacy/index.js');
  COMPACTION_KINDS.forEach((kind, i) => {
    t.tool({ title: `Refactor module ${i + 1}`, kind: 'edit', path: file, line: 10 + i * 40, diff: { path: file, oldText: `var m${i} = require("./m${i}");`, newText: `import * as m${i} from "./m${i}.js";` } });
    t.agent(`Module ${i + 1} is converted (kind of the next compaction: \`${kind}\`).`);
    t.usage(190_000 + i, 200_000);
    t.compaction(kind, `## Retained context after module ${i + 1}\n\n- Converted modules 1–${i + 1} to ESM.\n- Remaining: ${COMPACTION_KINDS.length - i - 1}.\n\n${fence('js', `import * as m${i} from "./m${i}.js";`)}`);
    t.usage(30_000 + Math.floor(rand() * 1000), 200_000);
  });
  t.raw({ sessionUpdate: 'checkpoint_created', checkpointId: 'ckpt-7', label: 'after legacy refactor' });
  t.raw({ sessionUpdate: '_acme_telemetry', latencyMs: 1234 });
  t.agent('All modules are converted. The compactions above kept the working context small.');
}

/** A parent that hands two tasks to subagents; each child's own transcript is a session too. */
async function subagentFamily(store: string, cwd: string, now: number, rand: () => number): Promise<{ sessions: StoredSession[]; parent: string; children: string[] }> {
  const parent = 'sess_parent_release';
  const children = ['sess_child_changelog', 'sess_child_tests'];
  const tasks = [
    { title: 'Changelog writer', description: 'Drafts the release notes from the merged pull requests.' },
    { title: 'Test runner', description: 'Runs the full suite on the release branch and reports failures.' },
  ];
  const t = new Transcript(parent, rand);
  t.raw({ sessionUpdate: 'session_info_update', title: 'Prepare the 2.0 release with subagents' });
  t.user('Prepare the 2.0 release: notes and a green test run.');
  t.usage(12_000, 200_000);
  t.agent('I will hand the release notes and the test run to two subagents and merge what they report.');
  children.forEach((sessionId, i) => t.raw({ sessionUpdate: 'subagent_update', sessionId, ...tasks[i], state: { state: 'running' } }));
  t.usage(64_000, 200_000);
  children.forEach((sessionId) => t.raw({ sessionUpdate: 'subagent_update', sessionId, state: { state: 'idle' } }));
  t.agent('Both subagents reported back: the notes are drafted and all 412 tests pass.');
  t.usage(71_000, 200_000, 0.42);
  const records: StoredSession[] = [{ sessionId: parent, cwd, title: 'Prepare the 2.0 release with subagents', updatedAt: new Date(now - 10 * MINUTE).toISOString(), archived: false, deleted: false, updates: t.updates }];
  children.forEach((sessionId, i) => {
    const c = new Transcript(sessionId, rand);
    c.user(tasks[i].description);
    c.usage(4_000 + i * 1_000, 200_000);
    c.agent(i === 0 ? '## 2.0\n\n- Faster session lists\n- Subagents nested under their parent' : 'Ran 412 tests on `release/2.0`: all passed.');
    c.usage(9_000 + i * 2_000, 200_000);
    records.push({ sessionId, cwd, title: tasks[i].title, updatedAt: new Date(now - (11 + i) * MINUTE).toISOString(), archived: false, deleted: false, parentSessionId: parent, updates: c.updates });
  });
  for (const record of records) await writeSession(store, record);
  return { sessions: records, parent, children };
}

function longSession(t: Transcript, cwd: string, rand: () => number): void {
  t.raw({ sessionUpdate: 'session_info_update', title: 'Pairing session: a long afternoon of small fixes' });
  for (let i = 1; i <= 60; i++) {
    t.user(`Fix #${i}: the lint warning in \`src/module${i}.ts\`, please.`);
    t.tool({ title: `Edit src/module${i}.ts`, kind: 'edit', path: join(cwd, `src/module${i}.ts`), line: i, diff: { path: join(cwd, `src/module${i}.ts`), oldText: `let unused${i} = ${i};`, newText: '' } });
    t.agent(`Removed the unused variable in \`src/module${i}.ts\`${rand() < 0.3 ? ' and sorted the imports' : ''}.`);
    if (i % 20 === 0) t.compaction('streamed', `Fixed lint warnings in modules 1–${i}.`);
  }
}

/** Writes the store and returns what it wrote. */
export async function seedStore(options: SeedOptions): Promise<SeedResult> {
  const { store, folders } = options;
  if (folders.length === 0) throw new Error('seedStore: give at least one folder');
  for (const f of folders) if (!isAbsolute(f)) throw new Error(`seedStore: folder ${JSON.stringify(f)} is not absolute`);
  const count = Math.max(8, options.count ?? 36);
  const rand = prng(options.seed ?? 1);
  const now = (options.now ?? new Date()).getTime();
  await mkdir(store, { recursive: true });

  const hex = () => Math.floor(rand() * 0x1_0000_0000).toString(16).padStart(8, '0');
  const ids = Array.from({ length: count }, (_, i) => `sess_${hex()}${hex().slice(0, 4)}${i.toString(16).padStart(2, '0')}`);
  // Fixed offsets for the first sessions (today, yesterday, this week), then weeks back.
  const fixedOffsets = [5 * MINUTE, 2 * HOUR, 26 * HOUR, 3 * DAY, 3 * DAY, 6 * DAY];
  const special = {
    compactions: ids[0],
    hostile: ids[1],
    untitled: ids[2],
    long: ids[3],
    sameTime: [ids[4], ids[5]] as [string, string],
    bothFolders: folders.length > 1 ? [ids[6], ids[7]] : [],
  };
  const sessions: StoredSession[] = [];
  for (let i = 0; i < count; i++) {
    const sessionId = ids[i];
    const cwd = folders[i % folders.length];
    const otherFolder = folders.length > 1 ? folders[(i + 1) % folders.length] : undefined;
    const t = new Transcript(sessionId, rand);
    const offset = fixedOffsets[i] ?? (7 * DAY + Math.floor(rand() * 42 * DAY));
    const updatedAt = new Date(now - offset - (i < fixedOffsets.length ? 0 : Math.floor(rand() * HOUR))).toISOString();
    let title: string | undefined;
    let additionalDirectories: string[] | undefined;
    if (sessionId === special.compactions) {
      compactionShowcase(t, cwd, rand);
      title = 'Long refactor with several context compactions';
    } else if (sessionId === special.hostile) {
      hostileSession(t, cwd);
      title = '<script>alert("title")</script><img src=x onerror=alert(1)> Hostile';
    } else if (sessionId === special.long) {
      longSession(t, cwd, rand);
      title = 'Pairing session: a long afternoon of small fixes';
    } else {
      const topic = TOPICS[i % TOPICS.length];
      const both = special.bothFolders.includes(sessionId);
      if (both && otherFolder) additionalDirectories = [otherFolder];
      const compaction = i % 3 !== 1 ? COMPACTION_KINDS[i % COMPACTION_KINDS.length] : undefined;
      workSession(t, topic, cwd, rand, compaction, both ? otherFolder : undefined);
      if (sessionId !== special.untitled) title = topic.title + (i >= TOPICS.length ? ` (${Math.floor(i / TOPICS.length) + 1})` : '');
      // The untitled session keeps no title anywhere, not even in its transcript.
      if (sessionId === special.untitled) t.updates.splice(0, 1);
      else if (i >= TOPICS.length) (t.updates[0] as { title?: string }).title = title;
      if (i % 7 === 3) t.raw({ sessionUpdate: 'checkpoint_created', checkpointId: `ckpt-${i}`, label: 'before refactor' });
    }
    const archived = i >= 8 && (i % 5 === 1 || i % 7 === 2);
    const record: StoredSession = {
      sessionId,
      cwd,
      ...(title !== undefined ? { title } : {}),
      updatedAt: special.sameTime.includes(sessionId) ? new Date(now - fixedOffsets[4]).toISOString() : updatedAt,
      archived,
      deleted: false,
      ...(additionalDirectories ? { additionalDirectories } : {}),
      updates: t.updates,
    };
    await writeSession(store, record);
    sessions.push(record);
  }
  if (!options.subagents) return { sessions, special };
  const family = await subagentFamily(store, folders[0], now, rand);
  return { sessions: [...sessions, ...family.sessions], special, subagents: { parent: family.parent, children: family.children } };
}

export interface ManySeedOptions {
  store: string;
  /** How many sessions (e.g. 500). */
  count: number;
  /** Absolute folders that exist; sessions are spread over them. */
  folders: string[];
  /** Absolute folders that do not exist (their sessions' folder is "missing"); default none. */
  missingFolders?: string[];
  /** Dates are spread from `now` back over this many days (default 180). */
  days?: number;
  /** Share of sessions archived (default 0.2). */
  archivedShare?: number;
  seed?: number;
  now?: Date;
}

/**
 * A store of many small sessions (clean-up and paging tests): unique titles ("Bulk session 0042:
 * …"), dates spread over `days`, folders taken in turn from `folders` and `missingFolders`, a
 * share archived, each with a two-message transcript.
 */
export async function seedMany(options: ManySeedOptions): Promise<StoredSession[]> {
  const folders = [...options.folders, ...(options.missingFolders ?? [])];
  if (folders.length === 0) throw new Error('seedMany: give at least one folder');
  for (const f of folders) if (!isAbsolute(f)) throw new Error(`seedMany: folder ${JSON.stringify(f)} is not absolute`);
  const rand = prng(options.seed ?? 1);
  const now = (options.now ?? new Date()).getTime();
  const days = options.days ?? 180;
  const archivedShare = options.archivedShare ?? 0.2;
  const width = String(options.count).length;
  await mkdir(options.store, { recursive: true });
  const sessions: StoredSession[] = [];
  for (let i = 0; i < options.count; i++) {
    const topic = TOPICS[i % TOPICS.length];
    const title = `Bulk session ${String(i).padStart(Math.max(4, width), '0')}: ${topic.title}`;
    const sessionId = `bulk_${String(i).padStart(Math.max(4, width), '0')}`;
    const record: StoredSession = {
      sessionId,
      cwd: folders[i % folders.length],
      title,
      // Whole minutes back from now, at least one, so no two runs disagree on "older than".
      updatedAt: new Date(now - (1 + Math.floor(rand() * days * 24 * 60)) * MINUTE).toISOString(),
      archived: rand() < archivedShare,
      deleted: false,
      updates: [
        { sessionUpdate: 'session_info_update', title } as Update,
        { sessionUpdate: 'user_message_chunk', content: text(`${topic.title}, please.`) } as Update,
        { sessionUpdate: 'agent_message_chunk', content: text('Done.') } as Update,
      ],
    };
    await writeSession(options.store, record);
    sessions.push(record);
  }
  return sessions;
}

function parseArgs(argv: string[]): SeedOptions {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    if (i >= 0) return argv[i + 1];
    return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  };
  const store = value('store');
  const folders = value('folders');
  if (!store || !folders) throw new Error('usage: seed.mjs --store DIR --folders /abs/a,/abs/b [--count N] [--seed S] [--now ISO] [--subagents]');
  const count = value('count');
  const seed = value('seed');
  const now = value('now');
  if (count !== undefined && !/^\d+$/.test(count)) throw new Error(`--count: expected an integer, got ${JSON.stringify(count)}`);
  if (seed !== undefined && !/^\d+$/.test(seed)) throw new Error(`--seed: expected an integer, got ${JSON.stringify(seed)}`);
  if (now !== undefined && Number.isNaN(Date.parse(now))) throw new Error(`--now: expected an ISO date, got ${JSON.stringify(now)}`);
  return {
    store,
    folders: folders.split(',').filter(Boolean),
    ...(count !== undefined ? { count: Number(count) } : {}),
    ...(seed !== undefined ? { seed: Number(seed) } : {}),
    ...(now !== undefined ? { now: new Date(now) } : {}),
    ...(argv.includes('--subagents') ? { subagents: true } : {}),
  };
}

/** `--many N [--missing-folders /abs/x,/abs/y]`: seedMany instead of the realistic store. */
function parseMany(argv: string[]): { count: number; missingFolders: string[] } | undefined {
  const value = (name: string) => argv[argv.indexOf(`--${name}`) + 1] ?? '';
  if (!argv.includes('--many')) return undefined;
  const count = value('many');
  if (!/^\d+$/.test(count) || Number(count) < 1) throw new Error(`--many: expected a positive integer, got ${JSON.stringify(count)}`);
  const missingFolders = argv.includes('--missing-folders') ? value('missing-folders').split(',').filter(Boolean) : [];
  for (const f of missingFolders) if (!isAbsolute(f)) throw new Error(`--missing-folders: ${JSON.stringify(f)} is not absolute`);
  return { count: Number(count), missingFolders };
}

// Run as a program only when this file is the entry point (tests bundle seedStore in).
if (/seed\.m?[jt]s$/.test(process.argv[1] ?? '') && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  let options: SeedOptions;
  const argv = process.argv.slice(2);
  let many: { count: number; missingFolders: string[] } | undefined;
  try {
    options = parseArgs(argv);
    many = parseMany(argv);
  } catch (error) {
    process.stderr.write(`seed: ${(error as Error).message}\n`);
    process.exit(2);
  }
  (many
    ? seedMany({ ...options, ...many }).then((sessions) => ({ sessions }))
    : seedStore(options)
  ).then(
    (result) => {
      const archived = result.sessions.filter((s) => s.archived).length;
      process.stdout.write(`seeded ${result.sessions.length} sessions (${archived} archived) into ${options.store}\n`);
    },
    (error) => {
      process.stderr.write(`seed: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
