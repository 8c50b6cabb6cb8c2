// The reference ACP agent: serves a session store over stdio on the agent side of
// @agentclientprotocol/sdk, so our client is tested against someone else's framing.
// Flags: see options.ts (`--help`). Logs go to stderr; stdout carries only protocol lines
// (and, with --malformed-before, one line that is not JSON on purpose).
import * as acp from '@agentclientprotocol/sdk/unstable';
import * as acp2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, closeSync, readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { stat } from 'node:fs/promises';
import { Chaos, type RequestPlan } from './chaos';
import { OptionsError, parseOptions, type AgentOptions, type AgentStrings, type ExitPoint } from './options';
import { InvalidListParams, airListFilter, listPage, toListedSession, toV2Updates, withoutCompactions } from './sessions';
import { ListSubscriptions } from './subscriptions';
import { listStoredSessions, markSessionDeleted, readSession, readSessionUpdates, removeStaleTempFiles, storedUpdateCount, updateSession, writeSession, type SessionUpdate, type StoredSession } from './store';

const OUR_AGENT_INFO = { name: 'acp-reference-agent', title: 'ACP Reference Agent', version: '0.1.0' };
const AUTH_METHOD_ID = 'reference-login';

function log(message: string): void {
  process.stderr.write(`[reference agent ${process.pid}] ${message}\n`);
}

let options: AgentOptions;
try {
  options = parseOptions(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof OptionsError)) throw error;
  process.stderr.write(`reference agent: ${error.message}\n`);
  process.exit(2);
}
const opts = options;
let strings: AgentStrings = {};
try {
  if (opts.strings) strings = JSON.parse(readFileSync(opts.strings, 'utf8')) as AgentStrings;
} catch (error) {
  process.stderr.write(`reference agent: --strings ${opts.strings}: ${(error as Error).message}\n`);
  process.exit(2);
}
if (strings.stderr !== undefined) process.stderr.write(strings.stderr);
/** --request-log: one JSON line, written before anything is done about it. */
function recordRequest(entry: Record<string, unknown>): void {
  if (opts.requestLog) appendFileSync(opts.requestLog, JSON.stringify(entry) + '\n');
}
recordRequest({ event: 'start', pid: process.pid });
const AGENT_INFO = strings.agentInfo ?? OUR_AGENT_INFO;

const exitPointsReached = new Map<ExitPoint, number>();

function exitAt(point: ExitPoint): void {
  if (opts.exitAt !== point) return;
  const reached = (exitPointsReached.get(point) ?? 0) + 1;
  exitPointsReached.set(point, reached);
  if (reached < opts.exitAtCount) return;
  // What was sent before the exit point reaches the client (stdout to a pipe writes synchronously).
  flushStdout();
  process.stderr.write(`reference agent: exiting at ${point}\n`);
  process.exit(3);
}

// Everything on stdout goes through one buffer in call order, so a raw line
// (--malformed-before) lands exactly between the SDK's messages. Writes are joined and
// flushed once the current burst of work yields (or at 64 KiB): a replay of thousands of
// updates costs a few large writes instead of one awaited write per update.
const FLUSH_BYTES = 64 * 1024;
let stdoutChunks: (Uint8Array | string)[] = [];
let stdoutBytes = 0;
let flushScheduled = false;
/** Settles when stdout can take more (after a full pipe drained). */
let stdoutRoom: Promise<void> = Promise.resolve();
function writeStdout(data: Uint8Array | string): Promise<void> {
  if (chaos) chaos.outgoing(data);
  else bufferStdout(data);
  return stdoutRoom;
}
function bufferStdout(data: Uint8Array | string): void {
  stdoutChunks.push(data);
  stdoutBytes += data.length;
  if (stdoutBytes >= FLUSH_BYTES) flushStdout();
  else if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushStdout);
  }
}
function flushStdout(): void {
  flushScheduled = false;
  if (!stdoutChunks.length) return;
  const chunks = stdoutChunks;
  stdoutChunks = [];
  stdoutBytes = 0;
  const data = Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
  if (!process.stdout.write(data)) stdoutRoom = new Promise((resolve) => process.stdout.once('drain', resolve));
}
exitAt('start');

// Chaos mode (--chaos-seed): faults on requests, responses and replays; see chaos.ts.
const chaos = opts.chaos
  ? new Chaos(opts.chaos, {
      write: bufferStdout,
      exit: (why) => {
        flushStdout();
        process.stderr.write(`reference agent: ${why}\n`);
        process.exit(3);
      },
    })
  : undefined;
/** The chaos plan of each request being handled, by its handler context. */
const chaosPlans = new WeakMap<object, RequestPlan>();
const hang = () => new Promise<never>(() => undefined);

