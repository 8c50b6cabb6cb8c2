// Command-line flags of the reference agent; each also reads from env ACP_AGENT_<FLAG>.

export type ExitPoint = 'start' | 'initialize' | 'list' | 'load-mid' | 'archive' | 'delete';
const EXIT_POINTS: readonly ExitPoint[] = ['start', 'initialize', 'list', 'load-mid', 'archive', 'delete'];

export interface AgentOptions {
  store: string;
  pageSize: number;
  list: boolean;
  archive: boolean;
  /** Archive by the JetBrains AIR vendor extension instead of the standard (as claude-agent-acp and codex-acp do). */
  archiveExtension: boolean;
  delete: boolean;
  load: boolean;
  close: boolean;
  resume: boolean;
  /** `sessionCapabilities.title` and `session/set_title`. */
  title: boolean;
  /** `sessionCapabilities.fork` and `session/fork` (the fork point as claude-agent-acp and codex-acp read it). */
  fork: boolean;
  /** `sessionCapabilities.status` and `session/status` ("open" for a session loaded or resumed on this connection). */
  status: boolean;
  /** With the AIR extension: `_meta.jetbrains.air.state` on list entries, as claude-agent-acp sends it. */
  airState: boolean;
  /**
   * The whole AIR session index as claude-agent-acp serves it (implies archiveExtension and
   * airState): rename, list subscriptions, batch get, row metadata, the load replay's end mark.
   */
  airIndex: boolean;
  /** Sessions another process holds: changing them answers codex-acp's `thread_active_writer` error. */
  activeWriter: Set<string>;
  /** `session/load` answers after this many replayed updates and sends the rest afterwards, as Gemini CLI does. */
  answerAfter?: number;
  /** `session/load` sets the session's `updatedAt` to now, as claude-agent-acp and codex-acp do when they resume it. */
  resumeOnLoad: boolean;
  /** Milliseconds every reply waits before it is sent. */
  delayMs: number;
  /** Method name -> JSON-RPC error code to answer it with. */
  fail: Map<string, number>;
  /** Milliseconds between replayed updates. */
  replayDelayMs: number;
  /**
   * A file that paces a replay's compaction updates: it holds how many of them may be sent so far
   * (a number, or `all`); a missing file allows none. Lets a test drive a stream step by step.
   */
  replayGate?: string;
  exitAt?: ExitPoint;
  /** The exit point exits on its Nth time (default 1), e.g. after N-1 archives succeeded. */
  exitAtCount: number;
  malformedBefore?: string;
  /** Methods never answered (the agent stays up): for request deadlines. */
  hang: Set<string>;
  /** On this method the agent closes its stdout and keeps running: a half-dead agent. */
  closeStdoutAt?: string;
  authRequired: boolean;
  v2: boolean;
  /** Chaos mode (see chaos.ts): set when `--chaos-seed` is given. */
  chaos?: ChaosOptions;
  /** A JSON file of agent-controlled text to send instead of ours (see AgentStrings). */
  strings?: string;
  /** How `session/list`'s `cwd` matches a session's folder (see CwdMatch). */
  cwdMatch: CwdMatch;
  /** A JSON lines file: one line when the process starts and one per request received (method and params), for tests that check what reached the agent. */
  requestLog?: string;
  /** List entries leave `archived` out even with the standard archive (the schema makes it optional). */
  omitArchivedFlag: boolean;
  /** `session/list` answers at most this many rows and never a cursor (OpenCode 1.18.33: 100). */
  listCap?: number;
  /** `session/list` accepts the `archived` filter and lists every state anyway. */
  ignoreArchivedFilter: boolean;
  /**
   * `session/fork` also replays the copy under its new id before the answer that names it, as
   * OpenCode 1.18.33 does.
   */
  forkReplays: boolean;
  /** Milliseconds the `initialize` answer waits (OpenCode waits ~15 s for a models list offline). */
  initializeDelayMs: number;
}

/**
 * `exact`: the same string. As agents seen elsewhere do: `loose` ignores a drive letter's case
 * and trailing separators (an agent on Windows), `prefix` also lists sessions in folders below,
 * `ignore` lists every folder's sessions whatever `cwd` says.
 */
export type CwdMatch = 'exact' | 'loose' | 'prefix' | 'ignore';
const CWD_MATCHES: readonly CwdMatch[] = ['exact', 'loose', 'prefix', 'ignore'];

