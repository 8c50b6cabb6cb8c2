// Start-up wiring of the Sessions view: the agent registry from the user's settings, the sessions
// model, session health, the tree, the command targets and the commands, and the settings they
// follow. The view itself only provides data (src/ui/sessions/sessionsView.ts).
import { join } from 'node:path';
import * as vscode from 'vscode';
import { boundedLogger } from '../../acp/boundedLog';
import { AgentRegistry } from '../../sessions/agentRegistry';
import { SessionHealth } from '../../sessions/health';
import { LearnedFacts } from '../../sessions/lineage';
import { Pins } from '../../sessions/pins';
import { SessionsModel, type SessionScope } from '../../sessions/sessionsModel';
import { CommandTargets } from './commandTargets';
import { MessageRecorder, Messages } from '../common/messages';
import { registerExport, type LazyTranscripts } from '../transcripts/register';
import { registerPins } from './pinCommands';
import { claudeRetention } from './retention';
import { registerResume } from './resumeTerminal';
import { openLink, registerSessionLinks } from './sessionLinks';
import { registerSessionCommands } from './sessionCommands';
import { SessionsView } from './sessionsView';
import { readAgentConfigs, readRequestTimeout, readTraceLevel } from '../common/settings';

const restrictedModeReason = () => vscode.l10n.t('Restricted Mode: agents do not start by themselves in a folder you have not trusted.');

/** The Sessions part of the test API (the extension's Test mode only). */
export interface SessionsApi {
  readonly model: SessionsModel;
  /** The tree's data provider: `getChildren()` walks exactly what the view shows. */
  readonly view: SessionsView;
  /** Lineage and last figures that opened transcripts told the tree. */
  readonly learned: LearnedFacts;
  /** Notifications and confirmations the view showed, readable and answerable. */
  readonly messages: MessageRecorder;
  /** Missing folders and failed loads (remembered in globalState). */
  readonly health: SessionHealth;
  /** Pinned sessions (globalState). */
  readonly pins?: Pins;
  /** What the URI handler does with a `vscode://…/open` link. */
  readonly openLink: (uri: vscode.Uri) => Promise<void>;
}

/**
 * Creates the agent registry from the user's settings (re-read on change), the sessions model
 * scoped to the workspace folders or all, the tree view and its commands.
 */
export function activateSessions(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  transcripts: LazyTranscripts,
): { agents: AgentRegistry; sessions: Omit<SessionsApi, 'messages'> & { messages: MessageRecorder | undefined } } {
  const config = () => vscode.workspace.getConfiguration('acpSessions');
  const folders = () =>
    (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => ({ path: f.uri.fsPath, name: f.name }));
  const scope = (): SessionScope =>
    config().get<string>('scope') === 'all' ? { kind: 'all' } : { kind: 'folders', folders: folders().map((f) => f.path) };

  const agents = new AgentRegistry({
    start: () => ({
      clientInfo: { name: 'acp-sessions', version: String(context.extension.packageJSON.version ?? '0') },
      // What an agent makes us log is bounded per message (a traced 5 MiB reply is one line).
      log: boundedLogger(log),
      trace: readTraceLevel,
      maxMessageBytes: config().get<number>('maxMessageSize'),
      initializeTimeoutMs: readRequestTimeout(),
      requestTimeoutMs: readRequestTimeout(),
      defaultCwd: folders()[0]?.path,
    }),
  });
  agents.setConfigs(readAgentConfigs());
  // Restricted Mode: an agent loads the folder's own hooks, MCP servers and settings, so none
  // starts there until the user trusts the folder or says "start anyway" for this session.
  if (!vscode.workspace.isTrusted) agents.setStartBlocked(restrictedModeReason());
  const model = new SessionsModel(agents, { pageSize: config().get<number>('pageSize') ?? 50, scope: scope(), log });
  const health = new SessionHealth(context.globalState);
  const learned = new LearnedFacts();
  // A folder all windows share, one file a pin (src/sessions/pins.ts says why not the global state).
  const pins = new Pins(join(context.globalStorageUri.fsPath, 'pins'), { legacy: context.globalState });
  const view = new SessionsView(agents, model, {
    folders,
    groupByDate: config().get<boolean>('groupByDate') === true,
    showSubagents: config().get<boolean>('showSubagents') !== false,
    showBranch: config().get<boolean>('showBranch') === true,
    health,
    learned,
    pins,
    retention: claudeRetention(agents),
  });
  const messages = new Messages();
  // Only integration tests read and answer messages; in any other mode nothing is recorded.
  if (context.extensionMode === vscode.ExtensionMode.Test) messages.recorder = new MessageRecorder();
  const targets = new CommandTargets(view, model, messages);
  const setContextKeys = () => {
    void vscode.commands.executeCommand('setContext', 'acpSessions.scope', config().get<string>('scope') === 'all' ? 'all' : 'workspace');
    void vscode.commands.executeCommand('setContext', 'acpSessions.groupByDate', config().get<boolean>('groupByDate') === true);
  };
  setContextKeys();
  const testMode = context.extensionMode === vscode.ExtensionMode.Test;
  const commandContext = { registry: agents, model, view, messages, targets, log, transcripts: () => transcripts, health, testMode };

  context.subscriptions.push(
    view,
    ...registerSessionCommands(commandContext),
    ...registerResume(commandContext),
    ...registerSessionLinks(context, commandContext),
    ...registerPins(commandContext, pins),
    ...registerExport(commandContext, transcripts),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('acpSessions.agents')) agents.setConfigs(readAgentConfigs());
      if (e.affectsConfiguration('acpSessions.scope')) model.setScope(scope());
      if (e.affectsConfiguration('acpSessions.groupByDate')) view.setGroupByDate(config().get<boolean>('groupByDate') === true);
      if (e.affectsConfiguration('acpSessions.showSubagents')) view.setShowSubagents(config().get<boolean>('showSubagents') !== false);
      if (e.affectsConfiguration('acpSessions.showBranch')) view.setShowBranch(config().get<boolean>('showBranch') === true);
      if (e.affectsConfiguration('acpSessions.pageSize')) model.pageSize = Math.max(1, config().get<number>('pageSize') ?? 50);
      if (e.affectsConfiguration('acpSessions.scope') || e.affectsConfiguration('acpSessions.groupByDate')) setContextKeys();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => model.setScope(scope())),
    // Open transcripts follow what the model learns, whoever caused it (a command, Clean Up,
    // another window through the agent's live list, a -32002).
    model.onDidDelete(({ agent, sessionId }) => transcripts.setDeleted(agent, sessionId)),
    model.onDidArchive(({ agent, sessionId, archived }) => transcripts.setArchived(agent, sessionId, archived)),
    vscode.workspace.onDidGrantWorkspaceTrust(() => agents.setStartBlocked(undefined)),
    vscode.commands.registerCommand('acpSessions.startAgentsInRestrictedMode', () => agents.setStartBlocked(undefined)),
    { dispose: () => model.dispose() },
    pins,
    health,
    learned,
    // Agents are killed on deactivate; nothing may outlive the extension host.
    { dispose: () => void agents.dispose() },
  );
  return { agents, sessions: { model, view, learned, messages: messages.recorder, health, pins, openLink: (uri) => openLink(commandContext, uri) } };
}