process.stdout.on('error', (error) => {
  log(`stdout closed (${error.message}); exiting`);
  process.exit(0);
});

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(acp.RequestError.requestCancelled());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(acp.RequestError.requestCancelled());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function sessionNotFound(sessionId: string): acp.RequestError {
  return new acp.RequestError(-32002, `Resource not found: session ${sessionId}`, { sessionId });
}

/** Per-connection state: there is one connection, on stdio. */
const connection = {
  protocolVersion: 1 as 1 | 2,
  /** v1 client advertised `clientCapabilities.session.compaction`. */
  compaction: false,
  /** v1 client advertised `clientCapabilities.subagents` (unstable): replays announce children. */
  subagents: false,
  /** --archive-extension and the client offered JetBrains AIR's `sessionIndex`: archive by the extension. */
  air: false,
  /** --air-index and `air`: the whole session index (rename, list subscriptions, batch get, row metadata). */
  airIndex: false,
  /** `airIndex` and the client declared `loadReplayEnd`: a load's replay ends with the mark. */
  replayEnd: false,
  authenticated: false,
  /** Loaded or resumed sessions; aborting closes the session (and stops its replay). */
  active: new Map<string, AbortController>(),
};

function openSession(sessionId: string): AbortSignal {
  connection.active.get(sessionId)?.abort();
  const controller = new AbortController();
  connection.active.set(sessionId, controller);
  return controller.signal;
}

function closeSession(sessionId: string): void {
  connection.active.get(sessionId)?.abort();
  connection.active.delete(sessionId);
}

const listCache = new Map<string, { key: string; record: StoredSession }>();
/**
 * The last listing, reused while the store directory is unchanged: every store write renames
 * a file into it, which changes its mtime. Kept only when the directory had been quiet for a
 * second before it was read, since mtimes tick coarsely (a change in the same tick as the read
 * would not show).
 */
let listing: { dirKey: string; sessions: StoredSession[] } | undefined;
const LISTING_QUIET_MS = 1000;
/** Every session's metadata (transcripts are read only by load and resume). */
async function storedSessions(): Promise<StoredSession[]> {
  const dir = await stat(opts.store).catch(() => undefined);
  const dirKey = dir ? `${dir.ino}:${dir.mtimeMs}` : '';
  if (listing && dir && listing.dirKey === dirKey) return listing.sessions;
  const readAt = Date.now();
  const sessions = await listStoredSessions(opts.store, { cache: listCache, withoutUpdates: true, onInvalid: (file, error) => log(`skipping ${file}: ${error.message}`) });
  listing = dir && readAt - dir.mtimeMs > LISTING_QUIET_MS ? { dirKey, sessions } : undefined;
  return sessions;
}

