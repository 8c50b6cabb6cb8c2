// The Sessions view's commands: archive, unarchive, delete (one or many, one summary message),
// open transcript, copy id, load more, retry, restart, refresh, scope and grouping toggles.
import * as vscode from 'vscode';
import { AgentDisconnectedError } from '../acp/errors';
import type { SessionInfo } from '../acp/types';
import { messageOf, type AgentRegistry } from '../sessions/agentRegistry';
import { sessionLabel } from '../sessions/format';
import { CapabilityMissingError, type SessionOutcome, type SessionsModel } from '../sessions/sessionsModel';
import type { SessionHealth } from '../sessions/health';
import { cleanUpSessions } from './cleanup';
import { findSession } from './findSession';
import { notificationText } from './plainText';
import type { SessionsView } from './sessionsView';
import { walkthrough } from './walkthrough';
import { AgentNode } from './treeNodes/agentNode';
import { LoadMoreNode } from './treeNodes/loadMoreNode';
import { RetryNode } from './treeNodes/retryNode';
import { SessionNode } from './treeNodes/sessionNode';

/** The part of the transcript panels the Sessions commands use (contract D). */
export interface TranscriptsLike {
  open(agentName: string, session: SessionInfo): Promise<void>;
  setArchived(agentName: string, sessionId: string, archived: boolean): void;
  setTitle?(agentName: string, sessionId: string, title: string): void;
}

/**
 * A session named outside the tree, by our own code only (a transcript's header): the Rename
 * command accepts it in place of a row. Other extensions cannot make one.
 */
export class SessionTarget {
  constructor(
    readonly agent: string,
    readonly session: SessionInfo,
  ) {}
}

/** What Rename… needs of its target: a tree row or a {@link SessionTarget}. */
type RenameTarget = Pick<SessionNode, 'agent' | 'session'>;

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

export type Severity = 'info' | 'warning' | 'error';

/** A message the Sessions view showed, as recorded in the extension's Test mode. */
export interface ShownMessage {
  readonly severity: Severity;
  /** The text as shown: agent text in it is plain (see notificationText). */
  readonly text: string;
  readonly detail?: string;
  readonly modal: boolean;
  readonly actions: readonly string[];
  /** The action chosen (a click, or `MessageRecorder.choose`); undefined when dismissed. */
  readonly answered: Promise<string | undefined>;
}

/** How many shown messages the recorder keeps (the oldest go first). */
const MAX_RECORDED = 1000;

/**
 * What integration tests read and answer instead of clicking: the messages shown, and modal
 * answers given in advance. Only created in the extension's Test mode and only reachable from
 * the test API, so no other extension can answer a confirmation for the user.
 */
export class MessageRecorder {
  readonly shown: ShownMessage[] = [];
  private readonly answerers = new Map<ShownMessage, (action: string | undefined) => void>();
  private readonly queuedModalAnswers: (string | undefined)[] = [];
  private readonly queuedInputAnswers: (string | undefined)[] = [];
  /** The input boxes asked (their prompts), answered from `answerNextInput`. */
  readonly inputs: string[] = [];
  private readonly onDidShowEmitter = new vscode.EventEmitter<ShownMessage>();
  readonly onDidShow = this.onDidShowEmitter.event;

  /** Answers the next modal confirmation with `action` instead of showing it. */
  answerNextModal(action: string | undefined): void {
    this.queuedModalAnswers.push(action);
  }

  /** Answers the next input box (Rename…) with `value` (undefined: cancelled) instead of showing it. */
  answerNextInput(value: string | undefined): void {
    this.queuedInputAnswers.push(value);
  }

  /** @internal the queued answer for the next input box, if any. */
  takeInputAnswer(): { answer: string | undefined } | undefined {
    return this.queuedInputAnswers.length > 0 ? { answer: this.queuedInputAnswers.shift() } : undefined;
  }

  /** Picks an action of a shown notification, as a click on its button would. */
  choose(message: ShownMessage, action: string | undefined): void {
    this.answerers.get(message)?.(action);
  }

  /** @internal the queued answer for the next modal, if any. */
  takeModalAnswer(): { answer: string | undefined } | undefined {
    return this.queuedModalAnswers.length > 0 ? { answer: this.queuedModalAnswers.shift() } : undefined;
  }

