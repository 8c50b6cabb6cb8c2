// Pure session logic of the reference agent: list filtering, ordering and cursors, and what
// a replay sends for a given protocol version and client capabilities.
import type { SessionUpdate, StoredSession } from './store';
import type { CwdMatch } from './options';

export type ArchivedFilter = 'exclude' | 'include' | 'only';

/** A `session/list` failure the agent answers with -32602. */
export class InvalidListParams extends Error {}

export interface ListParams {
  cwd?: string | null;
  archived?: string | null;
  cursor?: string | null;
}

/** The extension's list filter values, as the agent reads them from `_meta.jetbrains.air.list.archived`. */
const AIR_FILTERS: Record<string, ArchivedFilter> = { unarchived: 'exclude', archived: 'only', all: 'include' };

/** The extension's list filter of a `session/list` request's `_meta` (omitted or null: unarchived only). */
export function airListFilter(meta: unknown): ArchivedFilter {
  const value = record(record(record(record(meta).jetbrains).air).list).archived;
  if (value === undefined || value === null) return 'exclude';
  const filter = typeof value === 'string' && Object.hasOwn(AIR_FILTERS, value) ? AIR_FILTERS[value] : undefined;
  if (!filter) throw new InvalidListParams(`invalid _meta.jetbrains.air.list.archived ${JSON.stringify(value)}: expected "unarchived", "archived" or "all"`);
  return filter;
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export interface ListedSession {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt: string;
  archived?: boolean;
  additionalDirectories?: string[];
  _meta?: { jetbrains?: { air: Record<string, unknown> }; parentSessionId?: string };
}

interface CursorPayload {
  v: 1;
  /** updatedAt (ms) and sessionId of the last session on the previous page. */
  t: number;
  id: string;
  /** The cwd and archived filter the sequence started with. */
  f: string;
}

function filterKey(cwd: string | null, archived: ArchivedFilter): string {
  return JSON.stringify([cwd, archived]);
}

function encodeCursor(payload: CursorPayload): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): CursorPayload {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidListParams(`invalid cursor ${JSON.stringify(cursor)}: not one this agent issued`);
  }
  const p = payload as Partial<CursorPayload> | null;
  if (!p || p.v !== 1 || typeof p.t !== 'number' || typeof p.id !== 'string' || typeof p.f !== 'string') {
    throw new InvalidListParams(`invalid cursor ${JSON.stringify(cursor)}: not one this agent issued`);
  }
  return p as CursorPayload;
}

/** Newest first; equal times by sessionId, so the order is total and stable across pages. */
export function compareSessions(a: { updatedAt: string; sessionId: string }, b: { updatedAt: string; sessionId: string }): number {
  const dt = Date.parse(b.updatedAt) - Date.parse(a.updatedAt);
  if (dt !== 0) return dt;
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}

/**
 * One page of `session/list`. `archiveSupported` says whether the agent advertises archive:
 * then the filter applies and every session carries `archived`; otherwise an `archived` value
 * is rejected and archive state is invisible (every undeleted session is listed).
 * `airFilter` (the JetBrains AIR extension instead of the standard, see {@link airListFilter}):
 * that filter applies and every session carries `_meta.jetbrains.air.archived`.
 */
