// The transcripts as the main bundle knows them: what VS Code needs from the first moment (the
// panel serializer that brings transcript tabs back after a reload, the transcript and export
// commands) in a few lines, and dist/transcripts.js (src/ui/transcripts/bundle.ts: the panels,
// the timeline, the webview feed, Export Sessions) loaded when one of them is first used.
import * as vscode from 'vscode';
import type { SessionInfo, SessionUpdate } from '../../acp/types';
import { TRANSCRIPT_VIEW_TYPE } from '../../transcript/protocol';
import type { CommandContext, TranscriptsLike } from '../sessions/commandContext';
import type { LazyBundle } from '../common/lazyBundle';
import type { TranscriptMatch, TranscriptPanels, TranscriptState } from './transcriptPanel';
import type * as TranscriptsBundleModule from './bundle';

/** The exports of dist/transcripts.js. */
export type TranscriptsBundle = typeof TranscriptsBundleModule;

/**
 * The transcript panels, created with their bundle on first use. Until then no transcript tab
 * is open, so what only reads or marks open tabs answers without loading anything.
 */
export class LazyTranscripts implements TranscriptsLike, vscode.Disposable {
  private panels: TranscriptPanels | undefined;

  constructor(
    readonly bundle: LazyBundle<TranscriptsBundle>,
    private readonly create: (bundle: TranscriptsBundle) => TranscriptPanels,
  ) {}

  /** The panels, loading dist/transcripts.js first when nothing has needed them yet. */
  get(): TranscriptPanels {
    return (this.panels ??= this.create(this.bundle()));
  }

  /** The panels if they exist; undefined means no transcript was ever opened. */
  get loaded(): TranscriptPanels | undefined {
    return this.panels;
  }

  open(agentName: string, session: SessionInfo): Promise<void> {
    return this.get().open(agentName, session);
  }

  openAt(agentName: string, session: SessionInfo, match: TranscriptMatch): Promise<void> {
    return this.get().openAt(agentName, session, match);
  }

  whenLoaded(agentName: string, sessionId: string): Promise<TranscriptState> {
    return this.get().whenLoaded(agentName, sessionId);
  }

  setArchived(agentName: string, sessionId: string, archived: boolean): void {
    this.panels?.setArchived(agentName, sessionId, archived);
  }

  setDeleted(agentName: string, sessionId: string): void {
    this.panels?.setDeleted(agentName, sessionId);
  }

  setTitle(agentName: string, sessionId: string, title: string): void {
    this.panels?.setTitle(agentName, sessionId, title);
  }

  getState(agentName: string, sessionId: string): TranscriptState | undefined {
    return this.panels?.getState(agentName, sessionId);
  }

  updatesOf(agentName: string, sessionId: string): Iterable<SessionUpdate> | undefined {
    return this.panels?.updatesOf(agentName, sessionId);
  }

  dispose(): void {
    this.panels?.dispose();
  }
}

/** The serializer and the commands of transcript tabs; those that act on the tab in front do nothing while none was opened. */
export function registerTranscripts(transcripts: LazyTranscripts): vscode.Disposable[] {
  const inFront = () => transcripts.loaded?.activeTranscript();
  return [
    // A window reload: VS Code activates us for it (`onWebviewPanel:acpSessions.transcript`).
    vscode.window.registerWebviewPanelSerializer(TRANSCRIPT_VIEW_TYPE, {
      deserializeWebviewPanel: (panel, state: unknown) => transcripts.get().restore(panel, state),
    }),
    vscode.commands.registerCommand('acpSessions.transcript.expandAllCompactions', () => inFront()?.post({ type: 'setCompactionsOpen', open: true })),
    vscode.commands.registerCommand('acpSessions.transcript.collapseAllCompactions', () => inFront()?.post({ type: 'setCompactionsOpen', open: false })),
    vscode.commands.registerCommand('acpSessions.transcript.exportMarkdown', () => inFront()?.exportMarkdown()),
    vscode.commands.registerCommand('acpSessions.transcript.find', () => inFront()?.post({ type: 'openFind' })),
    vscode.commands.registerCommand('acpSessions.transcript.previousPrompt', () => transcripts.loaded && transcripts.bundle().stepPrompt(transcripts.loaded, -1)),
    vscode.commands.registerCommand('acpSessions.transcript.nextPrompt', () => transcripts.loaded && transcripts.bundle().stepPrompt(transcripts.loaded, 1)),
    vscode.commands.registerCommand('acpSessions.transcript.goToPrompt', () => transcripts.loaded && transcripts.bundle().goToPrompt(transcripts.loaded)),
  ];
}

/** Export Sessions… and Open Exported Transcript…: both in dist/transcripts.js. */
export function registerExport(deps: CommandContext, transcripts: LazyTranscripts): vscode.Disposable[] {
  return [
    // A request (no steps, no preview, a folder given) only from the tests: see CommandContext.testMode.
    vscode.commands.registerCommand('acpSessions.exportSessions', (request?: unknown) => transcripts.bundle().exportSessionsCommand(deps, transcripts.get(), deps.testMode ? request : undefined)),
    vscode.commands.registerCommand('acpSessions.openExportedTranscript', (file?: unknown) => transcripts.bundle().openExported(deps, transcripts.get(), file)),
  ];
}
