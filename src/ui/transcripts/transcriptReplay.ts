// The replay and live updates of one transcript: `session/load` (or an exported file's updates)
// into a fresh Timeline, then the agent's live updates while the session is open, active and not
// deleted. It holds what the header shows of the session (archived, deleted, renamed, resumed,
// the problem) and keeps every update it applied, for an export that must not load it again.
// What it is given and tells is in replayContract.ts.
import * as vscode from 'vscode';
import { rmSync } from 'node:fs';
import type { Reduced, SessionInfo, SessionUpdate, SessionUpdateListener } from '../../acp/types';
import { isResourceNotFound, messageOf } from '../../acp/errors';
import { linesIn } from '../../acp/lineParse';
import type { TranscriptProblem } from '../../transcript/protocol';
import { promptsOf, PromptTimes, type PromptEntry } from '../../transcript/prompts';
import { forEachSlice } from '../../transcript/replayReader';
import { FileReducer, FileWorkerStopped } from '../../transcript/fileReducer';
import { EntityStore } from '../../transcript/entityStore';
import { adoptReduced, discardReduction, reductionSpec, type ReducedReplay, type ReductionProgress, type ReductionSpec } from '../../transcript/replayReduction';
import { SpillFile } from '../../transcript/spillFile';
import { Timeline, type TimelineImage } from '../../transcript/timeline';
import { MAX_RANGE_ROWS } from '../../transcript/feed';
import { UpdateLog, type Unkept, type UpdateLogImage } from '../../transcript/updateLog';
import { ChangeCollector } from '../../changes/changes';
import { notificationText } from '../common/plainText';
import type { ExportedSource, OpenExportSource, ReplayOwner, SessionFacts } from './replayContract';
import { problems, titleOf, type PageWait } from './transcriptHeader';
import { spillFileIn, UnkeptUpdates } from './transcriptTrouble';

/**
 * A replay the line worker reduces is applied on this thread too while it has fewer rows than
 * this (a first screen and a margin, shown as they come); the rest only there, taken over at the answer.
 */
const PREVIEW_ROWS = 200;
/** Past the preview, how often (ms) the line worker tells how far it is: the rows it reduced show then. */
const PROGRESS_MS = 200;

/** Updates that are the conversation itself (not its title, usage or commands): what a late replay sends. */
const CONVERSATION_UPDATES: ReadonlySet<string> = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan']);

/**
 * Whether `error` is the agent's answer about the request (a JSON-RPC error), not a cancel, a
 * sign-in it wants or another process holding the session. By shape: the class is the main
 * bundle's.
 */
function isRefusal(error: unknown): boolean {
  const { code, method, reason } = (error ?? {}) as { code?: unknown; method?: unknown; reason?: unknown };
  return typeof code === 'number' && typeof method === 'string' && reason === undefined && code !== -32800 && code !== -32000;
}

export class TranscriptReplay {
  // Set here alone; read by the tab, its header and its state.
  timeline!: Timeline;
  loading = false;
  loaded = false;
  live = false;
  archived: boolean;
  /** The agent no longer has the session (the sessions model said so). */
  deleted = false;
  /**
   * The last load found no session: the agent answered -32002, or refused the load of a session
   * none of its lists holds. The tab says so and offers nothing that needs the session.
   */
  notFound = false;
  /** Set when the agent reported that the load resumed the session: its new `updatedAt`. */
  resumed: { updatedAt?: string } | undefined;
  /** How the last replay was known to be whole: the agent's mark, or only its answer. */
  replayEnd: 'marker' | 'answer' | undefined;
  /** Where the last replay's rows were reduced (see TranscriptState.rowsFrom). */
  rowsFrom: 'worker' | 'host' | undefined;
  /** Updates of the conversation that came after the answer of an agent that marks no end. */
  lateUpdates = 0;
  problem: TranscriptProblem | undefined;
  readonly unkept: UnkeptUpdates;
  replayWaitedFor: PageWait | undefined;
  /** Settles when the current replay ends. */
  replayDone: Promise<void> = Promise.resolve();
  /** Settles when the check after the last successful load ends. */
  afterLoadDone: Promise<void> = Promise.resolve();
  /** The files the session's tool calls wrote, from every update applied (the header lists them). */
  changes!: ChangeCollector;

