// Command-line flags of the reference agent; each also reads from env ACP_AGENT_<FLAG>.

export type ExitPoint = 'start' | 'initialize' | 'list' | 'load-mid' | 'archive' | 'delete';
const EXIT_POINTS: readonly ExitPoint[] = ['start', 'initialize', 'list', 'load-mid', 'archive', 'delete'];

export interface AgentOptions {
  store: string;
  pageSize: number;
  list: boolean;
  archive: boolean;
  delete: boolean;
  load: boolean;
  close: boolean;
  resume: boolean;
  /** Milliseconds every reply waits before it is sent. */
  delayMs: number;
  /** Method name -> JSON-RPC error code to answer it with. */
  fail: Map<string, number>;
  /** Milliseconds between replayed updates. */
  replayDelayMs: number;
  exitAt?: ExitPoint;
  malformedBefore?: string;
  authRequired: boolean;
  v2: boolean;
  /** A JSON file of agent-controlled text to send instead of ours (see AgentStrings). */
  strings?: string;
}

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

export const USAGE = `usage: agent.mjs --store DIR [options]
  --store DIR                 session store directory (required)
  --page-size N               session/list page size (default 50)
  --no-list --no-archive --no-delete --no-load --no-close --no-resume
                              advertise (and implement) less
  --delay MS                  delay every reply
  --fail METHOD=CODE          answer METHOD with that error code (repeatable)
  --replay-delay MS           sleep between replayed updates
  --exit-at POINT             exit with code 3 at start|initialize|list|load-mid|archive|delete
  --malformed-before METHOD   write a non-JSON line just before answering METHOD
  --auth-required             advertise an auth method; session methods answer -32000 until authenticate
  --v2                        also speak the ACP v2 draft
  --strings FILE              JSON { agentInfo, errorMessage, errorData, stderr }: text to send instead of ours
Each flag also reads from env ACP_AGENT_<FLAG> (e.g. ACP_AGENT_PAGE_SIZE=5, ACP_AGENT_NO_LIST=1,
ACP_AGENT_FAIL="session/list=-32603,session/load=-32002"); flags win over env.`;

export class OptionsError extends Error {}

const BOOLEAN_FLAGS = ['no-list', 'no-archive', 'no-delete', 'no-load', 'no-close', 'no-resume', 'auth-required', 'v2'] as const;
const VALUE_FLAGS = ['store', 'page-size', 'delay', 'fail', 'replay-delay', 'exit-at', 'malformed-before', 'strings'] as const;
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
  const exitAt = value('exit-at');
  if (exitAt !== undefined && !(EXIT_POINTS as readonly string[]).includes(exitAt)) {
    throw new OptionsError(`--exit-at: expected one of ${EXIT_POINTS.join(', ')}, got ${JSON.stringify(exitAt)}`);
  }
  const pageSize = value('page-size');
  const delay = value('delay');
  const replayDelay = value('replay-delay');
  return {
    store,
    pageSize: pageSize === undefined ? 50 : parseCount('--page-size', pageSize, 1),
    list: !flag('no-list'),
    archive: !flag('no-archive'),
    delete: !flag('no-delete'),
    load: !flag('no-load'),
    close: !flag('no-close'),
    resume: !flag('no-resume'),
    delayMs: delay === undefined ? 0 : parseCount('--delay', delay, 0),
    fail,
    replayDelayMs: replayDelay === undefined ? 0 : parseCount('--replay-delay', replayDelay, 0),
    exitAt: exitAt as ExitPoint | undefined,
    malformedBefore: value('malformed-before') || undefined,
    authRequired: flag('auth-required'),
    v2: flag('v2'),
    strings: value('strings') || undefined,
  };
}
