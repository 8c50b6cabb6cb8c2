// The Sessions tree's data provider: routes VS Code's questions to the node classes, redraws what
// changed in the registry or the sessions model, and tells what is selected. No protocol logic and
// no commands live here (src/ui/sessions/register.ts wires them).
import * as vscode from 'vscode';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import type { SessionHealth } from '../../sessions/health';
import type { LearnedFacts } from '../../sessions/lineage';
import type { Pins } from '../../sessions/pins';
import type { SessionList, SessionsModel } from '../../sessions/sessionsModel';
import type { SelectionSource, SessionKey } from './commandTargets';
import { AgentNode } from './treeNodes/agentNode';
import { SectionNode } from './treeNodes/sectionNode';
import { SessionNode } from './treeNodes/sessionNode';
import { walkthrough } from './walkthrough';
import type { KeptView, SessionFilter, TreeContext, TreeNode } from './treeNodes/treeNode';

export const sessionsViewId = 'acpSessions.sessions';

export interface SessionsViewOptions {
  folders(): readonly { path: string; name: string }[];
  groupByDate: boolean;
  health: SessionHealth;
  showSubagents: boolean;
  showBranch: boolean;
  learned: LearnedFacts;
  /** Pinned sessions (src/ui/sessions/pinCommands.ts). */
  pins?: Pins;
  /** Claude's coming removals (src/ui/sessions/retention.ts). */
  retention?: TreeContext['retention'];
  /** Kept copies of sessions the agents no longer have, and when that changes. */
  kept?: KeptView & { onDidChange(listener: () => void): vscode.Disposable };
  keptAt?: TreeContext['keptAt'];
  keepOffer?: TreeContext['keepOffer'];
  /** Read and unread, and when that changes (src/ui/sessions/readMarks.ts). */
  read?: NonNullable<TreeContext['read']> & { onDidChange(listener: () => void): vscode.Disposable };
  /** What sessions changed (src/changes/changesStore.ts), and when that changes. */
  changes?: { get: NonNullable<TreeContext['changes']>; onDidChange(listener: () => void): { dispose(): void } };
  showChanges?: () => boolean;
}

export class SessionsView implements vscode.TreeDataProvider<TreeNode>, SelectionSource, vscode.Disposable {
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
  private filter: SessionFilter = 'all';
  private showSubagents: boolean;
  private showBranch: boolean;
  /** Nodes whose redraw was asked for and that VS Code has not fetched again yet ('' is the root). */
  private readonly awaitingFetch = new Set<string>();
  private readonly fetchEmitter = new vscode.EventEmitter<void>();
  readonly onDidFetch = this.fetchEmitter.event;
  private fetchTimer: NodeJS.Timeout | undefined;
  /** The user's last selection of sessions (see `remembered`). */
  private lastSelection: SessionKey[] = [];
  /** Nodes the user expanded (true) or collapsed (false); others are as their item says. */
  private readonly expansion = new Map<string, boolean>();
  private sessionSelected: boolean | undefined;

