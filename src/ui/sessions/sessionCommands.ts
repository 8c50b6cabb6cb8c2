// The Sessions view's commands: archive, unarchive, delete (one or many, one summary message),
// rename, open transcript, copy id, load more, retry, restart, refresh, scope and grouping
// toggles. Which sessions each acts on is decided in one place (src/ui/sessions/commandTargets.ts).
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import { messageOf } from '../../acp/errors';
import { groupBy, sessionLabel } from '../../sessions/format';
import { CapabilityMissingError, type SessionOutcome } from '../../sessions/sessionsModel';
import { cleanUpSessions } from './cleanup';
import type { CommandContext } from './commandContext';
import { SessionTarget, type Invocation, type SessionRef } from './commandTargets';
import { findSession } from './findSession';
import { agentMessage, describeOutcomes, listedLabels, summaryText, type CommandSummary } from '../common/outcomeText';
import { quickPickText } from '../common/plainText';
import { walkthrough } from './walkthrough';
import { AgentNode } from './treeNodes/agentNode';
import { LoadMoreNode } from './treeNodes/loadMoreNode';
import { RetryNode } from './treeNodes/retryNode';

/** Longest title the Rename box accepts; agents may cut further (codex: 256). */
export const MAX_TITLE_LENGTH = 500;

/** Why a new title cannot be sent, or undefined when it can. */
export function titleProblem(title: string): string | undefined {
  if (title.trim() === '') return vscode.l10n.t('The title cannot be empty.');
  if (title.length > MAX_TITLE_LENGTH) return vscode.l10n.t('The title is longer than {0} characters.', MAX_TITLE_LENGTH);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(title)) return vscode.l10n.t('The title cannot contain line breaks or control characters.');
  return undefined;
}

export function registerSessionCommands(deps: CommandContext): vscode.Disposable[] {
  const { registry, model, view, messages, targets } = deps;
  const commands = new SessionCommands(deps);
  const config = () => vscode.workspace.getConfiguration('acpSessions');
  const args = (values: readonly unknown[]): Invocation => ({ via: 'args', args: values });
  const key: Invocation = { via: 'key' };
  const archive = async (invocation: Invocation) => commands.setArchived(await targets.resolve(invocation, 'many', vscode.l10n.t('Nothing was archived')), true);
  const unarchive = async (invocation: Invocation) => commands.setArchived(await targets.resolve(invocation, 'many', vscode.l10n.t('Nothing was unarchived')), false);
  const remove = async (invocation: Invocation) => commands.delete(await targets.resolve(invocation, 'many', vscode.l10n.t('Nothing was deleted')));
  const rename = async (invocation: Invocation, title?: string) => {
    const [target] = await targets.resolve(invocation, 'one', vscode.l10n.t('Nothing was renamed'));
    if (!target) return undefined;
    // That session as the model knows it now (a header's copy may be older).
    const current = model.find(target.agent, target.session.sessionId)?.session ?? target.session;
    return commands.rename({ agent: target.agent, section: target.section, session: current }, title);
  };
  const open = async (invocation: Invocation) => {
    const [target] = await targets.resolve(invocation, 'one', vscode.l10n.t('Nothing was opened'));
    if (target) return commands.open(target.agent, target.session);
  };
  return [
    vscode.commands.registerCommand('acpSessions.refresh', () => {
      // A refresh looks at the folders again (one may have come back).
      deps.health.forgetFolders();
      return view.withProgress(model.refresh());
    }),
    vscode.commands.registerCommand('acpSessions.showProblemsOnly', () => view.setFilter('problems')),
    vscode.commands.registerCommand('acpSessions.showUnreadOnly', () => view.setFilter('unread')),
    vscode.commands.registerCommand('acpSessions.showWaitingOnly', () => view.setFilter('waiting')),
    vscode.commands.registerCommand('acpSessions.showAllSessions', () => view.setFilter('all')),
    vscode.commands.registerCommand('acpSessions.cleanUp', (request?: unknown) => cleanUpSessions(deps, request)),
    vscode.commands.registerCommand('acpSessions.findSession', () => findSession(deps, (agent, session) => commands.open(agent, session))),
    vscode.commands.registerCommand('acpSessions.scopeAll', () => config().update('scope', 'all', vscode.ConfigurationTarget.Global)),
    vscode.commands.registerCommand('acpSessions.scopeWorkspace', () =>
      config().update('scope', 'workspace', vscode.ConfigurationTarget.Global),
    ),
    vscode.commands.registerCommand('acpSessions.groupByDate', () => config().update('groupByDate', true, vscode.ConfigurationTarget.Global)),
    vscode.commands.registerCommand('acpSessions.ungroup', () => config().update('groupByDate', false, vscode.ConfigurationTarget.Global)),
    // A row's own command (a click, Enter through VS Code's list.select) and its menu pass the row.
    vscode.commands.registerCommand('acpSessions.openTranscript', (...values: unknown[]) => open(args(values))),
    vscode.commands.registerCommand('acpSessions.archive', (...values: unknown[]) => archive(args(values))),
    vscode.commands.registerCommand('acpSessions.unarchive', (...values: unknown[]) => unarchive(args(values))),
    vscode.commands.registerCommand('acpSessions.delete', (...values: unknown[]) => remove(args(values))),
    // (node, nodes?, title?): a title given (tests, the API) skips the input box.
    vscode.commands.registerCommand('acpSessions.rename', (...values: unknown[]) =>
      rename(args(values.slice(0, 2)), typeof values[2] === 'string' ? values[2] : undefined),
    ),
    // Keys pass no row: the selection, waited for through a redraw (src/ui/sessions/commandTargets.ts).
    vscode.commands.registerCommand('acpSessions.deleteSelected', () => remove(key)),
    vscode.commands.registerCommand('acpSessions.renameSelected', () => rename(key)),
    vscode.commands.registerCommand('acpSessions.copySessionId', async (...values: unknown[]) => {
      const ids = (await targets.resolve(args(values), 'many', vscode.l10n.t('Nothing was copied'))).map((n) => n.session.sessionId);
      if (ids.length > 0) await vscode.env.clipboard.writeText(ids.join('\n'));
    }),
    vscode.commands.registerCommand('acpSessions.loadMore', (node?: unknown) => {
      if (node instanceof LoadMoreNode) return view.withProgress(node.list.loadMore());
    }),
    vscode.commands.registerCommand('acpSessions.retry', (node?: unknown) => {
      if (!(node instanceof RetryNode)) return;
      const target = node.target;
      if ('list' in target) return view.withProgress(target.list.reload());
      return commands.restart(target.agent);
    }),
    vscode.commands.registerCommand('acpSessions.restartAgent', async (...values: unknown[]) => {
      const [node] = values;
      const name = node instanceof AgentNode ? node.name : typeof node === 'string' ? node : undefined;
      if (name !== undefined) return commands.restart(name);
      // An agent row VS Code no longer knows: never restart every agent in its place.
      if (values.length > 0) {
        void messages.show('warning', vscode.l10n.t('No agent was restarted: the Sessions view was redrawing that row when it was clicked. Try again.'));
        return;
      }
      const picked = await pickAgent(registry.agents.map((a) => a.name));
      if (picked) await Promise.all(picked.map((agent) => commands.restart(agent)));
    }),
    { dispose: () => messages.dispose() },
  ];
}

