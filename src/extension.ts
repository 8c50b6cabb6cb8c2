// Composition root: wires the layers together on activation and disposes them on deactivate.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { registerAddAgent } from './ui/sessions/addAgent';
import { localizeFormat } from './ui/common/l10n';
import { registerWalkthrough, walkthrough } from './ui/sessions/walkthrough';
import { AgentDisconnectedError, isResourceNotFound, messageOf } from './acp/errors';
import type { AgentRegistry } from './sessions/agentRegistry';
import { formatText } from './sessions/format';
import { ListCancelledError } from './sessions/sessionsModel';
import { SessionTarget } from './ui/sessions/commandTargets';
import type { HostParts } from './ui/transcripts/hostParts';
import { ToolDiffs } from './ui/transcripts/toolLinks';
import { lazyBundle } from './ui/common/lazyBundle';
import { LazyTranscripts, registerTranscripts, type TranscriptsBundle } from './ui/transcripts/register';
import { isVerdictOnSession } from './sessions/health';
import { removeStaleSpillFiles } from './transcript/spillOwner';
import { LazySearch, searchCommandIds, type SearchBundle } from './ui/search/register';
import type { SearchApi } from './ui/search/searchWiring';
import { activateSessions, type SessionsApi } from './ui/sessions/sessionsWiring';
import { readAgentConfigs } from './ui/common/settings';
import type { TranscriptPanels } from './ui/transcripts/transcriptPanel';

/**
 * What `activate` returns in the extension's Test mode (integration tests): the live parts, and
 * hooks that read and answer its messages. In every other mode it returns nothing: no other
 * extension may answer a confirmation for the user or reach into the model.
 */
export interface AcpSessionsApi {
  readonly log: vscode.LogOutputChannel;
  /** One ACP client per configured agent, with its state. */
  readonly agents: AgentRegistry;
  /** The sessions model, the Sessions tree's data provider and its messages. */
  readonly sessions: SessionsApi;
  /** Open transcripts, with their state for tests (reading it loads dist/transcripts.js). */
  readonly transcripts: TranscriptPanels;
  /** Search Sessions: its index, indexer and view (reading it loads dist/search.js). */
  readonly search: SearchApi;
}

/** Stops every agent; set by `activate`, awaited by `deactivate`. */
let stopAgents: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): AcpSessionsApi | undefined {
  localizeFormat();
  const log = vscode.window.createOutputChannel('ACP Sessions', { log: true });
  context.subscriptions.push(log);

  const updateAgentCount = () => {
    const count = readAgentConfigs().length;
    void vscode.commands.executeCommand('setContext', 'acpSessions.agentCount', count);
    walkthrough.agentsConfigured(count);
  };
  updateAgentCount();

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
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('acpSessions.agents')) updateAgentCount();
    }),
  );

  registerAddAgent(context);
  registerWalkthrough(context);
  // What the bundles loaded on first use share with this one, which owns it.
  const diffs = new ToolDiffs();
  context.subscriptions.push(diffs);
  const host: HostParts = { walkthrough, formatText, SessionTarget, AgentDisconnectedError, ListCancelledError, diffs };
  const spillDir = join(context.globalStorageUri.fsPath, 'transcripts');
  // The files of extension hosts that ended without removing them (a crash, a kill) go now, in
  // every window, whether or not a transcript opens; asynchronous, so activation does not wait.
  void removeStaleSpillFiles(spillDir).then(
    (removed) => removed && log.info(`Removed ${removed} transcript files left by an extension host that stopped.`),
    () => undefined,
  );
  // The transcript panels come with dist/transcripts.js when first needed; by then the tree and
  // the search their options call on exist.
  const transcripts = new LazyTranscripts(lazyBundle<TranscriptsBundle>('transcripts.js'), (bundle) => bundle.createTranscriptPanels(context, agents, log, host, {
    // Through the model, so the tree moves the session to Active at once.
    unarchive: async (agentName, sessionId) => {
      const [outcome] = await sessions.model.unarchive(agentName, [sessionId]);
      if (outcome && outcome.status !== 'done') throw outcome.error ?? new Error(vscode.l10n.t('the agent answered "{0}"', outcome.status));
    },
    // Through the model too: the row takes the new date and state in place (the order holds).
    afterLoad: (agentName, before) => sessions.model.checkAfterLoad(agentName, before),
    closed: (agentName, sessionId) => {
      const client = agents.connectedClient(agentName);
      if (client) sessions.model.lastStatusCheck = sessions.model.checkStatus(agentName, client, [sessionId]);
    },
    // Only the agent's word about the session is remembered as its health (a time-out shows in
    // the transcript, and is not the session's fault).
    loaded: (agentName, sessionId, error) => {
      if (error === undefined) void sessions.health.recordLoadSuccess(agentName, sessionId);
      else if (isVerdictOnSession(error)) void sessions.health.recordLoadFailure(agentName, sessionId, messageOf(error));
      // -32002: the agent no longer has it; the tree, search, pins and this tab hear it from the model.
      if (isResourceNotFound(error)) sessions.model.sessionNotFound(agentName, sessionId);
    },
    learned: (agentName, sessionId, facts) => sessions.learned.learned(agentName, sessionId, facts),
    // Search Sessions indexes what a transcript replayed, a batch read back from its file at a time.
    replayed: (agentName, session, batches) => search.get().replayed(agentName, session, batches),
    spillDir,
    recorder: sessions.messages,
  }));
  context.subscriptions.push(transcripts, ...registerTranscripts(transcripts));
  const { agents, sessions } = activateSessions(context, log, transcripts);
  stopAgents = () => agents.dispose();
  const search = new LazySearch(
    lazyBundle<SearchBundle>('search.js'),
    (bundle, viewParts) => bundle.createSearch(host, context, log, agents, sessions.model, () => transcripts, sessions.messages, viewParts),
    sessions.model,
    searchCommandIds(context.extension.packageJSON),
  );
  context.subscriptions.push(search);

  if (context.extensionMode !== vscode.ExtensionMode.Test || !sessions.messages) return undefined;
  const messages = sessions.messages;
  return {
    log,
    agents,
    sessions: { ...sessions, messages },
    get transcripts() {
      return transcripts.get();
    },
    get search() {
      return search.get();
    },
  };
}

/** VS Code awaits this before the host exits: every agent process, and what it started, has ended. */
export function deactivate(): Promise<void> | undefined {
  const stop = stopAgents;
  stopAgents = undefined;
  return stop?.();
}
