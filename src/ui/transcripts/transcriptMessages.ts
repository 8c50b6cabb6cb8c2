// The messages a transcript's page posts to the host, and what the host does for each. The page
// is not trusted: every field is checked again here, a link opens only when it is allowed, and a
// tool target or a subagent row is looked up in the host's timeline by its key, never taken from
// the message itself.
import * as vscode from 'vscode';
import type { ForkPoint, SessionInfo } from '../../acp/types';
import { messageOf, messageWithDetails } from '../../acp/errors';
import type { Entity } from '../../transcript/model';
import { keptWords } from '../../transcript/find';
import { withoutCodeTicks } from '../../transcript/inlineCode';
import { allowedLink, type HostAction, type OpenSubagentAction, type StartAt, type Viewport, type WebviewToHost } from '../../transcript/protocol';
import { notificationText, plainLine } from '../common/plainText';
import { resumeTemplate } from '../common/settings';
import { isPlainToken } from '../../sessions/resume';
import { forkPointAt } from '../../transcript/forkPoint';
import type { Severity } from '../common/messages';
import type { SessionTarget } from '../sessions/commandTargets';
import type { HostParts } from './hostParts';
import { openLocation } from './toolLinks';
import { shownPath, type ChangeCollector } from '../../changes/changes';

/** What the page's messages act on: its tab, its replay, and the panels that hold it. */
export interface MessageTarget {
  readonly agentName: string;
  readonly session: SessionInfo;
  readonly log: vscode.LogOutputChannel;
  readonly host: Pick<HostParts, 'walkthrough' | 'diffs' | 'SessionTarget'>;
  /** Where an exported tab's subagent rows open their children; undefined for an agent's session. */
  readonly exported: { openChild(sessionId: string): Promise<void> } | undefined;
  readonly replay: {
    readonly timeline: { get(key: string): Entity | undefined; indexOf(key: string): number; readonly rows: Parameters<typeof forkPointAt>[0] };
    /** Messages offer Fork from Here. */
    readonly canFork: boolean;
    /** The files the session's tool calls wrote (the header's list). */
    readonly changes: Pick<ChangeCollector, 'summary' | 'sides'>;
    readonly archived: boolean;
    readonly canRename: boolean;
    /** The last load found no session: nothing that needs it is done (the page offers none of it). */
    readonly notFound: boolean;
    sessionTitle(): string | null;
    load(): Promise<void>;
    unarchiveAndLoad(): Promise<void>;
  };
  /** The page said `ready`: it starts over, where it asks. */
  ready(start: StartAt | undefined, viewport: Viewport | undefined): void;
  /** The page scrolled: the rows it holds now. */
  range(start: number, end: number, tail: boolean, viewport: Viewport | undefined): void;
  find(seq: number, query: string, step: 0 | 1 | -1, from: number, words?: string[]): void;
  /** The page scrolled: the row the reader is at now. */
  reading(index: number): void;
  /** Tells the user (a warning), as the panels' messages do. */
  warn(text: string): void;
  /** Tells the user, with actions to choose (agent text in it is plain); resolves with the one chosen. */
  notify(severity: Severity, text: string, ...actions: string[]): Promise<string | undefined>;
  /** Forks this session at `point` (Fork from Here), where the panels' owner can. */
  readonly fork: ((point: ForkPoint) => Promise<SessionInfo>) | undefined;
  /** Opens a session's transcript, as the panels' `open`. */
  open(agentName: string, session: SessionInfo): Promise<void>;
  /** This tab is the one Go to Prompt acts on. */
  activated(): void;
  exportMarkdown(): Promise<void>;
}

/** What the header offers only for a session the agent has. */
const NEEDS_SESSION: ReadonlySet<HostAction> = new Set<HostAction>(['rename', 'resume', 'copyLink', 'goToPrompt', 'exportMarkdown', 'unarchiveAndOpen']);

export class TranscriptMessages {
  constructor(private readonly tab: MessageTarget) {}