/** Which agents to restart, asked when a restart names none. */
async function pickAgent(names: readonly string[]): Promise<readonly string[] | undefined> {
  if (names.length <= 1) return names;
  const all = { label: vscode.l10n.t('All agents'), names };
  const picked = await vscode.window.showQuickPick([all, ...names.map((name) => ({ label: quickPickText(name), names: [name] }))], {
    placeHolder: vscode.l10n.t('Restart which agent?'),
  });
  return picked?.names;
}

class SessionCommands {
  constructor(private readonly deps: CommandContext) {}

  async open(agent: string, session: SessionInfo): Promise<void> {
    const { messages, registry } = this.deps;
    const capabilities = registry.agent(agent)?.capabilities;
    if (capabilities && !capabilities.loadSession) {
      void messages.show('info', vscode.l10n.t('Agent "{0}" cannot replay sessions (it does not advertise loadSession), so there is no transcript to open.', agent));
      return;
    }
    const transcripts = this.deps.transcripts();
    if (!transcripts) {
      void messages.show('warning', vscode.l10n.t('Transcripts are not available in this build of ACP Sessions.'));
      return;
    }
    try {
      // A tab already open is revealed: the user looks at the session again (a new tab marks it read once its replay ended).
      const revealed = transcripts.getState?.(agent, session.sessionId) !== undefined;
      await transcripts.open(agent, session);
      if (revealed) this.deps.read?.shown(agent, session.sessionId);
    } catch (error) {
      void messages.show('error', vscode.l10n.t('Could not open the transcript of "{0}": {1}', sessionLabel(session), messageOf(error)), vscode.l10n.t('Show Log')).then(
        (choice) => choice && this.deps.log.show(),
      );
    }
  }

