// Search's query part: the query box (results as you type; what is not indexed yet, with an Index
// Sessions… button), running a search over the sessions of the Sessions view's folders, the Search
// view's results and their next page, the filter picker, opening a match in its transcript with
// the find bar showing it, next / previous match, and Refresh. It knows the index only by
// QueryIndex below (src/ui/search/searchIndexing.ts keeps it), and offers the indexing part what
// ShownQuery asks.
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import type { SearchMatch } from '../../search/match';
import { parseQuery, type SearchFilters } from '../../search/query';
import type { SearchIndex } from '../../search/searchIndex';
import { plainLine } from '../common/plainText';
import type { TranscriptMatch } from '../transcripts/transcriptPanel';
import { exclusiveSelection, filterItems, filtersOf, type FilterItem } from './searchFilters';
import { searchViewId, type MatchNode, type SearchNode, type SearchView } from './searchView';

const PAGE = 50;
const TYPING_MS = 120;

/** What the query needs of the indexing part (src/ui/search/searchIndexing.ts). */
export interface QueryIndex {
  /** The index once opened. */
  readonly ready: Promise<{ index: SearchIndex }>;
  /** Surveys every agent (a query box opened, so coverage is wanted). */
  survey(): Promise<void>;
  /** Refresh: background indexing starts again after a Cancel, and every agent is surveyed. */
  refresh(): Promise<void>;
}

/** What the query needs of the open transcripts. */
export interface QueryTranscripts {
  openAt(agentName: string, session: SessionInfo, match: TranscriptMatch): Promise<void>;
}

export interface SearchQueryDeps {
  context: vscode.ExtensionContext;
  agents: AgentRegistry;
  view: SearchView;
  index: QueryIndex;
  transcripts: () => QueryTranscripts | undefined;
  /** Whether a session of folder `cwd` is in the Sessions view's scope: only those are searched. */
  inScope(cwd: string): boolean;
}

/** The query shown and the commands on it. */
export interface SearchQuery {
  /** A query is shown (src/ui/search/searchIndexing.ts's ShownQuery). */
  readonly active: boolean;
  /** The index changed: searched again soon, when a query is shown. */
  indexChanged(): void;
  /** The index was cleared: searched again now. */
  indexCleared(): void;
  /** The search, the filters, the results' paging, opening matches and Refresh, by command id (package.json). */
  readonly commands: Readonly<Record<string, (...args: never[]) => unknown>>;
  /** The filter picker while it is shown. */
  readonly filterPick: vscode.QuickPick<FilterItem | vscode.QuickPickItem> | undefined;
}

/**
 * What the transcript's find steps through for a match, when the query had several words or a
 * prefix (matched anywhere, in any order): each word and "phrase", as the search reads them, and
 * what the match's line highlighted as written; else nothing more than the match's own text.
 */
function findWords(query: string, match: SearchMatch): Pick<TranscriptMatch, 'words' | 'matched'> {
  const { terms } = parseQuery(query);
  if (terms.length < 2 && !terms.some((t) => t.prefix)) return {};
  const words = terms.map((t) => `${t.phrase ? `"${t.text}"` : t.text}${t.prefix ? '*' : ''}`).join(' ');
  return { words, matched: match.highlights.map(([start, end]) => match.line.slice(start, end)) };
}