  /** Set by a rename from this window; wins over titles replayed from history. */
  private renamedTitle: string | undefined;
  private readonly times = new PromptTimes();
  /** The line worker applies the current replay: its timeline is taken over at the answer. */
  private reducing = false;
  /** A handle on the file of the replay the line worker reduces, to read the rows it told of so far. */
  private progressFile: SpillFile | undefined;
  /** The worker reading the exported file or kept copy, while it does: a new load or the tab's close stops it. */
  private fileReducer: FileReducer | undefined;
  /** Every update applied since the last reset, in order (an export of this session writes them). */
  private updates = new UpdateLog();
  /** An update that cannot be kept costs that update (counted, logged, in the header), never the tab. */
  private readonly onUnkept = (unkept: Unkept): void => {
    this.unkept.add(unkept);
    this.owner.markChanged();
  };
  private liveSubscription: { dispose(): void } | undefined;
  private disconnectSubscription: { dispose(): void } | undefined;
  private loadCancellation: vscode.CancellationTokenSource | undefined;
  private disposed = false;
  /** session/load succeeded, so the agent holds the session open until session/close. */
  private openOnAgent = false;
  private reportedFacts = '';

  constructor(
    private readonly owner: ReplayOwner,
    readonly agentName: string,
    readonly session: SessionInfo,
    /** An exported replay: shown from its file's updates, with no agent. */
    private readonly source?: ExportedSource,
  ) {
    this.unkept = new UnkeptUpdates(owner.log, `Transcript of ${session.sessionId}${source ? ` (${source.file})` : ''}`);
    this.archived = (session as SessionInfo & { archived?: boolean }).archived === true;
    this.resetTimeline();
  }

  /** The exported replay file this transcript shows, or undefined for an agent's session. */
  get exportedFile(): string | undefined {
    return this.source?.file;
  }

  /** When the kept copy this transcript shows was made, or undefined (an export, an agent's session). */
  get keptAt(): string | undefined {
    return this.source?.keptAt;
  }

  /** The header offers Rename… (the agent advertises `sessionCapabilities.title`; never for an exported file). */
  get canRename(): boolean {
    if (this.source) return false;
    return this.owner.agents.agent(this.agentName)?.capabilities?.title === true;
  }

  /**
   * Messages offer Fork from Here: the agent advertises `sessionCapabilities.fork`, and the session
   * is the agent's (not an exported file or a kept copy), unarchived, there and replayed.
   */
  get canFork(): boolean {
    if (this.source || !this.owner.options.fork || this.archived || this.deleted || this.notFound || this.loading || !this.loaded || this.problem) return false;
    return this.owner.agents.agent(this.agentName)?.capabilities?.fork === true;
  }

  /** The session's title as known now: a rename from this window, else the replay's, else the list's. */
  sessionTitle(): string | null {
    return this.renamedTitle ?? this.timeline.state.title ?? this.session.title ?? null;
  }

  /** Replays the session from the start into a fresh timeline. */
  load(): Promise<void> {
    const run = this.runLoad();
    // Said, not swallowed: a replay that throws must not leave its tab loading for good with no word.
    this.replayDone = run.catch((error: unknown) => this.owner.log.error(`Transcript of ${this.session.sessionId}: the replay failed: ${(error as Error)?.stack ?? error}`));
    return this.replayDone;
  }