  /** @internal records a message and lets `choose` settle it as well as VS Code. */
  record(message: Omit<ShownMessage, 'answered'>, show: () => Thenable<string | undefined>): Promise<string | undefined> {
    let answer!: (action: string | undefined) => void;
    const answered = new Promise<string | undefined>((resolve) => (answer = resolve));
    const shown: ShownMessage = { ...message, answered };
    this.answerers.set(shown, answer);
    this.shown.push(shown);
    if (this.shown.length > MAX_RECORDED) this.answerers.delete(this.shown.shift()!);
    show().then(answer, () => answer(undefined));
    void answered.then(() => this.answerers.delete(shown));
    this.onDidShowEmitter.fire(shown);
    return answered;
  }

  dispose(): void {
    this.onDidShowEmitter.dispose();
  }
}

/**
 * Every notification and confirmation of the Sessions view goes through here, so agent text in
 * it reaches VS Code as plain text (titles and agent errors must not become links).
 */
export class Messages {
  /** Set in the extension's Test mode only. */
  recorder: MessageRecorder | undefined;

  show(severity: Severity, text: string, ...actions: string[]): Promise<string | undefined> {
    const shownText = notificationText(text);
    const show = () =>
      (severity === 'error'
        ? vscode.window.showErrorMessage
        : severity === 'warning'
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage)(shownText, ...actions);
    if (!this.recorder) return Promise.resolve(show());
    return this.recorder.record({ severity, text: shownText, modal: false, actions }, show);
  }

  /** A modal confirmation; true when the user chose `action`. */
  async confirm(text: string, detail: string, action: string): Promise<boolean> {
    const shownText = notificationText(text);
    const shownDetail = notificationText(detail, true);
    const show = () => vscode.window.showWarningMessage(shownText, { modal: true, detail: shownDetail }, action);
    if (!this.recorder) return (await show()) === action;
    const queued = this.recorder.takeModalAnswer();
    const chosen = await this.recorder.record(
      { severity: 'warning', text: shownText, detail: shownDetail, modal: true, actions: [action] },
      queued ? () => Promise.resolve(queued.answer) : show,
    );
    return chosen === action;
  }

  /** An input box; in Test mode a queued answer stands in for the user's typing. */
  async input(options: vscode.InputBoxOptions): Promise<string | undefined> {
    this.recorder?.inputs.push(options.prompt ?? '');
    const queued = this.recorder?.takeInputAnswer();
    if (queued) return queued.answer;
    return vscode.window.showInputBox(options);
  }

  dispose(): void {
    this.recorder?.dispose();
  }
}

/** What an archive, unarchive or delete command did, summed over agents. */
export interface CommandSummary {
  done: SessionOutcome[];
  gone: SessionOutcome[];
  failed: SessionOutcome[];
  /** Set when nothing was sent: the agent lacks the capability, or the user cancelled. */
  refused?: string;
}

export interface SessionCommandsDeps {
  registry: AgentRegistry;
  model: SessionsModel;
  view: SessionsView;
  messages: Messages;
  log: vscode.LogOutputChannel;
  health: SessionHealth;
  /** The transcript panels once they exist (the transcript issue wires them). */
  transcripts(): TranscriptsLike | undefined;
}

