// What the Sessions commands and the clean-up say about what they did: one message per command,
// naming what worked, what was gone and what failed, and why. Agent text in it is made plain
// where it is shown (src/ui/common/messages.ts).
import * as vscode from 'vscode';
import { AgentDisconnectedError, SessionInUseError } from '../../acp/errors';
import { messageOf } from '../../acp/errors';
import { sessionLabel } from '../../sessions/format';
import type { SessionOutcome } from '../../sessions/sessionsModel';

export type Operation = 'archive' | 'unarchive' | 'delete';

/**
 * Why a command sent nothing: kept apart from the text shown, so no internal marker can reach the
 * user as words. `capability` carries the text that was shown.
 */
export type Refusal =
  | { kind: 'nothingSelected' }
  | { kind: 'cancelled' }
  | { kind: 'capability'; text: string };

/** What an archive, unarchive or delete command did, summed over agents. */
export interface CommandSummary {
  done: SessionOutcome[];
  gone: SessionOutcome[];
  failed: SessionOutcome[];
  /** Set when nothing was sent for some or all sessions: the agent lacks the capability, or the user cancelled. */
  refused?: Refusal;
}

/** One message for the whole command: what worked, what was gone, what failed and why. */
export function summaryText(summary: CommandSummary, operation: Operation): string | undefined {
  const refused = summary.refused;
  if (refused?.kind === 'capability' && summary.done.length === 0) return refused.text.endsWith('.') ? refused.text : `${refused.text}.`;
  const parts: string[] = [];
  if (summary.done.length > 0) parts.push(doneText(operation, describeOutcomes(summary.done)));
  if (summary.gone.length > 0) {
    parts.push(
      summary.gone.length === 1
        ? vscode.l10n.t('{0} no longer exists on the agent (deleted or expired); it was removed from the list.', describeOutcomes(summary.gone))
        : vscode.l10n.t('{0} sessions no longer exist on the agent (deleted or expired); they were removed from the list.', summary.gone.length),
    );
  }
  if (summary.failed.length > 0) {
    const first = summary.failed[0];
    const one = summary.failed.length === 1;
    const unchanged = summary.done.length > 0 ? (one ? vscode.l10n.t('It stayed as it was') : vscode.l10n.t('They stayed as they were')) : vscode.l10n.t('The list is unchanged');
    // A crash says nothing about the sessions; a refusal is the agent's answer about them.
    parts.push(
      first.error instanceof AgentDisconnectedError
        ? vscode.l10n.t('{0}: the agent stopped ({1}). {2}; try again once it runs, or see the log (ACP Sessions: Show Log).', failedText(operation, describeOutcomes(summary.failed)), messageOf(first.error).split('\n')[0], unchanged)
        : vscode.l10n.t('{0}: {1}. {2}; try again, or see the log (ACP Sessions: Show Log).', failedText(operation, describeOutcomes(summary.failed)), agentMessage(first.error), unchanged),
    );
  }
  return parts.length ? parts.join(' ') : undefined;
}

/** The first ten labels as a bulleted list for a confirmation's detail, then how many more. */
export function listedLabels(labels: readonly string[]): string {
  return `${labels.slice(0, 10).map((l) => `• ${l}`).join('\n')}${labels.length > 10 ? `\n${vscode.l10n.t('… and {0} more', labels.length - 10)}` : ''}\n\n`;
}

/** `"Title"` for one session, `N sessions` for more. */
export function describeOutcomes(outcomes: readonly SessionOutcome[]): string {
  if (outcomes.length === 1) {
    const o = outcomes[0];
    return vscode.l10n.t('"{0}"', o.session ? sessionLabel(o.session) : o.sessionId);
  }
  return vscode.l10n.t('{0} sessions', outcomes.length);
}

function doneText(operation: Operation, what: string): string {
  if (operation === 'archive') return vscode.l10n.t('Archived {0}.', what);
  if (operation === 'unarchive') return vscode.l10n.t('Unarchived {0}.', what);
  return vscode.l10n.t('Deleted {0}.', what);
}

function failedText(operation: Operation, what: string): string {
  if (operation === 'archive') return vscode.l10n.t('Could not archive {0}', what);
  if (operation === 'unarchive') return vscode.l10n.t('Could not unarchive {0}', what);
  return vscode.l10n.t('Could not delete {0}', what);
}

/** The agent's own words when it sent an error; our message otherwise, and for what we word better. */
export function agentMessage(error: unknown): string {
  // "Open in another process; close it there first" says what to do; the agent's words do not.
  if (error instanceof SessionInUseError) return error.message;
  const agent = (error as { agentMessage?: unknown })?.agentMessage;
  return typeof agent === 'string' && agent ? agent : messageOf(error);
}
