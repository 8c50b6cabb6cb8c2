// Clean Up Sessions…: quick pick steps (agent, action, rules), every page of `session/list`
// listed with progress and cancel (nothing is loaded), a preview of exactly the sessions the run
// will act on, then Archive (one Undo) or Delete (archived only, after a modal), with progress,
// cancel and one summary. It goes through the sessions model, so the archive seam (standard or
// vendor extension) and the tree's moves are the same as for a single archive.
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import { messageOf } from '../../acp/errors';
import {
  hasRule,
  matchesRule,
  selectForCleanup,
  type CleanupAction,
  type CleanupCandidate,
  type CleanupRule,
  type CleanupSelection,
} from '../../sessions/cleanup';
import { groupBy, relativeTime, sessionLabel, updatedAtMs } from '../../sessions/format';
import { CapabilityMissingError, ListCancelledError, type SessionOutcome } from '../../sessions/sessionsModel';
import { quickPickText } from '../common/plainText';
import { CLEANUP_TITLE as TITLE, confirmInPick, pickRule } from '../common/rulePick';
import type { CommandContext } from './commandContext';
import { agentMessage, describeOutcomes, listedLabels } from '../common/outcomeText';
import { problemText } from './treeNodes/sessionNode';

/** Given by tests (and scripts) instead of the quick pick steps: no preview is shown. */
export interface CleanupRequest {
  agent?: string;
  /** `kept`: delete copies under Kept Here (sessions their agents no longer have). */
  action?: CleanupAction | 'kept';
  rule: CleanupRule;
  /** Shows the preview after all and hands it over (hostile-string tests read its rows). */
  onPreview?(pick: vscode.QuickPick<vscode.QuickPickItem>): void;
}

export interface CleanupResult {
  selection?: CleanupSelection;
  done: SessionOutcome[];
  failed: SessionOutcome[];
  gone: SessionOutcome[];
  cancelled: boolean;
  /** Why nothing ran (the user cancelled a step, nothing matched, ...). */
  stopped?: string;
  /** A `kept` run: the copies it deleted. */
  keptDeleted?: number;
  /** Settles after the summary's Undo ran (or the summary was dismissed). */
  undone?: Promise<SessionOutcome[] | undefined>;
}


export async function cleanUpSessions(deps: CommandContext, given?: unknown): Promise<CleanupResult> {
  const request = deps.testMode && isRequest(given) ? given : undefined;
  const result: CleanupResult = { done: [], failed: [], gone: [], cancelled: false };
  const stop = (why: string) => ({ ...result, stopped: why });

  const agents = await pickAgents(deps, request);
  if (!agents) return stop('cancelled');
  if (agents.length === 0) {
    void deps.messages.show('info', vscode.l10n.t('No agent that lists its sessions is configured.'));
    return stop('no agent');
  }
  // The agent step shows only when there is a choice.
  const step = (n: number) => (deps.registry.agents.length > 1 ? `${TITLE()} (${n + 1}/3)` : `${TITLE()} (${n}/2)`);
  const action = request ? (request.action ?? 'archive') : await pickAction(deps, agents, step(1));
  if (!action) return stop('cancelled');
  const rule = request ? request.rule : await pickRule(action, step(2));
  if (!rule) return stop('cancelled');
  if (action === 'archive' && !hasRule(rule)) return stop('no rule');
  if (action === 'kept') return cleanUpKept(deps, agents, rule, request, result);

  const listed = await listCandidates(deps, agents, action);
  if (!listed) return stop('cancelled');
  await deps.health.checkFolders(listed.map((c) => c.session));
  const now = Date.now();
  const selection = selectForCleanup(listed, action, rule, {
    now,
    folderExists: (cwd) => deps.health.folderExists(cwd),
    problemOf: (agent, session) => deps.health.problemOf(agent, session),
  });
  result.selection = selection;
  if (selection.selected.length === 0) {
    const running = selection.running.length > 0 ? ' ' + vscode.l10n.t('{0} running sessions match but are left alone.', selection.running.length) : '';
    void deps.messages.show('info', vscode.l10n.t('No session matches these rules; nothing was changed.') + running);
    return stop('nothing matched');
  }
  if ((!request || request.onPreview) && !(await preview(selection, action, now, deps, request?.onPreview))) return stop('cancelled');
  if (action === 'delete' && !(await confirmDelete(deps, selection.selected))) return stop('cancelled');

  const outcomes = await run(deps, selection.selected, action);
  Object.assign(result, outcomes);
  summarize(deps, result, action, selection.selected.length);
  return result;
}

