// Typed errors of the ACP client, so callers branch on `instanceof` instead of on codes and texts.

/** JSON-RPC and ACP error codes this client tells apart. */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  RequestCancelled: -32800,
  AuthRequired: -32000,
  ResourceNotFound: -32002,
} as const;

/** An error response from the agent to one of our requests. */
export class AcpError extends Error {
  constructor(
    /** The JSON-RPC error code the agent answered with. */
    readonly code: number,
    /** The method we called. */
    readonly method: string,
    /** The agent's own message, verbatim. */
    readonly agentMessage: string,
    /** The error's `data`, if the agent sent any. */
    readonly data?: unknown,
  ) {
    const detail = detailOf(data, agentMessage);
    super(`${method} failed (${code}): ${agentMessage}${detail ? ` (${detail})` : ''}`);
    this.name = new.target.name;
  }
}

/** How much of an error's `data` a message repeats. */
const MAX_DETAIL_CHARS = 300;

/**
 * What an error's `data` adds to its message, when the agent put its words there: Auggie answers
 * an unknown session with -32602 "Invalid params" and `data.details` "Session not found: …", and a
 * missing field with -32603 and a list of `{ message, path }`. Anything else in `data` stays out.
 */
function detailOf(data: unknown, agentMessage: string): string | undefined {
  let text: string | undefined;
  if (typeof data === 'string') text = data;
  else if (Array.isArray(data)) {
    const first = data[0] as { message?: unknown; path?: unknown } | undefined;
    if (typeof first?.message === 'string') {
      const path = Array.isArray(first.path) ? first.path.filter((p) => typeof p === 'string' || typeof p === 'number').join('.') : '';
      text = path ? `${path}: ${first.message}` : first.message;
    }
  } else if (data && typeof data === 'object') {
    const { details, message } = data as { details?: unknown; message?: unknown };
    text = typeof details === 'string' ? details : typeof message === 'string' ? message : undefined;
  }
  if (text === undefined) return undefined;
  text = text.replace(/\s+/g, ' ').trim();
  if (!text || agentMessage.includes(text)) return undefined;
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}

/** -32002: the session is unknown, deleted or expired. */
export class ResourceNotFoundError extends AcpError {}
/** -32602: the agent rejected the parameters (e.g. an unknown `archived` filter value). */
export class InvalidParamsError extends AcpError {}
/** -32601: the agent does not implement the method, whatever it advertised. */
export class MethodNotFoundError extends AcpError {}
/** -32000: the agent wants the user to authenticate first. */
export class AuthRequiredError extends AcpError {}
/** -32800: the request was cancelled (by us, or the agent gave up). */
export class RequestCancelledError extends AcpError {}

/**
 * Another process of the agent holds the session (it is open there), so this one may not change
 * it. Its message is ours, never the agent's text or a raw code: "This session is open in another
 * Codex process; close it there first." `agentMessage` keeps the agent's own words.
 */
export class SessionInUseError extends AcpError {
  constructor(
    code: number,
    method: string,
    agentMessage: string,
    data: unknown,
    readonly agentName: string,
    /** The agent's reason in `data.reason`: `thread_active_writer` (codex-acp), `session_active`. */
    readonly reason: string,
  ) {
    super(code, method, agentMessage, data);
    this.message = `This session is open in another ${agentName} process; close it there first.`;
  }
}

/**
 * Reasons in an error's `data.reason` that mean another process holds the session: codex-acp
 * 2.6.0 answers -32600 with `{ reason: "thread_active_writer", threadId, details }` when another
 * Codex client writes the thread; `session_active` is the name issue 22 saw for a session open
 * elsewhere (no installed agent sends it yet; accepted in the same shape).
 */
const SESSION_IN_USE_REASONS: readonly string[] = ['thread_active_writer', 'session_active'];

