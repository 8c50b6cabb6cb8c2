// Search Sessions as the main bundle knows it: the Search view and the search commands, which
// VS Code needs from the first moment, registered here in a few lines, and dist/search.js
// (src/ui/search/bundle.ts: the index, the indexer, the view's provider) loaded on first use.
// The index follows the sessions model's events (a session deleted, archived, a list changed)
// and the transcripts' replays; a search that shows what it found checks the walkthrough's Search
// step. Nothing else of this folder is in the main bundle.
import * as vscode from 'vscode';
import type { SessionsModel } from '../../sessions/sessionsModel';
import { lazyBundle, type LazyBundle } from '../common/lazyBundle';
import type { SessionsFeature } from '../sessions/register';
import type { TranscriptsFeature } from '../transcripts/register';
import type * as SearchBundleModule from './bundle';
import type { SearchNode } from './searchView';
import type { SearchPart, SearchViewParts } from './searchWiring';

/** The exports of dist/search.js. */
export type SearchBundle = typeof SearchBundleModule;

/** package.json's `acpSessions.search` view. */
const SEARCH_VIEW_ID = 'acpSessions.search';

/** The search commands of a manifest (package.json's contributions): `acpSessions.search` and `acpSessions.search.*`. */
export function searchCommandIds(packageJSON: { contributes?: { commands?: { command: string }[] } }): string[] {
  return (packageJSON.contributes?.commands ?? []).map((c) => c.command).filter((id) => id === SEARCH_VIEW_ID || id.startsWith(`${SEARCH_VIEW_ID}.`));
}

/**
 * Search, created with its bundle on first use. Until then the index is not open, nothing is
 * shown in the view and nothing was searched; the Sessions model's changes that the index must
 * follow at once (a deletion, archive) load it, and the rest of the lists it reads when it loads.
 */
export class LazySearch implements vscode.Disposable {
  private part: SearchPart | undefined;
  private readonly viewParts: SearchViewParts;
  private readonly disposables: vscode.Disposable[];

  constructor(
    readonly bundle: LazyBundle<SearchBundle>,
    private readonly create: (bundle: SearchBundle, viewParts: SearchViewParts) => SearchPart,
    model: SessionsModel,
    /** The search commands contributed in package.json (see searchCommandIds). */
    commandIds: readonly string[],
    /** Whether a copy of the session is kept here, and the kept-only sessions whose copy was deleted. */
    kept: (agent: string, sessionId: string) => boolean = () => false,
    onDidForgetKept: vscode.Event<{ agent: string; sessionId: string }> = () => ({ dispose() {} }),
  ) {
    const changed = new vscode.EventEmitter<SearchNode | undefined>();
    // The view's provider hands each call on; VS Code asks only while the view shows.
    const treeView = vscode.window.createTreeView<SearchNode>(SEARCH_VIEW_ID, {
      showCollapseAll: true,
      treeDataProvider: {
        onDidChangeTreeData: changed.event,
        getChildren: (node) => this.get().view.getChildren(node),
        getTreeItem: (node) => this.get().view.getTreeItem(node),
        getParent: (node) => this.get().view.getParent(node),
      },
    });
    this.viewParts = { treeView, changed };
    this.disposables = [
      treeView,
      changed,
      treeView.onDidChangeVisibility((e) => e.visible && this.get()),
      ...commandIds.map((id) => vscode.commands.registerCommand(id, (...args: never[]) => this.get().commands[id]?.(...args))),
      // A session gone by no act here whose copy is kept stays found (Kept Here); a delete here removes it.
      model.onDidDelete(({ agent, sessionId, how }) => (how === 'gone' && kept(agent, sessionId) ? undefined : this.get().removed(agent, sessionId))),
      onDidForgetKept(({ agent, sessionId }) => this.part?.removed(agent, sessionId)),
      model.onDidArchive(({ agent, sessionId, archived }) => this.get().archivedChanged(agent, sessionId, archived)),
      model.onDidChange(() => this.part?.listsChanged()),
    ];
    if (treeView.visible) this.get();
  }

  /** Search, loading dist/search.js first when nothing has needed it yet. */
  get(): SearchPart {
    return (this.part ??= this.create(this.bundle(), this.viewParts));
  }

  /** Fires when the Search view's content changed (results, coverage, progress). */
  get onDidChangeView(): vscode.Event<SearchNode | undefined> {
    return this.viewParts.changed.event;
  }

  /** Search if it was loaded. */
  get loaded(): SearchPart | undefined {
    return this.part;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

export interface SearchDeps {
  readonly log: vscode.LogOutputChannel;
  readonly sessions: Pick<SessionsFeature, 'agents' | 'model' | 'messages' | 'parts' | 'kept'>;
  /** Undefined when the Transcripts feature could not start: nothing is replayed, nothing opens at a match. */
  readonly transcripts: TranscriptsFeature | undefined;
}

/** The Search view, its commands and the index's part in the model's events and the transcripts' replays. */
export function registerSearch(context: vscode.ExtensionContext, deps: SearchDeps): LazySearch {
  const { log, sessions } = deps;
  const transcripts = deps.transcripts?.transcripts;
  const search = new LazySearch(
    lazyBundle<SearchBundle>('search.js'),
    (bundle, viewParts) => bundle.createSearch(sessions.parts, context, log, sessions.agents, sessions.model, () => transcripts, sessions.messages.recorder, viewParts),
    sessions.model,
    searchCommandIds(context.extension.packageJSON),
    (agent, sessionId) => sessions.kept.store.get(agent, sessionId) !== undefined,
    sessions.kept.onDidForget,
  );
  context.subscriptions.push(search);
  // The walkthrough's Search step is done once a search shows what it found.
  context.subscriptions.push(search.onDidChangeView(() => {
    const state = search.loaded?.view.state;
    if (state?.query && state.result && state.result.sessions.length > 0) sessions.parts.walkthrough.searched();
  }));
  // Search Sessions indexes what a transcript replayed, a batch read back from its file at a time.
  if (deps.transcripts) context.subscriptions.push(deps.transcripts.onDidReplay(({ agent, session, batches }) => search.get().replayed(agent, session, batches)));
  return search;
}
