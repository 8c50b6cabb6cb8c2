// The header state of a transcript: its title, the header its page draws (archived, deleted,
// loading, live, problems, figures, what the buttons offer) and the state a test reads, all made
// from the facts its replay holds, and the words of the problems a replay meets. Read-outs
// only: nothing here changes the transcript.
import * as vscode from 'vscode';
import { messageOf } from '../../acp/errors';
import type { SessionInfo } from '../../acp/types';
import { sessionLabel, shortId } from '../../sessions/format';
import { partsText, type CompactionEntity, type EntityKind } from '../../transcript/model';
import { HEADER_CHANGES_MAX, type HeaderChanges, type HostAction, type TranscriptHeader, type TranscriptProblem } from '../../transcript/protocol';
import { shownPath, type ChangeCollector } from '../../changes/changes';
import type { PromptEntry } from '../../transcript/prompts';
import type { Timeline } from '../../transcript/timeline';
import { usageSeries } from '../../transcript/usage';
import { resumeTemplate } from '../common/settings';
import type { UnkeptUpdates } from './transcriptTrouble';

/** What a test (or the API) can read about an open transcript, from the host's timeline. */
export interface TranscriptState {
  agentName: string;
  sessionId: string;
  title: string;
  visible: boolean;
  loading: boolean;
  /** The replay finished (successfully or not) at least once. */
  loaded: boolean;
  live: boolean;
  archived: boolean;
  /** The agent no longer has the session: the header says so and no live update is followed. */
  deleted: boolean;
  /** The last load found no session (see TranscriptReplay.notFound): the tab says so and offers nothing that needs it. */
  notFound: boolean;
  updateCount: number;
  entityCount: number;
  kinds: Partial<Record<EntityKind, number>>;
  compactions: { compactionId: string; status: string; summary: string; error?: string }[];
  /** The children announced by `subagent_update`, in timeline order. */
  subagents: { sessionId: string; key: string; title?: string; state?: string }[];
  /** How many `usage_update`s the timeline kept. */
  usageCount: number;
  /** The files its tool calls wrote, as the header lists them (after the replay). */
  changes?: HeaderChanges;
  problem?: TranscriptProblem;
  /** The header offers Rename… (the agent advertises `sessionCapabilities.title`). */
  canRename: boolean;
  /** Messages offer Fork from Here. */
  canFork: boolean;
  /** The header offers Resume in Terminal (the agent's entry has a resume command, as the setting is now). */
  canResume: boolean;
  /** The agent reported the session resumed by its load (see `TranscriptPanelsOptions.afterLoad`). */
  resumed: boolean;
  /** How the last replay was known to be whole: the agent's mark, or its answer alone. */
  replayEnd: 'marker' | 'answer' | undefined;
  /** Updates of the conversation after the answer, from an agent that marks no end of its replay. */
  lateUpdates: number;
  /** The user's prompts: their rows and, when known, times (Go to Prompt…). */
  prompts: PromptEntry[];
  /** Read from an exported replay file, with no agent. */
  exported: boolean;
  /** Updates received that could not be kept (the header says how many). */
  unkeptUpdates: number;
  /** What had happened when the first replay began (it waits for one): the page's `ready`, the tab hidden or closed, or PAGE_WAIT_MS (transcriptTab.ts) gone by. */
  replayWaitedFor: PageWait | undefined;
  /**
   * Where the rows of the last replay were reduced: `worker`, taken over from the line worker's
   * file; `host`, on this thread (its first rows only, or where the worker does not run); undefined before one.
   */
  rowsFrom: 'worker' | 'host' | undefined;
  /** postMessage calls to the webview since the panel opened, and their JSON size when measured. */
  messagesPosted: number;
  bytesPosted: number;
}

/** Why a replay stopped waiting for its page: the page's `ready`, the tab hidden or closed, or the wait's time-out. */
export type PageWait = 'ready' | 'hidden' | 'closed' | 'timeout';

/** What the header is made of: the session as listed and as its replay told it. */
export interface HeaderFacts {
  readonly agentName: string;
  readonly session: SessionInfo;
  readonly timeline: Timeline;
  readonly loading: boolean;
  readonly live: boolean;
  readonly archived: boolean;
  readonly deleted: boolean;
  /** The last load found no session: title and header say so, and offer nothing that needs it. */
  readonly notFound: boolean;
  /** Set when the agent reported that the load resumed the session: its new `updatedAt`. */
  readonly resumed: { updatedAt?: string } | undefined;
  readonly lateUpdates: number;
  readonly problem: TranscriptProblem | undefined;
  readonly unkept: Pick<UnkeptUpdates, 'notices' | 'total'>;
  readonly canRename: boolean;
  /** The exported replay file shown (with no agent), or undefined for an agent's session. */
  readonly exportedFile: string | undefined;
  /** The file is a kept copy (Kept Here), made then. */
  readonly keptAt?: string | undefined;
  /** The session's title as known now (a rename from this window, the replay's, the list's), or null. */
  sessionTitle(): string | null;
  /** The files its tool calls wrote, as the updates applied tell. */
  readonly changes: ChangeCollector;
  /** Messages offer Fork from Here (see TranscriptReplay.canFork). */
  readonly canFork: boolean;
}