/** What --strings FILE holds: text this agent sends in place of its own (hostile-string tests). */
export interface AgentStrings {
  /** `agentInfo` of the initialize response. */
  agentInfo?: { name: string; title?: string; version: string };
  /** The message and `data` of the errors --fail answers with. */
  errorMessage?: string;
  errorData?: unknown;
  /** Written to stderr at start, before anything else. */
  stderr?: string;
}

export interface ChaosOptions {
  seed: number;
  /** Probability that a request, a response or a replayed update gets a fault. */
  rate: number;
  /** The fault kinds that may be injected. */
  faults: ReadonlySet<FaultKind>;
  /** JSON lines file: one line per process start and per injected fault (also makes restarts draw anew). */
  log?: string;
  /** Size of an oversized line. */
  oversizedBytes: number;
}

export const FAULT_KINDS = [
  'delay',
  'malformed',
  'oversized',
  'duplicate',
  'out-of-order',
  'unknown-id',
  'error-32002',
  'error-32603',
  'crash-list',
  'crash-load',
  'crash-stream',
  'crash-archive',
  'hang-list',
  'hang-load',
  'hang-archive',
  'stderr-flood',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const USAGE = `usage: agent.mjs --store DIR [options]
  --store DIR                 session store directory (required)
  --page-size N               session/list page size (default 50)
  --no-list --no-archive --no-delete --no-load --no-close --no-resume --no-title --no-fork
                              advertise (and implement) less
  --archive-extension         archive by the JetBrains AIR vendor extension (_session/archive,
                              _meta.jetbrains.air) for a client that offers it, not the standard
  --status                    advertise sessionCapabilities.status and answer session/status
                              ("open" when loaded or resumed on this connection, else the stored state, else "saved")
  --air-state                 with --archive-extension: list entries carry _meta.jetbrains.air.state
                              (the stored state, else "idle")
  --air-index                 the whole JetBrains AIR session index (implies --archive-extension and
                              --air-state): _session/rename, _session/list/subscribe + changes (the
                              store directory watched, so other processes' writes count),
                              _session/batch_get, stored airMeta on entries, the loadReplayEnd mark
  --active-writer ID          session ID is held by another process: rename, archive, unarchive,
                              set_title and delete answer -32600 { reason: "thread_active_writer" } (repeatable)
  --resume-on-load            session/load sets the session's updatedAt to now (claude, codex)
  --delay MS                  delay every reply
  --fail METHOD=CODE          answer METHOD with that error code (repeatable)
  --replay-delay MS           sleep between replayed updates
  --replay-gate FILE          send a replay's compaction updates only as FILE allows (a count, or all)
  --exit-at POINT             exit with code 3 at start|initialize|list|load-mid|archive|delete
  --exit-at-count N           exit the Nth time POINT is reached (default 1)
  --malformed-before METHOD   write a non-JSON line just before answering METHOD
  --hang METHOD               never answer METHOD, stay up (repeatable)
  --close-stdout-at METHOD    on METHOD, close stdout and keep running
  --auth-required             advertise an auth method; session methods answer -32000 until authenticate
  --v2                        also speak the ACP v2 draft
  --chaos-seed N              chaos mode: inject faults drawn from seed N (see chaos.ts)
  --chaos-rate P              probability of a fault per request, response and update (default 0.2)
  --chaos-faults K,K          only these fault kinds (default all:
                              ${FAULT_KINDS.join(', ')})
  --chaos-log FILE            append one JSON line per process start and per fault
  --chaos-oversized-bytes N   length of an oversized line (default 1.25 MiB)
  --strings FILE              JSON { agentInfo, errorMessage, errorData, stderr }: text to send instead of ours
  --answer-after N            session/load answers after N replayed updates, then sends the rest (gemini)
  --cwd-match MODE            how session/list's cwd matches: exact (default), loose (drive letter case,
                              trailing separators), prefix (folders below too), ignore (every folder)
  --omit-archived-flag        list entries leave out \`archived\` (standard archive only)
  --list-cap N                session/list answers at most N rows and no nextCursor (OpenCode: 100)
  --ignore-archived-filter    session/list accepts \`archived\` and lists every state anyway
  --fork-replays               session/fork replays the copy under its new id before the answer names
                              it (OpenCode)
  --initialize-delay MS       the initialize answer waits MS (OpenCode waits for a models list)
  --request-log FILE          append one JSON line at start ({event:"start",pid}) and per request
                              received ({method,params}): what reached the agent
Each flag also reads from env ACP_AGENT_<FLAG> (e.g. ACP_AGENT_PAGE_SIZE=5, ACP_AGENT_NO_LIST=1,
ACP_AGENT_FAIL="session/list=-32603,session/load=-32002"); flags win over env.`;

export class OptionsError extends Error {}

const BOOLEAN_FLAGS = ['archive-extension', 'air-index', 'status', 'air-state', 'resume-on-load', 'no-list', 'no-archive', 'no-delete', 'no-load', 'no-close', 'no-resume', 'no-title', 'no-fork', 'auth-required', 'v2', 'omit-archived-flag', 'ignore-archived-filter', 'fork-replays'] as const;
const VALUE_FLAGS = [
  'store', 'page-size', 'delay', 'fail', 'replay-delay', 'replay-gate', 'exit-at', 'exit-at-count', 'malformed-before', 'hang', 'close-stdout-at', 'active-writer', 'answer-after',
  'chaos-seed', 'chaos-rate', 'chaos-faults', 'chaos-log', 'chaos-oversized-bytes', 'strings', 'cwd-match', 'request-log', 'list-cap', 'initialize-delay',
] as const;
type BooleanFlag = (typeof BOOLEAN_FLAGS)[number];
type ValueFlag = (typeof VALUE_FLAGS)[number];

function envName(flag: string): string {
  return 'ACP_AGENT_' + flag.toUpperCase().replace(/-/g, '_');
}

function parseBooleanEnv(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(v)) return false;
  throw new OptionsError(`${name}: expected 1/true/yes or 0/false/no, got ${JSON.stringify(value)}`);
}

