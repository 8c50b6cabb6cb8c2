// Transcript panels: one webview editor tab per session (or exported file), the collection of
// them. Each tab (transcriptTab.ts) replays its session with `session/load` into a Timeline,
// keeps applying live updates afterwards (transcriptReplay.ts), and sends its page a snapshot
// after each `ready` and batched patches in between; its header (transcriptHeader.ts), the
// page's messages (transcriptMessages.ts) and its HTML (transcriptHtml.ts) are parts of their own.
import * as vscode from 'vscode';
import type { SessionInfo, SessionUpdate } from '../../acp/types';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import { sessionLabel } from '../../sessions/format';
import { TRANSCRIPT_VIEW_TYPE, type HostToWebview, type WebviewState, type WebviewToHost } from '../../transcript/protocol';
import type { PromptEntry } from '../../transcript/prompts';
import { Messages, type MessageRecorder } from '../common/messages';
import { plainLine } from '../common/plainText';
import type { HostParts } from './hostParts';
import type { TranscriptState } from './transcriptHeader';
import { transcriptWebviewOptions } from './transcriptHtml';
import type { ExportedSource, OpenExportSource, ReplayOptions } from './replayContract';
import { TranscriptTab, type TranscriptMatch } from './transcriptTab';
import { watchSpillFailures } from './transcriptTrouble';

export { TRANSCRIPT_VIEW_TYPE };
export type { PageWait, TranscriptState } from './transcriptHeader';
export { linkToOpen } from './transcriptMessages';
export type { ExportedSource, SessionFacts } from './replayContract';
export type { TranscriptMatch } from './transcriptTab';

export interface TranscriptPanelsOptions extends ReplayOptions {
  /** The Test mode's recorder of messages (a full disk under spillDir is told through them). */
  recorder?: MessageRecorder;
}

export class TranscriptPanels implements vscode.Disposable {
  /** What the tabs tell the user (agent text made plain; recorded in Test mode). */
  readonly messages = new Messages();
  private readonly panels = new Map<string, TranscriptTab>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changeEmitter = new vscode.EventEmitter<{ agentName: string; sessionId: string }>();
  /** Fires whenever a transcript's state changes (loading ends, an update is applied, ...). */
  readonly onDidChangeState = this.changeEmitter.event;
  /** When true, every message's JSON size is added to `bytesPosted` (costs a stringify). */
  measureBytes = false;
  private lastActive: TranscriptTab | undefined;

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
    this.add(new TranscriptTab(this, panelKey(agentName, session.sessionId), agentName, session, panel));
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
    const transcript = new TranscriptTab(this, exportedKey(source.file), header.agentName, session, panel, source);
    this.add(transcript);
    await transcript.replayDone;
    return transcript.state();
  }

  /** Shows `match` in the tab of an exported file or kept copy (a search's match). */
  showExportedMatch(file: string, match: TranscriptMatch): void {
    this.panels.get(exportedKey(file))?.showMatch(match);
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

  /** An open, loaded transcript's updates and rows, for an export that must not load it again or reduce it anew. */
  exportSourceOf(agentName: string, sessionId: string): OpenExportSource | undefined {
    return this.panels.get(panelKey(agentName, sessionId))?.exportSource();
  }

  /** The transcript tab in front (or the last one that was): what Go to Prompt and the prompt keys act on. */
  activeTranscript(): { prompts(): PromptEntry[]; readingRow(): number; post(message: HostToWebview): void; title(): string; exportMarkdown(): Promise<void> } | undefined {
    const panel = this.active();
    return panel && { prompts: () => panel.prompts(), readingRow: () => panel.readingRow(), post: (m) => panel.post(m), title: () => panel.titleText(), exportMarkdown: () => panel.exportMarkdown() };
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

  // --- what the tabs need of the panels (TabOwner) -------------------------------------------

  webviewOptions(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return transcriptWebviewOptions(this.context.extensionUri);
  }

  changed(panel: TranscriptTab): void {
    this.changeEmitter.fire({ agentName: panel.agentName, sessionId: panel.session.sessionId });
  }

  activated(panel: TranscriptTab): void {
    this.lastActive = panel;
  }

  removed(panel: TranscriptTab): void {
    const key = panel.key;
    if (this.panels.get(key) === panel) this.panels.delete(key);
    if (this.lastActive === panel) this.lastActive = undefined;
  }

  private add(panel: TranscriptTab): void {
    this.panels.set(panel.key, panel);
    this.lastActive = panel;
    void panel.load();
  }

  private active(): TranscriptTab | undefined {
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
    this.add(new TranscriptTab(this, key, state.agentName, session, webviewPanel));
  }
}

function exportedKey(file: string): string {
  return `\u0001exported\u0000${file}`;
}

function panelKey(agentName: string, sessionId: string): string {
  return `${agentName}\u0000${sessionId}`;
}
