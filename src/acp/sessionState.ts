// A session's live state, as the agent tells it without side effects, in one vocabulary. Two
// ways reach it, translated so that sessions/ and ui/ never see either wire form:
// - the SDK's unstable `session/status` (capability `sessionCapabilities.status`): "open" (the
//   agent has the session in memory) or "saved"; a value a client does not recognise MUST be
//   read as "saved";
// - the JetBrains AIR session index: `session/list` entries carry `_meta.jetbrains.air.state`
//   (read in jetbrainsAir.ts).
// The standard wins when an agent offers both, as for archive.
import type { SessionState } from './types';
import type { Problems } from './validate';

export type { SessionState, SessionStateSource } from './types';
export { withAirState } from './jetbrainsAir';

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
