// One transcript tab: its webview panel, the page in it (which must say `ready` before it is fed,
// and is discarded while hidden) and the feed that sends the page a snapshot after each `ready`
// and batched patches in between. The replay, the page's messages and the header are its parts.
import * as vscode from 'vscode';
import type { SessionInfo, SessionUpdate } from '../../acp/types';
import { timelineToMarkdown } from '../../transcript/export';
import { WebviewFeed } from '../../transcript/feed';
import { TranscriptFind } from '../../transcript/find';
import type { HostToWebview, StartAt, Viewport, WebviewToHost } from '../../transcript/protocol';
import type { PromptEntry } from '../../transcript/prompts';
import type { Messages } from '../common/messages';
import { plainLine } from '../common/plainText';
import type { HostParts } from './hostParts';
import { headerOf, stateOf, titleOf, type PageWait, type TranscriptState } from './transcriptHeader';
import { transcriptHtml } from './transcriptHtml';
import { TranscriptMessages } from './transcriptMessages';
import type { ExportedSource, OpenExportSource, ReplayOptions, ReplayOwner } from './replayContract';
import { TranscriptReplay } from './transcriptReplay';

/**
 * How long a transcript's replay waits for its page to say `ready` at most (see
 * `TranscriptTab.pageStarted`): a page that never loads does not hold the replay (and what
 * reads it: find, export, search) back for longer. VS Code creates a webview in 0.5 to 1.5 s
 * here, up to 3 s on a loaded machine: well above that, a slow page is still waited for.
 */
const PAGE_WAIT_MS = 10_000;

/** A place to show in a transcript: the first match of `text` at or after entity `index` (Search Sessions). */
export interface TranscriptMatch {
  index: number;
  text: string;
  /**
   * When the search had several words (or a prefix): its words and "phrases" as it reads them,
   * which the find shows and steps through each of, instead of `text` alone.
   */
  words?: string;
  /** With `words`: what the match's line highlighted, as written there (the find finds those too). */
  matched?: string[];
}

/** What a tab needs of the panels that hold it. */
export interface TabOwner {
  readonly context: Pick<vscode.ExtensionContext, 'extensionUri'>;
  readonly agents: ReplayOwner['agents'];
  readonly log: vscode.LogOutputChannel;
  readonly host: HostParts;
  readonly options: ReplayOptions;
  /** What the tabs tell the user. */
  readonly messages: Pick<Messages, 'show'>;
  /** When true, every message's JSON size is added to `bytesPosted`. */
  readonly measureBytes: boolean;
  open(agentName: string, session: SessionInfo): Promise<void>;
  /** The tab's state changed. */
  changed(tab: TranscriptTab): void;
  /** The tab came to the front (or acts as if it had: Go to Prompt). */
  activated(tab: TranscriptTab): void;
  /** The tab closed. */
  removed(tab: TranscriptTab): void;
}

export class TranscriptTab {
  /** Snapshots after `ready`, batched patches between: the same code the benchmarks measure. */
  private readonly feed = new WebviewFeed({
    post: (message) => this.post(message),
    header: () => headerOf(this.replay),
    timeline: () => this.replay.timeline,
    loading: () => this.replay.loading,
    flushed: () => this.owner.changed(this),
  });
  private readonly finder = new TranscriptFind(() => this.replay.timeline.rows, (message) => this.post(message));
  private readonly replay: TranscriptReplay;
  private readonly pageMessages: TranscriptMessages;
  private disposed = false;
  private readonly disposables: vscode.Disposable[] = [];
  private messagesPosted = 0;
  private bytesPosted = 0;
  /** A match to show once the replay ended and the webview is ready (Search Sessions). */
  private pendingMatch: TranscriptMatch | undefined;
  private webviewReady = false;
  /** The row the reader is at, as the page last said (Go to Prompt… starts at the prompt at or above it). */
  private readingIndex = 0;
  /**
   * Settles once the page has said `ready` (or the tab was hidden or closed, or PAGE_WAIT_MS
   * went by first): the replay starts then, not while VS Code creates the webview. Both need
   * the CPU, and a long replay on a machine of two cores slowed the webview's start by up to
   * half (figure 9: first screen 1.57x the floor session's at 200,000 chunks, 0.96x waiting).
   */
  private readonly pageStarted: Promise<PageWait>;
  private readonly startPage: (why: PageWait) => void;
  private pageWait: PageWait | undefined;

