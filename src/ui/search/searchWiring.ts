// Search Sessions: the index in the extension's global storage, the indexer fed by transcripts'
// replays and (where loads change nothing, or when asked) by loads of its own, the Search view,
// the query box (results as you type), opening a match in its transcript with the find bar
// showing it, next / previous match, coverage, the offers to index, Clear, the filter picker, and
// the setting that turns background indexing off. Kept current: a deleted session leaves at once,
// archive changes only the entry's flag, a newer updatedAt makes the entry stale (indexed again by
// the next survey). Text arriving live in an open tab after its replay is not indexed as it comes:
// the tab holds the session (never loaded meanwhile); its moved date marks it stale, so it is
// indexed again once no tab holds it, or when a tab replays it again.
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import type { SessionsModel } from '../../sessions/sessionsModel';
import { SearchIndexer, type AgentCoverage } from '../../search/indexer';
import { parseQuery, type SearchFilters } from '../../search/query';
import { SearchIndex } from '../../search/searchIndex';
import type { Entity } from '../../transcript/model';
import { Messages, type MessageRecorder } from '../common/messages';
import { plainLine, quickPickText } from '../common/plainText';
import { exclusiveSelection, filterItems, filtersOf, type FilterItem } from './searchFilters';
import { effectText, SearchView, searchViewId, type MatchNode, type SearchNode } from './searchView';
import type { TranscriptMatch } from '../transcripts/transcriptPanel';

const PAGE = 50;
const TYPING_MS = 120;

export interface SearchTranscripts {
  openAt(agentName: string, session: SessionInfo, match: TranscriptMatch): Promise<void>;
  getState(agentName: string, sessionId: string): unknown;
}

export interface SearchApi {
  /** Hands a transcript's replayed entities, in batches, to the index (called by the transcript panels). */
  replayed(agent: string, session: SessionInfo & { archived: boolean }, batches: AsyncIterable<readonly Entity[]>): void;
  /** The index and indexer once opened. */
  readonly ready: Promise<{ index: SearchIndex; indexer: SearchIndexer }>;
  readonly view: SearchView;
  /** The filter picker while it is shown (integration tests check and accept it as a user would). */
  readonly filterPick: vscode.QuickPick<FilterItem | vscode.QuickPickItem> | undefined;
  /** The last survey started (tests wait for it instead of sleeping). */
  readonly lastSurvey: Promise<void>;
}

/** What the main bundle's stand-in (src/ui/search/register.ts) calls: the commands, and the Sessions model's changes it forwards. */
export interface SearchPart extends SearchApi {
  /** The handler of each search command, by its id (package.json). */
  readonly commands: Readonly<Record<string, (...args: never[]) => unknown>>;
  /** A session was deleted (here, by a clean-up run, or gone from the agent's live list). */
  removed(agent: string, sessionId: string): void;
  /** A session was archived or unarchived. */
  archivedChanged(agent: string, sessionId: string, archived: boolean): void;
  /** The Sessions lists changed. */
  listsChanged(): void;
}

/** The Search view as the main bundle registered it at activation (src/ui/search/register.ts). */
export interface SearchViewParts {
  treeView: vscode.TreeView<SearchNode>;
  changed: vscode.EventEmitter<SearchNode | undefined>;
}