  constructor(
    readonly registry: AgentRegistry,
    readonly model: SessionsModel,
    options: SessionsViewOptions,
  ) {
    this.groupByDate = options.groupByDate;
    this.showSubagents = options.showSubagents;
    this.showBranch = options.showBranch;
    this.ctx = {
      learned: options.learned,
      pins: options.pins,
      retention: options.retention,
      kept: options.kept,
      keptAt: options.keptAt,
      keepOffer: options.keepOffer,
      changes: options.changes && ((agent, sessionId) => options.changes?.get(agent, sessionId)),
      showChanges: options.showChanges,
      showSubagents: () => this.showSubagents,
      showBranch: () => this.showBranch,
      registry,
      model,
      folders: () => options.folders(),
      groupByDate: () => this.groupByDate,
      health: options.health,
      filter: () => this.filter,
      read: options.read,
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
      options.pins?.onDidChange(() => this.refresh()) ?? { dispose() {} },
      options.kept?.onDidChange(() => this.refresh()) ?? { dispose() {} },
      options.read?.onDidChange(() => this.refresh()) ?? { dispose() {} },
      options.changes?.onDidChange(() => this.refresh()) ?? { dispose() {} },
      // Collapsing and expanding is how a user asks for a second look: compare again then.
      this.treeView.onDidExpandElement((e) => {
        this.expansion.set(e.element.id, true);
        if (e.element instanceof SectionNode && e.element.section === 'archived') walkthrough.archivedShown();
        this.refresh();
      }),
      this.treeView.onDidCollapseElement((e) => {
        this.expansion.set(e.element.id, false);
        this.refresh();
      }),
      this.treeView.onDidChangeSelection((e) => this.selectionChanged(e.selection)),
      this.fetchEmitter,
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
        this.awaitingFetch.clear();
        this.awaitingFetch.add('');
        this.changeEmitter.fire(undefined);
      } else if (changed.length > 0) {
        this.prune();
        for (const node of changed) this.awaitingFetch.add(node.id);
        this.changeEmitter.fire(changed);
      }
    }, 0);
  }

  /** Whether a redraw was asked for that VS Code has not fetched yet (rows below it are unknown to it meanwhile). */
  get redrawing(): boolean {
    return this.refreshTimer !== undefined || this.awaitingFetch.size > 0;
  }

  /** Everything selected, as VS Code reports it now. */
  selection(): readonly TreeNode[] {
    return this.treeView.selection;
  }

  /** The selected sessions, for commands run from the palette. */
  selectedSessions(): SessionNode[] {
    return this.treeView.selection.filter((n): n is SessionNode => n instanceof SessionNode);
  }

  /**
   * The user's last selection of sessions. A selection event that comes while rows are being
   * redrawn carries what VS Code could resolve then (often nothing), not what the user chose, so
   * it does not replace what was remembered; any other event does.
   */
  remembered(): readonly SessionKey[] {
    return this.lastSelection;
  }

  private selectionChanged(selection: readonly TreeNode[]): void {
    const sessions = selection.filter((n): n is SessionNode => n instanceof SessionNode);
    if (sessions.length > 0) this.lastSelection = sessions.map((n) => ({ agent: n.agent, section: n.section, sessionId: n.session.sessionId }));
    else if (!(selection.length === 0 && this.redrawing)) this.lastSelection = [];
    this.updateSessionSelected();
  }

  /**
   * `acpSessions.sessionSelected`, from what VS Code reports as selected now: after every fetch
   * too, since a row that comes back after a redraw is selected again without any event.
   */
  private updateSessionSelected(): void {
    const selected = this.treeView.selection.some((n) => n instanceof SessionNode);
    if (selected === this.sessionSelected) return;
    this.sessionSelected = selected;
    void vscode.commands.executeCommand('setContext', 'acpSessions.sessionSelected', selected);
  }

  /** After VS Code fetched: once its handlers have taken the rows in (a task later), selection and waiters see them. */
  private fetched(): void {
    if (this.fetchTimer) return;
    this.fetchTimer = setTimeout(() => {
      this.fetchTimer = undefined;
      this.updateSessionSelected();
      this.fetchEmitter.fire();
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
    for (const id of this.expansion.keys()) if (!reachable.has(id)) this.expansion.delete(id);
    // A node no longer shown will not be fetched: its redraw is not in flight.
    for (const id of this.awaitingFetch) if (id !== '' && !reachable.has(id)) this.awaitingFetch.delete(id);
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
      if (node && shown.item !== undefined && itemKey(shownItem(node)) !== shown.item) return void changed.push(node);
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
      if (known && known.refreshFrom(child)) return known;
      this.nodes.set(child.id, child);
      return child;
    });
  }

  /** The view's filter, one at a time: only sessions with a problem, unread, or waiting for you; or all. */
  setFilter(filter: SessionFilter): void {
    this.filter = filter;
    void vscode.commands.executeCommand('setContext', 'acpSessions.filter', filter);
    this.updateDescription();
    this.refresh();
  }

  setShowSubagents(show: boolean): void {
    this.showSubagents = show;
    this.refresh();
  }

  setShowBranch(show: boolean): void {
    this.showBranch = show;
    this.refresh();
  }

  setGroupByDate(groupByDate: boolean): void {
    this.groupByDate = groupByDate;
    this.refresh();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const item = shownItem(node);
    this.record(node.id).item = itemKey(item);
    // A collapsed node's redraw ends with its item: VS Code fetches no children of it.
    const expanded = this.expansion.get(node.id) ?? item.collapsibleState === vscode.TreeItemCollapsibleState.Expanded;
    if (!expanded) this.awaitingFetch.delete(node.id);
    this.fetched();
    return item;
  }

  /** On hover, VS Code asks for what getTreeItem left out: the tooltip of a row with rows under it, as it is now. */
  resolveTreeItem(item: vscode.TreeItem, node: TreeNode): vscode.TreeItem {
    if (item.tooltip === undefined) item.tooltip = node.getTreeItem().tooltip;
    return item;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    this.awaitingFetch.delete(node?.id ?? '');
    this.fetched();
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
    const filter = { all: undefined, problems: vscode.l10n.t('Problems only'), unread: vscode.l10n.t('Unread only'), waiting: vscode.l10n.t('Waiting for you only') }[this.filter];
    const parts = [scope.kind === 'all' ? vscode.l10n.t('All folders') : undefined, filter];
    this.treeView.description = parts.filter(Boolean).join(' · ') || undefined;
  }

  dispose(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    if (this.fetchTimer) clearTimeout(this.fetchTimer);
    clearInterval(this.clock);
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * A node's item as VS Code gets it. A row with rows under it comes without its tooltip, which
 * VS Code asks for on hover (resolveTreeItem): a figure in it that changes on its own (the
 * agent's kept copies, after every read) would otherwise redraw that row, and VS Code forgets
 * every row below a row it redraws until it has fetched them again (see refresh).
 */
function shownItem(node: TreeNode): vscode.TreeItem {
  const item = node.getTreeItem();
  if (item.collapsibleState !== undefined && item.collapsibleState !== vscode.TreeItemCollapsibleState.None) item.tooltip = undefined;
  return item;
}

/** What a tree item shows, as one string to compare (its command's arguments are the node itself). */
function itemKey(item: vscode.TreeItem): string {
  const tooltip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : item.tooltip;
  const icon = item.iconPath instanceof vscode.ThemeIcon ? [item.iconPath.id, item.iconPath.color] : String(item.iconPath);
  const { label, description, contextValue, collapsibleState, accessibilityInformation } = item;
  return JSON.stringify([label, description, tooltip, icon, contextValue, collapsibleState, item.command?.command, accessibilityInformation, item.resourceUri?.toString()]);
}