  private async runLoad(): Promise<void> {
    this.stopLive();
    this.loadCancellation?.cancel();
    this.fileReducer?.stop();
    const cancellation = (this.loadCancellation = new vscode.CancellationTokenSource());
    this.resetTimeline();
    this.problem = undefined;
    this.notFound = false;
    this.loading = true;
    this.owner.feed.snapshot();
    const { agentName, session } = this;
    if (this.source) {
      const source = this.source;
      // Started now, its start overlapping the page's (it reads only once the page is there).
      const reducer = source.reading && this.owner.options.lineWorker && this.owner.options.spillDir ? new FileReducer(this.owner.options.lineWorker) : undefined;
      this.fileReducer = reducer;
      // As an agent's replay does (see ReplayOwner.pageStarted): VS Code creating the webview and
      // a long file's read then do not share the cores (a kept copy of 200,000 chunks reached its
      // first screen 1.09x later than the same session from the agent while it did not wait).
      const pageWait = await this.owner.pageStarted;
      this.replayWaitedFor ??= pageWait;
      if (this.disposed || this.loadCancellation !== cancellation) {
        reducer?.stop();
        // A newer load has the file now.
        if (this.disposed) await source.close();
        return;
      }
      try {
        if (!reducer || !(await this.readInWorker(reducer, source, cancellation))) {
          const timeline = this.timeline;
          // A slice at a time, the host free between them: a file of any length never holds it.
          await forEachSlice(source.slices, (update) => this.apply(timeline, update), () => this.loadCancellation === cancellation && !this.disposed);
          this.rowsFrom = 'host';
        }
      } catch (error) {
        this.owner.log.warn(`Transcript of ${session.sessionId} (${source.file}) could not be shown: ${messageOf(error)}`);
        this.problem = problems.loadFailed(error, ['showLog']);
      } finally {
        reducer?.stop();
        if (this.fileReducer === reducer) this.fileReducer = undefined;
        await source.close();
        if (this.loadCancellation === cancellation && !this.disposed) this.ended();
      }
      return;
    }
    try {
      let client;
      try {
        client = await this.owner.agents.getClient(agentName);
      } catch (error) {
        this.problem = problems.unavailable(agentName, error);
        return;
      }
      if (cancellation.token.isCancellationRequested) return;
      if (!client.capabilities.loadSession) {
        this.problem = problems.noLoad(agentName, client.capabilities.resume);
        return;
      }
      this.disconnectSubscription?.dispose();
      this.disconnectSubscription = client.onDidDisconnect((error) => {
        if (this.disposed) return;
        this.stopLive();
        this.problem = problems.disconnected(agentName, error);
        this.owner.markChanged();
      });
      // The replay waits for the page (see ReplayOwner.pageStarted); the agent was started meanwhile.
      const pageWait = await this.owner.pageStarted;
      this.replayWaitedFor ??= pageWait;
      if (cancellation.token.isCancellationRequested || this.disposed) return;
      const timeline = this.timeline;
      this.replayEnd = undefined;
      this.lateUpdates = 0;
      // Reduced in the line worker where it runs (and the tab has a folder for its rows): this
      // thread applies only the first rows' updates (shown as they come), then takes the worker's
      // timeline over at the answer.
      const spec: ReductionSpec | undefined = this.owner.options.spillDir
        ? { ...reductionSpec(this.owner.options.spillDir, 'entities', true), previewRows: PREVIEW_ROWS, progressMs: PROGRESS_MS }
        : undefined;
      let answered = false;
      try {
        // An agent that marks the end of its replay: the transcript is whole then, even before
        // its answer; without the mark, the answer says so (and later updates are counted).
        // The timeline now: the preview, then the rows the worker told of so far (see progressed).
        const onUpdate = (update: SessionUpdate, line: Uint8Array | undefined, reduced: Reduced | undefined, count: number | undefined) => {
          if (this.loadCancellation === cancellation) this.apply(this.timeline, update, false, line, reduced, answered, count);
        };
        const result = await client.loadSession(session.sessionId, session.cwd, onUpdate, cancellation.token, {
          onReplayEnd: () => {
            if (this.loadCancellation !== cancellation || this.disposed) return;
            this.replayEnd = 'marker';
            // A reduced replay is whole here once the worker's timeline is taken over.
            if (spec && this.reducing) return;
            this.loading = false;
            this.loaded = true;
            this.owner.markChanged();
          },
          reduce: spec,
          onAnswered: () => (answered = true),
          onProgress: (progress) => this.progressed(timeline, progress as ReductionProgress, cancellation),
        });
        this.replayEnd = result.replayEnd;
        this.rowsFrom = 'host';
        if (result.reduced) this.adopt(timeline, result.reduced as ReducedReplay, cancellation);
      } catch (error) {
        if (spec) discardReduction(spec);
        if (cancellation.token.isCancellationRequested || this.disposed) return;
        this.owner.log.warn(`[${agentName}] session/load of ${session.sessionId} failed: ${messageOf(error)}`);
        // A crash says nothing about the session; the agent's refusal or a time-out does.
        if (!(error instanceof this.owner.host.AgentDisconnectedError)) this.owner.options.loaded?.(agentName, session.sessionId, error);
        // Not found: the agent says so, or refuses a session none of its lists holds (an archived
        // one was listed where it was opened from, and is offered to unarchive below).
        const gone = isResourceNotFound(error);
        if (gone || (!this.archived && isRefusal(error) && this.owner.options.listed?.(agentName, session.sessionId) === false)) {
          this.notFound = true;
          this.problem = problems.notFound(agentName, error, gone);
          return;
        }
        // Only the agent's refusal says the session is archived away; a crash is retried as is.
        this.problem = this.archived && !(error instanceof this.owner.host.AgentDisconnectedError) ? problems.archivedRefused(agentName, error) : problems.loadFailed(error, ['retry', 'showLog']);
        return;
      }
      this.openOnAgent = true;
      this.owner.options.loaded?.(agentName, session.sessionId);
      this.owner.options.replayed?.(agentName, { ...session, archived: this.archived }, this.timeline.rows.batches());
      if (cancellation.token.isCancellationRequested || this.disposed) return;
      this.afterLoadDone = this.checkAfterLoad();
      // Subscribed only now: during the replay the same listener list carries the replay.
      if (!this.archived && !this.deleted) this.startLive(client);
    } finally {
      if (this.loadCancellation === cancellation) this.ended();
    }
  }

