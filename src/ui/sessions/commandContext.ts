// What the Sessions commands and the clean-up work with: the models, the view, the messages and
// the transcripts. Its own module, so that the commands, the clean-up and the wiring depend on it
// and not on each other.
import type * as vscode from 'vscode';
import type { SessionInfo } from '../../acp/types';
import type { KeptCopy, KeptStore } from '../../keep/keptStore';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import type { SessionHealth } from '../../sessions/health';
import type { SessionsModel } from '../../sessions/sessionsModel';
import type { CommandTargets } from './commandTargets';
import type { Messages } from '../common/messages';
import type { SessionsView } from './sessionsView';

/**
 * The part of the transcripts the Sessions commands use: opening one. What happens to a session
 * (archived, renamed, deleted) the transcripts hear from the sessions model, not from a command.
 */
export interface TranscriptsLike {
  open(agentName: string, session: SessionInfo): Promise<void>;
  /** Resolves once the transcript's replay ended, with its problem if it failed (links). */
  whenLoaded?(agentName: string, sessionId: string): Promise<{ problem?: { message: string } }>;
  /** Opens a kept copy read-only, no agent asked (Kept Here). */
  openKept?(copy: KeptCopy): Promise<void>;
  /** The state of the session's open tab, or undefined when no tab shows it. */
  getState?(agentName: string, sessionId: string): unknown;
}

export interface CommandContext {
  registry: AgentRegistry;
  model: SessionsModel;
  view: SessionsView;
  messages: Messages;
  /** Which sessions a command acts on (src/ui/sessions/commandTargets.ts). */
  targets: CommandTargets;
  log: vscode.LogOutputChannel;
  health: SessionHealth;
  /**
   * The extension runs its integration tests (ExtensionMode.Test): only then does a command take a
   * request object that skips its steps and preview (Clean Up, Export). Anyone can run a command
   * with arguments (another extension, a `command:` link), and none may archive or export unasked.
   */
  testMode: boolean;
  /** The transcript panels once they exist (created after the tree). */
  transcripts(): TranscriptsLike | undefined;
  /** The kept copies (src/keep/): a delete here deletes a session's copy too. */
  kept?: KeptStore;
  /** Read and unread: a transcript shown marks its session read (src/ui/sessions/readMarks.ts). */
  read?: { shown(agent: string, sessionId: string): void };
  /** Kept Here: the copies of sessions their agents no longer have (Clean Up can select them). */
  keptHere?: {
    sessions(agent: string): KeptCopy[];
    deleteCopies(copies: readonly KeptCopy[]): Promise<void>;
  };
}