  receive(message: WebviewToHost): void {
    if (!message || typeof message !== 'object') return;
    switch (message.type) {
      case 'ready': {
        const start = message.start;
        this.tab.ready(start && typeof start === 'object' ? { key: typeof start.key === 'string' ? start.key : undefined, end: start.end === true } : undefined, message.viewport);
        break;
      }
      case 'range':
        if (typeof message.start === 'number' && typeof message.end === 'number') this.tab.range(message.start, message.end, message.tail === true, message.viewport);
        break;
      case 'find':
        if (typeof message.query === 'string' && typeof message.seq === 'number') {
          this.tab.find(message.seq, message.query.slice(0, 1000), message.step === 1 || message.step === -1 ? message.step : 0, Number(message.from) || 0, keptWords(message.words));
        }
        break;
      case 'top':
        if (Number.isInteger(message.index) && message.index >= 0) this.tab.reading(message.index);
        break;
      case 'openLink':
        void this.openLink(message.href);
        break;
      case 'action':
        if (typeof message.action === 'string' && message.action.startsWith('openSubagent:')) void this.openSubagent(message.action as OpenSubagentAction);
        else void this.runAction(message.action as HostAction);
        break;
      case 'compactionRead':
        this.tab.host.walkthrough.readCompaction();
        break;
      case 'openTool':
        if (typeof message.key === 'string' && typeof message.target === 'string') void this.openTool(message.key, message.target);
        break;
      case 'forkFromHere':
        if (typeof message.key === 'string') void this.forkFromHere(message.key);
        break;
      case 'openChange':
        if (Number.isInteger(message.index) && message.index >= 0 && (message.target === 'diff' || message.target === 'file')) void this.openChange(message.index, message.target);
        break;
    }
  }

  private async openLink(href: unknown): Promise<void> {
    const uri = linkToOpen(href);
    if (!uri) {
      this.tab.log.warn(`Refused to open a link from a transcript: ${JSON.stringify(String(href).slice(0, 200))}`);
      return;
    }
    await vscode.env.openExternal(uri).then(undefined, (error: unknown) =>
      this.tab.log.warn(`Could not open a link from a transcript: ${messageOf(error)}`),
    );
  }

  /** A tool call's location or diff, found in this timeline by row key and position. */
  private async openTool(key: string, target: string): Promise<void> {
    const entity = this.tab.replay.timeline.get(key);
    const match = /^(location|diff):(\d{1,6})$/.exec(target);
    if (entity?.kind !== 'tool_call' || !match) {
      this.tab.log.warn(`A transcript asked to open a tool target that is not there: ${JSON.stringify(target.slice(0, 200))}`);
      return;
    }
    const index = Number(match[2]);
    const warn = (text: string) => this.tab.warn(text);
    if (match[1] === 'location') {
      const location = entity.locations[index];
      if (location) await openLocation(location, this.tab.session.cwd, warn);
      return;
    }
    const item = entity.content[index];
    if (item?.type !== 'diff') return;
    const title = vscode.l10n.t('{0} (from "{1}", read-only)', plainLine(item.path, 200), plainLine(withoutCodeTicks(entity.title) || entity.toolCallId, 100));
    await this.tab.host.diffs.open(item, title);
  }

