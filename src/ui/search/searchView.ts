// The Search view's data provider (in the ACP Sessions container): results grouped by session
// (title; agent, folder, age, Archived), a line of context per match with the words highlighted,
// then the coverage (per agent, how many sessions are indexed, which not and why), the offers to
// index what loading would change and the one indexing run under way. Before anything is indexed
// and with no query the tree is empty, so package.json's welcome (viewsWelcome) offers Index
// Sessions…; the query box's prompt says how many sessions are not indexed yet. Agent text is
// plain text here: labels are cleaned without changing their length, so the highlights stay on
// the words.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { relativeTime, sessionLabel, updatedAtMs } from '../../sessions/format';
import type { AgentCoverage } from '../../search/indexer';
import type { SearchFilters, Where } from '../../search/query';
import type { SearchMatch, SearchResult, SessionResult } from '../../search/searchIndex';
import { filterSummary, hasFilters } from './searchFilters';
import { plainBlock, plainLine } from '../common/plainText';
import { SearchContextWord, searchContextValue } from './contextValues';

export const searchViewId = 'acpSessions.search';

export type SearchNode = SessionResultNode | MatchNode | InfoNode;

export class SessionResultNode {
  readonly kind = 'session';
  readonly children: MatchNode[];
  constructor(readonly result: SessionResult, readonly id: string) {
    this.children = result.matches.map((m, i) => new MatchNode(this, m, `${id}/${i}`));
  }
}

export class MatchNode {
  readonly kind = 'match';
  constructor(readonly parent: SessionResultNode, readonly match: SearchMatch, readonly id: string) {}
}

export class InfoNode {
  readonly kind = 'info';
  constructor(
    readonly id: string,
    readonly label: string,
    readonly options: { description?: string; tooltip?: string; icon?: string; command?: vscode.Command; children?: InfoNode[]; expanded?: boolean } = {},
  ) {}
}

const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const MAX_MATCH_LINE = 300;

/**
 * A match's line as a tree label: controls, bidi overrides and lone surrogates become U+FFFD one
 * for one (the highlights keep their offsets), cut at MAX_MATCH_LINE, highlights clipped to it.
 */
export function matchLabel(match: Pick<SearchMatch, 'line' | 'highlights'>): vscode.TreeItemLabel {
  let label = match.line.replace(LONE_SURROGATE, '\uFFFD').replace(BIDI_CONTROLS, '\uFFFD').replace(CONTROLS, '\uFFFD');
  if (label.length > MAX_MATCH_LINE) label = `${label.slice(0, MAX_MATCH_LINE - 1)}…`;
  const highlights = match.highlights
    .filter(([start]) => start < label.length)
    .map(([start, end]): [number, number] => [start, Math.min(end, label.length)]);
  return { label, highlights };
}

export function whereText(where: Where): string {
  switch (where) {
    case 'you': return vscode.l10n.t('you');
    case 'agent': return vscode.l10n.t('agent');
    case 'thoughts': return vscode.l10n.t('thought');
    case 'tools': return vscode.l10n.t('tool call');
    case 'compactions': return vscode.l10n.t('compaction summary');
  }
}

const WHERE_ICON: Record<Where, string> = { you: 'account', agent: 'hubot', thoughts: 'lightbulb', tools: 'tools', compactions: 'fold' };

export interface SearchViewState {
  query: string;
  result?: SearchResult;
  /** A search is running. */
  searching: boolean;
  error?: string;
  coverage: AgentCoverage[];
  /** The one indexing run under way: its agent and count (the notification of a run shows the same). */
  indexing?: { agent: string; done: number; total: number };
  backgroundIndexing: boolean;
  /** Filters set in the picker (merged under the query's filter words). */
  filters: SearchFilters;
  /** What happened last to the index that the view must say (indexing cancelled, index cleared). */
  notice?: string;
}

/** How many listed sessions of an agent wait to be indexed: missing or stale, and not left alone. */
export function waitingOf(c: AgentCoverage): number {
  return c.error || c.noLoad ? 0 : Math.max(0, c.missing.length + c.stale.length - c.busy);
}

/** Sessions of the agent that only Index Sessions… indexes: loads change something, or background indexing is off. */
export function offeredOf(c: AgentCoverage, backgroundIndexing: boolean): number {
  return c.effect.kind !== 'none' || !backgroundIndexing ? waitingOf(c) : 0;
}

export class SearchView implements vscode.TreeDataProvider<SearchNode> {
  private roots: SearchNode[] = [];
  private sessionNodes: SessionResultNode[] = [];
  state: SearchViewState = { query: '', searching: false, coverage: [], backgroundIndexing: true, filters: {} };