  /**
   * Reads an exported file or kept copy in a worker of its own (see ReplayOptions.lineWorker): the
   * rows show as it tells how far it is, and its timeline is taken over at the end. False where
   * the worker could not do it (the log says why): the file is read here then, from the start.
   * Throws what is wrong with the file.
   */
  private async readInWorker(reducer: FileReducer, source: ExportedSource, cancellation: vscode.CancellationTokenSource): Promise<boolean> {
    const preview = this.timeline;
    const spec = { ...reductionSpec(this.owner.options.spillDir, 'entities'), progressMs: PROGRESS_MS };
    try {
      const done = await reducer.read({ ...source.reading!, spec }, (progress, toolCalls) => {
        if (this.loadCancellation !== cancellation || this.disposed) return;
        for (const update of toolCalls) this.changes.add(update);
        this.progressed(preview, progress, cancellation);
      });
      for (const update of done.toolCalls) this.changes.add(update);
      Object.assign(source.counts, done.counts);
      this.adopt(preview, done.reduced, cancellation);
      return true;
    } catch (error) {
      if (!(error instanceof FileWorkerStopped)) throw error;
      if (this.loadCancellation !== cancellation || this.disposed) return true;
      this.owner.log.warn(`Transcript of ${this.session.sessionId} (${source.file}) is read on the extension host's thread: its worker could not read it (${error.message}).`);
      // What the worker told so far goes: the file is read again here, from its start.
      this.resetTimeline();
      this.owner.feed.snapshot();
      return false;
    }
  }

