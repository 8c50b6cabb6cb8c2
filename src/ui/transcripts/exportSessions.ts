// Export Sessions…: picks sessions as Clean Up picks them (agent, rules, every page listed with
// progress and Cancel, a preview of exactly what will be written), then writes each one into a
// folder the user chooses as Markdown and as the agent's replay (NDJSON of its `session/update`
// notifications after a header line), with progress and Cancel, never overwriting a file.
// Open Exported Transcript… shows such a replay as a read-only transcript, with no agent.
import { sep } from 'node:path';
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import { messageOf } from '../../acp/errors';
import { hasRule, matchesRule, type CleanupCandidate, type CleanupRule } from '../../sessions/cleanup';
import { groupBy, relativeTime, sessionLabel, updatedAtMs } from '../../sessions/format';
import type { Section } from '../../sessions/sessionsModel';
import type { KeptCopy } from '../../keep/keptStore';
import { openExportedFile, openKeptCopy, readExportedLimits } from './exportedTranscript';
import { exportFailureText, exportSession } from './exportFiles';
import { confirmInPick, pickRule } from '../common/rulePick';
import type { CommandContext } from '../sessions/commandContext';
import { quickPickText } from '../common/plainText';
import type { TranscriptPanels } from './transcriptPanel';

/** Given by tests instead of the quick pick steps and the folder dialog: no preview is shown. */
export interface ExportRequest {
  agent?: string;
  rule: CleanupRule;
  folder: string;
}

/** A session to export; `kept` when it is under Kept Here (its agent no longer has it): written from the copy. */
export type ExportCandidate = CleanupCandidate & { kept?: KeptCopy };

export interface ExportResult {
  selected: ExportCandidate[];
  /** The files written, per session: its Markdown and its replay. */
  written: { agent: string; sessionId: string; markdown: string; replay: string; fromCopy?: true; rowsFrom: 'worker' | 'host' }[];
  failed: { agent: string; sessionId: string; error: string }[];
  cancelled: boolean;
  stopped?: string;
}

const TITLE = () => vscode.l10n.t('Export Sessions');

/** Export Sessions… with the command's argument: a request (tests) or nothing (the user picks). */
export function exportSessionsCommand(deps: CommandContext, panels: TranscriptPanels, request?: unknown): Promise<ExportResult> {
  return exportSessions(deps, panels, isRequest(request) ? request : undefined);
}

function isRequest(value: unknown): value is ExportRequest {
  return typeof value === 'object' && value !== null && typeof (value as ExportRequest).rule === 'object' && typeof (value as ExportRequest).folder === 'string';
}

async function exportSessions(deps: CommandContext, panels: TranscriptPanels, request?: ExportRequest): Promise<ExportResult> {
  const result: ExportResult = { selected: [], written: [], failed: [], cancelled: false };
  const stop = (why: string) => ({ ...result, stopped: why });
  const names = deps.registry.agents.filter((a) => a.capabilities?.list !== false && a.capabilities?.loadSession !== false).map((a) => a.name);
  let agents: string[] | undefined = names;
  if (request?.agent !== undefined) agents = names.filter((n) => n === request.agent);
  else if (!request && names.length > 1) {
    const all = { label: vscode.l10n.t('All agents'), names };
    agents = (await vscode.window.showQuickPick([all, ...names.map((name) => ({ label: quickPickText(name), names: [name] }))], {
      title: `${TITLE()} (1/3)`,
      placeHolder: vscode.l10n.t('Which agent’s sessions?'),
    }))?.names;
  }
  if (!agents) return stop('cancelled');
  if (agents.length === 0) {
    void deps.messages.show('info', vscode.l10n.t('No agent that lists and replays its sessions is configured.'));
    return stop('no agent');
  }
  const step = (n: number) => (names.length > 1 ? `${TITLE()} (${n + 1}/3)` : `${TITLE()} (${n}/2)`);
  const rule = request ? request.rule : await pickRule('archive', step(1), vscode.l10n.t('Sessions that match every rule you check, active and archived (none checked: all of them)'));
  if (!rule) return stop('cancelled');

  const listed = await listBoth(deps, panels, agents);
  if (!listed) return stop('cancelled');
  await deps.health.checkFolders(listed.map((c) => c.session));
  const now = Date.now();
  const ctx = { now, folderExists: (cwd: string) => deps.health.folderExists(cwd), problemOf: (agent: string, s: SessionInfo) => deps.health.problemOf(agent, s) };
  result.selected = hasRule(rule) ? listed.filter((c) => matchesRule(c, rule, ctx)) : listed;
  if (result.selected.length === 0) {
    void deps.messages.show('info', vscode.l10n.t('No session matches these rules; nothing was exported.'));
    return stop('nothing matched');
  }
  if (!request && !(await preview(result.selected, now, step(2)))) return stop('cancelled');
  let folder = request?.folder;
  if (!folder) {
    const picked = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: vscode.l10n.t('Export Here'), title: TITLE() });
    if (!picked?.[0]) return stop('cancelled');
    folder = picked[0].fsPath;
  }
  await write(deps, panels, result, folder);
  summarize(deps, result, folder);
  return result;
}