export function registerSessionCommands(deps: SessionCommandsDeps): vscode.Disposable[] {
  const { registry, model, view, messages } = deps;
  const commands = new SessionCommands(deps);
  const config = () => vscode.workspace.getConfiguration('acpSessions');
  return [
    vscode.commands.registerCommand('acpSessions.refresh', () => {
      // A refresh looks at the folders again (one may have come back).
      deps.health.forgetFolders();
      return view.withProgress(model.refresh());
    }),
    vscode.commands.registerCommand('acpSessions.showProblemsOnly', () => view.setProblemsOnly(true)),
    vscode.commands.registerCommand('acpSessions.showAllSessions', () => view.setProblemsOnly(false)),
    vscode.commands.registerCommand('acpSessions.cleanUp', (request?: unknown) => cleanUpSessions(deps, request)),
    vscode.commands.registerCommand('acpSessions.findSession', () => findSession(deps, (agent, session) => commands.open(agent, session))),
    vscode.commands.registerCommand('acpSessions.scopeAll', () => config().update('scope', 'all', vscode.ConfigurationTarget.Global)),
    vscode.commands.registerCommand('acpSessions.scopeWorkspace', () =>
      config().update('scope', 'workspace', vscode.ConfigurationTarget.Global),
    ),
    vscode.commands.registerCommand('acpSessions.groupByDate', () => config().update('groupByDate', true, vscode.ConfigurationTarget.Global)),
    vscode.commands.registerCommand('acpSessions.ungroup', () => config().update('groupByDate', false, vscode.ConfigurationTarget.Global)),
    vscode.commands.registerCommand('acpSessions.openTranscript', (node?: unknown) => {
      const target = node instanceof SessionNode ? node : view.selectedSessions()[0];
      if (target) return commands.open(target.agent, target.session);
    }),
    vscode.commands.registerCommand('acpSessions.archive', (...args: unknown[]) =>
      commands.setArchived(targets(view, messages, args, vscode.l10n.t('Nothing was archived')), true),
    ),
    vscode.commands.registerCommand('acpSessions.unarchive', (...args: unknown[]) =>
      commands.setArchived(targets(view, messages, args, vscode.l10n.t('Nothing was unarchived')), false),
    ),
    vscode.commands.registerCommand('acpSessions.delete', (...args: unknown[]) => commands.delete(targets(view, messages, args, vscode.l10n.t('Nothing was deleted')))),
    // (node, nodes?, title?): a title given (tests, the API) skips the input box.
    vscode.commands.registerCommand('acpSessions.rename', (...args: unknown[]) => {
      // From a transcript's header: that session, as the model knows it now.
      const fromTranscript = args[0] instanceof SessionTarget ? args[0] : undefined;
      const [target] = fromTranscript
        ? [{ agent: fromTranscript.agent, session: model.find(fromTranscript.agent, fromTranscript.session.sessionId)?.session ?? fromTranscript.session }]
        : targets(view, messages, args.slice(0, 2), vscode.l10n.t('Nothing was renamed'));
      if (target) return commands.rename(target, typeof args[2] === 'string' ? args[2] : undefined);
    }),
    vscode.commands.registerCommand('acpSessions.copySessionId', async (...args: unknown[]) => {
      const ids = targets(view, messages, args, vscode.l10n.t('Nothing was copied')).map((n) => n.session.sessionId);
      if (ids.length > 0) await vscode.env.clipboard.writeText(ids.join('\n'));
    }),
    vscode.commands.registerCommand('acpSessions.loadMore', (node?: unknown) => {
      if (node instanceof LoadMoreNode) return view.withProgress(node.list.loadMore());
    }),
    vscode.commands.registerCommand('acpSessions.retry', (node?: unknown) => {
      if (!(node instanceof RetryNode)) return;
      if ('list' in node.target) return view.withProgress(node.target.list.reload());
      return commands.restart(node.target.agent);
    }),
    vscode.commands.registerCommand('acpSessions.restartAgent', (node?: unknown) => {
      const name = node instanceof AgentNode ? node.name : typeof node === 'string' ? node : undefined;
      if (name) return commands.restart(name);
      return Promise.all(registry.agents.map((a) => commands.restart(a.name)));
    }),
    { dispose: () => messages.dispose() },
  ];
}

/**
 * The sessions a command applies to: the multi-selection, the clicked one, or, run from the
 * palette or a key, the selection. When there is none, says so rather than doing nothing.
 *
 * A row's inline or context-menu action always passes the row; VS Code passes `undefined` in
 * its place when it no longer knows the row (its part of the tree was being redrawn). That
 * click must not fall back to the selection, which may be another session.
 */
function targets(view: SessionsView, messages: Messages, args: readonly unknown[], nothingDone: string): SessionNode[] {
  const [node, nodes] = args;
  let found: SessionNode[];
  if (Array.isArray(nodes) && nodes.length > 0) found = nodes.filter((n): n is SessionNode => n instanceof SessionNode);
  else if (node instanceof SessionNode) found = [node];
  else if (args.length > 0) {
    void messages.show('warning', vscode.l10n.t('{0}: the Sessions view was redrawing that row when it was clicked. Try again.', nothingDone));
    return [];
  } else found = view.selectedSessions();
  if (found.length === 0) void messages.show('info', vscode.l10n.t('Select one or more sessions in the Sessions view first, then try again.'));
  return found;
}