  /**
   * Takes over the timeline the line worker reduced: its rows stay in the worker's file, read as
   * they are shown; the page starts over where it is (its preview rows had the same keys). Where
   * every update was in the preview, the preview is that timeline, and the worker's file goes.
   */
  private adopt(preview: Timeline, reduced: ReducedReplay, cancellation: vscode.CancellationTokenSource): void {
    this.reducing = false;
    if (reduced.updates) {
      if (this.loadCancellation !== cancellation || this.disposed) UpdateLog.discard(reduced.updates);
      else this.adoptLog(reduced.updates);
    }
    if (reduced.fileProblem) this.owner.log.warn(`Transcript of ${this.session.sessionId}: ${reduced.fileProblem}; its rows came over from the line worker's memory.`);
    if (reduced.previewWhole || this.loadCancellation !== cancellation || this.disposed) {
      if (reduced.rows.file) rmSync(reduced.rows.file.path, { force: true });
      return;
    }
    const timeline = adoptReduced(reduced, this.owner.feed.collector);
    // The preview's file goes; the rows told so far were read from the worker's file, which is this one's now.
    if (this.timeline === preview) preview.rows.dispose();
    this.closeProgressFile();
    this.timeline = timeline;
    this.rowsFrom = 'worker';
    for (const [key, at] of reduced.times) if (!this.times.times.has(key)) this.times.times.set(key, at);
    this.owner.feed.restart();
  }

  /**
   * How far the line worker is with the replay it reduces (past the preview): the rows so far,
   * read from its file, replace what this thread showed, with the same keys; the rows the page
   * shows or follows that are new or were written again since the last time go to it as changed.
   * The header lists the compactions and subagents told so far.
   */
  private progressed(preview: Timeline, progress: ReductionProgress, cancellation: vscode.CancellationTokenSource): void {
    if (this.loadCancellation !== cancellation || this.disposed || !progress.rows.file) return;
    const { path, size } = progress.rows.file;
    let file = this.progressFile;
    if (!file || file.path !== path) {
      this.closeProgressFile();
      try {
        file = this.progressFile = SpillFile.adopt(path, size);
      } catch (error) {
        this.owner.log.warn(`Transcript of ${this.session.sessionId}: the rows the line worker reduced so far cannot be read (${messageOf(error)}); they show when the replay ends.`);
        return;
      }
    }
    file.grownTo(size);
    const rows = EntityStore.reading(progress.rows, file);
    const shown = this.timeline.rows.length;
    const image: TimelineImage = { state: progress.state, updateCount: progress.updateCount, nextKey: progress.created, turnPlan: undefined, compactions: progress.compactions, toolCalls: [], messages: [], plans: [], subagents: progress.subagents };
    const timeline = Timeline.fromImage(image, this.owner.feed.collector, rows);
    if (this.timeline === preview) preview.rows.dispose();
    this.timeline = timeline;
    const changed = new Set(progress.changed);
    const { start, end, tail, size: held } = this.owner.feed.held;
    const count = rows.length;
    // What the page holds, and what it would take in as it follows new rows.
    const from = tail ? Math.max(0, count - held) : start;
    const to = tail ? count : Math.min(count, Math.max(end, shown) + MAX_RANGE_ROWS);
    for (let i = from; i < to; i++) if (i >= shown || changed.has(rows.keyNumberAt(i))) this.owner.feed.collector.created(rows.at(i)!);
    this.owner.feed.collector.markState();
  }

  /** Lets go of the handle on the worker's file (the file stays: the worker or the timeline taken over owns it). */
  private closeProgressFile(): void {
    this.progressFile?.release();
    this.progressFile = undefined;
  }

  /** The replay ended (or failed): the header says so and the page gets what is pending. */
  private ended(): void {
    this.loading = false;
    this.loaded = true;
    this.owner.markChanged();
    this.owner.feed.flush();
  }

  /** Asks what the load did (through the Sessions model): a resume shows in the header. */
  private async checkAfterLoad(): Promise<void> {
    const afterLoad = this.owner.options.afterLoad;
    if (!afterLoad) return;
    try {
      const { resumed, session } = await afterLoad(this.agentName, this.session);
      if (!resumed || this.disposed) return;
      this.resumed = session?.updatedAt ? { updatedAt: session.updatedAt } : {};
      this.owner.markChanged();
    } catch (error) {
      this.owner.log.warn(`[${this.agentName}] Checking session ${this.session.sessionId} after its load failed: ${messageOf(error)}`);
    }
  }

