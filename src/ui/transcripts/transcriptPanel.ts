// Transcript panels: one webview editor tab per session. The host replays the session with
// `session/load` into a Timeline, keeps applying live updates afterwards, and sends the
// webview a snapshot after each `ready` and batched patches in between.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { SessionInfo, SessionUpdate, SessionUpdateListener } from '../../acp/types';
import { messageOf } from '../../acp/errors';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import { sessionLabel } from '../../sessions/format';
import { timelineToMarkdown } from '../../transcript/export';
import { notificationText, plainLine, scriptJson } from '../common/plainText';
import type { SessionTarget } from '../sessions/commandTargets';
import type { HostParts } from './hostParts';
import { partsText, type CompactionEntity, type Entity, type EntityKind, type Usage } from '../../transcript/model';
import { EntityStore } from '../../transcript/entityStore';
import { SpillFile } from '../../transcript/spillFile';
import { UpdateLog } from '../../transcript/updateLog';
import { Messages, type MessageRecorder } from '../common/messages';
import { UnkeptUpdates, watchSpillFailures } from './transcriptTrouble';
import { usageSeries } from '../../transcript/usage';
import { WebviewFeed } from '../../transcript/feed';
import { TranscriptFind } from '../../transcript/find';
import {
  allowedLink,
  TRANSCRIPT_VIEW_TYPE,
  type HostAction,
  type HostToWebview,
  type OpenSubagentAction,
  type TranscriptHeader,
  type TranscriptProblem,
  type WebviewState,
  type WebviewToHost,
} from '../../transcript/protocol';
import { Timeline } from '../../transcript/timeline';
import { promptsOf, PromptTimes, type PromptEntry } from '../../transcript/prompts';
import { forEachSlice, type OpenedReplay } from '../../transcript/replayReader';
import { resumeTemplate } from '../common/settings';
import { openLocation } from './toolLinks';

export { TRANSCRIPT_VIEW_TYPE };

/** What a test (or the API) can read about an open transcript, from the host's timeline. */
/** Updates that are the conversation itself (not its title, usage or commands): what a late replay sends. */
/**
 * How long a transcript's replay waits for its page to say `ready` at most (see
 * `TranscriptPanel.pageStarted`): a page that never loads does not hold the replay (and what
 * reads it: find, export, search) back for longer. VS Code creates a webview in 0.5 to 1.5 s
 * here, up to 3 s on a loaded machine: well above that, a slow page is still waited for.
 */
const PAGE_WAIT_MS = 10_000;

const CONVERSATION_UPDATES: ReadonlySet<string> = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan']);

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
  updateCount: number;
  entityCount: number;
  kinds: Partial<Record<EntityKind, number>>;
  compactions: { compactionId: string; status: string; summary: string; error?: string }[];
  /** The children announced by `subagent_update`, in timeline order. */
  subagents: { sessionId: string; key: string; title?: string; state?: string }[];
  /** How many `usage_update`s the timeline kept. */
  usageCount: number;
  problem?: TranscriptProblem;
  /** The header offers Rename… (the agent advertises `sessionCapabilities.title`). */
  canRename: boolean;
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
  /** What had happened when the first replay began (it waits for one): the page's `ready`, the tab hidden or closed, or PAGE_WAIT_MS gone by. */
  replayWaitedFor: PageWait | undefined;
  /** postMessage calls to the webview since the panel opened, and their JSON size when measured. */
  messagesPosted: number;
  bytesPosted: number;
}

export type PageWait = 'ready' | 'hidden' | 'closed' | 'timeout';

/** What an opened transcript learned about its session, for the tree: only what the agent said. */
export interface SessionFacts {
  /** The last `usage_update`. */
  usage?: Usage;
  /** The child sessions its `subagent_update`s announced, in order. */
  subagents: string[];
}

export interface TranscriptPanelsOptions {
  /** Unarchives through the Sessions model, so the tree moves the session at once. */
  unarchive?(agentName: string, sessionId: string): Promise<void>;
  /**
   * After a successful load: what the load did, as the agent lists the session now (no side
   * effects). `resumed`: the load made it newer (claude, codex resume what they load).
   */
  afterLoad?(agentName: string, before: SessionInfo): Promise<{ resumed: boolean; session?: SessionInfo }>;
  /** After the tab's `session/close`: the session's live state changed. */
  closed?(agentName: string, sessionId: string): void;
  /** After each `session/load`: the error when the agent could not replay it (session health). */
  loaded?(agentName: string, sessionId: string, error?: unknown): void;
  /** A replay ended, or a live update changed the figures or the children. */
  learned?(agentName: string, sessionId: string, facts: SessionFacts): void;
  /**
   * After a successful replay: its entities, for the search index, in batches read from the
   * transcript's file (the iteration fails when the tab closes before it ends).
   */
  replayed?(agentName: string, session: SessionInfo & { archived: boolean }, entities: AsyncIterable<readonly Entity[]>): void;
  /**
   * Where open transcripts keep what the heap need not hold (a directory of ours; its files of
   * extension hosts no longer running are removed at activation). Unset: everything on the heap.
   */
  spillDir?: string;
  /** The Test mode's recorder of messages (a full disk under spillDir is told through them). */
  recorder?: MessageRecorder;
}