  /**
   * Fork from Here on a message row: the fork point from this timeline (the row by its key, never
   * the webview's word about it), the fork through the Sessions model, then the new session opens
   * and Resume in Terminal is offered where the agent's entry has it. What the agent says when it
   * refuses is shown as plain text.
   */
  private async forkFromHere(key: string): Promise<void> {
    const { replay } = this.tab;
    const fork = this.tab.fork;
    const index = replay.timeline.indexOf(key);
    const point = index >= 0 ? forkPointAt(replay.timeline.rows, index) : undefined;
    if (!fork || !replay.canFork || !point) {
      this.tab.log.warn(`A transcript asked to fork from a row that cannot be forked from: ${JSON.stringify(key.slice(0, 200))}`);
      return;
    }
    const title = plainLine(replay.sessionTitle() ?? this.tab.session.sessionId, 100);
    let forked: SessionInfo;
    try {
      forked = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: notificationText(vscode.l10n.t('Forking "{0}"…', title)) },
        () => fork(point),
      );
    } catch (error) {
      void this.tab.notify('error', vscode.l10n.t('Could not fork "{0}": {1}', title, messageWithDetails(error)));
      return;
    }
    await this.tab.open(this.tab.agentName, forked);
    const resume = vscode.l10n.t('Resume in Terminal');
    const canResume = resumeTemplate(this.tab.agentName) !== undefined && isPlainToken(forked.sessionId);
    const text = vscode.l10n.t('"{0}" was forked into a new session, under it in the Sessions view.', title);
    const chosen = await this.tab.notify('info', text, ...(canResume ? [resume] : []));
    if (chosen === resume) await vscode.commands.executeCommand('acpSessions.resumeInTerminal', new this.tab.host.SessionTarget(this.tab.agentName, forked));
  }

  /**
   * A file the header lists: its diff from this session's own texts (virtual, read-only documents,
   * nothing written), or the file itself. The path is the host's count's, never the webview's.
   */
  private async openChange(index: number, target: 'diff' | 'file'): Promise<void> {
    const file = this.tab.replay.changes.summary().files[index];
    if (!file) {
      this.tab.log.warn(`A transcript asked to open a changed file that is not there: ${index}`);
      return;
    }
    const warn = (text: string) => this.tab.warn(text);
    if (target === 'file') {
      await openLocation({ path: file.path }, this.tab.session.cwd, warn);
      return;
    }
    const sides = this.tab.replay.changes.sides(index);
    const shown = plainLine(shownPath(file.path, this.tab.session.cwd), 200);
    if (!sides) {
      warn(vscode.l10n.t('This session wrote {0} without a diff that can be shown here: open the file to see it as it is now.', shown));
      return;
    }
    const title = sides.edits === 1 || sides.chained
      ? vscode.l10n.t('{0} (in this session, read-only)', shown)
      : vscode.l10n.t('{0} (its {1} edits in this session, read-only)', shown, sides.edits);
    await this.tab.host.diffs.open({ path: sides.path, oldText: sides.oldText, newText: sides.newText }, title);
  }

  /** Opens the child a subagent row shows; the id comes from this timeline, never the webview. */
  private async openSubagent(action: OpenSubagentAction): Promise<void> {
    const entity = this.tab.replay.timeline.get(action.slice('openSubagent:'.length));
    if (entity?.kind !== 'subagent') {
      this.tab.log.warn(`A transcript asked to open a subagent row that is not there: ${JSON.stringify(action.slice(0, 200))}`);
      return;
    }
    // An exported file is data: its child comes from the same export or not at all, never from an agent.
    if (this.tab.exported) return this.tab.exported.openChild(entity.sessionId);
    // Unset, a child's folder is its parent's (subagents schema).
    await this.tab.open(this.tab.agentName, { sessionId: entity.sessionId, cwd: entity.cwd ?? this.tab.session.cwd, title: entity.title ?? null });
  }

  private async runAction(action: HostAction): Promise<void> {
    const { replay } = this.tab;
    if (replay.notFound && NEEDS_SESSION.has(action)) return;
    switch (action) {
      case 'retry':
        await replay.load();
        break;
      case 'showLog':
        this.tab.log.show();
        break;
      case 'exportMarkdown':
        await this.tab.exportMarkdown();
        break;
      case 'rename':
        // The tree's Rename… for this session: the same validation, Undo and -32002 handling.
        if (replay.canRename) {
          const title = replay.sessionTitle();
          await vscode.commands.executeCommand('acpSessions.rename', new this.tab.host.SessionTarget(this.tab.agentName, { ...this.tab.session, title }));
        }
        break;
      case 'resume':
        if (!this.tab.exported) await vscode.commands.executeCommand('acpSessions.resumeInTerminal', this.target());
        break;
      case 'copyLink':
        if (!this.tab.exported) await vscode.commands.executeCommand('acpSessions.copyLink', this.target());
        break;
      case 'goToPrompt':
        this.tab.activated();
        await vscode.commands.executeCommand('acpSessions.transcript.goToPrompt');
        break;
      case 'unarchiveAndOpen':
        await replay.unarchiveAndLoad();
        break;
    }
  }

  /** This session, named for a command (Resume in Terminal, Copy Link). */
  private target(): SessionTarget {
    const title = this.tab.replay.sessionTitle();
    return new this.tab.host.SessionTarget(this.tab.agentName, { ...this.tab.session, title, ...(this.tab.replay.archived ? { archived: true } : {}) } as SessionInfo);
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