class SessionCommands {
  constructor(private readonly deps: SessionCommandsDeps) {}

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
      await transcripts.open(agent, session);
    } catch (error) {
      void messages.show('error', vscode.l10n.t('Could not open the transcript of "{0}": {1}', sessionLabel(session), messageOf(error)), vscode.l10n.t('Show Log')).then(
        (choice) => choice && this.deps.log.show(),
      );
    }
  }

  async setArchived(nodes: readonly SessionNode[], archived: boolean): Promise<CommandSummary> {
    // Only sessions that are in the other section can move.
    const from = archived ? 'active' : 'archived';
    const eligible = nodes.filter((n) => n.section === from);
    const summary = await this.run(eligible, (agent, ids) =>
      archived ? this.deps.model.archive(agent, ids) : this.deps.model.unarchive(agent, ids),
    );
    const transcripts = this.deps.transcripts();
    for (const outcome of summary.done) {
      const agent = eligible.find((n) => n.session.sessionId === outcome.sessionId)?.agent;
      if (agent) transcripts?.setArchived(agent, outcome.sessionId, archived);
    }
    if (archived && summary.done.length > 0) walkthrough.archived();
    const text = this.summaryText(summary, archived ? 'archive' : 'unarchive');
    if (!text) return summary;
    if (archived && summary.done.length > 0) {
      // Undo restores exactly what this command archived, also when the rest failed.
      const done = summary.done.map((o) => ({ outcome: o, agent: eligible.find((n) => n.session.sessionId === o.sessionId)!.agent }));
      const undo = vscode.l10n.t('Undo');
      void this.deps.messages.show('info', text, undo).then(async (choice) => {
        if (choice !== undo) return;
        const byAgent = groupBy(done, (d) => d.agent);
        for (const [agent, items] of byAgent) {
          const outcomes = await this.deps.model.unarchive(agent, items.map((i) => i.outcome.sessionId)).catch((error) => {
            void this.deps.messages.show('error', vscode.l10n.t('Could not undo the archive: {0}', messageOf(error)));
            return [];
          });
          for (const o of outcomes) if (o.status === 'done') transcripts?.setArchived(agent, o.sessionId, false);
          const failed = outcomes.filter((o) => o.status !== 'done');
          if (failed.length > 0) {
            void this.deps.messages.show('error', vscode.l10n.t('Could not undo the archive of {0}: {1}', describeOutcomes(failed), messageOf(failed[0].error)));
          }
        }
      });
    } else {
      void this.deps.messages.show(summary.failed.length > 0 ? 'error' : summary.gone.length > 0 ? 'warning' : 'info', text);
    }
    return summary;
  }

  /** Rename… : asks for a title (validated), sends `session/set_title`, offers Undo. */
  async rename(node: RenameTarget, given?: string): Promise<SessionOutcome | undefined> {
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
      this.deps.transcripts()?.setTitle?.(agent, session.sessionId, stored);
      const text = vscode.l10n.t('Renamed "{0}" to "{1}".', old, stored);
      // A session that had no title cannot get "no title" back: set_title needs one.
      if (before === undefined) void messages.show('info', text);
      else {
        const undo = vscode.l10n.t('Undo');
        void messages.show('info', text, undo).then(async (choice) => {
          if (choice !== undo) return;
          const undone = await model.rename(agent, session.sessionId, before).catch((error: unknown) => ({ status: 'failed' as const, error, title: undefined }));
          if (undone.status === 'done') this.deps.transcripts()?.setTitle?.(agent, session.sessionId, undone.title ?? before);
          else void messages.show('error', vscode.l10n.t('Could not undo the rename of "{0}": {1}', stored, messageOf(undone.error)));
        });
      }
    }
    return outcome;
  }

  async delete(nodes: readonly SessionNode[]): Promise<CommandSummary> {
    if (nodes.length === 0) return { done: [], gone: [], failed: [], refused: 'nothing selected' };
    // Refuse before asking: a confirmation for something the agent cannot do would mislead.
    const unable = [...new Set(nodes.map((n) => n.agent))].filter((a) => this.deps.registry.agent(a)?.capabilities?.delete !== true);
    if (unable.length > 0) {
      const refused = vscode.l10n.t('Agent "{0}" cannot delete sessions: it does not advertise sessionCapabilities.delete.', unable[0]);
      void this.deps.messages.show('warning', refused);
      return { done: [], gone: [], failed: [], refused };
    }
    const labels = nodes.map((n) => sessionLabel(n.session));
    const question = nodes.length === 1 ? vscode.l10n.t('Delete the session "{0}"?', labels[0]) : vscode.l10n.t('Delete {0} sessions?', nodes.length);
    const agents = [...new Set(nodes.map((n) => n.agent))];
    const listed = nodes.length > 1 ? listedLabels(labels) : '';
    const consequence = agents.length === 1
      ? (nodes.length === 1 ? vscode.l10n.t('Agent "{0}" will remove it from the session history, Active and Archived. This cannot be undone.', agents[0]) : vscode.l10n.t('Agent "{0}" will remove them from the session history, Active and Archived. This cannot be undone.', agents[0]))
      : vscode.l10n.t('The agents will remove them from the session history, Active and Archived. This cannot be undone.');
    const detail = `${listed}${consequence}`;
    if (!(await this.deps.messages.confirm(question, detail, vscode.l10n.t('Delete')))) {
      return { done: [], gone: [], failed: [], refused: 'cancelled' };
    }
    const summary = await this.run(nodes, (agent, ids) => this.deps.model.delete(agent, ids));
    // For delete, -32002 never happens (unknown sessions succeed silently); "gone" counts as done.
    const text = this.summaryText(summary, 'delete');
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
    nodes: readonly SessionNode[],
    operation: (agent: string, ids: string[]) => Promise<SessionOutcome[]>,
  ): Promise<CommandSummary> {
    const summary: CommandSummary = { done: [], gone: [], failed: [] };
    if (nodes.length === 0) return { ...summary, refused: 'nothing selected' };
    const work = async () => {
      for (const [agent, agentNodes] of groupBy(nodes, (n) => n.agent)) {
        try {
          for (const outcome of await operation(agent, agentNodes.map((n) => n.session.sessionId))) {
            summary[outcome.status === 'done' ? 'done' : outcome.status === 'gone' ? 'gone' : 'failed'].push(outcome);
          }
        } catch (error) {
          if (error instanceof CapabilityMissingError) summary.refused = error.message;
          for (const n of agentNodes) summary.failed.push({ sessionId: n.session.sessionId, session: n.session, status: 'failed', error });
        }
      }
    };
    await this.deps.view.withProgress(work());
    return summary;
  }

  /** One message for the whole command: what worked, what was gone, what failed and why. */
  private summaryText(summary: CommandSummary, operation: 'archive' | 'unarchive' | 'delete'): string | undefined {
    if (summary.refused && summary.done.length === 0) return summary.refused.endsWith('.') ? summary.refused : `${summary.refused}.`;
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
}

