// What the client reads from an agent, checked where it enters: a field of the wrong type is
// dropped (or coerced where the meaning is plain) and reported once, so nothing later throws on
// a `title` of 42. Plain TypeScript, no `vscode`.
import type { AuthMethod, Implementation, SessionInfo, SessionUpdate } from './types';

/** Collects what was wrong in one message, to log it as one warning. */
export class Problems {
  private readonly seen = new Map<string, number>();
  private added = 0;

  add(what: string): void {
    this.added++;
    this.seen.set(what, (this.seen.get(what) ?? 0) + 1);
  }

  /** Problems added so far, repeats included: unchanged across a check when it fixed nothing. */
  get count(): number {
    return this.added;
  }

  get size(): number {
    return this.seen.size;
  }

  /** `title of the wrong type (×2), updatedAt not a date` */
  toString(): string {
    return [...this.seen].map(([what, n]) => (n > 1 ? `${what} (×${n})` : what)).join(', ');
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON type name for the log, never the value itself (it may be huge or hostile). */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Optional string-or-null fields of `record`, in place: a value of another type is deleted.
 * `updatedAt` must also parse as a date.
 */
function checkOptionalFields(record: Record<string, unknown>, problems: Problems): void {
  for (const field of ['title', 'updatedAt'] as const) {
    const value = record[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') {
      problems.add(`${field} of type ${typeName(value)}`);
      delete record[field];
    } else if (field === 'updatedAt' && Number.isNaN(Date.parse(value))) {
      problems.add('updatedAt that is not a date');
      delete record[field];
    }
  }
  if (record.archived !== undefined && record.archived !== null && typeof record.archived !== 'boolean') {
    problems.add(`archived of type ${typeName(record.archived)}`);
    delete record.archived;
  }
  if (record._meta !== undefined && record._meta !== null && !isRecord(record._meta)) {
    problems.add(`_meta of type ${typeName(record._meta)}`);
    delete record._meta;
  }
}

/**
 * One `session/list` entry, cleaned (a copy), or undefined when it has no usable `sessionId`
 * (a non-empty string) or `cwd` (a string).
 */
export function checkSessionInfo(value: unknown, problems: Problems): SessionInfo | undefined {
  if (!isRecord(value)) {
    problems.add(`an entry of type ${typeName(value)} skipped`);
    return undefined;
  }
  if (typeof value.sessionId !== 'string' || value.sessionId === '') {
    problems.add('an entry without a sessionId skipped');
    return undefined;
  }
  if (typeof value.cwd !== 'string') {
    problems.add('an entry without a cwd skipped');
    return undefined;
  }
  const session = { ...value };
  // `state` and `details` are the client's own fields (sessionState.ts, jetbrainsAir.ts); the schema gives the agent none to set.
  delete session.state;
  delete session.details;
  checkOptionalFields(session, problems);
  const meta = session._meta;
  if (isRecord(meta) && meta[PARENT_SESSION_META] !== undefined && meta[PARENT_SESSION_META] !== null && !isSessionId(meta[PARENT_SESSION_META])) {
    problems.add(`_meta.${PARENT_SESSION_META} of type ${typeName(meta[PARENT_SESSION_META])}`);
    const cleaned = { ...meta };
    delete cleaned[PARENT_SESSION_META];
    session._meta = cleaned;
  }
  return session as unknown as SessionInfo;
}

/**
 * The list entry key that names a subagent session's parent. No schema field carries lineage in
 * `session/list` yet, and neither claude-agent-acp nor codex-acp lists subagent sessions at all
 * (only forks, as `_meta.jetbrains.air.forkedFrom`); the reference agent uses this key.
 */
export const PARENT_SESSION_META = 'parentSessionId';

function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** The parent a listed session names in its `_meta`, when it is a subagent session. */
export function subagentParentOf(session: SessionInfo): string | undefined {
  const meta: unknown = session._meta;
  const parent = isRecord(meta) ? meta[PARENT_SESSION_META] : undefined;
  return isSessionId(parent) && parent !== session.sessionId ? parent : undefined;
}

/** `nextCursor`: a string, or absent (anything else ends the list, reported). */
export function checkCursor(value: unknown, problems: Problems): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  problems.add(`nextCursor of type ${typeName(value)} (the list ends here)`);
  return undefined;
}

/**
 * A `session/update` notification's params that name a session (a string `sessionId`) and an
 * update of a kind (a string `sessionUpdate`), the update not checked yet; undefined otherwise.
 */
export function sessionNotificationOf(params: unknown): { sessionId: string; update: SessionUpdate } | undefined {
  if (!isRecord(params) || typeof params.sessionId !== 'string') return undefined;
  const update = params.update;
  if (!isRecord(update) || typeof update.sessionUpdate !== 'string') return undefined;
  return { sessionId: params.sessionId, update: update as unknown as SessionUpdate };
}

/**
 * The update in one line of the agent's, checked as the client checks what it delivers
 * ({@link sessionNotificationOf}, {@link checkSessionUpdate}); undefined when the line is not a
 * `session/update` notification that names a session and a kind.
 */
export function sessionUpdateOfLine(line: string, problems: Problems): SessionUpdate | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(message) || message.method !== 'session/update' || message.id !== undefined) return undefined;
  const notification = sessionNotificationOf(message.params);
  return notification && checkSessionUpdate(notification.update, problems);
}

/**
 * How deep objects and arrays may nest in an update (the update itself is level 1): far deeper
 * than any shape of the protocol (a tool's `rawInput` of a few levels), far shallower than what
 * the engine's recursive copies survive (v8.serialize, JSON.stringify and the structured clone to
 * the webview throw "Maximum call stack size exceeded" from about 2,000 levels).
 */