function parseCount(what: string, value: string, min: number): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < min) throw new OptionsError(`${what}: expected an integer >= ${min}, got ${JSON.stringify(value)}`);
  return Number(value);
}

function parseFail(what: string, value: string, into: Map<string, number>): void {
  const eq = value.lastIndexOf('=');
  const method = value.slice(0, eq).trim();
  const code = value.slice(eq + 1).trim();
  if (eq <= 0 || !method || !/^-?\d+$/.test(code)) throw new OptionsError(`${what}: expected METHOD=CODE (e.g. session/list=-32603), got ${JSON.stringify(value)}`);
  into.set(method, Number(code));
}

/** Parses flags (winning) over env; throws OptionsError with a clear message on bad input. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): AgentOptions {
  const booleans = new Map<BooleanFlag, boolean>();
  const values = new Map<ValueFlag, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') throw new OptionsError(USAGE);
    if (!arg.startsWith('--')) throw new OptionsError(`unexpected argument ${JSON.stringify(arg)}\n${USAGE}`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if ((BOOLEAN_FLAGS as readonly string[]).includes(name)) {
      if (inline !== undefined) throw new OptionsError(`--${name} takes no value`);
      booleans.set(name as BooleanFlag, true);
    } else if ((VALUE_FLAGS as readonly string[]).includes(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new OptionsError(`--${name} needs a value\n${USAGE}`);
      values.set(name as ValueFlag, [...(values.get(name as ValueFlag) ?? []), value]);
    } else {
      throw new OptionsError(`unknown flag --${name}\n${USAGE}`);
    }
  }
  const flag = (name: BooleanFlag): boolean => {
    if (booleans.has(name)) return true;
    const fromEnv = env[envName(name)];
    return fromEnv === undefined ? false : parseBooleanEnv(envName(name), fromEnv);
  };
  const value = (name: ValueFlag): string | undefined => {
    const given = values.get(name);
    if (given) return given[given.length - 1];
    return env[envName(name)];
  };

  const store = value('store');
  if (!store) throw new OptionsError(`--store DIR (or ${envName('store')}) is required\n${USAGE}`);
  const fail = new Map<string, number>();
  const failFlags = values.get('fail');
  if (failFlags) for (const f of failFlags) parseFail('--fail', f, fail);
  else if (env[envName('fail')]) for (const f of env[envName('fail')]!.split(',').filter((s) => s.trim())) parseFail(envName('fail'), f, fail);
  const hang = new Set(values.get('hang') ?? (env[envName('hang')] ?? '').split(',').map((m) => m.trim()).filter(Boolean));
  const activeWriter = new Set(values.get('active-writer') ?? (env[envName('active-writer')] ?? '').split(',').map((m) => m.trim()).filter(Boolean));
  const airIndex = flag('air-index');
  const exitAt = value('exit-at');
  if (exitAt !== undefined && !(EXIT_POINTS as readonly string[]).includes(exitAt)) {
    throw new OptionsError(`--exit-at: expected one of ${EXIT_POINTS.join(', ')}, got ${JSON.stringify(exitAt)}`);
  }
  const cwdMatch = value('cwd-match') ?? 'exact';
  if (!(CWD_MATCHES as readonly string[]).includes(cwdMatch)) throw new OptionsError(`--cwd-match: expected one of ${CWD_MATCHES.join(', ')}, got ${JSON.stringify(cwdMatch)}`);
  const pageSize = value('page-size');
  const exitAtCount = value('exit-at-count');
  const delay = value('delay');
  const replayDelay = value('replay-delay');
  const listCap = value('list-cap');
  const initializeDelay = value('initialize-delay');
  return {
    store,
    pageSize: pageSize === undefined ? 50 : parseCount('--page-size', pageSize, 1),
    list: !flag('no-list'),
    archive: !flag('no-archive'),
    archiveExtension: airIndex || flag('archive-extension'),
    cwdMatch: cwdMatch as CwdMatch,
    omitArchivedFlag: flag('omit-archived-flag'),
    listCap: listCap === undefined ? undefined : parseCount('--list-cap', listCap, 1),
    ignoreArchivedFilter: flag('ignore-archived-filter'),
    forkReplays: flag('fork-replays'),
    initializeDelayMs: initializeDelay === undefined ? 0 : parseCount('--initialize-delay', initializeDelay, 0),
    delete: !flag('no-delete'),
    load: !flag('no-load'),
    close: !flag('no-close'),
    resume: !flag('no-resume'),
    title: !flag('no-title'),
    fork: !flag('no-fork'),
    status: flag('status'),
    airState: airIndex || flag('air-state'),
    airIndex,
    activeWriter,
    answerAfter: value('answer-after') === undefined ? undefined : parseCount('--answer-after', value('answer-after')!, 0),
    resumeOnLoad: flag('resume-on-load'),
    delayMs: delay === undefined ? 0 : parseCount('--delay', delay, 0),
    fail,
    replayDelayMs: replayDelay === undefined ? 0 : parseCount('--replay-delay', replayDelay, 0),
    replayGate: value('replay-gate') || undefined,
    exitAt: exitAt as ExitPoint | undefined,
    exitAtCount: exitAtCount === undefined ? 1 : parseCount('--exit-at-count', exitAtCount, 1),
    malformedBefore: value('malformed-before') || undefined,
    hang,
    closeStdoutAt: value('close-stdout-at') || undefined,
    requestLog: value('request-log') || undefined,
    authRequired: flag('auth-required'),
    v2: flag('v2'),
    chaos: parseChaos(value),
    strings: value('strings') || undefined,
  };
}

function parseChaos(value: (name: ValueFlag) => string | undefined): ChaosOptions | undefined {
  const seed = value('chaos-seed');
  const others = (['chaos-rate', 'chaos-faults', 'chaos-log', 'chaos-oversized-bytes'] as const).filter((f) => value(f) !== undefined);
  if (seed === undefined) {
    if (others.length > 0) throw new OptionsError(`--${others[0]} needs --chaos-seed`);
    return undefined;
  }
  const rate = value('chaos-rate');
  if (rate !== undefined && !(/^\d*\.?\d+$/.test(rate.trim()) && Number(rate) <= 1)) throw new OptionsError(`--chaos-rate: expected a number from 0 to 1, got ${JSON.stringify(rate)}`);
  const faults = value('chaos-faults');
  const kinds = faults === undefined ? [...FAULT_KINDS] : faults.split(',').map((k) => k.trim()).filter(Boolean);
  for (const kind of kinds) {
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) throw new OptionsError(`--chaos-faults: unknown fault ${JSON.stringify(kind)}; use ${FAULT_KINDS.join(', ')}`);
  }
  const oversized = value('chaos-oversized-bytes');
  return {
    seed: parseCount('--chaos-seed', seed, 0),
    rate: rate === undefined ? 0.2 : Number(rate),
    faults: new Set(kinds as FaultKind[]),
    log: value('chaos-log') || undefined,
    oversizedBytes: oversized === undefined ? 1_310_720 : parseCount('--chaos-oversized-bytes', oversized, 1),
  };
}
