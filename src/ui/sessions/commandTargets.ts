// Which sessions a command acts on: one home for every command, key, menu, inline button and the
// clean-up. The rule:
//
// - A menu or an inline button passes the row it was opened on, and (VS Code's own convention)
//   the selection when that row is part of a multi-selection. A command that takes many sessions
//   acts on that selection, else on the row; a command for one session acts on the row, and only
//   there. A row VS Code no longer knows (it was redrawing that part of the tree) arrives as
//   `undefined`: the command refuses and says so; it never falls back to the selection, which
//   may be another session.
// - A key passes nothing: the tree's selection as VS Code reports it. A redraw in flight can hide
//   it for a moment, so a key waits for that redraw (about a second at most), reads the selection
//   again, and failing that takes the last selection the user made, found through the model.
// - The palette and the API pass nothing either: the selection, without the remembered fallback.
// - Our own code (a transcript's header) names a session with a SessionTarget.
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import type { Section, SessionsModel } from '../../sessions/sessionsModel';
import type { Messages } from '../common/messages';
import { SessionNode } from './treeNodes/sessionNode';

/** A session a command acts on: a tree row, or a session our own code names. */
export interface SessionRef {
  readonly agent: string;
  readonly section: Section;
  readonly session: SessionInfo;
}

/**
 * A session named outside the tree, by our own code only (a transcript's header): commands
 * accept it in place of a row. Other extensions cannot make one.
 */
export class SessionTarget implements SessionRef {
  constructor(
    readonly agent: string,
    readonly session: SessionInfo,
  ) {}

  get section(): Section {
    return this.session.archived ? 'archived' : 'active';
  }
}

/** A session as remembered across redraws: by agent, section and id, found again through the model. */
export interface SessionKey {
  readonly agent: string;
  readonly section: Section;
  readonly sessionId: string;
}

/** What the Sessions view tells about its selection. */
export interface SelectionSource {
  /** Everything selected, as VS Code reports it now (a row it is redrawing is missing). */
  selection(): readonly unknown[];
  /** Whether the view has asked VS Code to redraw rows that VS Code has not fetched again yet. */
  readonly redrawing: boolean;
  /** Fires after VS Code fetched rows of the tree again. */
  readonly onDidFetch: vscode.Event<void>;
  /** The user's last selection of sessions, kept while a redraw emptied what VS Code reports. */
  remembered(): readonly SessionKey[];
}

/** How long a key waits for a redraw in flight before it falls back to the remembered selection. */
export const KEY_REDRAW_WAIT_MS = 1000;

export type Arity = 'one' | 'many';
/** How the command was invoked: with the arguments of a menu, inline button or API call, or by a key. */
export type Invocation = { via: 'args'; args: readonly unknown[] } | { via: 'key' };

export class CommandTargets {
  constructor(
    private readonly view: SelectionSource,
    private readonly model: Pick<SessionsModel, 'allLists'>,
    private readonly messages: Messages,
  ) {}

  /**
   * The sessions the command acts on, or an empty list after telling the user why there are none
   * (`nothingDone` starts that message, e.g. "Nothing was archived").
   */
  async resolve(invocation: Invocation, arity: Arity, nothingDone: string): Promise<SessionRef[]> {
    if (invocation.via === 'args' && invocation.args.length > 0) return this.fromArgs(invocation.args, arity, nothingDone);
    let found: SessionRef[] | undefined = this.selected();
    if (found === undefined || found.length === 0) {
      // Nothing VS Code reports may be a redraw in flight: the rows come back once fetched.
      if (found === undefined) found = await this.afterRedraw();
      if ((found === undefined || found.length === 0) && invocation.via === 'key') found = this.rememberedSessions();
    }
    if (!found || found.length === 0) {
      void this.messages.show('info', arity === 'one'
        ? vscode.l10n.t('Select a session in the Sessions view first, then try again.')
        : vscode.l10n.t('Select one or more sessions in the Sessions view first, then try again.'));
      return [];
    }
    if (arity === 'one' && found.length > 1) {
      void this.messages.show('info', vscode.l10n.t('{0}: this acts on one session, and {1} are selected. Select one, then try again.', nothingDone, found.length));
      return [];
    }
    return found;
  }

  private fromArgs(args: readonly unknown[], arity: Arity, nothingDone: string): SessionRef[] {
    const [node, nodes] = args;
    if (node instanceof SessionTarget) return [node];
    if (node instanceof SessionNode) {
      if (arity === 'one' || !Array.isArray(nodes) || !nodes.includes(node)) return [node];
      // A multi-selection that VS Code could not resolve whole is not what the user saw.
      if (nodes.every((n) => n !== undefined)) return nodes.filter((n): n is SessionNode => n instanceof SessionNode);
    }
    void this.messages.show('warning', vscode.l10n.t('{0}: the Sessions view was redrawing that row when it was clicked. Try again.', nothingDone));
    return [];
  }

  /**
   * The selected sessions that the model still holds (a row of an agent removed since, or of a
   * session gone, may linger in VS Code's selection); undefined when nothing is selected at all.
   */
  private selected(): SessionRef[] | undefined {
    const selection = this.view.selection();
    if (selection.length === 0) return undefined;
    return selection.filter((n): n is SessionNode => n instanceof SessionNode && this.holds(n));
  }

  private holds(ref: SessionRef): boolean {
    return this.model.allLists(ref.agent).some((l) => l.section === ref.section && l.sessions.some((s) => s.sessionId === ref.session.sessionId));
  }

  /** The selection once the redraw in flight is done, or when KEY_REDRAW_WAIT_MS have passed. */
  private async afterRedraw(): Promise<SessionRef[] | undefined> {
    const deadline = Date.now() + KEY_REDRAW_WAIT_MS;
    for (;;) {
      const found = this.selected();
      if (found !== undefined || !this.view.redrawing) return found;
      const left = deadline - Date.now();
      if (left <= 0) return found;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        const subscription = this.view.onDidFetch(done);
        function done() {
          clearTimeout(timer);
          subscription.dispose();
          resolve();
        }
      });
    }
  }

  /** The last selection, each session found again in the list of its section that holds it now. */
  private rememberedSessions(): SessionRef[] {
    const found: SessionRef[] = [];
    for (const key of this.view.remembered()) {
      for (const list of this.model.allLists(key.agent)) {
        if (list.section !== key.section) continue;
        const session = list.sessions.find((s) => s.sessionId === key.sessionId);
        if (session) {
          found.push({ agent: key.agent, section: key.section, session });
          break;
        }
      }
    }
    return found;
  }
}