/** An exported replay being read, for its tab: the file, its updates as read, and how a subagent row opens its child. */
export interface ExportedSource extends Pick<OpenedReplay, 'header' | 'slices' | 'close'> {
  file: string;
  /** Opens a child the file's subagent row names from the same export, or says it is not there: never an agent. */
  openChild(sessionId: string): Promise<void>;
}

/** A place to show in a transcript: the first match of `text` at or after entity `index` (Search Sessions). */
export interface TranscriptMatch {
  index: number;
  text: string;
}

export class TranscriptPanels implements vscode.Disposable {
  /** What the tabs tell the user (agent text made plain; recorded in Test mode). */
  readonly messages = new Messages();
  private readonly panels = new Map<string, TranscriptPanel>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changeEmitter = new vscode.EventEmitter<{ agentName: string; sessionId: string }>();
  /** Fires whenever a transcript's state changes (loading ends, an update is applied, ...). */
  readonly onDidChangeState = this.changeEmitter.event;
  /** When true, every message's JSON size is added to `bytesPosted` (costs a stringify). */
  measureBytes = false;
  private lastActive: TranscriptPanel | undefined;

  constructor(
    readonly context: vscode.ExtensionContext,
    readonly agents: AgentRegistry,
    readonly log: vscode.LogOutputChannel,
    /** The main bundle's parts (this class is in dist/transcripts.js, loaded on first use). */
    readonly host: HostParts,
    readonly options: TranscriptPanelsOptions = {},
  ) {
    this.messages.recorder = options.recorder;
    this.disposables.push(watchSpillFailures(log, options.recorder));
    // The panel serializer and the transcript commands are registered by the main bundle
    // (src/ui/transcripts/register.ts), which loads this one when they first need it.
    this.disposables.push(this.changeEmitter);
  }

  /** Opens the session's transcript, or reveals its tab when it is already open. */
  async open(agentName: string, session: SessionInfo): Promise<void> {
    const existing = this.panels.get(panelKey(agentName, session.sessionId));
    this.host.walkthrough.openedTranscript();
    if (existing) {
      existing.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(TRANSCRIPT_VIEW_TYPE, plainLine(sessionLabel(session), 100), vscode.ViewColumn.Active, this.webviewOptions());
    this.add(new TranscriptPanel(this, agentName, session, panel));
  }

  /** Opens the session's transcript (or its tab) and shows the match with the transcript's find. */
  async openAt(agentName: string, session: SessionInfo, match: TranscriptMatch): Promise<void> {
    await this.open(agentName, session);
    this.panels.get(panelKey(agentName, session.sessionId))?.showMatch(match);
  }

  /**
   * Shows an exported replay as a transcript, read-only, with no agent (Open Exported
   * Transcript…), its updates applied a slice at a time as they are read; reveals its tab when
   * that file is open already (and reads nothing). Resolves with its state once the read ended.
   */
  async openExported(source: ExportedSource): Promise<TranscriptState> {
    const existing = this.panels.get(exportedKey(source.file));
    if (existing) {
      await source.close();
      existing.reveal();
      return existing.state();
    }
    const { header } = source;
    const session: SessionInfo = { sessionId: header.sessionId, cwd: header.cwd, title: header.title ?? null, updatedAt: header.updatedAt ?? null };
    const panel = vscode.window.createWebviewPanel(TRANSCRIPT_VIEW_TYPE, plainLine(sessionLabel(session), 100), vscode.ViewColumn.Active, this.webviewOptions());
    const transcript = new TranscriptPanel(this, header.agentName, session, panel, source);
    this.add(transcript);
    await transcript.replayDone;
    return transcript.state();
  }

  /** @internal as `receiveFromWebview`, for the tab of an exported file (integration tests). */
  receiveFromExportedWebview(file: string, message: WebviewToHost): void {
    this.panels.get(exportedKey(file))?.receive(message);
  }

  /** The state of an exported transcript's tab (tests). */
  exportedState(file: string): TranscriptState | undefined {
    return this.panels.get(exportedKey(file))?.state();
  }

  /** The updates an open, loaded transcript received (replay and live), for an export that must not load it again. */
  updatesOf(agentName: string, sessionId: string): Iterable<SessionUpdate> | undefined {
    return this.panels.get(panelKey(agentName, sessionId))?.receivedUpdates();
  }

  /** The transcript tab in front (or the last one that was): what Go to Prompt and the prompt keys act on. */
  activeTranscript(): { prompts(): PromptEntry[]; post(message: HostToWebview): void; title(): string; exportMarkdown(): Promise<void> } | undefined {
    const panel = this.active();
    return panel && { prompts: () => panel.prompts(), post: (m) => panel.post(m), title: () => panel.titleText(), exportMarkdown: () => panel.exportMarkdown() };
  }

  /** Marks an open transcript's session deleted: it says so and follows no more live updates. */
  setDeleted(agentName: string, sessionId: string): void {
    this.panels.get(panelKey(agentName, sessionId))?.setDeleted();
  }

  /** Marks an open transcript archived or not; an archived session expects no live updates. */
  setArchived(agentName: string, sessionId: string, archived: boolean): void {
    this.panels.get(panelKey(agentName, sessionId))?.setArchived(archived);
  }

  /** Shows the title the agent stored after a rename in an open transcript's tab and header. */
  setTitle(agentName: string, sessionId: string, title: string): void {
    this.panels.get(panelKey(agentName, sessionId))?.setTitle(title);
  }

  /** How many transcript tabs are open. */
  get openCount(): number {
    return this.panels.size;
  }

  /** The state of an open transcript, or undefined when no tab shows it. */
  getState(agentName: string, sessionId: string): TranscriptState | undefined {
    return this.panels.get(panelKey(agentName, sessionId))?.state();
  }

  /** Resolves with the state once the transcript's current replay has finished. */
  async whenLoaded(agentName: string, sessionId: string): Promise<TranscriptState> {
    const panel = this.panels.get(panelKey(agentName, sessionId));
    if (!panel) throw new Error(`No transcript of ${sessionId} (${agentName}) is open.`);
    await panel.replayDone;
    return panel.state();
  }

  /** Resolves once the check after the transcript's load (`afterLoad`) has finished. */
  async whenChecked(agentName: string, sessionId: string): Promise<TranscriptState> {
    const panel = this.panels.get(panelKey(agentName, sessionId));
    if (!panel) throw new Error(`No transcript of ${sessionId} (${agentName}) is open.`);
    await panel.replayDone;
    await panel.afterLoadDone;
    return panel.state();
  }

  /** @internal delivers `message` as if the transcript's webview had posted it (integration tests: the header's buttons). */
  receiveFromWebview(agentName: string, sessionId: string, message: WebviewToHost): void {
    this.panels.get(panelKey(agentName, sessionId))?.receive(message);
  }

  /** The transcript as Markdown, as "Export as Markdown" writes it. */
  markdown(agentName: string, sessionId: string): string | undefined {
    return this.panels.get(panelKey(agentName, sessionId))?.markdown();
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) panel.dispose();
    for (const d of this.disposables) d.dispose();
  }