/** What every handler shares: exit points, --hang, --close-stdout-at, --fail, auth, --delay and --malformed-before. */
function guarded<Context, Result>(method: string, handler: (context: Context) => Promise<Result>, exitPoint?: ExitPoint) {
  return async (context: Context): Promise<Result> => {
    recordRequest({ method, params: (context as { params?: unknown }).params });
    if (exitPoint) exitAt(exitPoint);
    if (opts.closeStdoutAt === method) {
      flushStdout();
      log(`${method}: closing stdout and staying up (--close-stdout-at)`);
      // Node never closes fd 1 itself (process.stdout's destroy keeps it): close the descriptor.
      process.stdout.destroy();
      closeSync(1);
      setInterval(() => undefined, 60_000);
      return new Promise<Result>(() => undefined);
    }
    if (opts.hang.has(method)) {
      log(`${method}: never answering (--hang)`);
      return new Promise<Result>(() => undefined);
    }
    const plan = chaos?.onRequest(method, (context as { params?: unknown }).params) ?? {};
    chaosPlans.set(context as object, plan);
    if (plan.crash && method !== 'session/archive' && method !== 'session/unarchive' && !isReplay(method)) chaos!.crash(`on receiving ${method}`);
    if (plan.hang && !isReplay(method)) await hang();
    if (plan.delayMs) await sleep(plan.delayMs);
    let outcome: { ok: true; value: Result } | { ok: false; error: unknown };
    try {
      const code = opts.fail.get(method);
      if (code !== undefined) throw new acp.RequestError(code, strings.errorMessage ?? `reference agent: ${method} failed on purpose`, strings.errorData);
      if (plan.error !== undefined) throw new acp.RequestError(plan.error, `chaos: ${method} answers ${plan.error}`);
      if (opts.authRequired && !connection.authenticated && method.startsWith('session/')) {
        throw acp.RequestError.authRequired({ authMethods: [AUTH_METHOD_ID] }, `call authenticate with methodId "${AUTH_METHOD_ID}" first`);
      }
      outcome = { ok: true, value: await handler(context) };
      // Mid-archive: the store has changed, the answer never comes.
      if (plan.crash && (method === 'session/archive' || method === 'session/unarchive')) chaos!.crash(`after ${method} changed the store`);
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (opts.delayMs > 0) await sleep(opts.delayMs);
    if (opts.malformedBefore === method) await writeStdout('reference agent: this line is not JSON on purpose\n');
    if (!outcome.ok) {
      const error = outcome.error;
      log(`${method} -> error ${error instanceof acp.RequestError ? error.code : ''} ${(error as Error)?.message ?? error}`);
      throw error;
    }
    return outcome.value;
  };
}

type Notify = (method: string, params: unknown) => Promise<void>;

function isReplay(method: string): boolean {
  return method === 'session/load' || method === 'session/resume';
}

/**
 * Streams the session's stored updates, each through `convert`, as `session/update`
 * notifications in order, reading on only as each notification is written (the store's reader
 * is pulled); honours cancel, close, --replay-gate, --replay-delay, --exit-at load-mid (after
 * half of the stored updates) and chaos.
 */
async function replay(notify: Notify, record: StoredSession, convert: (update: SessionUpdate) => readonly unknown[], request: AbortSignal, session: AbortSignal, plan: RequestPlan = {}): Promise<void> {
  const { sessionId } = record;
  const half = Math.ceil(storedUpdateCount(record) / 2);
  const midLoad = async () => {
    exitAt('load-mid');
    if (plan.crash) chaos!.crash(`half-way through replaying ${sessionId}`);
    if (plan.hang) await hang();
  };
  if (half === 0) await midLoad();
  let compactionUpdates = 0;
  let stored = 0;
  let sent = 0;
  for await (const update of readSessionUpdates(opts.store, record)) {
    for (const out of convert(update)) {
      if (opts.replayDelayMs > 0 && sent > 0) await sleep(opts.replayDelayMs, request);
      if (request.aborted) throw acp.RequestError.requestCancelled();
      if (session.aborted) throw acp.RequestError.requestCancelled({ sessionId }, 'the session was closed during replay');
      if (opts.replayGate && isCompactionUpdate(out)) await untilGateAllows(opts.replayGate, ++compactionUpdates, request);
      await notify('session/update', { sessionId, update: out });
      sent++;
    }
    if (++stored === half) await midLoad();
  }
}

function isCompactionUpdate(update: unknown): boolean {
  const kind = (update as { sessionUpdate?: unknown }).sessionUpdate;
  return kind === 'compaction_update' || kind === 'compaction_summary_chunk';
}

/** --replay-gate: waits until the gate file allows the `nth` compaction update (a count, or `all`). */
async function untilGateAllows(file: string, nth: number, request: AbortSignal): Promise<void> {
  for (;;) {
    let allowed = 0;
    try {
      const text = readFileSync(file, 'utf8').trim();
      allowed = text === 'all' ? Infinity : Number(text) || 0;
    } catch { /* no gate file yet: nothing allowed */ }
    if (nth <= allowed) return;
    if (request.aborted) throw acp.RequestError.requestCancelled();
    await sleep(20, request);
  }
}

async function existingSession(sessionId: string): Promise<StoredSession> {
  const record = await readSession(opts.store, sessionId);
  if (!record || record.deleted) throw sessionNotFound(sessionId);
  return record;
}

// Handlers shared by v1 and v2 (the params and results of these methods have one shape).

interface SessionIdParams {
  sessionId: string;
}

/** The standard archive is served: advertised, and not replaced by --archive-extension. */
const standardArchive = opts.list && opts.archive && !opts.archiveExtension;

async function handleList({ params }: { params: { cwd?: string | null; cursor?: string | null; archived?: string | null; _meta?: unknown } }) {
  try {
    return listPage(await storedSessions(), params, opts.pageSize, standardArchive, connection.air ? airListFilter(params._meta) : undefined, connection.air && opts.airState, connection.airIndex, {
      cwdMatch: opts.cwdMatch,
      omitArchivedFlag: opts.omitArchivedFlag,
      listCap: opts.listCap,
      ignoreArchivedFilter: opts.ignoreArchivedFilter,
    });
  } catch (error) {
    if (error instanceof InvalidListParams) throw acp.RequestError.invalidParams({ archived: params.archived, cursor: params.cursor }, error.message);
    throw error;
  }
}

async function handleArchive({ params, client }: { params: SessionIdParams; client: { notify: Notify } }) {
  checkActiveWriter(params.sessionId);
  const record = await updateSession(opts.store, params.sessionId, (r) => (r.archived ? undefined : { ...r, archived: true }));
  if (!record) throw sessionNotFound(params.sessionId);
  if (connection.active.has(params.sessionId)) {
    // The archive RFD: tell the client that has the session open, then close it (the AIR extension only closes it).
    if (!connection.air) await client.notify('session/update', { sessionId: params.sessionId, update: { sessionUpdate: 'session_info_update', archived: true } });
    closeSession(params.sessionId);
  }
  return {};
}

async function handleUnarchive({ params }: { params: SessionIdParams }) {
  checkActiveWriter(params.sessionId);
  const record = await updateSession(opts.store, params.sessionId, (r) => (r.archived ? { ...r, archived: false } : undefined));
  if (!record) throw sessionNotFound(params.sessionId);
  return {};
}

/** `session/set_title`: trims, rejects an empty title (-32602), stores it; the conversation is untouched. */
async function handleSetTitle({ params }: { params: { sessionId: string; title: string } }) {
  const title = typeof params.title === 'string' ? params.title.trim() : '';
  if (!title) throw acp.RequestError.invalidParams({ title: params.title }, 'the title is empty');
  checkActiveWriter(params.sessionId);
  const record = await updateSession(opts.store, params.sessionId, (r) => (r.title === title ? undefined : { ...r, title }));
  if (!record) throw sessionNotFound(params.sessionId);
  return { title };
}

/** --active-writer: another process holds the session, answered as codex-acp 2.6.0 does. */
function checkActiveWriter(sessionId: string): void {
  if (!opts.activeWriter.has(sessionId)) return;
  throw acp.RequestError.invalidRequest(
    { reason: 'thread_active_writer', threadId: sessionId, details: `thread ${sessionId} already has an active writer` },
    'This session is in use by another client of the reference agent. Close the session there, then try again.',
  );
}

/** `_session/rename { sessionId, title }` (--air-index): as claude-agent-acp, trims, -32602 for an empty title, answers `{}`. */
async function handleAirRename({ params }: { params: { sessionId: string; title: string } }) {
  await handleSetTitle({ params });
  return {};
}

/** `_session/batch_get { sessionIds }`: the list entries of known, undeleted sessions (unknown ids left out). */
async function handleBatchGet({ params }: { params: { sessionIds: string[] } }) {
  const wanted = new Set(params.sessionIds);
  const sessions = (await storedSessions()).filter((s) => wanted.has(s.sessionId) && !s.deleted);
  return { sessions: sessions.map((s) => airRow(s)) };
}

/** A list entry as this connection's `session/list` gives it, in any archive state. */
function airRow(session: StoredSession) {
  return toListedSession(session, standardArchive, connection.air, connection.air && opts.airState, connection.airIndex);
}

let agentClient: { notify(method: string, params: unknown): Promise<void> } | undefined;
const listSubscriptions = new ListSubscriptions({
  store: opts.store,
  read: () => storedSessions(),
  row: (session) => airRow(session),
  notify: async (params) => {
    await agentClient?.notify('_session/list/changes', params);
  },
  log,
});

/** `_session/list/subscribe { cwd }` (absolute, else -32602) -> `{ subscriptionId }`. */
async function handleSubscribe({ params }: { params: { cwd: string } }) {
  return { subscriptionId: await listSubscriptions.subscribe(params.cwd) };
}

/** `_session/list/unsubscribe { subscriptionId }`: idempotent. */
async function handleUnsubscribe({ params }: { params: { subscriptionId: string } }) {
  listSubscriptions.unsubscribe(params.subscriptionId);
  return {};
}

/** A request that needs the whole session index: -32601 unless the client negotiated it. */
function airIndexOnly<Context>(method: string, handler: (context: Context) => Promise<object>) {
  return async (context: Context) => {
    if (!connection.airIndex) throw acp.RequestError.methodNotFound(method);
    return handler(context);
  };
}

function recordParams(params: unknown): Record<string, unknown> {
  return params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
}

/** `{ sessionId: string, title: string }` or -32602. */
function renameParams(params: unknown): { sessionId: string; title: string } {
  const { sessionId, title } = recordParams(params);
  if (typeof sessionId !== 'string' || typeof title !== 'string') throw acp.RequestError.invalidParams({ sessionId, title }, 'expected { sessionId: string, title: string }');
  return { sessionId, title };
}

/** `{ sessionIds: distinct non-blank strings }` or -32602 (as claude-agent-acp checks them). */
function batchGetParams(params: unknown): { sessionIds: string[] } {
  const ids = recordParams(params).sessionIds;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || !id.trim()) || new Set(ids).size !== ids.length) {
    throw acp.RequestError.invalidParams(undefined, 'params require sessionIds: distinct, non-blank strings');
  }
  return { sessionIds: ids as string[] };
}

