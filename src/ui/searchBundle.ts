// The entry of dist/search.js (esbuild.mjs), loaded by src/ui/lazySearch.ts on first use: when
// the Search view shows, a search command runs, a transcript replayed, or a session the index may
// hold was deleted or archived. The index, the indexer, the view's provider, the query box.
import type * as vscode from 'vscode';
import type { AgentRegistry } from '../sessions/agentRegistry';
import { useFormatText } from '../sessions/format';
import type { SessionsModel } from '../sessions/sessionsModel';
import type { HostParts } from './hostParts';
import type { MessageRecorder } from './messages';
import { activateSearch, type SearchPart, type SearchTranscripts, type SearchViewParts } from './searchWiring';

export function createSearch(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  agents: AgentRegistry,
  model: SessionsModel,
  transcripts: () => SearchTranscripts | undefined,
  recorder: MessageRecorder | undefined,
  viewParts: SearchViewParts,
  host: HostParts,
): SearchPart {
  useFormatText(host.formatText);
  return activateSearch(context, log, agents, model, transcripts, recorder, viewParts);
}