  // --- internals for TranscriptPanel ---------------------------------------------------------

  webviewOptions(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    const root = this.context.extensionUri;
    return {
      enableScripts: true,
      // Rebuilt from the host's timeline when shown again: nothing to keep while hidden.
      retainContextWhenHidden: false,
      // The webview holds only the rows on screen: its own find bar searches the host's timeline.
      enableFindWidget: false,
      localResourceRoots: [
        vscode.Uri.joinPath(root, 'media'),
        vscode.Uri.joinPath(root, 'dist', 'webview'),
        vscode.Uri.joinPath(root, 'dist', 'codicons'),
      ],
    };
  }

  changed(panel: TranscriptPanel): void {
    this.changeEmitter.fire({ agentName: panel.agentName, sessionId: panel.session.sessionId });
  }

  activated(panel: TranscriptPanel): void {
    this.lastActive = panel;
  }

  removed(panel: TranscriptPanel): void {
    const key = panel.key;
    if (this.panels.get(key) === panel) this.panels.delete(key);
    if (this.lastActive === panel) this.lastActive = undefined;
  }

  private add(panel: TranscriptPanel): void {
    this.panels.set(panel.key, panel);
    this.lastActive = panel;
    void panel.load();
  }

  private active(): TranscriptPanel | undefined {
    for (const panel of this.panels.values()) if (panel.isActive) return panel;
    return this.lastActive;
  }

  /** A window reload: rebuild the tab from the agent (session/load again). */
  async restore(webviewPanel: vscode.WebviewPanel, raw: unknown): Promise<void> {
    const state = raw as Partial<WebviewState> | undefined;
    if (state && typeof state.exportedFile === 'string') {
      // An exported copy comes back from its file, never from an agent.
      webviewPanel.dispose();
      await vscode.commands.executeCommand('acpSessions.openExportedTranscript', vscode.Uri.file(state.exportedFile));
      return;
    }
    if (!state || typeof state.agentName !== 'string' || typeof state.sessionId !== 'string' || typeof state.cwd !== 'string') {
      webviewPanel.dispose();
      return;
    }
    const key = panelKey(state.agentName, state.sessionId);
    if (this.panels.has(key)) {
      webviewPanel.dispose();
      this.panels.get(key)!.reveal();
      return;
    }
    webviewPanel.webview.options = this.webviewOptions();
    const session: SessionInfo = { sessionId: state.sessionId, cwd: state.cwd, title: state.title || null, updatedAt: state.updatedAt ?? null };
    if (typeof state.archived === 'boolean') (session as SessionInfo & { archived?: boolean }).archived = state.archived;
    this.add(new TranscriptPanel(this, state.agentName, session, webviewPanel));
  }
}