/**
 * Every page of Active and (where the agent archives) Archived, per agent, with progress and
 * Cancel; then the agent's sessions under Kept Here (exported from their copies).
 */
async function listBoth(deps: CommandContext, panels: TranscriptPanels, agents: readonly string[]): Promise<ExportCandidate[] | undefined> {
  await deps.kept?.scanned;
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Listing sessions'), cancellable: true }, async (progress, token) => {
    const candidates: ExportCandidate[] = [];
    for (const agent of agents) {
      const sections: Section[] = deps.registry.agent(agent)?.capabilities?.archive ? ['active', 'archived'] : ['active'];
      for (const section of sections) {
        try {
          const sessions = await deps.model.listAll(agent, section, {
            isCancelled: () => token.isCancellationRequested,
            onPage: (count) => progress.report({ message: vscode.l10n.t('{0}: {1} sessions so far', agent, count) }),
          });
          candidates.push(...sessions.map((session) => ({ agent, session: section === 'archived' ? { ...session, archived: true } : session })));
        } catch (error) {
          if (error instanceof panels.host.ListCancelledError || token.isCancellationRequested) return undefined;
          void deps.messages.show('warning', vscode.l10n.t('Could not list the sessions of "{0}": {1}', agent, messageOf(error)));
        }
      }
      const listed = new Set(candidates.filter((c) => c.agent === agent).map((c) => c.session.sessionId));
      for (const copy of deps.keptHere?.sessions(agent) ?? []) {
        if (!listed.has(copy.meta.sessionId)) candidates.push({ agent, session: sessionOfCopy(copy), kept: copy });
      }
    }
    return token.isCancellationRequested ? undefined : candidates;
  });
}

/** A kept copy's session as its trailer recorded it (what the rules and the files' headers read). */
function sessionOfCopy(copy: KeptCopy): SessionInfo {
  const { meta } = copy;
  return { sessionId: meta.sessionId, cwd: meta.cwd, title: meta.title ?? null, updatedAt: meta.updatedAt ?? null, ...(meta.archived ? { archived: true } : {}) };
}