function isRequest(value: unknown): value is CleanupRequest {
  return typeof value === 'object' && value !== null && typeof (value as CleanupRequest).rule === 'object';
}

/** The agents to clean up: the one asked for, the only one, or the user's pick ("All agents" first). */
async function pickAgents(deps: CommandContext, request: CleanupRequest | undefined): Promise<string[] | undefined> {
  // An agent not started yet may list; one known not to is left out.
  const names = deps.registry.agents.filter((a) => a.capabilities?.list !== false).map((a) => a.name);
  if (request?.agent !== undefined) return names.filter((n) => n === request.agent);
  if (request || names.length <= 1) return names;
  const all = { label: vscode.l10n.t('All agents'), names };
  const picked = await vscode.window.showQuickPick(
    [all, ...names.map((name) => ({ label: quickPickText(name), names: [name] }))],
    { title: `${TITLE()} (1/3)`, placeHolder: vscode.l10n.t('Which agent’s sessions?') },
  );
  return picked?.names;
}

async function pickAction(deps: CommandContext, agents: readonly string[], title: string): Promise<CleanupAction | 'kept' | undefined> {
  const canDelete = agents.some((a) => deps.registry.agent(a)?.capabilities?.delete !== false);
  const items: (vscode.QuickPickItem & { action: CleanupAction | 'kept' })[] = [
    {
      action: 'archive',
      label: `$(archive) ${vscode.l10n.t('Archive')}`,
      description: vscode.l10n.t('moves matching active sessions to Archived; one Undo brings them back'),
    },
  ];
  if (canDelete) {
    items.push({
      action: 'delete',
      label: `$(trash) ${vscode.l10n.t('Delete archived sessions')}`,
      description: vscode.l10n.t('removes matching archived sessions for good, after a confirmation'),
    });
  }
  const keptHere = agents.reduce((n, a) => n + (deps.keptHere?.sessions(a).length ?? 0), 0);
  if (keptHere > 0) {
    items.push({
      action: 'kept',
      label: `$(save-all) ${vscode.l10n.t('Delete kept copies')}`,
      description: vscode.l10n.t('removes matching copies under Kept Here ({0}), the last of sessions their agents no longer have, after a confirmation', keptHere),
    });
  }
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: vscode.l10n.t('What to do with the sessions the rules select') });
  return picked?.action;
}

/**
 * A `kept` run: the copies under Kept Here that match every rule (none given: all of them), read
 * from their trailers (no agent is asked: it no longer has these), a preview, a modal, then the
 * copies deleted and their sessions forgotten (search drops them).
 */
async function cleanUpKept(deps: CommandContext, agents: readonly string[], rule: CleanupRule, request: CleanupRequest | undefined, result: CleanupResult): Promise<CleanupResult> {
  const copies = agents.flatMap((agent) => deps.keptHere?.sessions(agent) ?? []);
  const candidates = copies.map((copy) => ({ copy, agent: copy.meta.agentName, session: { sessionId: copy.meta.sessionId, cwd: copy.meta.cwd, title: copy.meta.title ?? null, updatedAt: copy.meta.updatedAt ?? copy.meta.keptAt } }));
  await deps.health.checkFolders(candidates.map((c) => c.session));
  const now = Date.now();
  const ctx = { now, folderExists: (cwd: string) => deps.health.folderExists(cwd), problemOf: () => undefined };
  const chosen = candidates.filter((c) => matchesRule(c, rule, ctx));
  result.selection = { selected: chosen.map(({ agent, session }) => ({ agent, session })), running: [] };
  if (chosen.length === 0) {
    void deps.messages.show('info', vscode.l10n.t('No kept copy matches these rules: nothing was deleted.'));
    return { ...result, stopped: 'nothing matched' };
  }
  if ((!request || request.onPreview) && !(await preview(result.selection, 'kept', now, deps, request?.onPreview))) return { ...result, stopped: 'cancelled' };
  const question = vscode.l10n.t('Delete {0} kept copies?', chosen.length);
  const detail = `${listedLabels(chosen.map((c) => sessionLabel(c.session)))}${vscode.l10n.t('Their agents no longer have these sessions: the copies kept here are the last ones. This cannot be undone.')}`;
  if (!(await deps.messages.confirm(question, detail, vscode.l10n.t('Delete')))) return { ...result, stopped: 'cancelled' };
  await deps.keptHere?.deleteCopies(chosen.map((c) => c.copy));
  result.keptDeleted = chosen.length;
  void deps.messages.show('info', vscode.l10n.t('Deleted {0} kept copies.', chosen.length));
  return result;
}

