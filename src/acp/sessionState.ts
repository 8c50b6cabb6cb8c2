// A session's live state, as the agent tells it without side effects, in one vocabulary. Two
// ways reach it, translated here so that sessions/ and ui/ never see either wire form:
// - the SDK's unstable `session/status` (capability `sessionCapabilities.status`): "open" (the
//   agent has the session in memory) or "saved"; a value a client does not recognise MUST be
//   read as "saved";
// - the JetBrains AIR session index: `session/list` entries carry `_meta.jetbrains.air.state`.
//   claude-agent-acp 0.101.0 sends "idle", "running", "requires_action" or "error" for every
//   entry (its session/index/activity.js); codex-acp 2.6.0 sends "idle" for a session it holds
//   (after a load). Neither serves `session/status` (-32601).
// The standard wins when an agent offers both, as for archive.
import { airMeta } from './archive';
import type { Problems } from './validate';

/** What a session is doing: `open` (in the agent's memory), `running` (a turn runs), `requires_action` (waits for the user), `idle`, `error` (its last turn failed). */
export type SessionState = 'open' | 'running' | 'requires_action' | 'idle' | 'error';

/** Where the client learns live state: the standard's `session/status`, or the AIR list entries. */
export type SessionStateSource = 'status' | 'jetbrains-air';

const AIR_STATES: readonly SessionState[] = ['running', 'requires_action', 'idle', 'error'];

/**
 * The state of a `session/status` answer: `open`, or undefined for "saved". Another value, or an
 * answer without a string `status`, is read as "saved" (the schema's rule) and reported.
 */
export function parseSessionStatus(result: unknown, problems: Problems): SessionState | undefined {
  const status = result && typeof result === 'object' && !Array.isArray(result) ? (result as { status?: unknown }).status : undefined;
  if (status === 'open') return 'open';
  if (status === 'saved') return undefined;
  problems.add(typeof status === 'string' ? 'a status this client does not know (read as "saved")' : 'an answer without a string status (read as "saved")');
  return undefined;
}

/**
 * A listed session with `state` from the AIR extension's `_meta.jetbrains.air.state`, when the
 * agent tells it; an unknown value (including `_`-prefixed ones) is left out and reported.
 */
export function withAirState<T extends { state?: SessionState; _meta?: unknown }>(session: T, problems: Problems): T {
  const raw = airMeta(session._meta).state;
  if (raw === undefined || raw === null) return session;
  if (typeof raw === 'string' && (AIR_STATES as readonly string[]).includes(raw)) return { ...session, state: raw as SessionState };
  problems.add(typeof raw === 'string' ? 'a state this client does not know (ignored)' : `a state of type ${Array.isArray(raw) ? 'array' : typeof raw} (ignored)`);
  return session;
}