class TranscriptPanel {
  private timeline!: Timeline;
  /** Snapshots after `ready`, batched patches between: the same code the benchmarks measure. */
  private readonly feed = new WebviewFeed({
    post: (message) => this.post(message),
    header: () => this.header(),
    timeline: () => this.timeline,
    loading: () => this.loading,
    flushed: () => this.owner.changed(this),
  });
  private readonly times = new PromptTimes();
  /** Every update applied since the last reset, in order (an export of this session writes them). */
  private updates = new UpdateLog();
  private unkept!: UnkeptUpdates;
  readonly key: string;
  private readonly finder = new TranscriptFind(() => this.timeline.rows, (message) => this.post(message));
  private loading = false;
  private loaded = false;
  private live = false;
  private archived: boolean;
  /** The agent no longer has the session (the sessions model said so). */
  private deleted = false;
  /** Set by a rename from this window; wins over titles replayed from history. */
  private renamedTitle: string | undefined;
  /** Set when the agent reported that the load resumed the session: its new `updatedAt`. */
  private resumed: { updatedAt?: string } | undefined;
  /** How the last replay was known to be whole: the agent's mark, or only its answer. */
  private replayEnd: 'marker' | 'answer' | undefined;
  /** Updates of the conversation that came after the answer of an agent that marks no end. */
  private lateUpdates = 0;
  private problem: TranscriptProblem | undefined;
  private liveSubscription: { dispose(): void } | undefined;
  private disconnectSubscription: { dispose(): void } | undefined;
  private loadCancellation: vscode.CancellationTokenSource | undefined;
  private disposed = false;
  /** session/load succeeded, so the agent holds the session open until session/close. */
  private openOnAgent = false;
  private readonly disposables: vscode.Disposable[] = [];
  private messagesPosted = 0;
  /** A match to show once the replay ended and the webview is ready (Search Sessions). */
  private pendingMatch: TranscriptMatch | undefined;
  private webviewReady = false;
  /**
   * Settles once the page has said `ready` (or the tab was hidden or closed, or PAGE_WAIT_MS
   * went by first): the replay starts then, not while VS Code creates the webview. Both need
   * the CPU, and a long replay on a machine of two cores slowed the webview's start by up to
   * half (figure 9: first screen 1.57x the floor session's at 200,000 chunks, 0.96x waiting).
   */
  private readonly pageStarted: Promise<void>;
  private readonly startPage: (why: PageWait) => void;
  private pageWait: PageWait | undefined;
  private replayWaitedFor: PageWait | undefined;
  private bytesPosted = 0;
  /** Settles when the current replay ends. */
  replayDone: Promise<void> = Promise.resolve();
  /** Settles when the check after the last successful load ends. */
  afterLoadDone: Promise<void> = Promise.resolve();

