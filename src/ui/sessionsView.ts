// The Sessions tree: routes VS Code's questions to the node classes and refreshes when the
// registry or the sessions model change. No protocol logic lives here.
import * as vscode from 'vscode';
import { AgentRegistry } from '../sessions/agentRegistry';
import { SessionHealth } from '../sessions/health';
import { SessionsModel, type SessionList, type SessionScope } from '../sessions/sessionsModel';
import { MessageRecorder, Messages, registerSessionCommands, type TranscriptsLike } from './sessionCommands';
import { boundedLogger } from '../acp/boundedLog';
import { readAgentConfigs, readRequestTimeout, readTraceLevel } from './settings';
import { AgentNode } from './treeNodes/agentNode';
import { SectionNode } from './treeNodes/sectionNode';
import { SessionNode } from './treeNodes/sessionNode';
import { walkthrough } from './walkthrough';
import type { TreeContext, TreeNode } from './treeNodes/treeNode';
import { LearnedFacts } from '../sessions/lineage';

export const sessionsViewId = 'acpSessions.sessions';

export interface SessionsViewOptions {
  folders(): readonly { path: string; name: string }[];
  groupByDate: boolean;
  health: SessionHealth;
  showSubagents: boolean;
  learned: LearnedFacts;
}

export class SessionsView implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  readonly treeView: vscode.TreeView<TreeNode>;
  private readonly changeEmitter = new vscode.EventEmitter<TreeNode | TreeNode[] | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly ctx: TreeContext;
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly clock: NodeJS.Timeout;
  /** One node object per id, so that VS Code can be told which of the nodes it holds changed. */
  private readonly nodes = new Map<string, TreeNode>();
  /**
   * What VS Code last fetched, by node id (the root is ''): its item, and its children's ids.
   * Kept until VS Code fetches again: a refresh we fire may be dropped (the extension host skips
   * a node it is re-fetching the parent of) or answered from VS Code's own cache of an earlier
   * fetch, so firing proves nothing about what VS Code shows.
   */
  private readonly shown = new Map<string, { item?: string; children?: string[] }>();
  private groupByDate: boolean;
  private problemsOnly = false;
  private showSubagents: boolean;

  constructor(
    readonly registry: AgentRegistry,
    readonly model: SessionsModel,
    options: SessionsViewOptions,
  ) {
    this.groupByDate = options.groupByDate;
    this.showSubagents = options.showSubagents;
    this.ctx = {
      learned: options.learned,
      showSubagents: () => this.showSubagents,
      registry,
      model,
      folders: () => options.folders(),
      groupByDate: () => this.groupByDate,
      health: options.health,
      problemsOnly: () => this.problemsOnly,
      load: (list) => void this.withProgress(list.load()),
      start: (agent) => void this.withProgress(registry.getClient(agent).catch(() => undefined)),
      now: () => Date.now(),
    };
    this.treeView = vscode.window.createTreeView(sessionsViewId, {
      treeDataProvider: this,
      canSelectMany: true,
      showCollapseAll: true,
    });
    // Ages ("3 h") catch up once a minute while the view is visible; only the rows whose text
    // changed are redrawn.
    this.clock = setInterval(() => this.treeView.visible && this.refresh(), 60_000);
    this.disposables.push(
      this.treeView,
      this.changeEmitter,
      registry.onDidChangeState(() => this.refresh()),
      registry.onDidChangeAgents(() => this.refresh()),
      model.onDidChange((change) => {
        // Listed folders are checked once per run (a stat each); a gone one marks its sessions.
        if (change.list) void options.health.checkFolders(change.list.sessions);
        this.refresh();
      }),
      options.health.onDidChange(() => this.refresh()),
      options.learned.onDidChange(() => this.refresh()),
      // Collapsing and expanding is how a user asks for a second look: compare again then.
      this.treeView.onDidExpandElement((e) => {
        if (e.element instanceof SectionNode && e.element.section === 'archived') walkthrough.archivedShown();
        this.refresh();
      }),
      this.treeView.onDidCollapseElement(() => this.refresh()),
      // Enter and Delete apply to sessions only; elsewhere the tree keeps its own keys.
      this.treeView.onDidChangeSelection((e) =>
        vscode.commands.executeCommand('setContext', 'acpSessions.sessionSelected', e.selection.some((n) => n instanceof SessionNode)),
      ),
    );
    this.updateDescription();
  }

  /**
   * Re-renders what changed (coalesced; the models answer from memory). VS Code forgets the
   * items under every node it refreshes until it has fetched them again, and an inline action
   * clicked on one of them meanwhile reaches its command without its item. So the tree is
   * compared with what VS Code last fetched, and only the highest nodes whose own item or
   * children changed are refreshed: a section that loads leaves the other section's rows alone,
   * a renamed session redraws that row only, and a re-listing that brings nothing new redraws
   * nothing.
   */
  refresh(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.updateDescription();
      const changed = this.changedNodes();
      if (changed === 'root') {
        this.nodes.clear();
        this.shown.clear();
        this.changeEmitter.fire(undefined);
      } else if (changed.length > 0) {
        this.prune();
        this.changeEmitter.fire(changed);
      }
    }, 0);
  }

  /**
   * Forgets the nodes VS Code no longer holds (gone sessions, dropped children of refreshed
   * nodes): those not reachable from the root through the children it last fetched. A node it
   * fetches again is made afresh, which is what VS Code expects of a child it dropped.
   */
  private prune(): void {
    const reachable = new Set<string>(['']);
    const walk = (id: string) => {
      for (const child of this.shown.get(id)?.children ?? []) {
        if (!reachable.has(child)) {
          reachable.add(child);
          walk(child);
        }
      }
    };
    walk('');
    for (const id of this.nodes.keys()) if (!reachable.has(id)) this.nodes.delete(id);
    for (const id of this.shown.keys()) if (!reachable.has(id)) this.shown.delete(id);
  }

  /** @internal how many nodes the view keeps (tests check that gone ones are forgotten). */
  get nodeCount(): number {
    return this.nodes.size;
  }

  /**
   * The highest nodes VS Code holds whose item or children differ from what it fetched. Only
   * nodes whose children VS Code fetched are walked, so a list that needs loading (or an agent
   * that needs starting) starts here just as it would when VS Code fetched them again.
   */
  private changedNodes(): TreeNode[] | 'root' {
    const changed: TreeNode[] = [];
    let rootChanged = false;
    const visit = (node: TreeNode | undefined) => {
      const shown = this.shown.get(node?.id ?? '');
      if (!shown) return;
      if (node && shown.item !== undefined && itemKey(node.getTreeItem()) !== shown.item) return void changed.push(node);
      if (!shown.children) return;
      const children = this.children(node);
      if (children.length !== shown.children.length || children.some((c, i) => c.id !== shown.children![i])) {
        if (node) changed.push(node);
        else rootChanged = true;
        return;
      }
      for (const child of children) visit(child);
    };
    visit(undefined);
    return rootChanged ? 'root' : changed;
  }

  /**
   * A node's children as the node objects VS Code already holds: a node with a known id keeps
   * its identity and takes the fresh one's data.
   */
  private children(node: TreeNode | undefined): TreeNode[] {
    const fresh = node ? node.getChildren() : this.registry.agents.map((agent) => new AgentNode(this.ctx, agent));
    return fresh.map((child) => {
      const known = this.nodes.get(child.id);
      if (known && known.constructor === child.constructor) return Object.assign(known, child);
      this.nodes.set(child.id, child);
      return child;
    });
  }

  /** The Problems filter: only sessions whose folder is gone or whose last load failed. */
  setProblemsOnly(problemsOnly: boolean): void {
    this.problemsOnly = problemsOnly;
    void vscode.commands.executeCommand('setContext', 'acpSessions.problemsOnly', problemsOnly);
    this.updateDescription();
    this.refresh();
  }

  get showsProblemsOnly(): boolean {
    return this.problemsOnly;
  }

  setShowSubagents(show: boolean): void {
    this.showSubagents = show;
    this.refresh();
  }

  setGroupByDate(groupByDate: boolean): void {
    this.groupByDate = groupByDate;
    this.refresh();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const item = node.getTreeItem();
    this.record(node.id).item = itemKey(item);
    return item;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    const children = this.children(node);
    const shown = this.record(node?.id ?? '');
    const ids = children.map((c) => c.id);
    const same = shown.children?.length === ids.length && shown.children.every((id, i) => id === ids[i]);
    shown.children = ids;
    // Children that left (a session deleted, a list reloaded) may be held nowhere else now.
    if (!same) this.prune();
    return children;
  }

  private record(id: string): { item?: string; children?: string[] } {
    let shown = this.shown.get(id);
    if (!shown) this.shown.set(id, (shown = {}));
    return shown;
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
    const parts = [scope.kind === 'all' ? vscode.l10n.t('All folders') : undefined, this.problemsOnly ? vscode.l10n.t('Problems only') : undefined];
    this.treeView.description = parts.filter(Boolean).join(' · ') || undefined;
  }

  dispose(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    clearInterval(this.clock);
    for (const d of this.disposables) d.dispose();
  }
}