/** What the state adds to the header's facts. */
export interface StateFacts extends HeaderFacts {
  readonly loaded: boolean;
  readonly replayEnd: 'marker' | 'answer' | undefined;
  readonly replayWaitedFor: PageWait | undefined;
  readonly rowsFrom: 'worker' | 'host' | undefined;
  prompts(): PromptEntry[];
}

/** What the state tells of the tab's page. */
export interface PageFigures {
  visible: boolean;
  messagesPosted: number;
  bytesPosted: number;
}

/** The problems a replay meets, as its header says them, with what the header offers to do. */
export const problems = {
  unavailable: (agentName: string, error: unknown): TranscriptProblem => ({
    kind: 'agent-unavailable',
    message: vscode.l10n.t('Agent "{0}" is not available: {1}', agentName, messageOf(error)),
    actions: ['retry', 'showLog'],
  }),
  disconnected: (agentName: string, error: unknown): TranscriptProblem => ({
    kind: 'agent-unavailable',
    message: vscode.l10n.t('Agent "{0}" disconnected: {1}', agentName, messageOf(error)),
    actions: ['retry', 'showLog'],
  }),
  noLoad: (agentName: string, canResume: boolean): TranscriptProblem => ({
    kind: 'no-load',
    message: canResume
      ? vscode.l10n.t('Agent "{0}" cannot replay past sessions: it does not advertise loadSession, so there is no history to show here. It can resume the session to continue it, but resuming does not send the earlier conversation.', agentName)
      : vscode.l10n.t('Agent "{0}" cannot replay past sessions: it does not advertise loadSession, so there is no history to show here.', agentName),
    actions: [],
  }),
  /** Only the agent's refusal says the session is archived away (a crash is retried as is). */
  archivedRefused: (agentName: string, error: unknown): TranscriptProblem => ({
    kind: 'archived-refused',
    message: vscode.l10n.t('Agent "{0}" did not replay this archived session ({1}). Unarchive it to read its transcript.', agentName, messageOf(error)),
    actions: ['unarchiveAndOpen', 'showLog'],
  }),
  /** `gone`: the agent answered -32002; else it refused to load a session none of its lists holds (asking again may help). */
  notFound: (agentName: string, error: unknown, gone: boolean): TranscriptProblem => ({
    kind: 'load-failed',
    message: gone
      ? vscode.l10n.t('Agent "{0}" does not have this session: {1}', agentName, messageOf(error))
      : vscode.l10n.t('Agent "{0}" does not list this session and could not load it: {1}', agentName, messageOf(error)),
    actions: gone ? ['showLog'] : ['retry', 'showLog'],
  }),
  loadFailed: (error: unknown, actions: HostAction[]): TranscriptProblem => ({
    kind: 'load-failed',
    message: vscode.l10n.t('The transcript could not be loaded: {0}', messageOf(error)),
    actions,
  }),
};

/** The title of the tab and its header (it says so when the session was not found). */
export function titleOf(facts: Pick<HeaderFacts, 'session' | 'sessionTitle' | 'notFound'>): string {
  const title = facts.sessionTitle()?.trim();
  if (facts.notFound) return title ? vscode.l10n.t('{0} (not found)', sessionLabel({ sessionId: facts.session.sessionId, title })) : vscode.l10n.t('Session not found ({0})', shortId(facts.session.sessionId));
  return sessionLabel({ sessionId: facts.session.sessionId, title: facts.sessionTitle() ?? undefined });
}

