// The entry of dist/transcripts.js (esbuild.mjs), loaded by src/ui/transcripts/register.ts when a
// transcript is first opened or restored, or sessions are first exported: the transcript panels,
// the host's timeline and webview feed, walking by prompts, Export Sessions.
import { useFormatText } from '../../sessions/format';
import { useAgentConfigs } from '../common/settings';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import type * as vscode from 'vscode';
import type { HostParts } from './hostParts';
import { TranscriptPanels, type TranscriptPanelsOptions } from './transcriptPanel';

export { goToPrompt, stepPrompt } from './transcriptWalk';
export { exportSessionsCommand, openExported } from './exportSessions';
export { openKeptCopy } from './exportedTranscript';
export { replayTimelines } from '../../transcript/replayTimelines';

export function createTranscriptPanels(
  context: vscode.ExtensionContext,
  agents: AgentRegistry,
  log: vscode.LogOutputChannel,
  host: HostParts,
  options: TranscriptPanelsOptions,
): TranscriptPanels {
  useFormatText(host.formatText);
  useAgentConfigs(host.agentConfigs);
  return new TranscriptPanels(context, agents, log, host, options);
}