  async setArchived(targets: readonly SessionRef[], archived: boolean): Promise<CommandSummary> {
    if (targets.length === 0) return { done: [], gone: [], failed: [], refused: { kind: 'nothingSelected' } };
    // Only sessions that are in the other section can move.
    const from = archived ? 'active' : 'archived';
    const eligible = targets.filter((n) => n.section === from);
    if (eligible.length === 0) {
      const what = targets.length === 1 ? vscode.l10n.t('"{0}"', sessionLabel(targets[0].session)) : vscode.l10n.t('{0} sessions', targets.length);
      void this.deps.messages.show('info', archived ? vscode.l10n.t('Nothing was archived: {0} is already archived.', what) : vscode.l10n.t('Nothing was unarchived: {0} is not archived.', what));
      return { done: [], gone: [], failed: [], refused: { kind: 'nothingSelected' } };
    }
    const summary = await this.run(eligible, (agent, ids) =>
      archived ? this.deps.model.archive(agent, ids) : this.deps.model.unarchive(agent, ids),
    );
    if (archived && summary.done.length > 0) walkthrough.archived();
    const text = summaryText(summary, archived ? 'archive' : 'unarchive');
    if (!text) return summary;
    if (archived && summary.done.length > 0) {
      // Undo restores exactly what this command archived, also when the rest failed.
      const done = [...summary.done];
      const undo = vscode.l10n.t('Undo');
      void this.deps.messages.show('info', text, undo).then(async (choice) => {
        if (choice !== undo) return;
        for (const [agent, items] of groupBy(done, (o) => o.agent)) {
          const outcomes = await this.deps.model.unarchive(agent, items.map((o) => o.sessionId)).catch((error) => {
            void this.deps.messages.show('error', vscode.l10n.t('Could not undo the archive: {0}', messageOf(error)));
            return [];
          });
          // Named as the archive named them: the live list may have dropped them since.
          const named = (o: SessionOutcome): SessionOutcome => (o.session ? o : { ...o, session: items.find((d) => d.sessionId === o.sessionId)?.session });
          const gone = outcomes.filter((o) => o.status === 'gone').map(named);
          if (gone.length > 0) {
            void this.deps.messages.show('warning', gone.length === 1
              ? vscode.l10n.t('Could not undo the archive of {0}: the agent no longer has it (deleted or expired since).', describeOutcomes(gone))
              : vscode.l10n.t('Could not undo the archive of {0}: the agent no longer has them (deleted or expired since).', describeOutcomes(gone)));
          }
          const failed = outcomes.filter((o) => o.status === 'failed').map(named);
          if (failed.length > 0) {
            void this.deps.messages.show('error', vscode.l10n.t('Could not undo the archive of {0}: {1}', describeOutcomes(failed), agentMessage(failed[0].error)));
          }
        }
      });
    } else {
      void this.deps.messages.show(summary.failed.length > 0 ? 'error' : summary.gone.length > 0 ? 'warning' : 'info', text);
    }
    return summary;
  }

  /** Rename… : asks for a title (validated), sends it to the agent, offers Undo. */
  async rename(node: SessionRef, given?: string): Promise<SessionOutcome | undefined> {
    const { messages, model } = this.deps;
    const { agent, session } = node;
    if (this.deps.registry.agent(agent)?.capabilities?.title !== true) {
      void messages.show('warning', vscode.l10n.t('Agent "{0}" cannot rename sessions: it does not advertise sessionCapabilities.title.', agent));
      return undefined;
    }
    const before = session.title ?? undefined;
    const title =
      given ??
      (await messages.input({
        title: vscode.l10n.t('Rename Session'),
        prompt: vscode.l10n.t('A new title for "{0}"', sessionLabel(session)),
        value: before ?? '',
        validateInput: (value) => titleProblem(value),
      }));
    if (title === undefined || title === before) return undefined;
    const problem = titleProblem(title);
    if (problem) {
      void messages.show('warning', vscode.l10n.t('Not renamed: {0}', problem));
      return undefined;
    }
    const outcome = await model.rename(agent, session.sessionId, title.trim()).catch((error: unknown) => {
      void messages.show('error', vscode.l10n.t('Could not rename "{0}": {1}', sessionLabel(session), messageOf(error)));
      return undefined;
    });
    if (!outcome) return undefined;
    const old = sessionLabel(session);
    if (outcome.status === 'gone') {
      void messages.show('warning', vscode.l10n.t('"{0}" no longer exists on the agent; it was removed from the list.', old));
    } else if (outcome.status === 'failed') {
      void messages.show('error', vscode.l10n.t('Could not rename "{0}": {1}', old, messageOf(outcome.error)));
    } else {
      const stored = outcome.title ?? title.trim();
      const text = vscode.l10n.t('Renamed "{0}" to "{1}".', old, stored);
      // A session that had no title cannot get "no title" back: set_title needs one.
      if (before === undefined) void messages.show('info', text);
      else {
        const undo = vscode.l10n.t('Undo');
        void messages.show('info', text, undo).then(async (choice) => {
          if (choice !== undo) return;
          const undone = await model.rename(agent, session.sessionId, before).catch((error: unknown): SessionOutcome => ({ agent, sessionId: session.sessionId, session, status: 'failed', error }));
          if (undone.status !== 'done') void messages.show('error', vscode.l10n.t('Could not undo the rename of "{0}": {1}', stored, messageOf(undone.error)));
        });
      }
    }
    return outcome;
  }