/** The first ten labels as a bulleted list for a confirmation's detail, then how many more. */
export function listedLabels(labels: readonly string[]): string {
  return `${labels.slice(0, 10).map((l) => `• ${l}`).join('\n')}${labels.length > 10 ? `\n${vscode.l10n.t('… and {0} more', labels.length - 10)}` : ''}\n\n`;
}

export function describeOutcomes(outcomes: readonly SessionOutcome[]): string {
  if (outcomes.length === 1) {
    const o = outcomes[0];
    return vscode.l10n.t('"{0}"', o.session ? sessionLabel(o.session) : o.sessionId);
  }
  return vscode.l10n.t('{0} sessions', outcomes.length);
}

function doneText(operation: 'archive' | 'unarchive' | 'delete', what: string): string {
  if (operation === 'archive') return vscode.l10n.t('Archived {0}.', what);
  if (operation === 'unarchive') return vscode.l10n.t('Unarchived {0}.', what);
  return vscode.l10n.t('Deleted {0}.', what);
}

function failedText(operation: 'archive' | 'unarchive' | 'delete', what: string): string {
  if (operation === 'archive') return vscode.l10n.t('Could not archive {0}', what);
  if (operation === 'unarchive') return vscode.l10n.t('Could not unarchive {0}', what);
  return vscode.l10n.t('Could not delete {0}', what);
}

/** The agent's own words when it sent an error; our message otherwise. */
function agentMessage(error: unknown): string {
  const agent = (error as { agentMessage?: unknown })?.agentMessage;
  return typeof agent === 'string' && agent ? agent : messageOf(error);
}

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) map.set(key(item), [...(map.get(key(item)) ?? []), item]);
  return map;
}
