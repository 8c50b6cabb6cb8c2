// Search's indexing part: the index in the extension's global storage and its folder, the indexer
// fed by transcripts' replays and (where loads change nothing, or when asked) by loads of its own,
// coverage, background indexing and its setting, Index Sessions… with its progress, Cancel, Clear,
// and what follows the Sessions model: a deleted session leaves at once, archive changes only the
// entry's flag, a newer updatedAt makes the entry stale (indexed again by the next survey), a new
// scope is surveyed again. One indexing run at a time, in the background or asked for: its count
// is the one the view and its notification show, and no other run starts while it goes. Text
// arriving live in an open tab after its replay is not indexed as it comes: the tab holds the
// session (never loaded meanwhile); its moved date marks it stale, so it is indexed again once no
// tab holds it, or when a tab replays it again. The query it knows only by ShownQuery below.
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import type { SessionsModel } from '../../sessions/sessionsModel';
import { SearchIndexer, type AgentCoverage } from '../../search/indexer';
import type { ReplayTimelines } from '../../transcript/replayTimelines';
import { SearchIndex } from '../../search/searchIndex';
import type { Entity } from '../../transcript/model';
import { Messages, type MessageRecorder } from '../common/messages';
import { plainLine, quickPickText } from '../common/plainText';
import { effectText, searchViewId, waitingOf, type SearchView } from './searchView';

/** What indexing needs of the query part (src/ui/search/searchQuery.ts). */
export interface ShownQuery {
  /** A query is shown: a survey runs for it even while the Search view is hidden. */
  readonly active: boolean;
  /** The index changed: the query shown is searched again soon. */
  indexChanged(): void;
  /** The index was cleared: the query shown is searched again now. */
  indexCleared(): void;
}

export interface SearchIndexingDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  agents: AgentRegistry;
  model: SessionsModel;
  view: SearchView;
  /** Whether a tab holds the session: the indexer never loads it meanwhile. */
  isOpen(agent: string, sessionId: string): boolean;
  /** Whether a copy of the session is kept here: its entry stays once the agent no longer lists it. */
  kept?(agent: string, sessionId: string): boolean;
  /** What makes a loaded replay's rows (SearchIndexer's `timelines`). */
  timelines(): ReplayTimelines | undefined;
  recorder: MessageRecorder | undefined;
  query: ShownQuery;
}

/** The index and what keeps it current. */
export interface SearchIndexing {
  /** The index and indexer once opened (opened anew when Clear found it could not open). */
  readonly ready: Promise<{ index: SearchIndex; indexer: SearchIndexer }>;
  /** The last survey started. */
  readonly lastSurvey: Promise<void>;
  /** Surveys every agent and, one at a time, indexes what loads without side effects (when on). */
  survey(): Promise<void>;
  /** Refresh: background indexing starts again after a Cancel, and every agent is surveyed. */
  refresh(): Promise<void>;
  /** Index Sessions…, Cancel Indexing and Clear Index, by command id (package.json). */
  readonly commands: Readonly<Record<string, (...args: never[]) => unknown>>;
  /** A session was deleted: it leaves the index at once. */
  removed(agent: string, sessionId: string): void;
  /** A session was archived or unarchived: the entry's flag changes, nothing is loaded. */
  archivedChanged(agent: string, sessionId: string, archived: boolean): void;
  /** The Sessions lists changed: titles and archive follow, newer dates mark entries stale. */
  listsChanged(): void;
  /** A transcript replayed: its entities, in batches, go to the index. */
  replayed(agent: string, session: SessionInfo & { archived: boolean }, batches: AsyncIterable<readonly Entity[]>): void;
}