  async delete(nodes: readonly SessionRef[]): Promise<CommandSummary> {
    if (nodes.length === 0) return { done: [], gone: [], failed: [], refused: { kind: 'nothingSelected' } };
    // Refuse before asking: a confirmation for something the agent cannot do would mislead.
    const unable = [...new Set(nodes.map((n) => n.agent))].filter((a) => this.deps.registry.agent(a)?.capabilities?.delete !== true);
    if (unable.length > 0) {
      const refused = vscode.l10n.t('Agent "{0}" cannot delete sessions: it does not advertise sessionCapabilities.delete.', unable[0]);
      void this.deps.messages.show('warning', refused);
      return { done: [], gone: [], failed: [], refused: { kind: 'capability', text: refused } };
    }
    const labels = nodes.map((n) => sessionLabel(n.session));
    const question = nodes.length === 1 ? vscode.l10n.t('Delete the session "{0}"?', labels[0]) : vscode.l10n.t('Delete {0} sessions?', nodes.length);
    const agents = [...new Set(nodes.map((n) => n.agent))];
    const listed = nodes.length > 1 ? listedLabels(labels) : '';
    const consequence = agents.length === 1
      ? (nodes.length === 1 ? vscode.l10n.t('Agent "{0}" will remove it from the session history, Active and Archived. This cannot be undone.', agents[0]) : vscode.l10n.t('Agent "{0}" will remove them from the session history, Active and Archived. This cannot be undone.', agents[0]))
      : vscode.l10n.t('The agents will remove them from the session history, Active and Archived. This cannot be undone.');
    const kept = nodes.filter((n) => this.deps.kept?.get(n.agent, n.session.sessionId)).length;
    const copies = kept === 0 ? '' : ' ' + (nodes.length === 1 ? vscode.l10n.t('The copy kept here is deleted too.') : vscode.l10n.t('The copies kept here ({0}) are deleted too.', kept));
    const detail = `${listed}${consequence}${copies}`;
    if (!(await this.deps.messages.confirm(question, detail, vscode.l10n.t('Delete')))) {
      return { done: [], gone: [], failed: [], refused: { kind: 'cancelled' } };
    }
    const summary = await this.run(nodes, (agent, ids) => this.deps.model.delete(agent, ids));
    // For delete, -32002 never happens (unknown sessions succeed silently); "gone" counts as done.
    const text = summaryText(summary, 'delete');
    if (text) void this.deps.messages.show(summary.failed.length > 0 ? 'error' : 'info', text);
    return summary;
  }

  async restart(agent: string): Promise<void> {
    try {
      await this.deps.view.withProgress(this.deps.registry.restart(agent));
    } catch (error) {
      const showLog = vscode.l10n.t('Show Log');
      const openSettings = vscode.l10n.t('Open Settings');
      const choice = await this.deps.messages.show('error', vscode.l10n.t('Agent "{0}" did not start: {1}', agent, messageOf(error).split('\n')[0]), showLog, openSettings);
      if (choice === showLog) this.deps.log.show();
      if (choice === openSettings) void vscode.commands.executeCommand('acpSessions.openSettings');
    }
  }

  /** Runs an operation per agent (a session can only be operated on by its own agent). */
  private async run(
    nodes: readonly SessionRef[],
    operation: (agent: string, ids: string[]) => Promise<SessionOutcome[]>,
  ): Promise<CommandSummary> {
    const summary: CommandSummary = { done: [], gone: [], failed: [] };
    if (nodes.length === 0) return { ...summary, refused: { kind: 'nothingSelected' } };
    const work = async () => {
      for (const [agent, agentNodes] of groupBy(nodes, (n) => n.agent)) {
        try {
          for (const found of await operation(agent, agentNodes.map((n) => n.session.sessionId))) {
            // A session no loaded list holds (a collapsed Archived section) is still named by its title.
            const outcome = found.session ? found : { ...found, session: agentNodes.find((n) => n.session.sessionId === found.sessionId)?.session };
            summary[outcome.status === 'done' ? 'done' : outcome.status === 'gone' ? 'gone' : 'failed'].push(outcome);
          }
        } catch (error) {
          if (error instanceof CapabilityMissingError) summary.refused = { kind: 'capability', text: error.message };
          for (const n of agentNodes) summary.failed.push({ agent, sessionId: n.session.sessionId, session: n.session, status: 'failed', error });
        }
      }
    };
    await this.deps.view.withProgress(work());
    return summary;
  }
}
