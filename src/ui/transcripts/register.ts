// The Transcripts feature as the main bundle knows it: what VS Code needs from the first moment
// (the panel serializer that brings transcript tabs back after a reload, the provider of tool
// call diffs, the transcript and export commands) and what open tabs follow from the sessions
// model (a session archived, unarchived, renamed or deleted, whoever caused it), in a few lines;
// dist/transcripts.js (src/ui/transcripts/bundle.ts: the panels, the timeline, the webview feed,
// Export Sessions) is loaded when one of them is first used. Nothing else of this folder is in
// the main bundle (test/unit/bundles.test.ts).
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { isResourceNotFound, messageOf } from '../../acp/errors';
import type { SessionInfo, SessionUpdate } from '../../acp/types';
import { isVerdictOnSession } from '../../sessions/health';
import type { Entity } from '../../transcript/model';
import { TRANSCRIPT_VIEW_TYPE } from '../../transcript/protocol';
import { removeStaleSpillFiles } from '../../transcript/spillOwner';
import { lazyBundle, type LazyBundle } from '../common/lazyBundle';
import type { KeptCopy } from '../../keep/keptStore';
import type { KeptFeature } from '../sessions/keptCopies';
import type { Messages } from '../common/messages';
import type { TranscriptsLike } from '../sessions/commandContext';
import type { SessionsFeature } from '../sessions/register';
import type { ReplayTimelines } from '../../transcript/replayTimelines';
import type * as TranscriptsBundleModule from './bundle';
import type { TranscriptMatch, TranscriptPanels, TranscriptState } from './transcriptPanel';

/** The exports of dist/transcripts.js. */
export type TranscriptsBundle = typeof TranscriptsBundleModule;

/** A transcript replayed: its entities, in batches read back from its file, for whoever indexes them. */
export interface Replayed {
  readonly agent: string;
  readonly session: SessionInfo & { archived: boolean };
  readonly batches: AsyncIterable<readonly Entity[]>;
}

const DIFF_SCHEME = 'acp-sessions-diff';

/**
 * The two sides of every tool call diff opened from a transcript: virtual, read-only documents of
 * our own scheme, served from memory (nothing is written to disk), a side kept until its documents
 * close. Registered at activation, so a diff tab that comes back after a reload finds it (empty:
 * the texts were in memory) before any transcript is opened.
 */