  /**
   * The tree view and its change event are the main bundle's (src/ui/search/register.ts): it registers
   * the view at activation and hands this provider its calls once dist/search.js is loaded.
   */
  constructor(
    readonly treeView: vscode.TreeView<SearchNode>,
    private readonly changeEmitter: vscode.EventEmitter<SearchNode | undefined>,
  ) {}

  get onDidChangeTreeData(): vscode.Event<SearchNode | undefined> {
    return this.changeEmitter.event;
  }

  /** The match nodes in order (next / previous match). */
  matches(): MatchNode[] {
    return this.sessionNodes.flatMap((s) => s.children);
  }

  update(patch: Partial<SearchViewState>): void {
    this.state = { ...this.state, ...patch };
    this.rebuild();
    this.changeEmitter.fire(undefined);
  }

  private builtFrom: SearchResult | undefined;

  private rebuild(): void {
    const { result, query } = this.state;
    // Ids name the session, so a selection survives a search run again.
    if (result !== this.builtFrom || !query) {
      this.builtFrom = query ? result : undefined;
      this.sessionNodes = query && result ? result.sessions.map((s) => new SessionResultNode(s, `r/${s.session.agent}/${s.session.sessionId}`)) : [];
    }
    const filtered = hasFilters(this.state.filters);
    const summary = filtered ? filterSummary(this.state.filters) : '';
    const roots: SearchNode[] = [];
    // A row, so the filters can be changed or cleared by keyboard (Enter; the inline Clear).
    if (filtered) {
      roots.push(new InfoNode('filters', vscode.l10n.t('Filters: {0}', summary), {
        icon: 'filter',
        tooltip: vscode.l10n.t('Filters: {0}', summary),
        command: { command: 'acpSessions.search.filter', title: vscode.l10n.t('Filter…') },
      }));
    }
    roots.push(...this.sessionNodes);
    if (query && result && !result.complete) {
      roots.push(new InfoNode('more', vscode.l10n.t('Show More Results'), { icon: 'ellipsis', command: { command: 'acpSessions.search.more', title: vscode.l10n.t('Show More Results') } }));
    }
    // Nothing indexed yet and no query: an empty tree, so the welcome offers Index Sessions….
    const welcome = this.offersWelcome();
    if (!welcome) roots.push(...this.coverageNodes());
    this.roots = roots;
    this.treeView.message = this.message();
    const described = [query ? plainLine(query, 100) : '', filtered ? vscode.l10n.t('Filters: {0}', summary) : ''].filter(Boolean);
    this.treeView.description = described.length ? described.join(' · ') : undefined;
    void vscode.commands.executeCommand('setContext', 'acpSessions.search.hasFilters', filtered);
    void vscode.commands.executeCommand('setContext', 'acpSessions.search.hasResults', this.sessionNodes.length > 0);
    void vscode.commands.executeCommand('setContext', 'acpSessions.search.hasQuery', query !== '');
    void vscode.commands.executeCommand('setContext', 'acpSessions.search.indexing', this.state.indexing !== undefined);
    void vscode.commands.executeCommand('setContext', 'acpSessions.search.canIndex', welcome);
  }

  /**
   * The welcome with Index Sessions… shows instead of rows: no query, no filter, no run, nothing
   * to say, nothing indexed, and some agent's sessions can be indexed only when asked.
   */
  private offersWelcome(): boolean {
    const { query, filters, indexing, notice, error, coverage, backgroundIndexing } = this.state;
    if (query || hasFilters(filters) || indexing || notice || error) return false;
    return coverage.every((c) => c.indexed === 0) && coverage.some((c) => offeredOf(c, backgroundIndexing) > 0);
  }

  /** What the query box says under the query: the view's message, and what is not indexed yet and how to index it. */
  queryPrompt(): string | undefined {
    const parts = [this.treeView.message, this.state.query ? undefined : this.notIndexed()].filter((p): p is string => !!p);
    return parts.length ? parts.join(' ') : undefined;
  }

  /** Some agent's sessions can be indexed only when asked (the query box offers Index Sessions… then). */
  get canIndex(): boolean {
    return this.state.indexing === undefined && this.state.coverage.some((c) => offeredOf(c, this.state.backgroundIndexing) > 0);
  }

  /** How many sessions only Index Sessions… would index, per agent, and how; undefined when none (or a run is under way). */
  private notIndexed(): string | undefined {
    if (this.state.indexing) return undefined;
    const offered = this.state.coverage.map((c) => ({ agent: plainLine(c.agent, 100), count: offeredOf(c, this.state.backgroundIndexing) })).filter((o) => o.count > 0);
    if (offered.length === 0) return undefined;
    const total = offered.reduce((n, o) => n + o.count, 0);
    if (offered.length === 1) {
      return total === 1
        ? vscode.l10n.t('1 session of {0} is not indexed yet, so no search finds it: Index Sessions… indexes it.', offered[0].agent)
        : vscode.l10n.t('{0} sessions of {1} are not indexed yet, so no search finds them: Index Sessions… indexes them.', total, offered[0].agent);
    }
    const each = offered.map((o) => vscode.l10n.t('{0} of {1}', o.count, o.agent)).join(', ');
    return vscode.l10n.t('{0} sessions are not indexed yet ({1}), so no search finds them: Index Sessions… indexes them.', total, each);
  }