  private startLive(client: { onSessionUpdate(id: string, l: SessionUpdateListener): { dispose(): void } }): void {
    this.stopLive();
    const timeline = this.timeline;
    this.liveSubscription = client.onSessionUpdate(this.session.sessionId, (update, line, reduced) => {
      // Reduced before the worker handed over, read here only now: in the timeline taken over already.
      if (reduced) return this.apply(this.timeline, update, true, line, reduced, true);
      this.apply(timeline, update, true, line);
      // A merged update (the line worker's) stands for the chunks it holds.
      if (this.replayEnd === 'answer' && CONVERSATION_UPDATES.has(update.sessionUpdate)) this.lateUpdates += line ? linesIn(line) : 1;
      // A title the agent sends after our rename is its latest word.
      if (update.sessionUpdate === 'session_info_update' && typeof (update as { title?: unknown }).title === 'string') this.renamedTitle = undefined;
      // The archive RFD: the agent says so when it archives a session that is open.
      if (timeline.state.archived === true) this.setArchived(true);
      if (update.sessionUpdate === 'usage_update' || update.sessionUpdate === 'subagent_update') this.reportFacts();
      this.owner.changed();
    });
    this.live = true;
  }

  private stopLive(): void {
    this.liveSubscription?.dispose();
    this.liveSubscription = undefined;
    this.live = false;
  }

  /**
   * Applies one update, and keeps it (as the agent's `line`, when it came with one) and its
   * prompt's time. One the line worker `reduced` is applied here only for the preview; the rest
   * is counted (the header's progress) and kept, and, after the load's answer (`late`), counted as late.
   */
  private apply(timeline: Timeline, update: SessionUpdate, live = false, line?: Uint8Array, reduced?: Reduced, late = false, lines?: number): void {
    // A replay or subscription of a timeline that was reset since: its store is gone.
    if (timeline !== this.timeline || this.disposed) return;
    // The line worker counted the lines of what it applied (a run of text chunks): not counted again here.
    const count = lines ?? (line ? linesIn(line) : 1);
    if (reduced === 'applied') {
      // Counted here for the header's progress; one read here only after the hand-over is in the worker's count already.
      if (!live) {
        this.reducing = true;
        timeline.updateCount += count;
        this.owner.feed.collector.markState();
      }
    } else {
      timeline.apply(update, count);
      this.times.note(update, timeline.rows, live, Date.now());
    }
    if (late && this.replayEnd !== 'marker' && CONVERSATION_UPDATES.has(update.sessionUpdate)) this.lateUpdates += count;
    this.changes.add(update);
    // An exported file's or kept copy's tab exports from its file: nothing asks it for its updates.
    // What the line worker reduced, it keeps in its own log, which this tab takes over (adopt).
    if (!this.source && !reduced) this.updates.push(update, line);
  }

  /** The updates of a whole replay (and the live ones since), or undefined while there is none. */
  receivedUpdates(): Iterable<SessionUpdate> | undefined {
    return this.loaded && !this.loading && !this.problem && !this.source ? this.updates : undefined;
  }

  /**
   * What an export writes of this session while its tab is open, instead of loading it again:
   * the updates received and the rows already made of them, both read as they are written.
   */
  exportSource(): OpenExportSource | undefined {
    if (!this.receivedUpdates()) return undefined;
    const { timeline } = this;
    const log = this.updates;
    return {
      updates: log,
      count: log.length,
      timeline,
      rowsFrom: this.rowsFrom ?? 'host',
      current: () => !this.disposed && this.timeline === timeline && this.updates === log,
    };
  }

  prompts(): PromptEntry[] {
    return promptsOf(this.timeline.rows, this.times.times);
  }

  setTitle(title: string): void {
    this.renamedTitle = title;
    this.owner.markChanged();
  }