/** Every page of each agent's list for the action (Active to archive, Archived to delete), with progress and cancel. */
async function listCandidates(deps: CommandContext, agents: readonly string[], action: CleanupAction): Promise<CleanupCandidate[] | undefined> {
  const section = action === 'archive' ? 'active' : 'archived';
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Listing sessions'), cancellable: true },
    async (progress, token) => {
      const candidates: CleanupCandidate[] = [];
      for (const agent of agents) {
        try {
          const sessions = await deps.model.listAll(agent, section, {
            isCancelled: () => token.isCancellationRequested,
            onPage: (count) => progress.report({ message: vscode.l10n.t('{0}: {1} sessions so far', agent, count) }),
          });
          candidates.push(...sessions.map((session) => ({ agent, session })));
        } catch (error) {
          if (error instanceof ListCancelledError || token.isCancellationRequested) return undefined;
          // One agent that cannot take part does not stop the others; the user is told.
          const text = error instanceof CapabilityMissingError ? error.message : vscode.l10n.t('Could not list the sessions of "{0}": {1}', agent, messageOf(error));
          void deps.messages.show('warning', text);
        }
      }
      return token.isCancellationRequested ? undefined : candidates;
    },
  );
}

/** The exact list the run will act on; true when the user goes ahead (Enter), false on Escape. */
function preview(
  selection: CleanupSelection,
  action: CleanupAction | 'kept',
  now: number,
  deps: CommandContext,
  shown?: (pick: vscode.QuickPick<vscode.QuickPickItem>) => void,
): Promise<boolean> {
  const count = selection.selected.length;
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem>();
  const verb =
    action === 'archive'
      ? vscode.l10n.t('Archive {0} sessions', count)
      : action === 'kept'
        ? vscode.l10n.t('Delete {0} kept copies', count)
        : vscode.l10n.t('Delete {0} archived sessions', count);
  const running = selection.running.length;
  pick.title = running > 0 ? vscode.l10n.t('{0} ({1} running left alone)', verb, running) : verb;
  pick.placeholder =
    action === 'archive'
      ? vscode.l10n.t('Enter archives the {0} sessions listed below; Escape cancels; type to search them', count)
      : vscode.l10n.t('Enter asks once more, then deletes the {0} sessions listed below; Escape cancels', count);
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  const go: vscode.QuickPickItem = {
    label: `${action === 'archive' ? '$(archive)' : action === 'kept' ? '$(save-all)' : '$(trash)'} ${verb}`,
    description: vscode.l10n.t('the sessions below, nothing else'),
    alwaysShow: true,
  };
  const items: vscode.QuickPickItem[] = [go];
  const byAgent = groupBy(selection.selected, (c) => c.agent);
  for (const [agent, candidates] of byAgent) {
    if (byAgent.size > 1 || deps.registry.agents.length > 1) {
      items.push({ label: quickPickText(agent), kind: vscode.QuickPickItemKind.Separator });
    }
    for (const { session } of candidates) items.push(previewItem(agent, session, now, deps));
  }
  pick.items = items;
  pick.activeItems = [go];
  return confirmInPick(pick, shown);
}

function previewItem(agent: string, session: SessionInfo, now: number, deps: CommandContext): vscode.QuickPickItem {
  const ms = updatedAtMs(session);
  const age = ms === undefined ? vscode.l10n.t('no date') : relativeTime(ms, now);
  const problem = deps.health.problemOf(agent, session);
  // A missing folder is said in one icon beside the folder; a failed load needs its reason.
  const missing = deps.health.folderExists(session.cwd) === false ? `$(warning) ${vscode.l10n.t('missing:')} ` : '';
  return {
    // Agent text: no `$(icon)` of it renders, one bounded line each.
    label: quickPickText(sessionLabel(session)),
    description: `${quickPickText(age)} · ${missing}${quickPickText(session.cwd)}`,
    detail: problem?.kind === 'loadFailed' ? `$(warning) ${quickPickText(problemText(problem))}` : undefined,
  };
}

async function confirmDelete(deps: CommandContext, selected: readonly CleanupCandidate[]): Promise<boolean> {
  const question = vscode.l10n.t('Delete {0} archived sessions?', selected.length);
  const agents = [...new Set(selected.map((c) => c.agent))];
  const detail = `${listedLabels(selected.map((c) => sessionLabel(c.session)))}${
    agents.length === 1 ? vscode.l10n.t('Agent "{0}" will remove them from the session history. This cannot be undone.', agents[0]) : vscode.l10n.t('The agents will remove them from the session history. This cannot be undone.')
  }`;
  return deps.messages.confirm(question, detail, 'Delete');
}