/** The header the page draws. */
export function headerOf(facts: HeaderFacts): TranscriptHeader {
  const { timeline } = facts;
  const state = timeline.state;
  const header: TranscriptHeader = {
    agentName: facts.agentName,
    sessionId: facts.session.sessionId,
    cwd: facts.session.cwd,
    title: titleOf(facts),
    archived: facts.archived,
    loading: facts.loading,
    updateCount: timeline.updateCount,
    live: facts.live,
    notices: facts.unkept.notices(state.notices),
  };
  // After a resuming load the agent's date is the new one, not the one listed before.
  const updatedAt = facts.resumed?.updatedAt ?? state.updatedAt ?? facts.session.updatedAt ?? undefined;
  if (updatedAt) header.updatedAt = updatedAt;
  if (state.usage) header.usage = state.usage;
  // Drawn once the replay has ended: the header goes with every batch of a replay, the series need not.
  const series = facts.loading ? undefined : usageSeries(state.usageHistory, timeline.compactionsInOrder(), timeline.created);
  if (series) {
    for (const mark of series.marks) mark.index = timeline.indexOf(mark.key);
    header.usageSeries = series;
  }
  if (state.currentModeId) header.currentModeId = state.currentModeId;
  if (facts.problem) header.problem = facts.problem;
  // Not found: nothing to rename, resume or link to (and "deleted" would say it was there once).
  if (facts.notFound) header.notFound = true;
  else if (facts.deleted) header.deleted = true;
  else if (facts.canRename) header.canRename = true;
  if (facts.canFork) header.canFork = true;
  if (facts.exportedFile !== undefined) header.exported = facts.keptAt === undefined ? { file: facts.exportedFile } : { file: facts.exportedFile, keptAt: facts.keptAt };
  else if (canResume(facts)) header.canResume = true;
  if (facts.resumed) header.resumed = facts.resumed;
  if (facts.lateUpdates > 0) header.lateUpdates = facts.lateUpdates;
  // Listed once the replay has ended, as the series: the header goes with every batch of a replay.
  const changes = facts.loading ? undefined : changesOf(facts.changes, facts.session.cwd);
  if (changes) header.changes = changes;
  return header;
}

/** Whether the header offers Resume in Terminal for a session read from its agent. */
function canResume(facts: HeaderFacts): boolean {
  return !facts.deleted && !facts.notFound && facts.exportedFile === undefined && resumeTemplate(facts.agentName) !== undefined;
}

/** The header's list of what the session changed, or undefined when its tool calls wrote nothing. */
export function changesOf(collector: ChangeCollector, cwd: string): HeaderChanges | undefined {
  const { files, added, removed } = collector.summary();
  if (files.length === 0) return undefined;
  return {
    files: files.slice(0, HEADER_CHANGES_MAX).map((f, i) => ({ shown: shownPath(f.path, cwd), added: f.added, removed: f.removed, linesKnown: f.linesKnown, diff: collector.diffable(i) })),
    total: files.length,
    added,
    removed,
  };
}

/** The state a test reads. */
export function stateOf(facts: StateFacts, page: PageFigures): TranscriptState {
  const { timeline } = facts;
  const kinds: Partial<Record<EntityKind, number>> = {};
  const rows = timeline.rows;
  for (let i = 0; i < rows.length; i++) {
    const kind = rows.kindAt(i);
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  const compactions = [...timeline.compactionsInOrder()].map(compactionState);
  const subagents: TranscriptState['subagents'] = [];
  for (const entity of timeline.subagentsInOrder()) subagents.push({ sessionId: entity.sessionId, key: entity.key, title: entity.title, state: entity.state });
  return {
    agentName: facts.agentName,
    sessionId: facts.session.sessionId,
    title: titleOf(facts),
    visible: page.visible,
    loading: facts.loading,
    loaded: facts.loaded,
    live: facts.live,
    archived: facts.archived,
    deleted: facts.deleted,
    notFound: facts.notFound,
    updateCount: timeline.updateCount,
    entityCount: timeline.rows.length,
    kinds,
    compactions,
    subagents,
    usageCount: timeline.state.usageHistory.length,
    ...withChanges(facts),
    problem: facts.problem,
    canRename: facts.canRename,
    canFork: facts.canFork,
    canResume: canResume(facts),
    prompts: facts.prompts(),
    exported: facts.exportedFile !== undefined,
    unkeptUpdates: facts.unkept.total,
    resumed: facts.resumed !== undefined,
    replayEnd: facts.replayEnd,
    lateUpdates: facts.lateUpdates,
    replayWaitedFor: facts.replayWaitedFor,
    rowsFrom: facts.rowsFrom,
    messagesPosted: page.messagesPosted,
    bytesPosted: page.bytesPosted,
  };
}

/** The state's `changes`, only when there are some and the replay has ended. */
function withChanges(facts: StateFacts): Pick<TranscriptState, 'changes'> {
  const changes = facts.loading ? undefined : changesOf(facts.changes, facts.session.cwd);
  return changes ? { changes } : {};
}

function compactionState(entity: CompactionEntity): TranscriptState['compactions'][number] {
  const state: TranscriptState['compactions'][number] = { compactionId: entity.compactionId, status: entity.status, summary: partsText(entity.summary) };
  if (entity.error !== undefined) state.error = entity.error;
  return state;
}