export function listPage(
  stored: readonly StoredSession[],
  params: ListParams,
  pageSize: number,
  archiveSupported: boolean,
  airFilter?: ArchivedFilter,
  airState = false,
  airIndex = false,
  quirks: ListQuirks = {},
): { sessions: ListedSession[]; nextCursor?: string } {
  let archived: ArchivedFilter;
  // The SDK's schema lets any string through (an open enum), so the RFD's -32602 is ours to send.
  if (airFilter !== undefined && (params.archived === undefined || params.archived === null)) archived = airFilter;
  else if (params.archived === undefined || params.archived === null) archived = 'exclude';
  else if (!archiveSupported) throw new InvalidListParams('the `archived` filter needs the archive capability, which this agent does not advertise');
  else if (params.archived === 'exclude' || params.archived === 'include' || params.archived === 'only') archived = params.archived;
  else throw new InvalidListParams(`invalid \`archived\` filter ${JSON.stringify(params.archived)}: expected "exclude", "include" or "only"`);
  const cwd = params.cwd ?? null;
  const key = filterKey(cwd, archived);
  // --ignore-archived-filter: the filter is read (and checked) but every state is listed.
  const filtering = (archiveSupported || airFilter !== undefined) && !quirks.ignoreArchivedFilter;

  let after: CursorPayload | undefined;
  if (params.cursor !== undefined && params.cursor !== null) {
    after = decodeCursor(params.cursor);
    if (after.f !== key) throw new InvalidListParams('cursor was issued for a different `cwd` or `archived` filter; start a new list without it');
  }

  // The order of compareSessions, with each date parsed once rather than per comparison.
  const matching = stored
    .filter((s) => !s.deleted && (cwd === null || cwdMatches(s.cwd, cwd, quirks.cwdMatch ?? 'exact')) && (!filtering || archived === 'include' || (archived === 'only') === s.archived))
    .map((s) => ({ s, t: Date.parse(s.updatedAt) }))
    .sort((a, b) => b.t - a.t || (a.s.sessionId < b.s.sessionId ? -1 : a.s.sessionId > b.s.sessionId ? 1 : 0))
    .map((k) => k.s);
  const afterTime = after?.t;
  const start = after ? matching.findIndex((s) => { const t = Date.parse(s.updatedAt); return t < afterTime! || (t === afterTime && s.sessionId > after!.id); }) : 0;
  const from = start < 0 ? matching.length : start;
  // --list-cap: one page of at most N rows and never a cursor, as OpenCode 1.18 lists (100).
  const page = quirks.listCap !== undefined ? matching.slice(0, quirks.listCap) : matching.slice(from, from + pageSize);
  const hasMore = quirks.listCap === undefined && from + pageSize < matching.length;
  const last = page[page.length - 1];
  return {
    sessions: page.map((s) => toListedSession(s, archiveSupported && !quirks.omitArchivedFlag, airFilter !== undefined, airState, airIndex)),
    ...(hasMore && last ? { nextCursor: encodeCursor({ v: 1, t: Date.parse(last.updatedAt), id: last.sessionId, f: key }) } : {}),
  };
}

/** Ways of listing that real agents have and the tests need (see --cwd-match, --omit-archived-flag). */
export interface ListQuirks {
  cwdMatch?: CwdMatch;
  omitArchivedFlag?: boolean;
  /** At most this many rows and no `nextCursor`, whatever the store holds (OpenCode 1.18.33: 100). */
  listCap?: number;
  /** The `archived` filter is accepted and ignored: every state is listed (OpenCode, Auggie). */
  ignoreArchivedFilter?: boolean;
}

function cwdMatches(stored: string, asked: string, match: CwdMatch): boolean {
  if (match === 'ignore') return true;
  const spelled = (p: string) => (match === 'exact' ? p : p.replace(/^([a-zA-Z]):/, (_, d: string) => `${d.toLowerCase()}:`).replace(/(.)[\\/]+$/, '$1'));
  const a = spelled(stored);
  const b = spelled(asked);
  if (a === b) return true;
  return match === 'prefix' && a.startsWith(b);
}

/**
 * One list entry of a stored session. `air`: the AIR extension's `_meta.jetbrains.air.archived`
 * (with `airState` its `state`, with `airIndex` the stored row metadata, `airMeta`).
 */