/** Runs the action per agent, with progress and cancel (the sessions not reached stay as they were). */
async function run(
  deps: CommandContext,
  selected: readonly CleanupCandidate[],
  action: CleanupAction | 'unarchive',
): Promise<Pick<CleanupResult, 'done' | 'failed' | 'gone' | 'cancelled'>> {
  const outcome: Pick<CleanupResult, 'done' | 'failed' | 'gone' | 'cancelled'> = { done: [], failed: [], gone: [], cancelled: false };
  const title =
    action === 'archive' ? vscode.l10n.t('Archiving sessions') : action === 'delete' ? vscode.l10n.t('Deleting sessions') : vscode.l10n.t('Restoring sessions');
  const known = new Map(selected.map((c) => [JSON.stringify([c.agent, c.session.sessionId]), c.session]));
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    let count = 0;
    for (const [agent, candidates] of groupBy(selected, (c) => c.agent)) {
      if (token.isCancellationRequested) break;
      const ids = candidates.map((c) => c.session.sessionId);
      const bulk = {
        isCancelled: () => token.isCancellationRequested,
        onOutcome: () => progress.report({ increment: 100 / selected.length, message: `${++count}/${selected.length}` }),
      };
      let outcomes: SessionOutcome[];
      try {
        outcomes =
          action === 'archive'
            ? await deps.model.archive(agent, ids, bulk)
            : action === 'delete'
              ? await deps.model.delete(agent, ids, bulk)
              : await deps.model.unarchive(agent, ids, bulk);
      } catch (error) {
        outcomes = candidates.map((c) => ({ agent, sessionId: c.session.sessionId, session: c.session, status: 'failed' as const, error }));
      }
      for (const o of outcomes) {
        // The model knows only the sessions the tree loaded; the summary names the others too.
        const full: SessionOutcome = { ...o, session: o.session ?? known.get(JSON.stringify([agent, o.sessionId])) };
        outcome[o.status === 'done' ? 'done' : o.status === 'gone' ? 'gone' : 'failed'].push(full);
      }
      if (action === 'delete') await deps.health.forget(agent, outcomes.filter((o) => o.status !== 'failed').map((o) => o.sessionId));
    }
    outcome.cancelled = token.isCancellationRequested;
  });
  return outcome;
}

/** One message for the run; an archive run offers one Undo for everything it archived. */
function summarize(deps: CommandContext, result: CleanupResult, action: CleanupAction, total: number): void {
  const parts: string[] = [];
  const done = result.done.length;
  if (done > 0) parts.push(action === 'archive' ? vscode.l10n.t('Archived {0}.', describeOutcomes(result.done)) : vscode.l10n.t('Deleted {0}.', describeOutcomes(result.done)));
  if (result.gone.length > 0) parts.push(vscode.l10n.t('{0} no longer existed on the agent.', result.gone.length));
  if (result.failed.length > 0) {
    parts.push(vscode.l10n.t('{0} failed: {1}', result.failed.length, messageOf(result.failed[0].error)));
  }
  const untouched = total - done - result.gone.length - result.failed.length;
  if (result.cancelled && untouched > 0) parts.push(vscode.l10n.t('Cancelled: {0} sessions were left as they were.', untouched));
  const severity = result.failed.length > 0 ? 'error' : result.cancelled || result.gone.length > 0 ? 'warning' : 'info';
  const text = parts.join(' ');
  if (action !== 'archive' || done === 0) {
    void deps.messages.show(severity, text);
    return;
  }
  const undo = vscode.l10n.t('Undo');
  result.undone = deps.messages.show(severity, text, undo).then(async (choice) => {
    if (choice !== undo) return undefined;
    const archived = result.done.map((o) => ({ agent: o.agent, session: o.session ?? ({ sessionId: o.sessionId, cwd: '' } as SessionInfo) }));
    const restored = await run(deps, archived, 'unarchive');
    const parts = [
      restored.failed.length > 0
        ? vscode.l10n.t('Restored {0} of {1} sessions; {2} could not be unarchived: {3}', restored.done.length, archived.length, restored.failed.length, agentMessage(restored.failed[0].error))
        : vscode.l10n.t('Restored {0} of {1} sessions.', restored.done.length, archived.length),
    ];
    // Deleted or expired since the run (another window, the agent's own clean-up): not a failure.
    if (restored.gone.length > 0) parts.push(vscode.l10n.t('{0} no longer existed on the agent.', restored.gone.length));
    const message = parts.join(' ');
    void deps.messages.show(restored.failed.length > 0 ? 'error' : restored.done.length < archived.length ? 'warning' : 'info', message);
    return [...restored.done, ...restored.gone, ...restored.failed];
  });
}