export const MAX_UPDATE_DEPTH = 64;

/** Whether objects or arrays in `value` nest deeper than `levels` (a plain value is level 0, `{}` level 1). */
export function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels <= 0) return true;
  // Every update of every replay passes here: plain values (most fields) cost no call.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null && nestsDeeperThan(item, levels - 1)) return true;
    }
    return false;
  }
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null && nestsDeeperThan(item, levels - 1)) return true;
  }
  return false;
}

/** A copy of `value` in which every object or array past `levels` is null. */
function cutDeeperThan(value: unknown, levels: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (levels <= 0) return null;
  if (Array.isArray(value)) return value.map((item) => cutDeeperThan(item, levels - 1));
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = cutDeeperThan((value as Record<string, unknown>)[key], levels - 1);
    // An own `__proto__` (JSON.parse makes one) stays a key, not the copy's prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/**
 * A `session/update` payload as listeners get it: anything nested deeper than
 * MAX_UPDATE_DEPTH is cut there (null); `session_info_update`'s `title`, `updatedAt` and
 * `archived` of the wrong type are dropped (= unchanged). Other kinds pass unchanged.
 */
export function checkSessionUpdate(update: SessionUpdate, problems: Problems): SessionUpdate {
  if (nestsDeeperThan(update, MAX_UPDATE_DEPTH)) {
    problems.add(`a value nested deeper than ${MAX_UPDATE_DEPTH} levels (cut there)`);
    update = cutDeeperThan(update, MAX_UPDATE_DEPTH) as SessionUpdate;
  }
  if (update.sessionUpdate === 'subagent_update') return checkSubagentUpdate(update, problems);
  if (update.sessionUpdate !== 'session_info_update') return update;
  const copy = { ...(update as unknown as Record<string, unknown>) };
  checkOptionalFields(copy, problems);
  return copy as unknown as SessionUpdate;
}

/**
 * `subagent_update` (unstable schema): `title`, `description` and `cwd` of the wrong type, and a
 * `state` that is not an object with a string `state`, are dropped (= unchanged). A missing
 * `sessionId` passes on: the transcript shows the update as one it could not apply.
 */
function checkSubagentUpdate(update: SessionUpdate, problems: Problems): SessionUpdate {
  const copy = { ...(update as unknown as Record<string, unknown>) };
  for (const field of ['title', 'description', 'cwd'] as const) {
    const value = copy[field];
    if (value === undefined || value === null || typeof value === 'string') continue;
    problems.add(`subagent_update ${field} of type ${typeName(value)}`);
    delete copy[field];
  }
  const state = copy.state;
  if (state !== undefined && state !== null && !(isRecord(state) && typeof state.state === 'string')) {
    problems.add('subagent_update state without a string state');
    delete copy.state;
  }
  return copy as unknown as SessionUpdate;
}

/** `agentInfo` / `info`: needs a string `name`; a number `version` becomes a string, another type ''. */
export function checkImplementation(value: unknown, problems: Problems): Implementation | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value) || typeof value.name !== 'string') {
    problems.add('agent info without a name');
    return undefined;
  }
  const info: Record<string, unknown> = { ...value };
  if (typeof info.version !== 'string') {
    if (info.version !== undefined) problems.add(`agent version of type ${typeName(info.version)}`);
    info.version = typeof info.version === 'number' ? String(info.version) : '';
  }
  if (info.title !== undefined && info.title !== null && typeof info.title !== 'string') {
    problems.add(`agent title of type ${typeName(info.title)}`);
    delete info.title;
  }
  return info as unknown as Implementation;
}

/** `authMethods`: the entries with a string `id` and `name` (a `description` that is not a string is dropped). */
export function checkAuthMethods(value: unknown, problems: Problems): AuthMethod[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.add(`authMethods of type ${typeName(value)}`);
    return [];
  }
  const methods: AuthMethod[] = [];
  for (const entry of value) {
    if (!isRecord(entry) || typeof entry.id !== 'string' || typeof entry.name !== 'string') {
      problems.add('an auth method without a string id and name skipped');
      continue;
    }
    const method: Record<string, unknown> = { ...entry };
    if (method.description !== undefined && method.description !== null && typeof method.description !== 'string') {
      problems.add(`an auth method description of type ${typeName(method.description)}`);
      delete method.description;
    }
    methods.push(method as unknown as AuthMethod);
  }
  return methods;
}

/** An object the agent sent where the protocol has an object; anything else is reported and read as `{}`. */
export function checkRecord(value: unknown, what: string, problems: Problems): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (isRecord(value)) return value;
  problems.add(`${what} of type ${typeName(value)}`);
  return {};
}

/**
 * Whether a capability is advertised: an object (the schema's shape) or `true`; absent, `null`
 * and `false` are not, and another type is reported and not advertised.
 */
export function checkCapability(value: unknown, what: string, problems: Problems): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (value === true || isRecord(value)) return true;
  problems.add(`${what} of type ${typeName(value)}`);
  return false;
}

/** A JSON-RPC error's parts as the typed errors carry them: an integer code, a string message. */
export function checkErrorParts(code: unknown, message: unknown, problems: Problems): { code: number; message: string } {
  const checkedCode = typeof code === 'number' && Number.isInteger(code) ? code : -32603;
  if (checkedCode !== code) problems.add(`error code of type ${typeName(code)}`);
  const checkedMessage = typeof message === 'string' ? message : '';
  if (typeof message !== 'string') problems.add(`error message of type ${typeName(message)}`);
  return { code: checkedCode, message: checkedMessage };
}