/** `{ cwd: absolute path }` or -32602. */
function subscribeParams(params: unknown): { cwd: string } {
  const cwd = recordParams(params).cwd;
  if (typeof cwd !== 'string' || !isAbsolute(cwd)) throw acp.RequestError.invalidParams({ cwd }, 'params require an absolute cwd');
  return { cwd };
}

/** `{ subscriptionId: string }` or -32602. */
function unsubscribeParams(params: unknown): { subscriptionId: string } {
  const subscriptionId = recordParams(params).subscriptionId;
  if (typeof subscriptionId !== 'string') throw acp.RequestError.invalidParams(undefined, 'params require a subscriptionId');
  return { subscriptionId };
}

/** `session/status`: no side effects; "open" for a session this connection loaded or resumed, else the stored state, else "saved". */
async function handleStatus({ params }: { params: SessionIdParams }) {
  const record = await existingSession(params.sessionId);
  return { status: connection.active.has(params.sessionId) ? 'open' : (record.state ?? 'saved') };
}

async function handleDelete({ params }: { params: SessionIdParams }) {
  checkActiveWriter(params.sessionId);
  closeSession(params.sessionId);
  await markSessionDeleted(opts.store, params.sessionId); // silent for unknown sessions
  return {};
}

async function handleClose({ params }: { params: SessionIdParams }) {
  await existingSession(params.sessionId);
  closeSession(params.sessionId);
  return {};
}