/** What a tree item shows, as one string to compare (its command's arguments are the node itself). */
function itemKey(item: vscode.TreeItem): string {
  const tooltip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : item.tooltip;
  const icon = item.iconPath instanceof vscode.ThemeIcon ? [item.iconPath.id, item.iconPath.color] : String(item.iconPath);
  const { label, description, contextValue, collapsibleState, accessibilityInformation } = item;
  return JSON.stringify([label, description, tooltip, icon, contextValue, collapsibleState, item.command?.command, accessibilityInformation, item.resourceUri?.toString()]);
}

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
}

/**
 * Creates the agent registry from the user's settings (re-read on change), the sessions model
 * scoped to the workspace folders or all, the tree view and its commands.
 */
export function activateSessions(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  transcripts: () => TranscriptsLike | undefined,
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
  const view = new SessionsView(agents, model, {
    folders,
    groupByDate: config().get<boolean>('groupByDate') === true,
    showSubagents: config().get<boolean>('showSubagents') !== false,
    health,
    learned,
  });
  const messages = new Messages();
  // Only integration tests read and answer messages; in any other mode nothing is recorded.
  if (context.extensionMode === vscode.ExtensionMode.Test) messages.recorder = new MessageRecorder();
  const setContextKeys = () => {
    void vscode.commands.executeCommand('setContext', 'acpSessions.scope', config().get<string>('scope') === 'all' ? 'all' : 'workspace');
    void vscode.commands.executeCommand('setContext', 'acpSessions.groupByDate', config().get<boolean>('groupByDate') === true);
  };
  setContextKeys();

  context.subscriptions.push(
    view,
    ...registerSessionCommands({ registry: agents, model, view, messages, log, transcripts, health }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('acpSessions.agents')) agents.setConfigs(readAgentConfigs());
      if (e.affectsConfiguration('acpSessions.scope')) model.setScope(scope());
      if (e.affectsConfiguration('acpSessions.groupByDate')) view.setGroupByDate(config().get<boolean>('groupByDate') === true);
      if (e.affectsConfiguration('acpSessions.showSubagents')) view.setShowSubagents(config().get<boolean>('showSubagents') !== false);
      if (e.affectsConfiguration('acpSessions.pageSize')) model.pageSize = Math.max(1, config().get<number>('pageSize') ?? 50);
      if (e.affectsConfiguration('acpSessions.scope') || e.affectsConfiguration('acpSessions.groupByDate')) setContextKeys();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => model.setScope(scope())),
    vscode.workspace.onDidGrantWorkspaceTrust(() => agents.setStartBlocked(undefined)),
    vscode.commands.registerCommand('acpSessions.startAgentsInRestrictedMode', () => agents.setStartBlocked(undefined)),
    { dispose: () => model.dispose() },
    health,
    learned,
    // Agents are killed on deactivate; nothing may outlive the extension host.
    { dispose: () => void agents.dispose() },
  );
  return { agents, sessions: { model, view, learned, messages: messages.recorder, health } };
}