export function activateSearch(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  agents: AgentRegistry,
  model: SessionsModel,
  transcripts: () => SearchTranscripts | undefined,
  recorder: MessageRecorder | undefined,
  viewParts: SearchViewParts,
): SearchPart {
  const view = new SearchView(viewParts.treeView, viewParts.changed);
  // Through Messages: agent names reach notifications as plain text, and tests can answer them.
  const messages = new Messages();
  messages.recorder = recorder;
  let filterPick: vscode.QuickPick<FilterItem | vscode.QuickPickItem> | undefined;
  const config = () => vscode.workspace.getConfiguration('acpSessions.search');
  const background = () => config().get<boolean>('backgroundIndexing') !== false;
  view.update({ backgroundIndexing: background() });
  const dir = vscode.Uri.joinPath(context.globalStorageUri, 'search-index').fsPath;
  const worker = vscode.Uri.joinPath(context.extensionUri, 'dist', 'searchWorker.js').fsPath;
  const openIndex = () => {
    const opening = SearchIndex.open(dir, { log, worker }).then((index) => {
      const indexer = new SearchIndexer({ index, agents, model, log, isOpen: (agent, id) => transcripts()?.getState(agent, id) !== undefined });
      followIndex(index);
      return { index, indexer };
    });
    opening.catch((error: unknown) => log.error(`Search index: could not open ${dir}: ${(error as Error)?.message ?? error}`));
    return opening;
  };

  let query = '';
  let limit = PAGE;
  let generation = 0;
  let current = -1;
  const search = async () => {
    const mine = ++generation;
    if (!query.trim()) {
      view.update({ query: '', result: undefined, searching: false, error: undefined });
      return;
    }
    view.update({ query, searching: true });
    try {
      const { index } = await ready;
      const parsed = parseQuery(query, view.state.filters);
      // Only sessions of configured agents: an entry of an agent removed from the settings is never shown.
      const result = await index.search(parsed, { limit, agents: agents.agents.map((a) => a.name), isCancelled: () => mine !== generation });
      if (mine !== generation) return;
      current = -1;
      const error = parsed.unknown.length ? vscode.l10n.t('Not understood: {0}.', plainLine(parsed.unknown.join(' '), 200)) : undefined;
      view.update({ query, result, searching: false, error });
    } catch (error) {
      if (mine === generation) view.update({ query, result: undefined, searching: false, error: vscode.l10n.t('Search failed: {0}', plainLine((error as Error)?.message ?? String(error))) });
    }
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
  function followIndex(index: SearchIndex): void {
    let fullSaid = false;
    const stop = index.onDidChange(() => {
      // Said once, until a write succeeds again: not "could not index" for every session.
      if (index.diskFull !== fullSaid) {
        fullSaid = index.diskFull;
        if (fullSaid) view.update({ notice: vscode.l10n.t('The disk holding the search index is full: sessions are not indexed until there is room.') });
      }
      researchSoon();
    });
    // A session whose file was damaged or gone was dropped: indexed again by the next survey.
    const stopDrops = index.onDidDrop(() => surveySoon());
    context.subscriptions.push({ dispose: stop }, { dispose: stopDrops });
  }
  let ready = openIndex();

  // --- coverage and background indexing ------------------------------------------------------
  let indexing: vscode.CancellationTokenSource | undefined;
  const coverage = new Map<string, AgentCoverage>();
  const showCoverage = () => view.update({ coverage: agents.agents.map((a) => coverage.get(a.name)).filter((c): c is AgentCoverage => c !== undefined) });
  const setCoverage = (agent: string, found: AgentCoverage) => {
    coverage.set(agent, found);
    showCoverage();
  };
  /** What a survey found to index: missing or stale, and not running. */
  const toIndex = (found: AgentCoverage) => [...found.missing, ...found.stale].filter((s) => s.state !== 'running');

  const indexAgent = async (agent: string, sessions: SessionInfo[], token: vscode.CancellationToken, report?: (done: number, total: number) => void) => {
    const { indexer } = await ready;
    view.update({ notice: undefined });
    const indexed = await indexer.indexSessions(agent, sessions, {
      isCancelled: () => token.isCancellationRequested,
      progress: (done, total) => {
        view.update({ indexing: { agent, done, total } });
        report?.(done, total);
      },
    });
    // What was indexed before a Cancel stays indexed; the view says where it stopped.
    const notice = token.isCancellationRequested
      ? vscode.l10n.t('Indexing {0} was cancelled after {1} of {2} sessions; those stay indexed. Refresh goes on.', plainLine(agent, 100), indexed, sessions.length)
      : undefined;
    view.update({ indexing: undefined, ...(notice ? { notice } : {}) });
  };
  /** Cancel was chosen: background indexing waits for Refresh or Index Sessions… before it starts again. */
  let stoppedByUser = false;

  /** Surveys every agent and, one at a time, indexes what loads without side effects (when on). */
  let surveying: Promise<void> | undefined;
  let lastSurvey: Promise<void> = Promise.resolve();
  const survey = (): Promise<void> => {
    surveying ??= (async () => {
      const { indexer } = await ready;
      indexer.pruneAgents(agents.agents.map((a) => a.name));
      for (const agent of agents.agents) {
        const source = new vscode.CancellationTokenSource();
        indexing = source;
        try {
          const found = await indexer.survey(agent.name, () => source.token.isCancellationRequested);
          setCoverage(agent.name, found);
          const todo = toIndex(found);
          if (background() && !stoppedByUser && found.effect.kind === 'none' && !found.noLoad && todo.length > 0) {
            await vscode.window.withProgress({ location: { viewId: searchViewId }, title: vscode.l10n.t('Indexing {0}', agent.name) }, () => indexAgent(agent.name, todo, source.token));
            setCoverage(agent.name, indexer.coverage(agent.name) ?? found);
          }
        } catch (error) {
          log.warn(`[${agent.name}] Search: could not survey its sessions: ${(error as Error)?.message ?? error}`);
        } finally {
          if (indexing === source) indexing = undefined;
          source.dispose();
        }
      }
    })().finally(() => {
      surveying = undefined;
      view.update({ indexing: undefined });
    });
    lastSurvey = surveying;
    return surveying;
  };

  let surveyTimer: ReturnType<typeof setTimeout> | undefined;
  const surveySoon = () => {
    if (surveyTimer) clearTimeout(surveyTimer);
    surveyTimer = setTimeout(() => {
      surveyTimer = undefined;
      if (view.treeView.visible || query) void survey();
    }, 1500);
  };

  // Archive and titles are filters, not text: follow the Sessions lists as they change.
  const followLists = async () => {
    const { index } = await ready;
    let stale = false;
    for (const agent of agents.agents) {
      for (const list of model.allLists(agent.name)) {
        for (const s of list.sessions) {
          const entry = index.get(agent.name, s.sessionId);
          if (!entry) continue;
          const archived = (s as { archived?: boolean }).archived ?? list.section === 'archived';
          index.updateMeta(agent.name, s.sessionId, { archived, ...(typeof s.title === 'string' && s.title ? { title: s.title } : {}) });
          if ((s.updatedAt ?? undefined) !== entry.updatedAt) stale = true;
        }
      }
    }
    if (stale) surveySoon();
  };
  let followTimer: ReturnType<typeof setTimeout> | undefined;

  // --- the query box -------------------------------------------------------------------------
  const openQueryBox = () => {
    const box = vscode.window.createInputBox();
    box.title = vscode.l10n.t('Search Sessions');
    box.placeholder = vscode.l10n.t('Words, "a phrase", prefix*; filters: agent:NAME is:archived is:active folder:TEXT in:you|agent|thoughts|tools|compactions newer:7d older:30d');
    box.value = query;
    box.valueSelection = [0, query.length];
    let typing: ReturnType<typeof setTimeout> | undefined;
    const promptFromView = () => (box.prompt = view.treeView.message ?? vscode.l10n.t('Type to search what you and your agents said.'));
    const stopFollowing = view.onDidChangeTreeData(promptFromView);
    promptFromView();
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
    void survey();
  };

  const openMatch = async (node?: MatchNode) => {
    const target = node ?? (view.treeView.selection.find((n): n is MatchNode => n.kind === 'match'));
    if (!target) return;
    const s = target.parent.result.session;
    const session: SessionInfo & { archived: boolean } = { sessionId: s.sessionId, cwd: s.cwd, title: s.title ?? null, updatedAt: s.updatedAt ?? null, archived: s.archived };
    current = view.matches().findIndex((m) => m.id === target.id);
    await transcripts()?.openAt(s.agent, session, { index: target.match.index, text: target.match.text });
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

  const confirmAndIndex = async (agentArg?: string) => {
    let agent = typeof agentArg === 'string' ? agentArg : undefined;
    if (!agent) {
      const picked = await vscode.window.showQuickPick(agents.agents.map((a) => ({ label: quickPickText(a.name), name: a.name })), { title: vscode.l10n.t('Index Sessions of Which Agent?') });
      agent = picked?.name;
    }
    if (!agent) return;
    const { indexer } = await ready;
    const found = await indexer.survey(agent);
    setCoverage(agent, found);
    const todo = toIndex(found);
    if (todo.length === 0) {
      void messages.show('info', vscode.l10n.t('Every listed session of {0} is indexed.', agent));
      return;
    }
    const go = vscode.l10n.t('Index');
    const agreed = await messages.confirm(
      vscode.l10n.t('Index {0} sessions of {1}?', todo.length, agent),
      `${effectText(found)} ${vscode.l10n.t('Each session is loaded once (session/load), one at a time; running sessions and open tabs are left alone.')}`,
      go,
    );
    if (!agreed) return;
    stoppedByUser = false;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Indexing sessions of {0}', agent), cancellable: true }, async (progress, token) => {
      let last = 0;
      await indexAgent(agent, todo, token, (done, total) => {
        progress.report({ message: vscode.l10n.t('{0} of {1}', done, total), increment: ((done - last) / total) * 100 });
        last = done;
      });
    });
    setCoverage(agent, indexer.coverage(agent) ?? found);
  };

  const setFilters = (filters: SearchFilters) => {
    view.update({ filters });
    limit = PAGE;
    void search();
  };

  /** The filter picker: check what to keep, Enter applies; one value where the engine takes one. */
  const pickFilters = async () => {
    const { index } = await ready.catch(() => ({ index: undefined }));
    const folders = new Set((vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath));
    // Folders of configured agents' sessions only, as the results are.
    const configured = new Set(agents.agents.map((a) => a.name));
    for (const s of index?.sessions() ?? []) if (configured.has(s.agent)) folders.add(s.cwd);
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
      stoppedByUser = false;
      await survey();
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
    'acpSessions.search.indexAgent': confirmAndIndex,
    'acpSessions.search.cancelIndexing': () => {
      stoppedByUser = true;
      indexing?.cancel();
    },
    'acpSessions.search.clearIndex': async () => {
      indexing?.cancel();
      const opened = await ready.catch(() => undefined);
      if (opened) await opened.index.clear();
      else {
        // The index could not open: Clear still empties its folder, and opens it anew.
        await vscode.workspace.fs.delete(vscode.Uri.file(dir), { recursive: true, useTrash: false }).then(undefined, () => undefined);
        ready = openIndex();
        await ready;
      }
      coverage.clear();
      showCoverage();
      view.update({ notice: vscode.l10n.t('The search index is empty: it was cleared.') });
      void search();
      void messages.show('info', vscode.l10n.t('The search index is cleared. Transcripts you open are indexed again; background indexing starts over when the Search view shows.'));
    },
  };

  context.subscriptions.push(
    view.treeView.onDidChangeVisibility((e) => {
      if (e.visible) void survey();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('acpSessions.search.backgroundIndexing')) return;
      view.update({ backgroundIndexing: background() });
      if (!background()) indexing?.cancel();
      else surveySoon();
    }),
    {
      dispose: () => {
        indexing?.cancel();
        for (const t of [researchTimer, surveyTimer, followTimer]) if (t) clearTimeout(t);
        void ready.then(({ index }) => index.dispose(), () => undefined);
      },
    },
  );
  if (view.treeView.visible) void survey();
  // Loaded after the lists (on first use): what they say now, as if each change had been followed.
  void followLists();

  context.subscriptions.push(
    agents.onDidChangeAgents(() => {
      // Results of an agent no longer configured leave at once; its entries with the next survey.
      void search();
      surveySoon();
    }),
  );

  return {
    get ready() {
      return ready;
    },
    view,
    commands,
    // A deleted session leaves the index at once.
    removed: (agent, sessionId) => {
      void ready.then(async ({ indexer }) => {
        await indexer.removed(agent, sessionId);
        const known = indexer.coverage(agent);
        if (known && coverage.has(agent)) coverage.set(agent, known);
        showCoverage();
      }).catch((error: unknown) => log.warn(`[${agent}] Search index: could not drop ${sessionId}: ${(error as Error)?.message ?? error}`));
    },
    // Archive is a filter, not text: the entry's flag changes, nothing is loaded.
    archivedChanged: (agent, sessionId, archived) => {
      void ready.then(({ index }) => index.updateMeta(agent, sessionId, { archived }), () => undefined);
    },
    listsChanged: () => {
      if (followTimer) return;
      followTimer = setTimeout(() => {
        followTimer = undefined;
        void followLists();
      }, 500);
    },
    get filterPick() {
      return filterPick;
    },
    get lastSurvey() {
      return lastSurvey;
    },
    replayed: (agent, session, batches) => {
      void ready.then(({ indexer }) => indexer.replayed(agent, session, batches), () => undefined);
    },
  };
}