/** Where a fork ends, as claude-agent-acp and codex-acp read it: `_meta.jetbrains.air.fork` version 1 (codex's checks). */
interface ForkPoint {
  messageId: string;
  messageFingerprint?: string;
  messageOccurrence: number;
}

function forkPointOf(meta: unknown): ForkPoint | undefined {
  const fork = (recordParams(recordParams(recordParams(meta).jetbrains).air)).fork;
  if (!fork || typeof fork !== 'object' || (fork as { version?: unknown }).version !== 1) return undefined;
  const { messageId, messageFingerprint, messageOccurrence = 1 } = fork as Record<string, unknown>;
  if (typeof messageId !== 'string' || messageId.trim() === '') throw acp.RequestError.invalidParams(undefined, 'AIR fork messageId must be a non-empty string');
  if (messageFingerprint !== undefined && (typeof messageFingerprint !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(messageFingerprint))) {
    throw acp.RequestError.invalidParams(undefined, 'AIR fork messageFingerprint must be a SHA-256 fingerprint');
  }
  if (!Number.isSafeInteger(messageOccurrence) || (messageOccurrence as number) < 1) throw acp.RequestError.invalidParams(undefined, 'AIR fork messageOccurrence must be a positive integer');
  return { messageId: messageId.trim(), ...(typeof messageFingerprint === 'string' ? { messageFingerprint } : {}), messageOccurrence: messageOccurrence as number };
}

const MESSAGE_CHUNKS = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk']);

/**
 * How many of `updates` the fork keeps: through the last chunk of the message the point names (by
 * its id; else, for an agent message, the occurrence-th one whose text has the fingerprint, as
 * claude-agent-acp falls back), or undefined when the session has no such message.
 */
function forkEnd(updates: readonly SessionUpdate[], point: ForkPoint): number | undefined {
  let byId: number | undefined;
  const agentMessages = new Map<string, { text: string; last: number; order: number }>();
  updates.forEach((u, i) => {
    const { messageId, content } = u as { messageId?: unknown; content?: { type?: unknown; text?: unknown } };
    if (!MESSAGE_CHUNKS.has(u.sessionUpdate) || typeof messageId !== 'string') return;
    if (messageId === point.messageId) byId = i + 1;
    if (u.sessionUpdate !== 'agent_message_chunk') return;
    const message = agentMessages.get(messageId) ?? { text: '', last: i, order: agentMessages.size };
    if (content?.type === 'text' && typeof content.text === 'string') message.text += content.text;
    message.last = i;
    agentMessages.set(messageId, message);
  });
  if (byId !== undefined || !point.messageFingerprint) return byId;
  const matching = [...agentMessages.values()].filter((m) => `sha256:${createHash('sha256').update(m.text, 'utf8').digest('hex')}` === point.messageFingerprint).sort((a, b) => a.order - b.order);
  const found = matching[point.messageOccurrence - 1];
  return found ? found.last + 1 : undefined;
}

/**
 * `session/fork`: a new session in `cwd` holding the origin's updates up to the fork point (all of
 * them without one), named after it and listing it as its origin; active once answered (the schema).
 */
