// The Sessions feature, the main bundle's: the agent registry from the user's settings, the
// sessions model, session health, pins, the tree, the command targets and the commands, Add Agent,
// the walkthrough and the settings they follow. The view itself only provides data
// (src/ui/sessions/sessionsView.ts). What other features need from it they get from what
// `registerSessions` returns; it knows the transcripts only as the small interface it declares
// (src/ui/sessions/commandContext.ts: open one, wait for its load).
import { join } from 'node:path';
import * as vscode from 'vscode';
import { AgentDisconnectedError } from '../../acp/errors';
import { boundedLogger } from '../../acp/boundedLog';
import { AgentRegistry } from '../../sessions/agentRegistry';
import { formatText, type FormatText } from '../../sessions/format';
import { SessionHealth } from '../../sessions/health';
import { LearnedFacts } from '../../sessions/lineage';
import { Pins } from '../../sessions/pins';
import { ListCancelledError, SessionsModel, type SessionScope } from '../../sessions/sessionsModel';
import type { ChangesStore } from '../../changes/changesStore';
import { MessageRecorder, Messages } from '../common/messages';
import { readAgentConfigs, readRequestTimeout, readStartTimeout, watchAgentConfigs, watchTraceLevel } from '../common/settings';
import type { AgentConfig } from '../../acp/types';
import { registerAddAgent } from './addAgent';
import { KeepAhead } from './keepAhead';
import { ReadMarks, registerReadCommands } from './readMarks';
import { createKeptStore, readKeepAheadDays, registerKept, type KeptFeature } from './keptCopies';
import type { CommandContext, TranscriptsLike } from './commandContext';
import { CommandTargets, SessionTarget } from './commandTargets';
import { registerPins } from './pinCommands';
import { claudeRetention } from './retention';
import { registerResume } from './resumeTerminal';
import { bothObservers } from '../../acp/replayObservers';
import { createChangesStore, followDeletes, readShowChanges } from './sessionChanges';
import { openLink, registerSessionLinks } from './sessionLinks';
import { registerSessionCommands } from './sessionCommands';
import { SessionsView } from './sessionsView';
import { registerWalkthrough, walkthrough } from './walkthrough';

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
  /** Pinned sessions (one file each in the global storage). */
  readonly pins?: Pins;
  /** What the URI handler does with a `vscode://…/open` link. */
  readonly openLink: (uri: vscode.Uri) => Promise<void>;
  /** Kept copies and Kept Here. */
  readonly kept: KeptFeature;
  /** Read and unread, waiting for you. */
  readonly read: ReadMarks;
  /** What sessions changed, as their replays told (src/changes/). */
  readonly changes: ChangesStore;
}

/**
 * What exists once, in the main bundle, and the bundles loaded on first use take from it instead
 * of their own copy (src/ui/transcripts/hostParts.ts says why): the walkthrough's progress, the
 * display language's words, and classes that `instanceof` checks.
 */
export interface SessionsParts {
  readonly walkthrough: typeof walkthrough;
  readonly formatText: FormatText;
  /** The configured agents, as the main bundle keeps them (adopted with `useAgentConfigs`). */
  readonly agentConfigs: () => readonly AgentConfig[];
  readonly SessionTarget: typeof SessionTarget;
  readonly AgentDisconnectedError: typeof AgentDisconnectedError;
  readonly ListCancelledError: typeof ListCancelledError;
}

/** What the other features get from Sessions. */
export interface SessionsFeature {
  readonly agents: AgentRegistry;
  readonly model: SessionsModel;
  readonly view: SessionsView;
  readonly learned: LearnedFacts;
  readonly health: SessionHealth;
  readonly pins: Pins;
  /** Kept copies (src/keep/) and Kept Here. */
  readonly kept: KeptFeature;
  /** Read and unread, waiting for you (the rows' decorations, the view's badge). */
  readonly read: ReadMarks;
  /** What sessions changed, as their replays told (src/changes/). */
  readonly changes: ChangesStore;
  /** The messages of every feature (recorded in Test mode only). */
  readonly messages: Messages;
  /** What the commands work with (src/ui/sessions/commandContext.ts), for the commands other features register. */
  readonly commandContext: CommandContext;
  readonly parts: SessionsParts;
  /** The line worker's script (dist/lineWorker.js), or undefined where it is off (ACP_SESSIONS_LINE_WORKER=off). */
  readonly lineWorker: string | undefined;
  /** The test API's part (Test mode only). */
  readonly api: SessionsApi | undefined;
}