  constructor(
    private readonly owner: TranscriptPanels,
    readonly agentName: string,
    readonly session: SessionInfo,
    private readonly panel: vscode.WebviewPanel,
    /** An exported replay: shown from its file's updates, with no agent. */
    private readonly source?: ExportedSource,
  ) {
    this.key = source ? exportedKey(source.file) : panelKey(agentName, session.sessionId);
    this.unkept = new UnkeptUpdates(owner.log, `Transcript of ${session.sessionId}${source ? ` (${source.file})` : ''}`);
    this.archived = (session as SessionInfo & { archived?: boolean }).archived === true;
    this.resetTimeline();
    panel.iconPath = vscode.Uri.joinPath(owner.context.extensionUri, 'media', 'acp-sessions.svg');
    panel.webview.html = this.html();
    let started!: () => void;
    this.pageStarted = new Promise<void>((resolve) => (started = resolve));
    const timer = setTimeout(() => this.startPage('timeout'), PAGE_WAIT_MS);
    this.startPage = (why) => {
      if (this.pageWait) return;
      this.pageWait = why;
      clearTimeout(timer);
      started();
    };
    this.disposables.push(
      panel.webview.onDidReceiveMessage((message: WebviewToHost) => this.receive(message)),
      panel.onDidChangeViewState(() => {
        // Hidden webviews are discarded (no retainContextWhenHidden); the next `ready` rebuilds.
        if (!panel.visible) {
          this.feed.setNotReady();
          this.webviewReady = false;
          // No page to make way for until the tab is shown again.
          this.startPage('hidden');
        }
        if (panel.active) owner.activated(this);
        owner.changed(this);
      }),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  get isActive(): boolean {
    return !this.disposed && this.panel.active;
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Shows `match` with the find bar once the replay has ended and the webview is ready. */
  showMatch(match: TranscriptMatch): void {
    this.pendingMatch = match;
    void this.replayDone.then(() => this.postPendingMatch());
  }

  private postPendingMatch(): void {
    const match = this.pendingMatch;
    if (!match || !this.webviewReady || this.loading || this.disposed) return;
    this.pendingMatch = undefined;
    this.post({ type: 'openFind', query: match.text.slice(0, 1000), from: match.index });
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
    const cancellation = (this.loadCancellation = new vscode.CancellationTokenSource());
    this.resetTimeline();
    this.problem = undefined;
    this.loading = true;
    this.feed.snapshot();
    const { agentName, session } = this;
    if (this.source) {
      const timeline = this.timeline;
      try {
        // A slice at a time, the host free between them: a file of any length never holds it.
        await forEachSlice(this.source.slices, (update) => this.apply(timeline, update), () => this.loadCancellation === cancellation && !this.disposed);
      } catch (error) {
        this.owner.log.warn(`Transcript of ${session.sessionId} (${this.source.file}) could not be shown: ${messageOf(error)}`);
        this.problem = { kind: 'load-failed', message: vscode.l10n.t('The transcript could not be loaded: {0}', messageOf(error)), actions: ['showLog'] };
      } finally {
        await this.source.close();
        if (this.loadCancellation === cancellation && !this.disposed) {
          this.loading = false;
          this.loaded = true;
          this.markChanged();
          this.feed.flush();
        }
      }
      return;
    }
    try {
      let client;
      try {
        client = await this.owner.agents.getClient(agentName);
      } catch (error) {
        this.problem = { kind: 'agent-unavailable', message: vscode.l10n.t('Agent "{0}" is not available: {1}', agentName, messageOf(error)), actions: ['retry', 'showLog'] };
        return;
      }
      if (cancellation.token.isCancellationRequested) return;
      if (!client.capabilities.loadSession) {
        this.problem = {
          kind: 'no-load',
          message: client.capabilities.resume
            ? vscode.l10n.t('Agent "{0}" cannot replay past sessions: it does not advertise loadSession, so there is no history to show here. It can resume the session to continue it, but resuming does not send the earlier conversation.', agentName)
            : vscode.l10n.t('Agent "{0}" cannot replay past sessions: it does not advertise loadSession, so there is no history to show here.', agentName),
          actions: [],
        };
        return;
      }
      this.disconnectSubscription?.dispose();
      this.disconnectSubscription = client.onDidDisconnect((error) => {
        if (this.disposed) return;
        this.stopLive();
        this.problem = { kind: 'agent-unavailable', message: vscode.l10n.t('Agent "{0}" disconnected: {1}', agentName, messageOf(error)), actions: ['retry', 'showLog'] };
        this.markChanged();
      });
      // The replay waits for the page (see pageStarted); the agent was started meanwhile.
      await this.pageStarted;
      this.replayWaitedFor ??= this.pageWait;
      if (cancellation.token.isCancellationRequested || this.disposed) return;
      const timeline = this.timeline;
      this.replayEnd = undefined;
      this.lateUpdates = 0;
      try {
        // An agent that marks the end of its replay: the transcript is whole then, even before
        // its answer; without the mark, the answer says so (and later updates are counted).
        const result = await client.loadSession(session.sessionId, session.cwd, (update, line) => this.apply(timeline, update, false, line), cancellation.token, {
          onReplayEnd: () => {
            if (this.loadCancellation !== cancellation || this.disposed) return;
            this.replayEnd = 'marker';
            this.loading = false;
            this.loaded = true;
            this.markChanged();
          },
        });
        this.replayEnd = result.replayEnd;
      } catch (error) {
        if (cancellation.token.isCancellationRequested || this.disposed) return;
        this.owner.log.warn(`[${agentName}] session/load of ${session.sessionId} failed: ${messageOf(error)}`);
        // A crash says nothing about the session; the agent's refusal or a time-out does.
        if (!(error instanceof this.owner.host.AgentDisconnectedError)) this.owner.options.loaded?.(agentName, session.sessionId, error);
        // Only the agent's refusal says the session is archived away; a crash is retried as is.
        this.problem = this.archived && !(error instanceof this.owner.host.AgentDisconnectedError)
          ? {
              kind: 'archived-refused',
              message: vscode.l10n.t('Agent "{0}" did not replay this archived session ({1}). Unarchive it to read its transcript.', agentName, messageOf(error)),
              actions: ['unarchiveAndOpen', 'showLog'],
            }
          : { kind: 'load-failed', message: vscode.l10n.t('The transcript could not be loaded: {0}', messageOf(error)), actions: ['retry', 'showLog'] };
        return;
      }
      this.openOnAgent = true;
      this.owner.options.loaded?.(agentName, session.sessionId);
      this.owner.options.replayed?.(agentName, { ...session, archived: this.archived }, timeline.rows.batches());
      if (cancellation.token.isCancellationRequested || this.disposed) return;
      this.afterLoadDone = this.checkAfterLoad();
      // Subscribed only now: during the replay the same listener list carries the replay.
      if (!this.archived && !this.deleted) this.startLive(client);
    } finally {
      if (this.loadCancellation === cancellation) {
        this.loading = false;
        this.loaded = true;
        this.markChanged();
        this.feed.flush();
      }
    }
  }

  /** Asks what the load did (through the Sessions model): a resume shows in the header. */
  private async checkAfterLoad(): Promise<void> {
    const afterLoad = this.owner.options.afterLoad;
    if (!afterLoad) return;
    try {
      const { resumed, session } = await afterLoad(this.agentName, this.session);
      if (!resumed || this.disposed) return;
      this.resumed = session?.updatedAt ? { updatedAt: session.updatedAt } : {};
      this.markChanged();
    } catch (error) {
      this.owner.log.warn(`[${this.agentName}] Checking session ${this.session.sessionId} after its load failed: ${messageOf(error)}`);
    }
  }

  private startLive(client: { onSessionUpdate(id: string, l: SessionUpdateListener): { dispose(): void } }): void {
    this.stopLive();
    const timeline = this.timeline;
    this.liveSubscription = client.onSessionUpdate(this.session.sessionId, (update, line) => {
      this.apply(timeline, update, true, line);
      if (this.replayEnd === 'answer' && CONVERSATION_UPDATES.has(update.sessionUpdate)) this.lateUpdates++;
      // A title the agent sends after our rename is its latest word.
      if (update.sessionUpdate === 'session_info_update' && typeof (update as { title?: unknown }).title === 'string') this.renamedTitle = undefined;
      // The archive RFD: the agent says so when it archives a session that is open.
      if (timeline.state.archived === true) this.setArchived(true);
      if (update.sessionUpdate === 'usage_update' || update.sessionUpdate === 'subagent_update') this.reportFacts();
      this.owner.changed(this);
    });
    this.live = true;
  }

  private stopLive(): void {
    this.liveSubscription?.dispose();
    this.liveSubscription = undefined;
    this.live = false;
  }

  /** Applies one update, and keeps it (as the agent's `line`, when it came with one) and its prompt's time. */
  private apply(timeline: Timeline, update: SessionUpdate, live = false, line?: Uint8Array): void {
    // A replay or subscription of a timeline that was reset since: its store is gone.
    if (timeline !== this.timeline || this.disposed) return;
    timeline.apply(update);
    this.updates.push(update, line);
    this.times.note(update, timeline.rows, live, Date.now());
  }

  receivedUpdates(): Iterable<SessionUpdate> | undefined {
    return this.loaded && !this.loading && !this.problem ? this.updates : undefined;
  }

  prompts(): PromptEntry[] {
    return promptsOf(this.timeline.rows, this.times.times);
  }

  titleText(): string {
    return this.title();
  }

  setTitle(title: string): void {
    this.renamedTitle = title;
    this.markChanged();
  }

  setDeleted(): void {
    if (this.deleted) return;
    this.deleted = true;
    this.stopLive();
    this.markChanged();
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
    this.markChanged();
  }

  state(): TranscriptState {
    const kinds: Partial<Record<EntityKind, number>> = {};
    const rows = this.timeline.rows;
    for (let i = 0; i < rows.length; i++) {
      const kind = rows.kindAt(i);
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
    const compactions = [...this.timeline.compactionsInOrder()].map(compactionState);
    const subagents: TranscriptState['subagents'] = [];
    for (const entity of this.timeline.subagentsInOrder()) subagents.push({ sessionId: entity.sessionId, key: entity.key, title: entity.title, state: entity.state });
    return {
      agentName: this.agentName,
      sessionId: this.session.sessionId,
      title: this.title(),
      visible: !this.disposed && this.panel.visible,
      loading: this.loading,
      loaded: this.loaded,
      live: this.live,
      archived: this.archived,
      deleted: this.deleted,
      updateCount: this.timeline.updateCount,
      entityCount: this.timeline.rows.length,
      kinds,
      compactions,
      subagents,
      usageCount: this.timeline.state.usageHistory.length,
      problem: this.problem,
      canRename: this.canRename,
      prompts: this.prompts(),
      exported: this.source !== undefined,
      unkeptUpdates: this.unkept.total,
      resumed: this.resumed !== undefined,
      replayEnd: this.replayEnd,
      lateUpdates: this.lateUpdates,
      replayWaitedFor: this.replayWaitedFor,
      messagesPosted: this.messagesPosted,
      bytesPosted: this.bytesPosted,
    };
  }

  markdown(): string {
    return timelineToMarkdown(
      { ...this.header(), title: this.title() },
      this.timeline.rows,
      this.timeline.state,
    );
  }

  async exportMarkdown(): Promise<void> {
    const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: this.markdown() });
    await vscode.window.showTextDocument(document, { preview: false });
  }

  post(message: HostToWebview): void {
    if (this.disposed) return;
    this.messagesPosted++;
    if (this.owner.measureBytes) this.bytesPosted += JSON.stringify(message).length;
    void this.panel.webview.postMessage(message);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.startPage('closed');
    this.loadCancellation?.cancel();
    this.stopLive();
    this.disconnectSubscription?.dispose();
    this.feed.dispose();
    this.finder.cancel();
    // The transcript's files go with its tab.
    this.timeline.rows.dispose();
    this.updates.dispose();
    for (const d of this.disposables) d.dispose();
    this.owner.removed(this);
    this.panel.dispose();
    // Closing the tab ends the session on the agent when it can.
    const client = this.owner.agents.connectedClient(this.agentName);
    if (client?.capabilities.close && this.openOnAgent) {
      client.closeSession(this.session.sessionId).then(
        () => this.owner.options.closed?.(this.agentName, this.session.sessionId),
        (error: unknown) => this.owner.log.warn(`[${this.agentName}] session/close of ${this.session.sessionId} failed: ${messageOf(error)}`),
      );
    }
    this.owner.changed(this);
  }

  // --- webview messaging -------------------------------------------------------------------

  receive(message: WebviewToHost): void {
    if (!message || typeof message !== 'object') return;
    switch (message.type) {
      case 'ready': {
        this.startPage('ready');
        const start = message.start;
        this.feed.setReady(start && typeof start === 'object' ? { key: typeof start.key === 'string' ? start.key : undefined, end: start.end === true } : undefined, message.viewport);
        this.webviewReady = true;
        this.postPendingMatch();
        break;
      }
      case 'range':
        if (typeof message.start === 'number' && typeof message.end === 'number') this.feed.range(message.start, message.end, message.tail === true, message.viewport);
        break;
      case 'find':
        if (typeof message.query === 'string' && typeof message.seq === 'number') {
          this.finder.find(message.seq, message.query.slice(0, 1000), message.step === 1 || message.step === -1 ? message.step : 0, Number(message.from) || 0);
        }
        break;
      case 'openLink':
        void this.openLink(message.href);
        break;
      case 'action':
        if (typeof message.action === 'string' && message.action.startsWith('openSubagent:')) void this.openSubagent(message.action as OpenSubagentAction);
        else void this.runAction(message.action as HostAction);
        break;
      case 'compactionRead':
        this.owner.host.walkthrough.readCompaction();
        break;
      case 'openTool':
        if (typeof message.key === 'string' && typeof message.target === 'string') void this.openTool(message.key, message.target);
        break;
    }
  }

  private async openLink(href: unknown): Promise<void> {
    const uri = linkToOpen(href);
    if (!uri) {
      this.owner.log.warn(`Refused to open a link from a transcript: ${JSON.stringify(String(href).slice(0, 200))}`);
      return;
    }
    await vscode.env.openExternal(uri).then(undefined, (error: unknown) =>
      this.owner.log.warn(`Could not open a link from a transcript: ${messageOf(error)}`),
    );
  }

  /** A tool call's location or diff, found in this timeline by row key and position. */
  private async openTool(key: string, target: string): Promise<void> {
    const entity = this.timeline.get(key);
    const match = /^(location|diff):(\d{1,6})$/.exec(target);
    if (entity?.kind !== 'tool_call' || !match) {
      this.owner.log.warn(`A transcript asked to open a tool target that is not there: ${JSON.stringify(target.slice(0, 200))}`);
      return;
    }
    const index = Number(match[2]);
    const warn = (text: string) => void this.owner.messages.show('warning', text);
    if (match[1] === 'location') {
      const location = entity.locations[index];
      if (location) await openLocation(location, this.session.cwd, warn);
      return;
    }
    const item = entity.content[index];
    if (item?.type !== 'diff') return;
    const title = vscode.l10n.t('{0} (from "{1}", read-only)', plainLine(item.path, 200), plainLine(entity.title || entity.toolCallId, 100));
    await this.owner.host.diffs.open(item, title);
  }

  /** Opens the child a subagent row shows; the id comes from this timeline, never the webview. */
  private async openSubagent(action: OpenSubagentAction): Promise<void> {
    const entity = this.timeline.get(action.slice('openSubagent:'.length));
    if (entity?.kind !== 'subagent') {
      this.owner.log.warn(`A transcript asked to open a subagent row that is not there: ${JSON.stringify(action.slice(0, 200))}`);
      return;
    }
    // An exported file is data: its child comes from the same export or not at all, never from an agent.
    if (this.source) return this.source.openChild(entity.sessionId);
    // Unset, a child's folder is its parent's (subagents schema).
    await this.owner.open(this.agentName, { sessionId: entity.sessionId, cwd: entity.cwd ?? this.session.cwd, title: entity.title ?? null });
  }

  private async runAction(action: HostAction): Promise<void> {
    switch (action) {
      case 'retry':
        await this.load();
        break;
      case 'showLog':
        this.owner.log.show();
        break;
      case 'exportMarkdown':
        await this.exportMarkdown();
        break;
      case 'rename':
        // The tree's Rename… for this session: the same validation, Undo and -32002 handling.
        if (this.canRename) {
          const title = this.renamedTitle ?? this.timeline.state.title ?? this.session.title ?? null;
          await vscode.commands.executeCommand('acpSessions.rename', new this.owner.host.SessionTarget(this.agentName, { ...this.session, title }));
        }
        break;
      case 'resume':
        if (!this.source) await vscode.commands.executeCommand('acpSessions.resumeInTerminal', this.target());
        break;
      case 'copyLink':
        if (!this.source) await vscode.commands.executeCommand('acpSessions.copyLink', this.target());
        break;
      case 'goToPrompt':
        this.owner.activated(this);
        await vscode.commands.executeCommand('acpSessions.transcript.goToPrompt');
        break;
      case 'unarchiveAndOpen':
        try {
          if (this.owner.options.unarchive) {
            await this.owner.options.unarchive(this.agentName, this.session.sessionId);
          } else {
            const client = await this.owner.agents.getClient(this.agentName);
            await client.unarchiveSession(this.session.sessionId);
            void vscode.commands.executeCommand('acpSessions.refresh');
          }
        } catch (error) {
          void vscode.window.showErrorMessage(notificationText(vscode.l10n.t('Could not unarchive "{0}": {1}', this.title(), messageOf(error))));
          return;
        }
        this.archived = false;
        await this.load();
        break;
    }
  }

  /** Header-only changes (loading, archived, problems). */
  private markChanged(): void {
    this.panel.title = plainLine(this.title(), 100);
    this.feed.collector.markState();
    this.owner.changed(this);
    this.reportFacts();
  }

  private reportedFacts = '';

  /** Tells the tree the last figures and the announced children, when they changed. */
  private reportFacts(): void {
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

  private resetTimeline(): void {
    this.feed.collector.clear();
    this.timeline?.rows.dispose();
    this.updates.dispose();
    this.timeline = new Timeline(this.feed.collector, new EntityStore(this.spillFile('entities')));
    this.unkept.clear();
    // An update that cannot be kept costs that update (counted, logged, in the header), never the tab.
    this.updates = new UpdateLog(this.spillFile('updates'), (unkept) => {
      this.unkept.add(unkept);
      this.markChanged();
    });
    this.times.clear();
  }

  /** A new file for what the heap need not hold; none (all on the heap) when there is no directory or it cannot be written. */
  private spillFile(tag: string): SpillFile | undefined {
    const dir = this.owner.options.spillDir;
    if (!dir) return undefined;
    try {
      return SpillFile.create(dir, tag);
    } catch (error) {
      this.owner.log.warn(`Transcript of ${this.session.sessionId}: no file in ${dir} (${messageOf(error)}); its rows stay in memory.`);
      return undefined;
    }
  }

  /** This session, named for a command (Resume in Terminal, Copy Link). */
  private target(): SessionTarget {
    const title = this.renamedTitle ?? this.timeline.state.title ?? this.session.title ?? null;
    return new this.owner.host.SessionTarget(this.agentName, { ...this.session, title, ...(this.archived ? { archived: true } : {}) } as SessionInfo);
  }

  private get canRename(): boolean {
    if (this.source) return false;
    return this.owner.agents.agent(this.agentName)?.capabilities?.title === true;
  }

  private title(): string {
    const title = this.renamedTitle ?? this.timeline.state.title ?? this.session.title ?? undefined;
    return sessionLabel({ sessionId: this.session.sessionId, title });
  }

  private header(): TranscriptHeader {
    const state = this.timeline.state;
    const header: TranscriptHeader = {
      agentName: this.agentName,
      sessionId: this.session.sessionId,
      cwd: this.session.cwd,
      title: this.title(),
      archived: this.archived,
      loading: this.loading,
      updateCount: this.timeline.updateCount,
      live: this.live,
      notices: this.unkept.notices(state.notices),
    };
    // After a resuming load the agent's date is the new one, not the one listed before.
    const updatedAt = this.resumed?.updatedAt ?? state.updatedAt ?? this.session.updatedAt ?? undefined;
    if (updatedAt) header.updatedAt = updatedAt;
    if (state.usage) header.usage = state.usage;
    // Drawn once the replay has ended: the header goes with every batch of a replay, the series need not.
    const series = this.loading ? undefined : usageSeries(state.usageHistory, this.timeline.compactionsInOrder(), this.timeline.created);
    if (series) {
      for (const mark of series.marks) mark.index = this.timeline.indexOf(mark.key);
      header.usageSeries = series;
    }
    if (state.currentModeId) header.currentModeId = state.currentModeId;
    if (this.problem) header.problem = this.problem;
    if (this.deleted) header.deleted = true;
    else if (this.canRename) header.canRename = true;
    if (this.source) header.exported = { file: this.source.file };
    else if (!this.deleted && resumeTemplate(this.agentName)) header.canResume = true;
    if (this.resumed) header.resumed = this.resumed;
    if (this.lateUpdates > 0) header.lateUpdates = this.lateUpdates;
    return header;
  }

  private html(): string {
    const webview = this.panel.webview;
    const root = this.owner.context.extensionUri;
    const asset = (...path: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(root, ...path)).toString();
    const nonce = makeNonce();
    const csp = [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
    ].join('; ');
    // The display language's strings for the webview's t(); a data block, never run, and no `<` in it can end the element.
    const bundle = scriptJson(vscode.l10n.bundle ?? {});
    return `<!DOCTYPE html>
<html lang="${escapeAttribute(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('dist', 'codicons', 'codicon.css')}">
<link rel="stylesheet" href="${asset('media', 'transcript.css')}">
<title>${escapeAttribute(vscode.l10n.t('Transcript'))}</title>
</head>
<body data-loading="true" data-markdown="done">
<header id="header" class="header"></header>
<main id="timeline" class="timeline" aria-label="${escapeAttribute(vscode.l10n.t('Transcript'))}" data-rows="0"></main>
<script type="application/json" id="l10n-bundle">${bundle}</script>
<script nonce="${nonce}" src="${asset('dist', 'webview', 'transcript.js')}"></script>
</body>
</html>`;
  }
}

/**
 * The URI a transcript link opens, or undefined when it must not open. Checked again here (the
 * webview is not trusted to have done it); never throws, whatever the webview sent.
 */
export function linkToOpen(href: unknown): vscode.Uri | undefined {
  const link = typeof href === 'string' ? allowedLink(href) : undefined;
  if (!link) return undefined;
  let uri: vscode.Uri;
  try {
    uri = vscode.Uri.parse(link, true);
  } catch {
    return undefined;
  }
  return ['http', 'https', 'mailto'].includes(uri.scheme.toLowerCase()) ? uri : undefined;
}

function compactionState(entity: CompactionEntity): TranscriptState['compactions'][number] {
  const state: TranscriptState['compactions'][number] = { compactionId: entity.compactionId, status: entity.status, summary: partsText(entity.summary) };
  if (entity.error !== undefined) state.error = entity.error;
  return state;
}

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function exportedKey(file: string): string {
  return `\u0001exported\u0000${file}`;
}

function panelKey(agentName: string, sessionId: string): string {
  return `${agentName}\u0000${sessionId}`;
}

// node:crypto, not globalThis.crypto: the Node of older extension hosts has no global Web Crypto.
function makeNonce(): string {
  return randomBytes(16).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}