  setDeleted(): void {
    if (this.deleted) return;
    this.deleted = true;
    this.stopLive();
    this.owner.markChanged();
  }

  setArchived(archived: boolean): void {
    if (this.archived === archived || this.deleted) return;
    this.archived = archived;
    if (archived) {
      this.stopLive();
    } else if (this.problem?.kind === 'archived-refused') {
      void this.load();
      return;
    } else if (this.loaded && !this.loading) {
      const client = this.owner.agents.connectedClient(this.agentName);
      if (client?.capabilities.loadSession) this.startLive(client);
    }
    this.owner.markChanged();
  }

  /** The header's Unarchive and Open: through the Sessions model when it is there, then the replay again. */
  async unarchiveAndLoad(): Promise<void> {
    try {
      if (this.owner.options.unarchive) {
        await this.owner.options.unarchive(this.agentName, this.session.sessionId);
      } else {
        const client = await this.owner.agents.getClient(this.agentName);
        await client.unarchiveSession(this.session.sessionId);
        void vscode.commands.executeCommand('acpSessions.refresh');
      }
    } catch (error) {
      void vscode.window.showErrorMessage(notificationText(vscode.l10n.t('Could not unarchive "{0}": {1}', titleOf(this), messageOf(error))));
      return;
    }
    this.archived = false;
    await this.load();
  }

  /** Tells the tree the last figures and the announced children, when they changed. */
  reportFacts(): void {
    if (!this.owner.options.learned || this.loading) return;
    const facts: SessionFacts = { subagents: [] };
    const usage = this.timeline.state.usage;
    if (usage) facts.usage = usage;
    for (const entity of this.timeline.subagentsInOrder()) facts.subagents.push(entity.sessionId);
    const key = JSON.stringify(facts);
    if (key === this.reportedFacts) return;
    this.reportedFacts = key;
    this.owner.options.learned(this.agentName, this.session.sessionId, facts);
  }

  private spillFile(tag: string): SpillFile | undefined {
    return spillFileIn(this.owner.options.spillDir, tag, this.owner.log, this.session.sessionId);
  }

  /** The line worker's log of the replay is this tab's now: live updates are appended to it. */
  private adoptLog(image: UpdateLogImage): void {
    // Nothing of the replay was pushed here (the worker kept it all); what was is kept after it
    // (what a full disk took from it was told when it did: iterating would throw).
    const pushedHere = this.updates.length > 0 && this.updates.unkept === 0 ? [...this.updates] : [];
    this.updates.dispose();
    this.updates = UpdateLog.adopt(image, this.onUnkept);
    for (const update of pushedHere) this.updates.push(update);
  }

  private resetTimeline(): void {
    this.closeProgressFile();
    this.owner.feed.collector.clear();
    this.timeline?.rows.dispose();
    this.updates.dispose();
    this.timeline = new Timeline(this.owner.feed.collector, new EntityStore(this.spillFile('entities')));
    this.unkept.clear();
    this.updates = new UpdateLog(this.source ? undefined : this.spillFile('updates'), this.onUnkept);
    this.times.clear();
    this.reducing = false;
    this.changes = new ChangeCollector(this.session.cwd);
  }

  /** The tab closed: the replay and live updates stop, and the transcript's files go. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.loadCancellation?.cancel();
    this.fileReducer?.stop();
    this.stopLive();
    this.disconnectSubscription?.dispose();
    this.closeProgressFile();
    this.timeline.rows.dispose();
    this.updates.dispose();
  }

  /** Closing the tab ends the session on the agent when it can. */
  closeOnAgent(): void {
    const client = this.owner.agents.connectedClient(this.agentName);
    if (client?.capabilities.close && this.openOnAgent) {
      client.closeSession(this.session.sessionId).then(
        () => this.owner.options.closed?.(this.agentName, this.session.sessionId),
        (error: unknown) => this.owner.log.warn(`[${this.agentName}] session/close of ${this.session.sessionId} failed: ${messageOf(error)}`),
      );
    }
  }
}