export class ToolDiffs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private next = 0;
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.disposables = [
      vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme === DIFF_SCHEME) this.texts.delete(d.uri.query);
      }),
    ];
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '';
  }

  /** Opens `oldText` (empty for a new file) against `newText` in the diff editor. */
  async open(diff: { path: string; oldText?: string; newText: string }, title: string): Promise<void> {
    const side = (text: string) => {
      const id = String(++this.next);
      this.texts.set(id, text);
      // The file's own name, so the editor picks its language; the query finds the text.
      return vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${basename(diff.path) || 'file'}`, query: id });
    };
    await vscode.commands.executeCommand('vscode.diff', side(diff.oldText ?? ''), side(diff.newText), title, { preview: true });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.texts.clear();
  }
}

/**
 * The transcript panels, created with their bundle on first use. Until then no transcript tab
 * is open, so what only reads or marks open tabs answers without loading anything.
 */
export class LazyTranscripts implements TranscriptsLike, vscode.Disposable {
  private panels: TranscriptPanels | undefined;

  constructor(
    readonly bundle: LazyBundle<TranscriptsBundle>,
    private readonly create: (bundle: TranscriptsBundle) => TranscriptPanels,
    private readonly messages: Messages,
    private readonly kept: Pick<KeptFeature, 'store' | 'here'>,
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
    // The agent no longer has it: its kept copy opens at the match, no agent asked.
    const copy = this.kept.here.isKeptOnly(agentName, session.sessionId) ? this.kept.store.get(agentName, session.sessionId) : undefined;
    if (copy) return this.bundle().openKeptCopy(this.messages, this.get(), this.kept.store, copy, match);
    return this.get().openAt(agentName, session, match);
  }

  /** What makes a loaded replay's rows, for Search Sessions' survey (dist/search.js carries no reducer of its own). */
  replayTimelines(): ReplayTimelines {
    return this.bundle().replayTimelines;
  }

  hasKeptCopy(agentName: string, sessionId: string): boolean {
    return this.kept.store.get(agentName, sessionId) !== undefined;
  }

  whenLoaded(agentName: string, sessionId: string): Promise<TranscriptState> {
    return this.get().whenLoaded(agentName, sessionId);
  }

  openKept(copy: KeptCopy): Promise<void> {
    return this.bundle().openKeptCopy(this.messages, this.get(), this.kept.store, copy);
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

/** What the other features get from Transcripts. */
export interface TranscriptsFeature {
  readonly transcripts: LazyTranscripts;
  /** A transcript replayed (Search Sessions indexes it). */
  readonly onDidReplay: vscode.Event<Replayed>;
}

export interface TranscriptsDeps {
  readonly log: vscode.LogOutputChannel;
  readonly sessions: Pick<SessionsFeature, 'agents' | 'model' | 'health' | 'learned' | 'messages' | 'commandContext' | 'parts' | 'kept' | 'read' | 'lineWorker'>;
}

/** The serializer, the diff provider and the commands of transcript tabs, and the tabs' part in the model's events. */
export function registerTranscripts(context: vscode.ExtensionContext, deps: TranscriptsDeps): TranscriptsFeature {
  const { log, sessions } = deps;
  const { agents, model, health, learned } = sessions;
  const diffs = new ToolDiffs();
  const replays = new vscode.EventEmitter<Replayed>();
  const spillDir = join(context.globalStorageUri.fsPath, 'transcripts');
  // The files of extension hosts that ended without removing them (a crash, a kill) go now, in
  // every window, whether or not a transcript opens; asynchronous, so activation does not wait.
  void removeStaleSpillFiles(spillDir).then(
    (removed) => removed && log.info(`Removed ${removed} transcript files left by an extension host that stopped.`),
    () => undefined,
  );
  const transcripts = new LazyTranscripts(lazyBundle<TranscriptsBundle>('transcripts.js'), (bundle) => bundle.createTranscriptPanels(context, agents, log, { ...sessions.parts, diffs }, {
    // Through the model, so the tree moves the session to Active at once.
    unarchive: async (agentName, sessionId) => {
      const [outcome] = await model.unarchive(agentName, [sessionId]);
      if (outcome && outcome.status !== 'done') throw outcome.error ?? new Error(vscode.l10n.t('the agent answered "{0}"', outcome.status));
    },
    // Through the model too: the row takes the new date and state in place (the order holds).
    afterLoad: (agentName, before) => model.checkAfterLoad(agentName, before),
    closed: (agentName, sessionId) => {
      const client = agents.connectedClient(agentName);
      if (client) model.lastStatusCheck = model.checkStatus(agentName, client, [sessionId]);
    },
    // Only the agent's word about the session is remembered as its health (a time-out shows in
    // the transcript, and is not the session's fault).
    loaded: (agentName, sessionId, error) => {
      if (error === undefined) {
        void health.recordLoadSuccess(agentName, sessionId);
        // The user has seen the session as it is now: read.
        sessions.read.shown(agentName, sessionId);
      }
      else if (isVerdictOnSession(error)) void health.recordLoadFailure(agentName, sessionId, messageOf(error));
      // -32002: the agent no longer has it; the tree, search, pins and this tab hear it from the model.
      if (isResourceNotFound(error)) model.sessionNotFound(agentName, sessionId);
    },
    // A link or a search may name a session no list holds: refused, it is not found.
    listed: (agentName, sessionId) => model.find(agentName, sessionId) !== undefined,
    learned: (agentName, sessionId, facts) => learned.learned(agentName, sessionId, facts),
    replayed: (agent, session, batches) => replays.fire({ agent, session, batches }),
    // Through the model: the fork is in the tree at once, and under its origin (lineage.ts) even
    // where the agent's list does not say so.
    fork: async (agentName, sessionId, point) => {
      const outcome = await model.fork(agentName, sessionId, point);
      if (outcome.status !== 'done' || !outcome.forked) throw outcome.error ?? new Error(vscode.l10n.t('the agent answered "{0}"', outcome.status));
      learned.forked(agentName, outcome.forked.sessionId, sessionId);
      return outcome.forked;
    },
    spillDir,
    lineWorker: sessions.lineWorker,
    recorder: sessions.messages.recorder,
  }), sessions.messages, sessions.kept);
  const inFront = () => transcripts.loaded?.activeTranscript();
  const { commandContext } = sessions;
  context.subscriptions.push(
    diffs,
    replays,
    transcripts,
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
    // Export Sessions… and Open Exported Transcript…: a request (no steps, no preview, a folder
    // given) only from the tests: see CommandContext.testMode.
    vscode.commands.registerCommand('acpSessions.exportSessions', (request?: unknown) => transcripts.bundle().exportSessionsCommand(commandContext, transcripts.get(), commandContext.testMode ? request : undefined)),
    vscode.commands.registerCommand('acpSessions.openExportedTranscript', (file?: unknown) => transcripts.bundle().openExported(commandContext, transcripts.get(), file)),
    // Open tabs follow what the model learns, whoever caused it (a command, Clean Up, another
    // window through the agent's live list, a -32002); no tab is open before the panels exist.
    model.onDidDelete(({ agent, sessionId }) => transcripts.loaded?.setDeleted(agent, sessionId)),
    model.onDidArchive(({ agent, sessionId, archived }) => transcripts.loaded?.setArchived(agent, sessionId, archived)),
    // A title cleared (a `null` from the agent) leaves the tab's title as it is.
    model.onDidRename(({ agent, sessionId, title }) => title !== undefined && transcripts.loaded?.setTitle(agent, sessionId, title)),
  );
  return { transcripts, onDidReplay: replays.event };
}