export interface SessionsDeps {
  readonly log: vscode.LogOutputChannel;
  /** The transcripts, once their feature is registered (after this one). */
  readonly transcripts: () => TranscriptsLike | undefined;
}

/**
 * Creates the agent registry from the user's settings (re-read on change), the sessions model
 * scoped to the workspace folders or all, the tree view and its commands.
 */
export function registerSessions(context: vscode.ExtensionContext, deps: SessionsDeps): SessionsFeature {
  const { log } = deps;
  const config = () => vscode.workspace.getConfiguration('acpSessions');
  const folders = () =>
    (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => ({ path: f.uri.fsPath, name: f.name }));
  const scope = (): SessionScope =>
    config().get<string>('scope') === 'all' ? { kind: 'all' } : { kind: 'folders', folders: folders().map((f) => f.path) };

  const updateAgentCount = () => {
    const count = readAgentConfigs().length;
    void vscode.commands.executeCommand('setContext', 'acpSessions.agentCount', count);
    walkthrough.agentsConfigured(count);
  };
  updateAgentCount();

  // Before the agents: every client hands its replays to the stores (kept copies, what sessions changed).
  let model: SessionsModel | undefined;
  const kept = createKeptStore(context, () => model, log);
  const changes = createChangesStore(context, () => model, log);
  // The agents' output is parsed off this thread (ACP_SESSIONS_LINE_WORKER=off: on it, as where the worker cannot start).
  const lineWorker = process.env.ACP_SESSIONS_LINE_WORKER === 'off' ? undefined : vscode.Uri.joinPath(context.extensionUri, 'dist', 'lineWorker.js').fsPath;
  const trace = watchTraceLevel();
  const agentConfigs = watchAgentConfigs();
  context.subscriptions.push(trace, agentConfigs);
  const agents = new AgentRegistry({
    start: () => ({
      replays: (agent, sessionId, cwd) => bothObservers(kept.observe(agent, sessionId, cwd), changes.observe(agent, sessionId, cwd), log),
      clientInfo: { name: 'acp-sessions', version: String(context.extension.packageJSON.version ?? '0') },
      // What an agent makes us log is bounded per message (a traced 5 MiB reply is one line).
      log: boundedLogger(log),
      trace: trace.current,
      maxMessageBytes: config().get<number>('maxMessageSize'),
      initializeTimeoutMs: readStartTimeout(),
      requestTimeoutMs: readRequestTimeout(),
      defaultCwd: folders()[0]?.path,
      lineWorker,
    }),
  });
  agents.setConfigs(readAgentConfigs());
  // Restricted Mode: an agent loads the folder's own hooks, MCP servers and settings, so none
  // starts there until the user trusts the folder or says "start anyway" for this session.
  if (!vscode.workspace.isTrusted) agents.setStartBlocked(restrictedModeReason());
  model = new SessionsModel(agents, { pageSize: config().get<number>('pageSize') ?? 50, scope: scope(), log });
  const messages = new Messages();
  const keptFeature = registerKept(context, kept, model, { messages, log, transcripts: deps.transcripts, treeView: () => view.treeView });
  const retention = claudeRetention(agents, Date.now, readKeepAheadDays);
  const keepAhead = new KeepAhead({ model, store: kept, messages, log, retention, isOpen: (agent, id) => deps.transcripts()?.getState?.(agent, id) !== undefined });
  const health = new SessionHealth(context.globalState);
  // Read and unread, waiting for you: the rows' decorations and the view's badge.
  const read: ReadMarks = new ReadMarks(context.globalState, model, (): vscode.TreeView<unknown> => view.treeView);
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
    retention,
    kept: keptFeature.view,
    keptAt: (agent, session) => kept.get(agent, session.sessionId)?.meta.keptAt,
    keepOffer: (agent) => keepAhead.offer(agent),
    read,
    changes,
    showChanges: readShowChanges,
  });
  read.updateBadge();
  // Only integration tests read and answer messages; in any other mode nothing is recorded.
  const testMode = context.extensionMode === vscode.ExtensionMode.Test;
  if (testMode) messages.recorder = new MessageRecorder();
  const targets = new CommandTargets(view, model, messages);
  const setContextKeys = () => {
    void vscode.commands.executeCommand('setContext', 'acpSessions.scope', config().get<string>('scope') === 'all' ? 'all' : 'workspace');
    void vscode.commands.executeCommand('setContext', 'acpSessions.groupByDate', config().get<boolean>('groupByDate') === true);
  };
  setContextKeys();
  const commandContext: CommandContext = { registry: agents, model, view, messages, targets, log, transcripts: deps.transcripts, health, testMode, kept, read,
    keptHere: { sessions: (agent) => keptFeature.here.sessions(agent), deleteCopies: (copies) => keptFeature.deleteCopies(copies) },
  };

  registerAddAgent(context);
  registerWalkthrough(context);
  context.subscriptions.push(
    vscode.commands.registerCommand('acpSessions.showLog', () => log.show()),
    vscode.commands.registerCommand('acpSessions.openSettings', () =>
      // In a remote window (SSH, containers, code-server) machine-scoped settings are listed
      // only on the Remote tab; the User tab would say "No Settings Found". By id: a plain search
      // for "acpSessions.agents" also finds acpSessions.showSubagents.
      vscode.env.remoteName
        ? vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query: '@id:acpSessions.agents' })
        : vscode.commands.executeCommand('workbench.action.openSettings', '@id:acpSessions.agents'),
    ),
    view,
    ...registerSessionCommands(commandContext),
    ...registerResume(commandContext),
    ...registerSessionLinks(context, commandContext),
    ...registerPins(commandContext, pins),
    read,
    ...registerReadCommands(read, targets),
    keepAhead,
    keepAhead.onDidChange(() => view.refresh()),
    vscode.commands.registerCommand('acpSessions.keepSessionsAhead', (agent: unknown) => typeof agent === 'string' && keepAhead.keepAsked(agent)),
    // With `expiring`, what the lists show to be due is kept in the background where loads change nothing.
    model.onDidChange((change) => change.list?.status === 'loaded' && keepAhead.maybeKeepInBackground(change.agent)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('acpSessions.agents')) {
        agents.setConfigs(readAgentConfigs());
        updateAgentCount();
      }
      if (e.affectsConfiguration('acpSessions.scope')) model.setScope(scope());
      if (e.affectsConfiguration('acpSessions.groupByDate')) view.setGroupByDate(config().get<boolean>('groupByDate') === true);
      if (e.affectsConfiguration('acpSessions.showSubagents')) view.setShowSubagents(config().get<boolean>('showSubagents') !== false);
      if (e.affectsConfiguration('acpSessions.showBranch')) view.setShowBranch(config().get<boolean>('showBranch') === true);
      if (e.affectsConfiguration('acpSessions.showChanges')) view.refresh();
      if (e.affectsConfiguration('acpSessions.pageSize')) model.pageSize = Math.max(1, config().get<number>('pageSize') ?? 50);
      if (e.affectsConfiguration('acpSessions.scope') || e.affectsConfiguration('acpSessions.groupByDate')) setContextKeys();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => model.setScope(scope())),
    vscode.workspace.onDidGrantWorkspaceTrust(() => agents.setStartBlocked(undefined)),
    vscode.commands.registerCommand('acpSessions.startAgentsInRestrictedMode', () => agents.setStartBlocked(undefined)),
    { dispose: () => model.dispose() },
    pins,
    health,
    learned,
    changes,
    followDeletes(changes, model, (agent, sessionId) => kept.get(agent, sessionId) !== undefined),
    // Agents are killed on deactivate; nothing may outlive the extension host.
    { dispose: () => void agents.dispose() },
  );
  const api: SessionsApi | undefined = messages.recorder && {
    model,
    view,
    learned,
    messages: messages.recorder,
    health,
    pins,
    openLink: (uri) => openLink(commandContext, uri),
    kept: keptFeature,
    read,
    changes,
  };
  const parts: SessionsParts = { walkthrough, formatText, agentConfigs: agentConfigs.current, SessionTarget, AgentDisconnectedError, ListCancelledError };
  return { agents, model, view, learned, health, pins, kept: keptFeature, read, changes, messages, commandContext, parts, lineWorker, api };
}
