// Clean-up rules: which sessions a "Clean Up Sessions…" run selects. Pure functions over what
// `session/list` returned (never a loaded session), tested under Node.
import type { SessionInfo, SessionState } from '../acp/types';
import { sessionLabel, updatedAtMs } from './format';
import type { SessionProblem } from './health';

const DAY = 24 * 60 * 60 * 1000;

/** What a clean-up acts on: Archive moves active sessions, Delete removes archived ones only. */
export type CleanupAction = 'archive' | 'delete';

/** The rules a run combines; a session must match every rule given. */
export interface CleanupRule {
  /** Last updated more than this many days ago (a session without `updatedAt` never matches). */
  olderThanDays?: number;
  /** Its `cwd` no longer exists on this machine. */
  missingFolder?: boolean;
  /** Its title matches this pattern: case-insensitive, `*` any text, `?` one character, anywhere in the title. */
  titlePattern?: string;
  /** It has a problem (missing folder, or its last load failed). */
  problems?: boolean;
}

export interface CleanupCandidate {
  agent: string;
  session: SessionInfo;
}

export interface RuleContext {
  now: number;
  /** False when the folder is known to be gone; undefined when not checked (never matches). */
  folderExists(cwd: string): boolean | undefined;
  problemOf(agent: string, session: SessionInfo): SessionProblem | undefined;
}

/** Live states that mean the session is in use (src/acp/sessionState.ts reads both wire forms into one). */
const IN_USE: ReadonlySet<SessionState> = new Set<SessionState>(['open', 'running', 'requires_action']);

/**
 * A session the agent reports as in use (open, running, or waiting for the user) is never
 * touched by a clean-up: the standard's `session/status` or the AIR list entries' state.
 */
export function isRunning(session: SessionInfo): boolean {
  return session.state !== undefined && IN_USE.has(session.state);
}

/** A title pattern as a regular expression (throws nothing: everything but `*` and `?` is literal). */
export function titlePatternRegExp(pattern: string): RegExp {
  const source = [...pattern.trim()]
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(source, 'iu');
}

/** Whether a rule has anything to test (an empty rule would select everything). */
export function hasRule(rule: CleanupRule): boolean {
  return rule.olderThanDays !== undefined || rule.missingFolder === true || !!rule.titlePattern?.trim() || rule.problems === true;
}

export function matchesRule(candidate: CleanupCandidate, rule: CleanupRule, ctx: RuleContext, title = rule.titlePattern?.trim() ? titlePatternRegExp(rule.titlePattern) : undefined): boolean {
  const { agent, session } = candidate;
  if (rule.olderThanDays !== undefined) {
    const ms = updatedAtMs(session);
    if (ms === undefined || ctx.now - ms <= rule.olderThanDays * DAY) return false;
  }
  if (rule.missingFolder && ctx.folderExists(session.cwd) !== false) return false;
  if (title && !title.test(sessionLabel(session))) return false;
  if (rule.problems && !ctx.problemOf(agent, session)) return false;
  return true;
}

export interface CleanupSelection {
  /** What the run acts on, in the order given (newest first per agent as listed). */
  selected: CleanupCandidate[];
  /** Matched the rule but running: left alone. */
  running: CleanupCandidate[];
}

/** The sessions a run selects; for Delete only archived ones, and never a running one. */
export function selectForCleanup(candidates: readonly CleanupCandidate[], action: CleanupAction, rule: CleanupRule, ctx: RuleContext): CleanupSelection {
  const title = rule.titlePattern?.trim() ? titlePatternRegExp(rule.titlePattern) : undefined;
  const selected: CleanupCandidate[] = [];
  const running: CleanupCandidate[] = [];
  for (const candidate of candidates) {
    // Archive takes active sessions, Delete archived ones: the other kind is never in the run.
    if ((candidate.session.archived === true) !== (action === 'delete')) continue;
    if (!matchesRule(candidate, rule, ctx, title)) continue;
    (isRunning(candidate.session) ? running : selected).push(candidate);
  }
  return { selected, running };
}