async function handleFork({ params, client }: { params: { sessionId: string; cwd: string; _meta?: unknown }; client: { notify: Notify } }) {
  const record = await existingSession(params.sessionId);
  if (typeof params.cwd !== 'string' || !isAbsolute(params.cwd)) throw acp.RequestError.invalidParams({ cwd: params.cwd }, 'the cwd must be an absolute path');
  const point = forkPointOf(params._meta);
  const updates: SessionUpdate[] = [];
  for await (const update of readSessionUpdates(opts.store, record)) updates.push(update);
  const end = point ? forkEnd(updates, point) : updates.length;
  if (end === undefined) throw acp.RequestError.invalidParams({ messageId: point!.messageId }, `Fork point message ${point!.messageId} was not found in session ${params.sessionId}`);
  const sessionId = `${record.sessionId.slice(0, 80)}-fork-${randomBytes(4).toString('hex')}`;
  await writeSession(opts.store, {
    sessionId,
    cwd: params.cwd,
    ...(record.title !== undefined ? { title: `${record.title} (fork)` } : {}),
    updatedAt: new Date().toISOString(),
    archived: false,
    deleted: false,
    forkedFrom: record.sessionId,
    updates: updates.slice(0, end),
  });
  openSession(sessionId);
  log(`session/fork ${params.sessionId} -> ${sessionId} (${end} of ${updates.length} updates)`);
  // --fork-replays: the copy's replay comes first, under an id the client has not been told yet (OpenCode).
  if (opts.forkReplays) for (const update of updates.slice(0, end)) await client.notify('session/update', { sessionId, update });
  return { sessionId };
}

/** `_session/archive` and `_session/unarchive`: the standard's handlers, for a client that negotiated the extension. */
function airOnly<Context extends { params: SessionIdParams }>(method: string, handler: (context: Context) => Promise<object>) {
  return async (context: Context) => {
    if (!connection.air) throw acp.RequestError.methodNotFound(method);
    return handler(context);
  };
}

/** An extension method's params (the SDK validates only the standard's): `{ sessionId: string }` or -32602. */
function sessionIdParams(params: unknown): SessionIdParams {
  const sessionId = (params as { sessionId?: unknown } | null)?.sessionId;
  if (typeof sessionId !== 'string') throw acp.RequestError.invalidParams({ sessionId }, 'expected { sessionId: string }');
  return { sessionId };
}

/** The client offered JetBrains AIR's session index (`clientCapabilities._meta.jetbrains.air`). */
function offersAirSessionIndex(clientCapabilities: unknown): boolean {
  return offersAirCapability(clientCapabilities, 'sessionIndex');
}

/** The client declared an AIR capability (`clientCapabilities._meta.jetbrains.air.capabilities`). */
function offersAirCapability(clientCapabilities: unknown, capability: string): boolean {
  const air = (clientCapabilities as { _meta?: { jetbrains?: { air?: { version?: unknown; capabilities?: unknown } } } } | undefined)?._meta?.jetbrains?.air;
  return Number.isInteger(air?.version) && (air!.version as number) >= 1 && Array.isArray(air!.capabilities) && air!.capabilities.includes(capability);
}

/** What this agent answers an AIR client: the archive requests, and with --air-index the whole index (as claude-agent-acp 0.101.0). */
function airCapabilities(): string[] {
  return connection.airIndex
    ? ['sessionIndex', 'sessionBatchGet', 'sessionArchive', 'sessionRename', 'sessionListSubscribe', 'sessionWorktrees']
    : ['sessionIndex', 'sessionArchive'];
}

function authMethods() {
  return opts.authRequired ? [{ id: AUTH_METHOD_ID, name: 'Reference login', description: 'Any client may log in; it only proves the client handles auth.' }] : [];
}