export function toListedSession(s: StoredSession, archiveSupported: boolean, air: boolean, airState: boolean, airIndex = false): ListedSession {
  const info: ListedSession = { sessionId: s.sessionId, cwd: s.cwd, ...(s.title !== undefined ? { title: s.title } : {}), updatedAt: s.updatedAt };
  if (archiveSupported) info.archived = s.archived;
  // claude-agent-acp states every entry ("idle" when nothing runs).
  if (air) info._meta = { jetbrains: { air: { ...(airIndex ? s.airMeta : {}), archived: s.archived, ...(airState ? { state: s.state ?? 'idle' } : {}) } } };
  // Lineage in the entry: no schema field carries it, so a vendor `_meta` key does.
  if (s.parentSessionId !== undefined) info._meta = { ...info._meta, parentSessionId: s.parentSessionId };
  // A fork names its origin as the agents with the AIR index do.
  if (s.forkedFrom !== undefined) {
    const meta = info._meta ?? {};
    info._meta = { ...meta, jetbrains: { air: { ...meta.jetbrains?.air, forkedFrom: s.forkedFrom } } };
  }
  if (s.additionalDirectories && s.additionalDirectories.length > 0) info.additionalDirectories = [...s.additionalDirectories];
  return info;
}

type Update = SessionUpdate & Record<string, unknown>;
type ContentBlock = { type: string; [key: string]: unknown };

function isCompaction(u: Update): boolean {
  return u.sessionUpdate === 'compaction_update' || u.sessionUpdate === 'compaction_summary_chunk';
}

/**
 * v1 replay for a client that did not advertise `clientCapabilities.session.compaction`: the
 * compaction RFD forbids compaction updates then, so each compaction that reaches `completed`
 * becomes an agent message at that point ("Context compacted." plus the summary it holds by
 * then, per the RFD's patch rules); in-progress, failed, cancelled and unknown-status
 * compactions, and chunks after the terminal update, are omitted.
 */
export function withoutCompactions(): (update: SessionUpdate) => SessionUpdate[] {
  // One update at a time (the replay streams them): the summaries so far are all it keeps.
  const summaries = new Map<string, ContentBlock[]>();
  return (raw) => {
    const u = raw as Update;
    if (!isCompaction(u)) return [raw];
    const id = String(u.compactionId);
    const summary = summaries.get(id) ?? [];
    if (u.sessionUpdate === 'compaction_summary_chunk') {
      summary.push(u.content as ContentBlock);
      summaries.set(id, summary);
      return [];
    }
    const next = u.summary === undefined ? summary : Array.isArray(u.summary) ? [...(u.summary as ContentBlock[])] : [];
    summaries.set(id, next);
    if (u.status !== 'completed') return [];
    const messageId = `compaction-${id}`;
    return [
      { sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: next.length ? 'Context compacted. Summary:\n\n' : 'Context compacted.' } } as SessionUpdate,
      ...next.map((block) => ({ sessionUpdate: 'agent_message_chunk', messageId, content: block }) as SessionUpdate),
    ];
  };
}

const MESSAGE_CHUNKS = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk']);

/**
 * v2 replay of a v1-shaped store: message chunks get the `messageId` v2 requires (one per run
 * of chunks of one kind), a v1 `tool_call` becomes v2's upserting `tool_call_update`, and a v1
 * `plan` becomes a `plan_update` of items. Everything else, unknown kinds included, is sent
 * as stored (v2 has no compaction capability gate).
 */
export function toV2Updates(sessionId: string): (update: SessionUpdate) => Record<string, unknown>[] {
  let run = 0;
  let previousKind: string | undefined;
  return (raw) => {
    const u = raw as Update;
    const kind = u.sessionUpdate;
    let out: Record<string, unknown>;
    if (MESSAGE_CHUNKS.has(kind)) {
      if (kind !== previousKind) run++;
      out = { ...u, messageId: u.messageId ?? `${sessionId}-m${run}` };
    } else if (kind === 'tool_call') {
      out = { ...u, sessionUpdate: 'tool_call_update' };
    } else if (kind === 'plan') {
      const { entries, _meta } = u as { entries?: unknown; _meta?: unknown };
      out = { sessionUpdate: 'plan_update', plan: { type: 'items', planId: `${sessionId}-plan`, entries: entries ?? [] }, ...(_meta ? { _meta } : {}) };
    } else {
      out = { ...u };
    }
    previousKind = kind;
    return [out];
  };
}
