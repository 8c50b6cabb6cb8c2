// The Sessions tree: routes VS Code's questions to the node classes and refreshes when the
// registry or the sessions model change. No protocol logic lives here.
import * as vscode from 'vscode';
import { AgentRegistry } from '../sessions/agentRegistry';
import { SessionsModel, type SessionList, type SessionScope } from '../sessions/sessionsModel';
import { Messages, registerSessionCommands, type TranscriptsLike } from './sessionCommands';
import { readAgentConfigs, readTraceLevel } from './settings';
import { AgentNode } from './treeNodes/agentNode';
import { SessionNode } from './treeNodes/sessionNode';
import type { TreeContext, TreeNode } from './treeNodes/treeNode';

export const sessionsViewId = 'acpSessions.sessions';

export interface SessionsViewOptions {
  folders(): readonly { path: string; name: string }[];
  groupByDate: boolean;
}

export class SessionsView implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  readonly treeView: vscode.TreeView<TreeNode>;
  private readonly changeEmitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly ctx: TreeContext;
  private refreshTimer: NodeJS.Timeout | undefined;
  /** What the tree showed when it last refreshed (see {@link refresh}). */
  private lastShown: string | undefined;
  private groupByDate: boolean;

  constructor(
    readonly registry: AgentRegistry,
    readonly model: SessionsModel,
    private readonly options: SessionsViewOptions,
  ) {
    this.groupByDate = options.groupByDate;
    this.ctx = {
      registry,
      model,
      folders: () => options.folders(),
      groupByDate: () => this.groupByDate,
      load: (list) => void this.withProgress(list.load()),
      start: (agent) => void this.withProgress(registry.getClient(agent).catch(() => undefined)),
      now: () => Date.now(),
    };
    this.treeView = vscode.window.createTreeView(sessionsViewId, {
      treeDataProvider: this,
      canSelectMany: true,
      showCollapseAll: true,
    });
    this.disposables.push(
      this.treeView,
      this.changeEmitter,
      registry.onDidChangeState(() => this.refresh()),
      registry.onDidChangeAgents(() => this.refresh()),
      model.onDidChange(() => this.refresh()),
      // Enter and Delete apply to sessions only; elsewhere the tree keeps its own keys.
      this.treeView.onDidChangeSelection((e) =>
        vscode.commands.executeCommand('setContext', 'acpSessions.sessionSelected', e.selection.some((n) => n instanceof SessionNode)),
      ),
    );
    this.updateDescription();
  }

  /**
   * Re-renders the tree from the models (coalesced; the models answer from memory), unless
   * nothing it shows changed. A root refresh makes VS Code drop every item handle until the
   * rows are fetched again, so an inline action clicked meanwhile reaches its command without
   * its item: re-listings that bring nothing new (after each operation, on revalidation) must
   * not cause one.
   */
  refresh(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.updateDescription();
      const shown = this.shownState();
      if (shown === this.lastShown) return;
      this.lastShown = shown;
      this.changeEmitter.fire(undefined);
    }, 0);
  }

  /** Everything the tree's items are made of, as one string to compare. */
  private shownState(): string {
    const agents = this.registry.agents.map((a) => [a.name, a.config, a.state, a.agentInfo?.name, a.agentInfo?.title, a.agentInfo?.version, a.capabilities, a.protocolVersion]);
    const lists = this.model.allLists().map((l) => [
      l.id,
      l.status,
      l.loadingMore,
      l.hasMore,
      l.error === undefined ? undefined : String((l.error as { message?: unknown })?.message ?? l.error),
      l.sessions.map((s) => [s.sessionId, s.title, s.updatedAt, s.archived, s.cwd]),
    ]);
    // The minute, so that relative dates ("3 h") catch up on the next refresh.
    const minute = Math.floor(this.ctx.now() / 60_000);
    return JSON.stringify([agents, lists, this.model.scope, this.groupByDate, this.options.folders(), minute]);
  }

  setGroupByDate(groupByDate: boolean): void {
    this.groupByDate = groupByDate;
    this.refresh();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return node.getTreeItem();
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (node) return node.getChildren();
    return this.registry.agents.map((agent) => new AgentNode(this.ctx, agent));
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }

  /** The selected sessions, for commands run from the keyboard or the palette. */
  selectedSessions(): SessionNode[] {
    return this.treeView.selection.filter((n): n is SessionNode => n instanceof SessionNode);
  }

  /** Shows progress in the view while `work` runs (only visible when it takes a while). */
  withProgress<T>(work: Promise<T>): Promise<T> {
    return Promise.resolve(vscode.window.withProgress({ location: { viewId: sessionsViewId } }, () => work));
  }

  /** Loads a list's first page if needed, with progress. */
  load(list: SessionList): Promise<void> {
    return this.withProgress(list.load());
  }

  private updateDescription(): void {
    const scope = this.model.scope;
    this.treeView.description = scope.kind === 'all' ? 'All folders' : undefined;
  }

  dispose(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const d of this.disposables) d.dispose();
  }
}

/** The Sessions part of the extension API (for integration tests and other extensions). */
export interface SessionsApi {
  readonly model: SessionsModel;
  /** The tree's data provider: `getChildren()` walks exactly what the view shows. */
  readonly view: SessionsView;
  /** Notifications and confirmations the view showed, readable and answerable. */
  readonly messages: Messages;
}

/**
 * Creates the agent registry from the user's settings (re-read on change), the sessions model
 * scoped to the workspace folders or all, the tree view and its commands.
 */
export function activateSessions(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  transcripts: () => TranscriptsLike | undefined,
): { agents: AgentRegistry; sessions: SessionsApi } {
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
      log,
      trace: readTraceLevel,
      maxMessageBytes: config().get<number>('maxMessageSize'),
      initializeTimeoutMs: config().get<number>('requestTimeout'),
      defaultCwd: folders()[0]?.path,
    }),
  });
  agents.setConfigs(readAgentConfigs());
  const model = new SessionsModel(agents, { pageSize: config().get<number>('pageSize') ?? 50, scope: scope(), log });
  const view = new SessionsView(agents, model, { folders, groupByDate: config().get<boolean>('groupByDate') === true });
  const messages = new Messages();
  const setContextKeys = () => {
    void vscode.commands.executeCommand('setContext', 'acpSessions.scope', config().get<string>('scope') === 'all' ? 'all' : 'workspace');
    void vscode.commands.executeCommand('setContext', 'acpSessions.groupByDate', config().get<boolean>('groupByDate') === true);
  };
  setContextKeys();

  context.subscriptions.push(
    view,
    ...registerSessionCommands({ registry: agents, model, view, messages, log, transcripts }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('acpSessions.agents')) agents.setConfigs(readAgentConfigs());
      if (e.affectsConfiguration('acpSessions.scope')) model.setScope(scope());
      if (e.affectsConfiguration('acpSessions.groupByDate')) view.setGroupByDate(config().get<boolean>('groupByDate') === true);
      if (e.affectsConfiguration('acpSessions.pageSize')) model.pageSize = Math.max(1, config().get<number>('pageSize') ?? 50);
      if (e.affectsConfiguration('acpSessions.scope') || e.affectsConfiguration('acpSessions.groupByDate')) setContextKeys();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => model.setScope(scope())),
    { dispose: () => model.dispose() },
    // Agents are killed on deactivate; nothing may outlive the extension host.
    { dispose: () => void agents.dispose() },
  );
  return { agents, sessions: { model, view, messages } };
}