/** The exact list that will be written; true on Enter, false on Escape. */
function preview(selected: readonly ExportCandidate[], now: number, title: string): Promise<boolean> {
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem>();
  const verb = vscode.l10n.t('Export {0} sessions', selected.length);
  pick.title = `${title}: ${verb}`;
  pick.placeholder = vscode.l10n.t('Enter exports the {0} sessions listed below (you choose the folder next); Escape cancels', selected.length);
  pick.matchOnDescription = true;
  const go: vscode.QuickPickItem = { label: `$(export) ${verb}`, description: vscode.l10n.t('as Markdown and as the agent’s replay'), alwaysShow: true };
  const items: vscode.QuickPickItem[] = [go];
  for (const [agent, candidates] of groupBy(selected, (c) => c.agent)) {
    items.push({ label: quickPickText(agent), kind: vscode.QuickPickItemKind.Separator });
    for (const { session, kept } of candidates) {
      const ms = updatedAtMs(session);
      const icon = kept ? '$(save) ' : session.archived ? '$(archive) ' : '';
      const when = quickPickText(ms === undefined ? vscode.l10n.t('no date') : relativeTime(ms, now));
      items.push({
        label: `${icon}${quickPickText(sessionLabel(session))}`,
        description: `${kept ? `${vscode.l10n.t('kept copy (the agent no longer has it)')} · ` : ''}${when} · ${quickPickText(session.cwd)}`,
      });
    }
  }
  pick.items = items;
  pick.activeItems = [go];
  return confirmInPick(pick);
}

/** Writes each session, one at a time, with progress and Cancel (what is written stays written). */
async function write(deps: CommandContext, panels: TranscriptPanels | undefined, result: ExportResult, folder: string): Promise<void> {
  const total = result.selected.length;
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Exporting sessions'), cancellable: true }, async (progress, token) => {
    const cancellation = new vscode.CancellationTokenSource();
    const cancelled = token.onCancellationRequested(() => cancellation.cancel());
    try {
      const maxLineBytes = readExportedLimits().maxLineBytes;
      for (const { agent, session, kept } of result.selected) {
        if (token.isCancellationRequested) break;
        progress.report({ increment: 100 / total, message: `${result.written.length + result.failed.length + 1}/${total}` });
        try {
          const written = await exportSession(deps, panels, folder, agent, session, cancellation.token, kept && { copy: kept, maxLineBytes });
          if (!written || token.isCancellationRequested) break;
          result.written.push({ agent, sessionId: session.sessionId, ...written, ...(kept ? { fromCopy: true as const } : {}) });
        } catch (error) {
          if (token.isCancellationRequested) break;
          result.failed.push({ agent, sessionId: session.sessionId, error: exportFailureText(error) });
        }
      }
    } finally {
      cancelled.dispose();
      cancellation.dispose();
    }
    result.cancelled = token.isCancellationRequested;
  });
}

function summarize(deps: CommandContext, result: ExportResult, folder: string): void {
  const parts = [vscode.l10n.t('Exported {0} of {1} sessions to {2}.', result.written.length, result.selected.length, folder)];
  if (result.failed.length > 0) parts.push(vscode.l10n.t('{0} failed: {1}', result.failed.length, result.failed[0].error));
  if (result.cancelled) parts.push(vscode.l10n.t('Cancelled: the rest were not exported.'));
  void deps.messages.show(result.failed.length > 0 ? 'error' : result.cancelled ? 'warning' : 'info', parts.join(' '));
}

/** Open Exported Transcript…: a replay file (asked for, or given), shown read-only with no agent. */
export async function openExported(deps: CommandContext, panels: TranscriptPanels, given: unknown): Promise<void> {
  let uri = given instanceof vscode.Uri ? given : typeof given === 'string' ? vscode.Uri.file(given) : undefined;
  if (!uri) {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      title: vscode.l10n.t('Open Exported Transcript'),
      openLabel: vscode.l10n.t('Open Transcript'),
      filters: { [vscode.l10n.t('Exported replays')]: ['ndjson'] },
    });
    uri = picked?.[0];
  }
  if (!uri) return;
  // A kept copy's tab, back after a reload: from the store, as Kept Here opens it.
  const kept = deps.kept;
  if (kept && uri.fsPath.startsWith(kept.root + sep)) {
    await kept.scanned;
    const copy = kept.all().find((c) => c.path === uri!.fsPath);
    if (copy) await openKeptCopy(deps.messages, panels, kept, copy);
    else void deps.messages.show('info', vscode.l10n.t('This kept copy is no longer here: it was deleted.'));
    return;
  }
  await openExportedFile(deps.messages, panels, uri.fsPath);
}
