// Composition root: registers each feature on activation, each in its own guard (a feature that
// fails to start is logged and the others start), and stops the agents on deactivate. It holds
// no behaviour: each feature's register function (src/ui/<feature>/register.ts) does.
import * as vscode from 'vscode';
import { messageOf } from './acp/errors';
import type { AgentRegistry } from './sessions/agentRegistry';
import { localizeFormat } from './ui/common/l10n';
import { registerSearch } from './ui/search/register';
import type { SearchApi } from './ui/search/searchWiring';
import { registerSessions, type SessionsApi } from './ui/sessions/register';
import { registerTranscripts, type TranscriptsFeature } from './ui/transcripts/register';
import type { TranscriptPanels } from './ui/transcripts/transcriptPanel';

/**
 * What `activate` returns in the extension's Test mode (integration tests): the live parts, and
 * hooks that read and answer its messages. In every other mode it returns nothing: no other
 * extension may answer a confirmation for the user or reach into the model.
 */
export interface AcpSessionsApi {
  readonly log: vscode.LogOutputChannel;
  /** One ACP client per configured agent, with its state. */
  readonly agents: AgentRegistry;
  /** The sessions model, the Sessions tree's data provider and its messages. */
  readonly sessions: SessionsApi;
  /** Open transcripts, with their state for tests (reading it loads dist/transcripts.js). */
  readonly transcripts: TranscriptPanels;
  /** Search Sessions: its index, indexer and view (reading it loads dist/search.js). */
  readonly search: SearchApi;
}

/** Stops every agent; set by `activate`, awaited by `deactivate`. */
let stopAgents: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): AcpSessionsApi | undefined {
  localizeFormat();
  const log = vscode.window.createOutputChannel('ACP Sessions', { log: true });
  context.subscriptions.push(log);
  /** Runs one feature's registration; a failure is logged and the other features still start. */
  const guard = <T>(feature: string, register: () => T): T | undefined => {
    try {
      return register();
    } catch (error) {
      log.error(`${feature} could not start: ${error instanceof Error && error.stack ? error.stack : messageOf(error)}`);
      return undefined;
    }
  };

  let transcripts: TranscriptsFeature | undefined;
  // The other features build on the sessions model: without it there is nothing to show.
  const sessions = guard('Sessions', () => registerSessions(context, { log, transcripts: () => transcripts?.transcripts }));
  if (!sessions) return undefined;
  stopAgents = () => sessions.agents.dispose();
  transcripts = guard('Transcripts', () => registerTranscripts(context, { log, sessions }));
  const search = guard('Search', () => registerSearch(context, { log, sessions, transcripts }));

  if (context.extensionMode !== vscode.ExtensionMode.Test || !sessions.api || !transcripts || !search) return undefined;
  const panels = transcripts.transcripts;
  return {
    log,
    agents: sessions.agents,
    sessions: sessions.api,
    get transcripts() {
      return panels.get();
    },
    get search() {
      return search.get();
    },
  };
}

/** VS Code awaits this before the host exits: every agent process, and what it started, has ended. */
export function deactivate(): Promise<void> | undefined {
  const stop = stopAgents;
  stopAgents = undefined;
  return stop?.();
}