function buildV1(): acp.AgentApp {
  const app = acp.agent({ name: 'acp-reference-agent' });
  app.onConnect((connected) => {
    agentClient = connected.client;
  });
  app.onRequest(
    'initialize',
    guarded('initialize', async ({ params }: { params: acp.InitializeRequest }) => {
      connection.protocolVersion = 1;
      connection.compaction = params.clientCapabilities?.session?.compaction != null;
      connection.subagents = (params.clientCapabilities as { subagents?: unknown } | undefined)?.subagents != null;
      connection.air = opts.archiveExtension && opts.list && offersAirSessionIndex(params.clientCapabilities);
      connection.airIndex = connection.air && opts.airIndex;
      connection.replayEnd = connection.airIndex && offersAirCapability(params.clientCapabilities, 'loadReplayEnd');
      log(`initialize v1 from ${params.clientInfo?.name ?? 'an unnamed client'} (compaction ${connection.compaction ? 'advertised' : 'not advertised'})`);
      if (opts.initializeDelayMs > 0) await sleep(opts.initializeDelayMs);
      const response: acp.InitializeResponse = {
        protocolVersion: 1,
        agentCapabilities: {
          loadSession: opts.load,
          sessionCapabilities: {
            ...(opts.list ? { list: {} } : {}),
            // The archive RFD requires `list` beside `archive`.
            ...(standardArchive ? { archive: {} } : {}),
            ...(opts.delete ? { delete: {} } : {}),
            ...(opts.resume ? { resume: {} } : {}),
            ...(opts.close ? { close: {} } : {}),
            ...(opts.title ? { title: {} } : {}),
            ...(opts.status ? { status: {} } : {}),
            ...(opts.fork ? { fork: {} } : {}),
            additionalDirectories: {},
          },
        },
        agentInfo: AGENT_INFO,
        authMethods: authMethods(),
        // What claude-agent-acp 0.101.0 and codex-acp 2.6.0 answer an AIR client (among other capabilities).
        ...(connection.air ? { _meta: { jetbrains: { air: { version: 1, capabilities: airCapabilities() } } } } : {}),
      };
      return response;
    }, 'initialize'),
  );
  if (opts.authRequired) {
    app.onRequest(
      'authenticate',
      guarded('authenticate', async ({ params }: { params: acp.AuthenticateRequest }) => {
        if (params.methodId !== AUTH_METHOD_ID) throw acp.RequestError.invalidParams({ methodId: params.methodId }, `unknown auth method; use "${AUTH_METHOD_ID}"`);
        connection.authenticated = true;
        return {};
      }),
    );
  }
  if (opts.list) app.onRequest('session/list', guarded('session/list', handleList, 'list'));
  if (standardArchive) {
    app.onRequest('session/archive', guarded('session/archive', handleArchive, 'archive'));
    app.onRequest('session/unarchive', guarded('session/unarchive', handleUnarchive));
  }
  if (opts.list && opts.archiveExtension) {
    app.onRequest('_session/archive', sessionIdParams, guarded('_session/archive', airOnly('_session/archive', handleArchive), 'archive'));
    app.onRequest('_session/unarchive', sessionIdParams, guarded('_session/unarchive', airOnly('_session/unarchive', handleUnarchive)));
  }
  if (opts.list && opts.airIndex) {
    app.onRequest('_session/rename', renameParams, guarded('_session/rename', airIndexOnly('_session/rename', handleAirRename)));
    app.onRequest('_session/batch_get', batchGetParams, guarded('_session/batch_get', airIndexOnly('_session/batch_get', handleBatchGet)));
    app.onRequest('_session/list/subscribe', subscribeParams, guarded('_session/list/subscribe', airIndexOnly('_session/list/subscribe', handleSubscribe)));
    app.onRequest('_session/list/unsubscribe', unsubscribeParams, guarded('_session/list/unsubscribe', airIndexOnly('_session/list/unsubscribe', handleUnsubscribe)));
  }
  if (opts.delete) app.onRequest('session/delete', guarded('session/delete', handleDelete, 'delete'));
  if (opts.close) app.onRequest('session/close', guarded('session/close', handleClose));
  if (opts.title) app.onRequest('session/set_title', guarded('session/set_title', handleSetTitle));
  if (opts.status) app.onRequest('session/status', guarded('session/status', handleStatus));
  if (opts.fork) app.onRequest('session/fork', guarded('session/fork', handleFork));
  if (opts.load) {
    app.onRequest(
      'session/load',
      guarded('session/load', async (context: acp.AgentRequestContext<acp.LoadSessionRequest>) => {
        const { params, client, signal } = context;
        const record = await existingSession(params.sessionId);
        if (params.cwd !== record.cwd) log(`session/load ${params.sessionId}: cwd ${params.cwd} differs from the session's ${record.cwd}`);
        // As claude and codex: loading resumes the session, so it is "updated" now.
        if (opts.resumeOnLoad) await updateSession(opts.store, params.sessionId, (r) => ({ ...r, updatedAt: new Date().toISOString() }));
        const fold = connection.compaction ? undefined : withoutCompactions();
        // The subagents schema: no `subagent_update` for a client that did not advertise it.
        const convert = (u: SessionUpdate) => (!connection.subagents && u.sessionUpdate === 'subagent_update' ? [] : fold ? fold(u) : [u]);
        const session = openSession(params.sessionId);
        if (opts.answerAfter !== undefined) {
          // As Gemini CLI: the answer comes after the first updates, the rest of the replay after it.
          let answer!: () => void;
          const answered = new Promise<void>((resolve) => (answer = resolve));
          let sent = 0;
          const counting: Notify = async (method, params) => {
            await client.notify(method, params);
            if (++sent === opts.answerAfter) answer();
          };
          if (opts.answerAfter === 0) answer();
          void replay(counting, record, convert, new AbortController().signal, session).catch((error) => log(`replay after the answer failed: ${error}`)).finally(answer);
          await answered;
          return {};
        }
        await replay((m, p) => client.notify(m, p), record, convert, signal, session, chaosPlans.get(context));
        // As claude-agent-acp: after the last replayed update, for a client that declared it.
        if (connection.replayEnd) {
          await client.notify('session/update', { sessionId: params.sessionId, update: { sessionUpdate: 'session_info_update', _meta: { jetbrains: { air: { loadReplayEnd: true } } } } });
        }
        return {};
      }),
    );
  }
  if (opts.resume) {
    app.onRequest(
      'session/resume',
      guarded('session/resume', async ({ params }: { params: acp.ResumeSessionRequest }) => {
        await existingSession(params.sessionId);
        openSession(params.sessionId); // v1 resume restores the session without replaying it
        return {};
      }),
    );
  }
  registerFallback(app);
  return app;
}