  private message(): string | undefined {
    const { query, result, searching, error, indexing, notice } = this.state;
    const parts: string[] = [];
    if (notice) parts.push(notice);
    if (error) parts.push(error);
    else if (query && result) {
      const matches = result.sessions.reduce((n, s) => n + s.matches.length, 0);
      const more = !result.complete || result.sessions.some((s) => s.more);
      const results = matches === 1 && !more ? vscode.l10n.t('1 result') : more ? vscode.l10n.t('{0}+ results', matches) : vscode.l10n.t('{0} results', matches);
      const sessions = result.sessions.length === 1 && result.complete ? vscode.l10n.t('1 session') : result.complete ? vscode.l10n.t('{0} sessions', result.sessions.length) : vscode.l10n.t('{0}+ sessions', result.sessions.length);
      parts.push(result.sessions.length === 0
        ? vscode.l10n.t('No results in {0} indexed sessions.', result.searched)
        : vscode.l10n.t('{0} in {1} ({2} indexed sessions searched).', results, sessions, result.searched));
      // A query before indexing: how many sessions it could not search, and how to index them.
      const notIndexed = this.notIndexed();
      if (notIndexed) parts.push(notIndexed);
    } else if (searching) parts.push(vscode.l10n.t('Searching…'));
    if (indexing) parts.push(vscode.l10n.t('Indexing {0}: {1} of {2} sessions…', plainLine(indexing.agent, 100), indexing.done, indexing.total));
    return parts.length ? parts.join(' ') : undefined;
  }

  private coverageNodes(): InfoNode[] {
    const nodes: InfoNode[] = [];
    const { indexing, backgroundIndexing } = this.state;
    for (const c of this.state.coverage) {
      const agent = plainLine(c.agent, 100);
      const children: InfoNode[] = [];
      const waiting = waitingOf(c);
      if (c.error) children.push(new InfoNode(`cov/${c.agent}/error`, vscode.l10n.t('Could not list its sessions: {0}', plainLine(c.error)), { icon: 'error' }));
      else if (c.noLoad) children.push(new InfoNode(`cov/${c.agent}/noload`, vscode.l10n.t('This agent cannot replay sessions (no loadSession): there is no text to index.'), { icon: 'circle-slash' }));
      else {
        if (c.missing.length) children.push(new InfoNode(`cov/${c.agent}/missing`, vscode.l10n.t('{0} not indexed yet', c.missing.length), { icon: 'circle-large-outline' }));
        if (c.stale.length) children.push(new InfoNode(`cov/${c.agent}/stale`, vscode.l10n.t('{0} changed since they were indexed', c.stale.length), { icon: 'history' }));
        if (c.busy) children.push(new InfoNode(`cov/${c.agent}/busy`, vscode.l10n.t('{0} left alone: running, or open in a tab (a tab indexes what it replays)', c.busy), { icon: 'debug-pause' }));
        if (indexing?.agent === c.agent) {
          // The run's own count, as its notification says it; no offer while it goes.
          children.push(new InfoNode(`cov/${c.agent}/run`, vscode.l10n.t('Indexing: {0} of {1} sessions…', indexing.done, indexing.total), {
            icon: 'sync~spin',
            tooltip: vscode.l10n.t('One run at a time: Cancel Indexing (the view\'s title bar) stops it; what it indexed stays indexed.'),
          }));
        } else if (indexing) {
          // One run at a time: another agent's offer comes back once the run ends.
        } else if (waiting > 0 && c.effect.kind !== 'none') {
          children.push(new InfoNode(`cov/${c.agent}/offer`, vscode.l10n.t('Index {0} sessions of {1}…', waiting, agent), {
            icon: 'play',
            tooltip: effectText(c),
            command: { command: 'acpSessions.search.indexAgent', title: vscode.l10n.t('Index Sessions…'), arguments: [c.agent] },
          }));
        } else if (waiting > 0 && !backgroundIndexing) {
          children.push(new InfoNode(`cov/${c.agent}/off`, vscode.l10n.t('Background indexing is off (setting acpSessions.search.backgroundIndexing): Index {0} sessions of {1}…', waiting, agent), {
            icon: 'play',
            command: { command: 'acpSessions.search.indexAgent', title: vscode.l10n.t('Index Sessions…'), arguments: [c.agent] },
          }));
        }
      }
      const label = c.listed === undefined
        ? vscode.l10n.t('{0}: not listed', agent)
        : vscode.l10n.t('{0}: {1} of {2} sessions indexed', agent, c.indexed, c.listed);
      // Expanded while it offers something or runs, so the offer is in sight. (A row keeps the
      // state it was first shown in: the open one has an id of its own.)
      const open = children.some((n) => /\/(offer|off|run)$/.test(n.id));
      nodes.push(new InfoNode(`cov/${c.agent}${open ? '/open' : ''}`, label, { icon: 'database', children, tooltip: effectText(c), expanded: open }));
    }
    return nodes;
  }