/** Maps an agent's error response to the typed error for its code (or, for a session held elsewhere, its reason). */
export function acpErrorFor(code: number, method: string, message: string, data?: unknown, agentName = 'agent'): AcpError {
  const reason = data && typeof data === 'object' && !Array.isArray(data) ? (data as { reason?: unknown }).reason : undefined;
  if (typeof reason === 'string' && SESSION_IN_USE_REASONS.includes(reason)) {
    return new SessionInUseError(code, method, message, data, agentName, reason);
  }
  switch (code) {
    case ErrorCodes.ResourceNotFound:
      return new ResourceNotFoundError(code, method, message, data);
    case ErrorCodes.InvalidParams:
      return new InvalidParamsError(code, method, message, data);
    case ErrorCodes.MethodNotFound:
      return new MethodNotFoundError(code, method, message, data);
    case ErrorCodes.AuthRequired:
      return new AuthRequiredError(code, method, message, data);
    case ErrorCodes.RequestCancelled:
      return new RequestCancelledError(code, method, message, data);
    default:
      return new AcpError(code, method, message, data);
  }
}

/** Thrown before anything is sent: the agent did not advertise what the call needs. */
export class UnsupportedCapabilityError extends Error {
  constructor(
    readonly agentName: string,
    readonly method: string,
    /** The capability that was missing, in the protocol's words (`sessionCapabilities.archive`). */
    readonly capability: string,
  ) {
    super(`Agent "${agentName}" does not support ${method}: it did not advertise ${capability}.`);
    this.name = 'UnsupportedCapabilityError';
  }
}

/**
 * The agent did not answer a request within the deadline (setting `acpSessions.requestTimeout`):
 * the request was cancelled; the connection stays (a slow answer is not a dead agent).
 */
export class RequestTimeoutError extends Error {
  constructor(
    readonly agentName: string,
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`Agent "${agentName}" did not answer ${method} within ${timeoutMs} ms (setting acpSessions.requestTimeout).`);
    this.name = 'RequestTimeoutError';
  }
}

/** Formats the last lines of an agent's stderr for an error message. */
function withStderr(message: string, stderrTail: readonly string[]): string {
  if (stderrTail.length === 0) return message;
  return `${message}\nLast lines of its stderr:\n${stderrTail.map((l) => `  ${l}`).join('\n')}`;
}

/** The agent could not be started: missing executable, exit during start, no answer to `initialize`. */
export class AgentStartError extends Error {
  constructor(
    readonly agentName: string,
    /** What went wrong, in one sentence without the agent's name. */
    readonly reason: string,
    readonly stderrTail: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(withStderr(`Could not start agent "${agentName}": ${reason}`, stderrTail), options);
    this.name = 'AgentStartError';
  }
}

/** The connection to a running agent ended: it exited, crashed, closed its output, or we disposed it. */
export class AgentDisconnectedError extends Error {
  constructor(
    readonly agentName: string,
    /** Why, in one sentence without the agent's name (e.g. `exited with code 3`). */
    readonly reason: string,
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
    readonly stderrTail: readonly string[],
  ) {
    super(withStderr(`Agent "${agentName}" disconnected: ${reason}`, stderrTail));
    this.name = new.target.name;
  }
}

/**
 * The agent sent a line longer than the limit. The connection is closed (and the agent
 * stopped) rather than skipping the line, because a skipped response would leave its
 * request waiting forever and a skipped update would silently corrupt a transcript.
 */
export class MessageTooLargeError extends AgentDisconnectedError {
  constructor(
    agentName: string,
    readonly limitBytes: number,
    stderrTail: readonly string[],
  ) {
    super(
      agentName,
      `it sent a message longer than the limit of ${limitBytes} bytes (setting acpSessions.maxMessageSize); the connection was closed`,
      null,
      null,
      stderrTail,
    );
  }
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * The message, and the agent's own `data.details` when it sent a string there (codex-acp puts its
 * reason there behind a bare "Internal error"), cut to a line's length. Untrusted text: the caller
 * makes it plain for its surface.
 */
export function messageWithDetails(error: unknown): string {
  const details = (error as { data?: { details?: unknown } } | null)?.data?.details;
  const message = messageOf(error);
  return typeof details === 'string' && details.trim() !== '' && !message.includes(details) ? `${message} (${details.slice(0, 500)})` : message;
}

/** The agent's "Resource not found" (-32002): the session is gone. */
export function isResourceNotFound(error: unknown): boolean {
  return (error as { code?: unknown })?.code === -32002;
}
