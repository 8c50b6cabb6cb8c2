// What the main bundle hands the bundles it loads on first use (src/ui/common/lazyBundle.ts), built by
// src/ui/sessions/register.ts (SessionsParts) and src/ui/transcripts/register.ts (the diffs): the parts
// that must exist once. A lazy bundle carries its own copy of every module it imports, so it
// imports these for their types only and takes them from here: state (the walkthrough's progress,
// the words src/ui/common/l10n.ts set for the display language) and classes that `instanceof` checks (a
// copy would be another class: the Rename command would not know the transcript's target).
import type { AgentDisconnectedError } from '../../acp/errors';
import type { AgentConfig } from '../../acp/types';
import type { FormatText } from '../../sessions/format';
import type { ListCancelledError } from '../../sessions/sessionsModel';
import type { SessionTarget } from '../sessions/commandTargets';
import type { walkthrough } from '../sessions/walkthrough';

export interface HostParts {
  readonly walkthrough: Pick<typeof walkthrough, 'openedTranscript' | 'readCompaction'>;
  /** Adopted with `useFormatText` by each lazy bundle's entry. */
  readonly formatText: FormatText;
  /** The configured agents, as the main bundle keeps them: adopted with `useAgentConfigs` by each lazy bundle's entry. */
  readonly agentConfigs: () => readonly AgentConfig[];
  readonly SessionTarget: typeof SessionTarget;
  readonly AgentDisconnectedError: typeof AgentDisconnectedError;
  readonly ListCancelledError: typeof ListCancelledError;
  /**
   * The tool call diffs' documents: their provider is registered at activation, so a diff tab
   * that comes back after a reload finds it (empty: the texts were in memory) before any
   * transcript is opened.
   */
  readonly diffs: DiffDocuments;
}

/** The provider of tool call diffs' documents (ToolDiffs, in the main bundle's src/ui/transcripts/register.ts). */
export interface DiffDocuments {
  /** Opens `oldText` (empty for a new file) against `newText` in the diff editor. */
  open(diff: { path: string; oldText?: string; newText: string }, title: string): Promise<void>;
}