export function createSearchIndexing({ context, log, agents, model, view, isOpen, kept, timelines, recorder, query }: SearchIndexingDeps): SearchIndexing {
  // Through Messages: agent names reach notifications as plain text, and tests can answer them.
  const messages = new Messages();
  messages.recorder = recorder;
  const config = () => vscode.workspace.getConfiguration('acpSessions.search');
  const background = () => config().get<boolean>('backgroundIndexing') !== false;
  view.update({ backgroundIndexing: background() });
  const dir = vscode.Uri.joinPath(context.globalStorageUri, 'search-index').fsPath;
  const worker = vscode.Uri.joinPath(context.extensionUri, 'dist', 'searchWorker.js').fsPath;
  const openIndex = () => {
    const opening = SearchIndex.open(dir, { log, worker }).then((index) => {
      // A loaded session's rows wait in the transcripts' folder while they are indexed, as a tab's do.
      const spillDir = vscode.Uri.joinPath(context.globalStorageUri, 'transcripts').fsPath;
      const indexer = new SearchIndexer({ index, agents, model, log, isOpen, kept, spillDir, timelines });
      followIndex(index);
      return { index, indexer };
    });
    opening.catch((error: unknown) => log.error(`Search index: could not open ${dir}: ${(error as Error)?.message ?? error}`));
    return opening;
  };

  function followIndex(index: SearchIndex): void {
    let fullSaid = false;
    const stop = index.onDidChange(() => {
      // Said once, until a write succeeds again: not "could not index" for every session.
      if (index.diskFull !== fullSaid) {
        fullSaid = index.diskFull;
        if (fullSaid) view.update({ notice: vscode.l10n.t('The disk holding the search index is full: sessions are not indexed until there is room.') });
      }
      // Results follow the index: a session indexed or changed while a query is shown is searched again.
      query.indexChanged();
    });
    // A session whose file was damaged or gone was dropped: indexed again by the next survey.
    const stopDrops = index.onDidDrop(() => surveySoon());
    context.subscriptions.push({ dispose: stop }, { dispose: stopDrops });
  }
  let ready = openIndex();

  // --- coverage and background indexing ------------------------------------------------------
  /** The survey's listing under way (Cancel stops it too). */
  let indexing: vscode.CancellationTokenSource | undefined;
  const coverage = new Map<string, AgentCoverage>();
  const showCoverage = () => view.update({ coverage: agents.agents.map((a) => coverage.get(a.name)).filter((c): c is AgentCoverage => c !== undefined) });
  const setCoverage = (agent: string, found: AgentCoverage) => {
    coverage.set(agent, found);
    showCoverage();
  };
  /** What a survey found to index: missing or stale, and not running. */
  const toIndex = (found: AgentCoverage) => [...found.missing, ...found.stale].filter((s) => s.state !== 'running');

  /** The one indexing run under way: its count is what the view and the notification show. */
  let run: { agent: string; done: number; total: number; source: vscode.CancellationTokenSource } | undefined;

  /** Indexes `sessions` of `agent` as the one run; the caller has checked that none is under way. */
  const indexAgent = async (agent: string, sessions: SessionInfo[], source: vscode.CancellationTokenSource, report?: (done: number, total: number) => void) => {
    const current = { agent, done: 0, total: sessions.length, source };
    run = current;
    const show = () => {
      view.update({ indexing: { agent, done: current.done, total: current.total } });
      report?.(current.done, current.total);
    };
    view.update({ notice: undefined });
    show();
    let indexed = 0;
    try {
      const { indexer } = await ready;
      indexed = await indexer.indexSessions(agent, sessions, {
        isCancelled: () => source.token.isCancellationRequested,
        progress: (done, total) => {
          current.done = done;
          current.total = total;
          show();
        },
      });
    } finally {
      if (run === current) run = undefined;
    }
    // What was indexed before a Cancel stays indexed; the view says where it stopped.
    const notice = source.token.isCancellationRequested
      ? vscode.l10n.t('Indexing {0} was cancelled after {1} of {2} sessions; those stay indexed. Refresh goes on.', plainLine(agent, 100), indexed, sessions.length)
      : undefined;
    view.update({ indexing: undefined, ...(notice ? { notice } : {}) });
  };
  /** Cancel was chosen: background indexing waits for Refresh or Index Sessions… before it starts again. */
  let stoppedByUser = false;

  let surveying: Promise<void> | undefined;
  /** The survey asked for while one ran: that one may have begun before what changed since (an agent added). */
  let again: Promise<void> | undefined;
  let lastSurvey: Promise<void> = Promise.resolve();
  const survey = (): Promise<void> => {
    if (surveying) {
      again ??= surveying.then(() => {
        again = undefined;
        return survey();
      });
      lastSurvey = again;
      return again;
    }
    surveying = (async () => {
      const { indexer } = await ready;
      indexer.pruneAgents(agents.agents.map((a) => a.name));
      for (const agent of agents.agents) {
        const source = new vscode.CancellationTokenSource();
        indexing = source;
        try {
          const found = await indexer.survey(agent.name, () => source.token.isCancellationRequested);
          setCoverage(agent.name, found);
          const todo = toIndex(found);
          // Not while another run goes (one asked for): the survey after it indexes the rest.
          if (background() && !stoppedByUser && !run && found.effect.kind === 'none' && !found.noLoad && todo.length > 0) {
            await vscode.window.withProgress({ location: { viewId: searchViewId }, title: vscode.l10n.t('Indexing {0}', agent.name) }, () => indexAgent(agent.name, todo, source));
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
    });
    lastSurvey = surveying;
    return surveying;
  };

  let surveyTimer: ReturnType<typeof setTimeout> | undefined;
  const surveySoon = () => {
    if (surveyTimer) clearTimeout(surveyTimer);
    surveyTimer = setTimeout(() => {
      surveyTimer = undefined;
      if (view.treeView.visible || query.active) void survey();
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
  /** The scope the coverage and results were made for. */
  let scopeShown = JSON.stringify(model.scope);

  /** Refuses a second run while one goes, saying which and how far; true when refused. */
  const refusedWhileRunning = () => {
    if (!run) return false;
    void messages.show('info', vscode.l10n.t('Sessions of {0} are being indexed ({1} of {2}): one run at a time. Wait until it ends, or stop it with Cancel Indexing.', run.agent, run.done, run.total));
    return true;
  };

  const confirmAndIndex = async (agentArg?: string) => {
    if (refusedWhileRunning()) return;
    let agent = typeof agentArg === 'string' ? agentArg : undefined;
    if (!agent) {
      // Each agent with what Index Sessions… would index, as the view counts it.
      const notIndexed = (name: string) => {
        const known = coverage.get(name);
        const waiting = known ? waitingOf(known) : 0;
        return waiting > 0 ? { description: vscode.l10n.t('{0} sessions not indexed', waiting) } : {};
      };
      const picked = await vscode.window.showQuickPick(agents.agents.map((a) => ({ label: quickPickText(a.name), name: a.name, ...notIndexed(a.name) })), { title: vscode.l10n.t('Index Sessions of Which Agent?') });
      agent = picked?.name;
    }
    if (!agent || refusedWhileRunning()) return;
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
    // A run may have begun while the question was open (the background, another window's click).
    if (!agreed || refusedWhileRunning()) return;
    stoppedByUser = false;
    const source = new vscode.CancellationTokenSource();
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Indexing sessions of {0}', agent), cancellable: true }, async (progress, token) => {
        // The notification's Cancel and Cancel Indexing stop the same run.
        token.onCancellationRequested(() => source.cancel());
        let last = 0;
        await indexAgent(agent, todo, source, (done, total) => {
          progress.report({ message: vscode.l10n.t('{0} of {1}', done, total), increment: ((done - last) / Math.max(1, total)) * 100 });
          last = done;
        });
      });
    } finally {
      source.dispose();
    }
    setCoverage(agent, indexer.coverage(agent) ?? found);
    // What the background would have indexed meanwhile.
    surveySoon();
  };

  const commands: Record<string, (...args: never[]) => unknown> = {
    'acpSessions.search.indexAgent': confirmAndIndex,
    'acpSessions.search.cancelIndexing': () => {
      stoppedByUser = true;
      indexing?.cancel();
      run?.source.cancel();
    },
    'acpSessions.search.clearIndex': async () => {
      indexing?.cancel();
      run?.source.cancel();
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
      query.indexCleared();
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
      // Off: the survey and the background's run stop (a run asked for goes on: it has its Cancel).
      if (!background()) indexing?.cancel();
      else surveySoon();
    }),
    {
      dispose: () => {
        indexing?.cancel();
        run?.source.cancel();
        for (const t of [surveyTimer, followTimer]) if (t) clearTimeout(t);
        void ready.then(({ index }) => index.dispose(), () => undefined);
      },
    },
  );
  if (view.treeView.visible) void survey();
  // Loaded after the lists (on first use): what they say now, as if each change had been followed.
  void followLists();
  // An agent no longer configured: its entries leave with the next survey.
  context.subscriptions.push(agents.onDidChangeAgents(() => surveySoon()));

  return {
    get ready() {
      return ready;
    },
    get lastSurvey() {
      return lastSurvey;
    },
    survey,
    refresh: () => {
      stoppedByUser = false;
      return survey();
    },
    commands,
    removed: (agent, sessionId) => {
      void ready.then(async ({ indexer }) => {
        await indexer.removed(agent, sessionId);
        const known = indexer.coverage(agent);
        if (known && coverage.has(agent)) coverage.set(agent, known);
        showCoverage();
      }).catch((error: unknown) => log.warn(`[${agent}] Search index: could not drop ${sessionId}: ${(error as Error)?.message ?? error}`));
    },
    archivedChanged: (agent, sessionId, archived) => {
      void ready.then(({ index }) => index.updateMeta(agent, sessionId, { archived }), () => undefined);
    },
    listsChanged: () => {
      // Another scope (the Sessions view's folders): counted and searched anew.
      const now = JSON.stringify(model.scope);
      if (now !== scopeShown) {
        scopeShown = now;
        surveySoon();
        query.indexChanged();
      }
      if (followTimer) return;
      followTimer = setTimeout(() => {
        followTimer = undefined;
        void followLists();
      }, 500);
    },
    replayed: (agent, session, batches) => {
      void ready.then(({ indexer }) => indexer.replayed(agent, session, batches), () => undefined);
    },
  };
}