export function createSearchQuery({ context, agents, view, index: source, transcripts, inScope }: SearchQueryDeps): SearchQuery {
  let filterPick: vscode.QuickPick<FilterItem | vscode.QuickPickItem> | undefined;
  let query = '';
  let limit = PAGE;
  let generation = 0;
  let current = -1;
  /** The search begun last: the one whose results the view will show. */
  let latest: Promise<void> = Promise.resolve();
  const runSearch = async (mine: number): Promise<void> => {
    if (!query.trim()) {
      view.update({ query: '', result: undefined, searching: false, error: undefined });
      return;
    }
    view.update({ query, searching: true });
    try {
      const { index } = await source.ready;
      const parsed = parseQuery(query, view.state.filters);
      // Only sessions of configured agents (an entry of an agent removed from the settings is never
      // shown) and of the folders the Sessions view shows, as the coverage counts them.
      const result = await index.search(parsed, { limit, agents: agents.agents.map((a) => a.name), inScope, isCancelled: () => mine !== generation });
      // A newer search began meanwhile (the index changed, a filter): its results are the ones shown.
      if (mine !== generation) return latest;
      current = -1;
      const error = parsed.unknown.length ? vscode.l10n.t('Not understood: {0}.', plainLine(parsed.unknown.join(' '), 200)) : undefined;
      view.update({ query, result, searching: false, error });
    } catch (error) {
      if (mine !== generation) return latest;
      view.update({ query, result: undefined, searching: false, error: vscode.l10n.t('Search failed: {0}', plainLine((error as Error)?.message ?? String(error))) });
    }
  };
  /**
   * Searches the query shown; resolves once the view shows the results of the last search begun,
   * this one's or a newer one's, so that whoever awaits a search (a command, Enter in the box)
   * never reads the results of none.
   */
  const search = (): Promise<void> => {
    const run = runSearch(++generation);
    latest = run;
    return run;
  };

  // Results follow the index: a session indexed or changed while a query is shown is searched again.
  let researchTimer: ReturnType<typeof setTimeout> | undefined;
  const researchSoon = () => {
    if (researchTimer || !query) return;
    researchTimer = setTimeout(() => {
      researchTimer = undefined;
      void search();
    }, 500);
  };

  // --- the query box -------------------------------------------------------------------------
  const openQueryBox = () => {
    const box = vscode.window.createInputBox();
    box.title = vscode.l10n.t('Search Sessions');
    box.placeholder = vscode.l10n.t('Words, "a phrase", prefix*; filters: agent:NAME is:archived is:active folder:TEXT in:you|agent|thoughts|tools|compactions newer:7d older:30d');
    box.value = query;
    box.valueSelection = [0, query.length];
    let typing: ReturnType<typeof setTimeout> | undefined;
    const indexButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('database'), tooltip: vscode.l10n.t('Index Sessions…') };
    const promptFromView = () => {
      box.prompt = view.queryPrompt() ?? vscode.l10n.t('Type to search what you and your agents said.');
      const offered = view.canIndex;
      if (offered !== box.buttons.includes(indexButton)) box.buttons = offered ? [indexButton] : [];
    };
    const stopFollowing = view.onDidChangeTreeData(promptFromView);
    promptFromView();
    box.onDidTriggerButton((button) => {
      if (button !== indexButton) return;
      box.hide();
      void vscode.commands.executeCommand('acpSessions.search.indexAgent');
    });
    box.onDidChangeValue((value) => {
      if (typing) clearTimeout(typing);
      typing = setTimeout(() => {
        query = value;
        limit = PAGE;
        void search();
      }, TYPING_MS);
    });
    box.onDidAccept(async () => {
      if (typing) clearTimeout(typing);
      query = box.value;
      limit = PAGE;
      box.hide();
      await search();
      await vscode.commands.executeCommand(`${searchViewId}.focus`);
      const first = view.matches()[0];
      if (first) {
        current = 0;
        await view.treeView.reveal(first, { select: true, focus: true });
      }
    });
    box.onDidHide(() => {
      stopFollowing.dispose();
      box.dispose();
    });
    box.show();
    void source.survey();
  };

  const openMatch = async (node?: MatchNode) => {
    const target = node ?? (view.treeView.selection.find((n): n is MatchNode => n.kind === 'match'));
    if (!target) return;
    const s = target.parent.result.session;
    const session: SessionInfo & { archived: boolean } = { sessionId: s.sessionId, cwd: s.cwd, title: s.title ?? null, updatedAt: s.updatedAt ?? null, archived: s.archived };
    current = view.matches().findIndex((m) => m.id === target.id);
    await transcripts()?.openAt(s.agent, session, { index: target.match.index, text: target.match.text, ...findWords(view.state.query, target.match) });
  };

  const step = async (by: 1 | -1) => {
    const all = view.matches();
    if (all.length === 0) return;
    const selected = view.treeView.selection[0];
    // By id: the results are rebuilt whenever the index changes (an opened transcript is indexed
    // again as it replays), and the selection may still hold the nodes of the previous build.
    let at = selected?.kind === 'match' ? all.findIndex((m) => m.id === selected.id) : current;
    if (selected?.kind === 'session') at = all.findIndex((m) => m.parent.id === selected.id) - (by === 1 ? 1 : 0);
    current = (at + by + all.length) % all.length;
    const node = all[current];
    await view.treeView.reveal(node, { select: true, focus: false });
    await openMatch(node);
  };

  const setFilters = (filters: SearchFilters) => {
    view.update({ filters });
    limit = PAGE;
    void search();
  };

  /** The filter picker: check what to keep, Enter applies; one value where the engine takes one. */
  const pickFilters = async () => {
    const { index } = await source.ready.catch(() => ({ index: undefined }));
    const folders = new Set((vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath));
    // Folders of configured agents' sessions only, as the results are.
    const configured = new Set(agents.agents.map((a) => a.name));
    for (const s of index?.sessions() ?? []) if (configured.has(s.agent) && inScope(s.cwd)) folders.add(s.cwd);
    const { items, checked } = filterItems(agents.agents.map((a) => a.name), [...folders].sort(), view.state.filters);
    const pick = vscode.window.createQuickPick<FilterItem | vscode.QuickPickItem>();
    pick.title = vscode.l10n.t('Filter Search Results');
    pick.placeholder = vscode.l10n.t('Check the filters to apply, then press Enter; nothing checked shows every session');
    pick.canSelectMany = true;
    pick.matchOnDescription = true;
    pick.items = items;
    pick.selectedItems = checked;
    let before: FilterItem[] = checked;
    return new Promise<void>((resolve) => {
      pick.onDidChangeSelection((selection) => {
        const now = selection.filter((i): i is FilterItem => 'group' in i);
        const next = exclusiveSelection(before, now);
        before = next;
        if (next.length !== now.length) pick.selectedItems = next;
      });
      pick.onDidAccept(() => {
        setFilters(filtersOf(pick.selectedItems.filter((i): i is FilterItem => 'group' in i)));
        pick.hide();
      });
      pick.onDidHide(() => {
        if (filterPick === pick) filterPick = undefined;
        pick.dispose();
        resolve();
      });
      filterPick = pick;
      pick.show();
    });
  };

  const commands: Record<string, (...args: never[]) => unknown> = {
    // With a query (a keybinding's args, another command): searches it without the box.
    'acpSessions.search': async (text?: unknown) => {
      if (typeof text !== 'string') return openQueryBox();
      query = text;
      limit = PAGE;
      await search();
    },
    'acpSessions.search.filter': pickFilters,
    'acpSessions.search.clearFilters': () => setFilters({}),
    'acpSessions.search.refresh': async () => {
      await source.refresh();
      await search();
    },
    'acpSessions.search.clear': () => {
      query = '';
      limit = PAGE;
      void search();
    },
    'acpSessions.search.more': () => {
      limit += PAGE;
      void search();
    },
    'acpSessions.search.openMatch': (node?: SearchNode) => openMatch(node?.kind === 'match' ? node : undefined),
    'acpSessions.search.next': () => step(1),
    'acpSessions.search.previous': () => step(-1),
  };

  context.subscriptions.push(
    {
      dispose: () => {
        if (researchTimer) clearTimeout(researchTimer);
      },
    },
    // Results of an agent no longer configured leave at once.
    agents.onDidChangeAgents(() => void search()),
  );

  return {
    get active() {
      return query !== '';
    },
    indexChanged: researchSoon,
    indexCleared: () => void search(),
    commands,
    get filterPick() {
      return filterPick;
    },
  };
}
