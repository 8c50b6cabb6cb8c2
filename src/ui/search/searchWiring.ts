// Search Sessions, composed: the Search view shared by the query part (src/ui/search/searchQuery.ts:
// the query box, results, filters, opening matches) and the indexing part
// (src/ui/search/searchIndexing.ts: the index, the indexer, coverage, following the Sessions
// model), each handed the small interface the other declares; and the interfaces the rest of the
// extension uses (src/ui/search/register.ts, src/ui/search/bundle.ts, extension.ts's API).
import type * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import type { SessionsModel } from '../../sessions/sessionsModel';
import type { SearchIndexer } from '../../search/indexer';
import type { SearchIndex } from '../../search/searchIndex';
import type { Entity } from '../../transcript/model';
import type { MessageRecorder } from '../common/messages';
import type { TranscriptMatch } from '../transcripts/transcriptPanel';
import type { ReplayTimelines } from '../../transcript/replayTimelines';
import type { FilterItem } from './searchFilters';
import { createSearchIndexing, type SearchIndexing } from './searchIndexing';
import { createSearchQuery } from './searchQuery';
import { SearchView, type SearchNode } from './searchView';

export interface SearchTranscripts {
  openAt(agentName: string, session: SessionInfo, match: TranscriptMatch): Promise<void>;
  getState(agentName: string, sessionId: string): unknown;
  /** Whether a copy of the session is kept here (its text stays found once the agent forgets it). */
  hasKeptCopy?(agentName: string, sessionId: string): boolean;
  /** What makes a loaded replay's rows, from the transcripts' bundle (loading it): this bundle carries no reducer of its own. */
  replayTimelines?(): ReplayTimelines;
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
  // The query first: it touches the index only when a command runs, by which time indexing is
  // made; indexing opens the index at once and tells the query of its changes.
  const query = createSearchQuery({
    context,
    agents,
    view,
    index: {
      get ready() {
        return indexing.ready;
      },
      survey: () => indexing.survey(),
      refresh: () => indexing.refresh(),
    },
    transcripts,
    inScope: (cwd) => model.inScope(cwd),
  });
  const indexing: SearchIndexing = createSearchIndexing({
    context,
    log,
    agents,
    model,
    view,
    isOpen: (agent, id) => transcripts()?.getState(agent, id) !== undefined,
    kept: (agent, id) => transcripts()?.hasKeptCopy?.(agent, id) === true,
    timelines: () => transcripts()?.replayTimelines?.(),
    recorder,
    query,
  });
  return {
    get ready() {
      return indexing.ready;
    },
    get lastSurvey() {
      return indexing.lastSurvey;
    },
    get filterPick() {
      return query.filterPick;
    },
    view,
    commands: { ...query.commands, ...indexing.commands },
    removed: indexing.removed,
    archivedChanged: indexing.archivedChanged,
    listsChanged: indexing.listsChanged,
    replayed: indexing.replayed,
  };
}