  constructor(
    private readonly owner: TabOwner,
    /** Where the panels hold this tab: its session's key, or its exported file's. */
    readonly key: string,
    readonly agentName: string,
    readonly session: SessionInfo,
    private readonly panel: vscode.WebviewPanel,
    /** An exported replay: shown from its file's updates, with no agent. */
    source?: ExportedSource,
  ) {
    let started!: (why: PageWait) => void;
    this.pageStarted = new Promise<PageWait>((resolve) => (started = resolve));
    const timer = setTimeout(() => this.startPage('timeout'), PAGE_WAIT_MS);
    this.startPage = (why) => {
      if (this.pageWait) return;
      this.pageWait = why;
      clearTimeout(timer);
      started(why);
    };
    this.replay = new TranscriptReplay(
      {
        agents: owner.agents,
        log: owner.log,
        host: owner.host,
        options: owner.options,
        feed: this.feed,
        pageStarted: this.pageStarted,
        markChanged: () => this.markChanged(),
        changed: () => owner.changed(this),
      },
      agentName,
      session,
      source,
    );
    this.pageMessages = new TranscriptMessages({
      agentName,
      session,
      log: owner.log,
      host: owner.host,
      exported: source,
      replay: this.replay,
      ready: (start, viewport) => this.ready(start, viewport),
      range: (start, end, tail, viewport) => this.feed.range(start, end, tail, viewport),
      find: (seq, query, step, from, words) => this.finder.find(seq, query, step, from, words),
      reading: (index) => (this.readingIndex = index),
      warn: (text) => void owner.messages.show('warning', text),
      notify: (severity, text, ...actions) => owner.messages.show(severity, text, ...actions),
      fork: owner.options.fork ? (point) => owner.options.fork!(agentName, session.sessionId, point) : undefined,
      open: (agent, child) => owner.open(agent, child),
      activated: () => owner.activated(this),
      exportMarkdown: () => this.exportMarkdown(),
    });
    panel.iconPath = vscode.Uri.joinPath(owner.context.extensionUri, 'media', 'acp-sessions.svg');
    panel.webview.html = transcriptHtml(panel.webview, owner.context.extensionUri);
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

  /** Settles when the current replay ends. */
  get replayDone(): Promise<void> {
    return this.replay.replayDone;
  }

  /** Settles when the check after the last successful load ends. */
  get afterLoadDone(): Promise<void> {
    return this.replay.afterLoadDone;
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Replays the session from the start into a fresh timeline. */
  load(): Promise<void> {
    return this.replay.load();
  }

  /** Shows `match` with the find bar once the replay has ended and the webview is ready. */
  showMatch(match: TranscriptMatch): void {
    this.pendingMatch = match;
    void this.replay.replayDone.then(() => this.postPendingMatch());
  }

  private postPendingMatch(): void {
    const match = this.pendingMatch;
    if (!match || !this.webviewReady || this.replay.loading || this.disposed) return;
    this.pendingMatch = undefined;
    const words = match.words !== undefined ? { words: true, also: (match.matched ?? []).slice(0, 16).map((m) => m.slice(0, 1000)) } : {};
    this.post({ type: 'openFind', query: (match.words ?? match.text).slice(0, 1000), from: match.index, ...words });
  }

  /** A message from the page (or, in integration tests, as if the page had posted it). */
  receive(message: WebviewToHost): void {
    this.pageMessages.receive(message);
  }

  /** The page said `ready` (first load, shown again, reloaded): the replay may start, and the page starts over. */
  private ready(start: StartAt | undefined, viewport: Viewport | undefined): void {
    this.startPage('ready');
    // A new page starts at its top, and says where it is once it scrolls (to the row it restores).
    this.readingIndex = 0;
    this.feed.setReady(start, viewport);
    this.webviewReady = true;
    this.postPendingMatch();
  }

  receivedUpdates(): Iterable<SessionUpdate> | undefined {
    return this.replay.receivedUpdates();
  }

  exportSource(): OpenExportSource | undefined {
    return this.replay.exportSource();
  }

  prompts(): PromptEntry[] {
    return this.replay.prompts();
  }

  /** The row the reader is at (the first under the header), as the page last said. */
  readingRow(): number {
    return this.readingIndex;
  }

  titleText(): string {
    return titleOf(this.replay);
  }

  setTitle(title: string): void {
    this.replay.setTitle(title);
  }

  setDeleted(): void {
    this.replay.setDeleted();
  }

  setArchived(archived: boolean): void {
    this.replay.setArchived(archived);
  }

  state(): TranscriptState {
    return stateOf(this.replay, { visible: !this.disposed && this.panel.visible, messagesPosted: this.messagesPosted, bytesPosted: this.bytesPosted });
  }

  markdown(): string {
    const { timeline } = this.replay;
    return timelineToMarkdown({ ...headerOf(this.replay), title: titleOf(this.replay) }, timeline.rows, timeline.state);
  }

  async exportMarkdown(): Promise<void> {
    if (this.replay.notFound) {
      void this.owner.messages.show('info', vscode.l10n.t('Nothing to export: agent "{0}" does not have the session {1}.', this.agentName, plainLine(this.session.sessionId, 200)));
      return;
    }
    const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: this.markdown() });
    await vscode.window.showTextDocument(document, { preview: false });
  }

  post(message: HostToWebview): void {
    if (this.disposed) return;
    this.messagesPosted++;
    if (this.owner.measureBytes) this.bytesPosted += JSON.stringify(message).length;
    void this.panel.webview.postMessage(message);
  }

  /** Header-only changes (loading, archived, problems). */
  private markChanged(): void {
    this.panel.title = plainLine(titleOf(this.replay), 100);
    this.feed.collector.markState();
    this.owner.changed(this);
    this.replay.reportFacts();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.startPage('closed');
    // The replay and live updates stop, and the transcript's files go with its tab.
    this.replay.dispose();
    this.feed.dispose();
    this.finder.cancel();
    for (const d of this.disposables) d.dispose();
    this.owner.removed(this);
    this.panel.dispose();
    this.replay.closeOnAgent();
    this.owner.changed(this);
  }
}