function buildV2(): acp2.AgentApp {
  const app = acp2.agent({ name: 'acp-reference-agent' });
  app.onRequest(
    'initialize',
    guarded('initialize', async ({ params }: { params: acp2.InitializeRequest }) => {
      connection.protocolVersion = 2;
      connection.compaction = true; // v2 has no compaction gate
      log(`initialize v2 from ${params.info?.name ?? 'an unnamed client'}`);
      const response: acp2.InitializeResponse = {
        protocolVersion: 2,
        info: AGENT_INFO,
        capabilities: {
          session: {
            ...(standardArchive ? { archive: {} } : {}),
            ...(opts.delete ? { delete: {} } : {}),
            additionalDirectories: {},
          },
        },
        authMethods: authMethods().map(({ id, ...m }) => ({ ...m, methodId: id, type: 'agent' as const })),
      };
      return response;
    }, 'initialize'),
  );
  if (opts.authRequired) {
    app.onRequest(
      'auth/login',
      guarded('auth/login', async ({ params }: { params: acp2.LoginAuthRequest }) => {
        if (params.methodId !== AUTH_METHOD_ID) throw acp.RequestError.invalidParams({ methodId: params.methodId }, `unknown auth method; use "${AUTH_METHOD_ID}"`);
        connection.authenticated = true;
        return {};
      }),
    );
    app.onRequest('auth/logout', guarded('auth/logout', async () => {
      connection.authenticated = false;
      return {};
    }));
  }
  if (opts.list) app.onRequest('session/list', guarded('session/list', handleList, 'list'));
  if (standardArchive) {
    app.onRequest('session/archive', guarded('session/archive', handleArchive, 'archive'));
    app.onRequest('session/unarchive', guarded('session/unarchive', handleUnarchive));
  }
  if (opts.delete) app.onRequest('session/delete', guarded('session/delete', handleDelete, 'delete'));
  app.onRequest('session/close', guarded('session/close', handleClose));
  app.onRequest(
    'session/resume',
    guarded('session/resume', async (context: acp2.AgentRequestContext<acp2.ResumeSessionRequest>) => {
      const { params, client, signal } = context;
      const record = await existingSession(params.sessionId);
      const session = openSession(params.sessionId);
      if (params.replayFrom == null) return {};
      if (params.replayFrom.type !== 'start') {
        throw acp.RequestError.invalidParams({ replayFrom: params.replayFrom }, 'this agent replays only from { type: "start" }');
      }
      if (!opts.load) throw acp.RequestError.invalidParams({ replayFrom: params.replayFrom }, 'history replay is turned off (--no-load)');
      await replay((m, p) => client.notify(m, p), record, toV2Updates(params.sessionId), signal, session, chaosPlans.get(context));
      return {};
    }),
  );
  registerFallback(app);
  return app;
}

/** Unregistered methods: -32601, but --fail, --exit-at, --delay and --malformed-before still apply. */
function registerFallback(app: { onRequest(method: '*', handler: (context: { method: string }) => Promise<unknown>): unknown }): void {
  app.onRequest('*', async (context: { method: string }) =>
    guarded(context.method, async () => {
      throw acp.RequestError.methodNotFound(context.method);
    })(context),
  );
}

async function main(): Promise<void> {
  await removeStaleTempFiles(opts.store);
  // Not Readable.toWeb(process.stdin): on Node 20 it lost lines that arrived together with
  // `initialize` in one chunk; plain 'data' events deliver every byte.
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      process.stdin.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
      process.stdin.on('end', () => controller.close());
      process.stdin.on('error', (error) => controller.error(error));
    },
  });
  // The SDK takes a writer from `output` for each message and only writes to it: a plain
  // object with that shape spares a web stream's writer set-up and release per message.
  const writer = { write: (chunk: Uint8Array) => writeStdout(chunk), releaseLock: () => undefined };
  const output = { getWriter: () => writer } as unknown as WritableStream<Uint8Array>;
  const stream = acp.ndJsonStream(output, input);
  const router = acp2.agentProtocolRouter().withV1(buildV1());
  if (opts.v2) router.withV2(buildV2());
  log(`serving ${opts.store} (page size ${opts.pageSize}${opts.v2 ? ', v2 enabled' : ''})`);
  const routed = router.connect(stream);
  await routed.closed;
  log('connection closed; exiting');
  process.exit(0);
}

main().catch((error) => {
  log(`fatal: ${(error as Error)?.stack ?? error}`);
  process.exit(1);
});