  getChildren(node?: SearchNode): SearchNode[] {
    if (!node) return this.roots;
    if (node.kind === 'session') return node.children;
    if (node.kind === 'info') return node.options.children ?? [];
    return [];
  }

  getParent(node: SearchNode): SearchNode | undefined {
    return node.kind === 'match' ? node.parent : undefined;
  }

  getTreeItem(node: SearchNode): vscode.TreeItem {
    if (node.kind === 'session') return sessionItem(node);
    if (node.kind === 'match') return matchItem(node);
    const state = !node.options.children?.length ? vscode.TreeItemCollapsibleState.None : node.options.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
    const item = new vscode.TreeItem(node.label, state);
    item.id = node.id;
    if (node.options.icon) item.iconPath = new vscode.ThemeIcon(node.options.icon);
    if (node.options.tooltip) item.tooltip = node.options.tooltip;
    if (node.options.description) item.description = node.options.description;
    if (node.options.command) item.command = node.options.command;
    item.contextValue = searchContextValue(node.id.startsWith('cov/') ? SearchContextWord.searchCoverage : node.id === 'filters' ? SearchContextWord.searchFilters : SearchContextWord.searchInfo);
    return item;
  }
}

function sessionItem(node: SessionResultNode): vscode.TreeItem {
  const s = node.result.session;
  const title = plainLine(sessionLabel({ sessionId: s.sessionId, title: s.title }), 200);
  const item = new vscode.TreeItem(title, vscode.TreeItemCollapsibleState.Expanded);
  item.id = node.id;
  const ms = updatedAtMs({ updatedAt: s.updatedAt ?? null });
  const parts = [plainLine(s.agent, 100), plainLine(path.basename(s.cwd), 100)];
  if (ms !== undefined) parts.push(relativeTime(ms));
  if (s.archived) parts.push(vscode.l10n.t('Archived'));
  const count = node.result.more ? `${node.children.length}+` : String(node.children.length);
  item.description = `${parts.join(' · ')} · ${count}`;
  item.tooltip = plainBlock(`${title}\n${s.agent} · ${s.cwd}${s.updatedAt ? `\n${s.updatedAt}` : ''}${s.archived ? `\n${vscode.l10n.t('Archived')}` : ''}`);
  item.iconPath = new vscode.ThemeIcon(s.archived ? 'archive' : 'comment-discussion');
  item.contextValue = s.archived ? searchContextValue(SearchContextWord.searchSession, SearchContextWord.archived) : searchContextValue(SearchContextWord.searchSession);
  item.accessibilityInformation = { label: vscode.l10n.t('{0}, {1}, {2} matches', title, parts.join(', '), count) };
  return item;
}

function matchItem(node: MatchNode): vscode.TreeItem {
  const label = matchLabel(node.match);
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  item.description = whereText(node.match.where);
  item.iconPath = new vscode.ThemeIcon(WHERE_ICON[node.match.where]);
  item.tooltip = plainBlock(`${whereText(node.match.where)}: ${node.match.line}`);
  item.contextValue = searchContextValue(SearchContextWord.searchMatch);
  item.command = { command: 'acpSessions.search.openMatch', title: vscode.l10n.t('Open Match'), arguments: [node] };
  item.accessibilityInformation = { label: vscode.l10n.t('{0}, said by {1}', label.label, whereText(node.match.where)) };
  return item;
}

function effectText(c: AgentCoverage): string {
  switch (c.effect.kind) {
    case 'none': return vscode.l10n.t('Loading a session of this agent changes nothing: its sessions are indexed in the background.');
    case 'claude': return vscode.l10n.t('Loading a Claude session keeps its date and place in the list, but Claude appends a few bookkeeping records to the session\'s file. Nothing is loaded unless you ask.');
    case 'codex': return vscode.l10n.t('Loading a Codex session appends about 1.5 KB to its rollout file; without the session index Codex also resumes it, so its date becomes now and it moves to the top. Nothing is loaded unless you ask.');
    case 'pi': return vscode.l10n.t('Loading a pi session appends a line to the session\'s file, and offline the load may not answer (it is cancelled at the request deadline). Nothing is loaded unless you ask.');
    case 'unknown': return vscode.l10n.t('What loading a session of this agent changes is not known: it may resume the session, so its date can become now. Nothing is loaded unless you ask.');
  }
}

export { effectText };
