// Ahead of the agent: the sessions an agent will remove soon (Claude Code's `cleanupPeriodDays`)
// that have no copy as new as they are. Once per agent and window the Sessions view offers to keep
// them ("Keep N sessions Claude Code will remove…"), saying what a load changes there; with
// `acpSessions.keep.mode` set to `expiring` they are loaded in the background where a load changes
// nothing the user would notice. Each is loaded as a transcript would be (the client hands the
// replay to the store), one at a time, with progress and Cancel; running sessions and open tabs
// are left alone.
import * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import type { KeptStore } from '../../keep/keptStore';
import { loadEffect, type LoadEffect } from '../../sessions/loadEffects';
import type { SessionsModel } from '../../sessions/sessionsModel';
import { sessionLabel } from '../../sessions/format';
import type { Messages } from '../common/messages';
import { plainLine } from '../common/plainText';
import type { TreeContext } from './treeNodes/treeNode';
import { readKeepMode } from './keptCopies';

export interface KeepAheadDeps {
  model: SessionsModel;
  store: KeptStore;
  messages: Messages;
  log: vscode.LogOutputChannel;
  retention: NonNullable<TreeContext['retention']>;
  /** Whether a transcript tab holds the session (it keeps its copy itself). */
  isOpen(agent: string, sessionId: string): boolean;
}

/** The offer the tree shows under an agent, if any. */
export interface KeepOffer {
  agent: string;
  count: number;
}

export class KeepAhead implements vscode.Disposable {
  /** Agents whose offer was taken or turned down in this window. */
  private readonly answered = new Set<string>();
  private readonly running = new Set<string>();
  /** Sessions a run of this window loaded or tried to (a failure is not tried again by itself). */
  private readonly tried = new Set<string>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  /** The last run (tests wait for it). */
  lastRun: Promise<void> = Promise.resolve();

  constructor(private readonly deps: KeepAheadDeps) {}

  /** The listed sessions of `agent` the agent will remove within the days ahead that have no copy as new as they are. */
  due(agent: string): SessionInfo[] {
    const { model, store, retention } = this.deps;
    const seen = new Set<string>();
    const due: SessionInfo[] = [];
    for (const list of model.allLists(agent)) {
      for (const session of list.sessions) {
        if (seen.has(session.sessionId)) continue;
        seen.add(session.sessionId);
        if (!retention(agent, session)) continue;
        const copy = store.get(agent, session.sessionId);
        if (copy && copy.meta.updatedAt === (session.updatedAt ?? undefined)) continue;
        due.push(session);
      }
    }
    return due;
  }

  /** The offer under `agent`: only where copies are not made for these sessions anyway, once per window. */
  offer(agent: string): KeepOffer | undefined {
    if (this.answered.has(agent) || this.running.has(agent) || readKeepMode() === 'off') return undefined;
    if (readKeepMode() === 'expiring' && this.effect(agent).kind === 'none') return undefined;
    const count = this.due(agent).length;
    return count > 0 ? { agent, count } : undefined;
  }

  /** With the mode `expiring`, where a load changes nothing: keeps the due sessions in the background. */
  maybeKeepInBackground(agent: string): void {
    if (readKeepMode() !== 'expiring' || this.running.has(agent) || this.effect(agent).kind !== 'none') return;
    if (!this.due(agent).some((s) => !this.tried.has(`${agent}\u0000${s.sessionId}`))) return;
    this.lastRun = this.keep(agent, true);
  }

  /** The offer's command: says what a load changes (unless nothing), then keeps the due sessions. */
  async keepAsked(agent: string): Promise<void> {
    const due = this.due(agent);
    if (due.length === 0) return;
    const effect = this.effect(agent);
    if (effect.kind !== 'none') {
      const question = vscode.l10n.t('Keep copies of {0} sessions that {1} will remove?', due.length, agent);
      const keep = vscode.l10n.t('Keep Copies');
      const answer = await this.deps.messages.confirm(question, effectText(effect), keep);
      this.answered.add(agent);
      this.changed.fire();
      if (!answer) return;
    }
    this.lastRun = this.keep(agent);
    await this.lastRun;
  }

  dispose(): void {
    this.changed.dispose();
  }

  private effect(agent: string): LoadEffect {
    return loadEffect(this.deps.model.registry.agent(agent)?.agentInfo?.name);
  }

  private async keep(agent: string, background = false): Promise<void> {
    this.running.add(agent);
    this.answered.add(agent);
    this.changed.fire();
    const sessions = this.due(agent).filter((s) => !background || !this.tried.has(`${agent}\u0000${s.sessionId}`));
    for (const s of sessions) this.tried.add(`${agent}\u0000${s.sessionId}`);
    let kept = 0;
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Keeping copies of sessions {0} will remove', agent), cancellable: true },
        async (progress, token) => {
          for (let i = 0; i < sessions.length; i++) {
            if (token.isCancellationRequested) break;
            const session = sessions[i];
            progress.report({ message: vscode.l10n.t('{0} of {1}: {2}', i + 1, sessions.length, plainLine(sessionLabel(session), 80)), increment: 100 / sessions.length });
            if (session.state === 'running' || this.deps.isOpen(agent, session.sessionId)) continue;
            try {
              const client = await this.deps.model.registry.getClient(agent);
              if (!client.capabilities.loadSession) break;
              await client.loadSession(session.sessionId, session.cwd, () => undefined, token);
              await this.deps.store.lastWrite;
              if (client.capabilities.close && !this.deps.isOpen(agent, session.sessionId)) await client.closeSession(session.sessionId).catch(() => undefined);
              if (this.deps.store.get(agent, session.sessionId)) kept++;
            } catch (error) {
              if (token.isCancellationRequested) break;
              this.deps.log.warn(`[${agent}] Could not load session ${JSON.stringify(session.sessionId.slice(0, 200))} to keep a copy: ${(error as Error)?.message ?? error}`);
            }
          }
        },
      );
    } finally {
      this.running.delete(agent);
      this.changed.fire();
    }
    void this.deps.messages.show('info', vscode.l10n.t('Kept copies of {0} of {1} sessions {2} will remove: they stay readable under Kept Here once it does.', kept, sessions.length, agent));
  }
}

function effectText(effect: LoadEffect): string {
  switch (effect.kind) {
    case 'none':
      return vscode.l10n.t('Loading a session of this agent changes nothing.');
    case 'claude':
      return vscode.l10n.t('Each session is loaded once, as opening it would: Claude keeps its date and place in the list, but appends a few bookkeeping records to the session\'s file.');
    case 'codex':
      return vscode.l10n.t('Each session is loaded once, as opening it would: Codex appends about 1.5 KB to its rollout file; without the session index it also resumes it, so its date becomes now.');
    case 'pi':
      return vscode.l10n.t('Each session is loaded once, as opening it would: pi appends a line to the session\'s file, and offline a load may not answer (it is cancelled at the request deadline).');
    case 'unknown':
      return vscode.l10n.t('Each session is loaded once, as opening it would. What a load changes on this agent is not known: it may resume the session, so its date can become now.');
  }
}
