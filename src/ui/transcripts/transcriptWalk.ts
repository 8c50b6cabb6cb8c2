// Walking a transcript by the user's prompts: Previous / Next Prompt (Ctrl+Alt+Up / Down, as VS
// Code's chat: "Previous / Next User Prompt") and Go to Prompt… (a quick pick of the prompts, with
// the time each was sent where the agent or a live update told it, that starts at the prompt being
// read). Found on the host's timeline; the webview only brings the row into view.
import * as vscode from 'vscode';
import { promptAt, type PromptEntry } from '../../transcript/prompts';
import { quickPickText } from '../common/plainText';
import type { TranscriptPanels } from './transcriptPanel';

/** Previous / Next Prompt in the transcript in front (the commands are registered by src/ui/transcripts/register.ts). */
export function stepPrompt(panels: TranscriptPanels, direction: 1 | -1): void {
  const transcript = panels.activeTranscript();
  if (!transcript) return;
  const prompts = transcript.prompts();
  transcript.post({ type: 'stepPrompt', step: direction, indices: prompts.map((p) => p.index), keys: prompts.map((p) => p.key) });
}

type PromptItem = vscode.QuickPickItem & { prompt: PromptEntry };

export async function goToPrompt(panels: TranscriptPanels): Promise<void> {
  const transcript = panels.activeTranscript();
  if (!transcript) return;
  const prompts = transcript.prompts();
  if (prompts.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('This transcript has no prompts of yours.'));
    return;
  }
  const items: PromptItem[] = prompts.map((prompt, i) => ({
    prompt,
    // The prompt is agent-replayed text: one bounded line, no `$(icon)` of it renders.
    label: quickPickText(prompt.text || vscode.l10n.t('(empty prompt)'), 200),
    description: prompt.at === undefined ? vscode.l10n.t('prompt {0} of {1}', i + 1, prompts.length) : `${new Date(prompt.at).toLocaleString()} · ${vscode.l10n.t('prompt {0} of {1}', i + 1, prompts.length)}`,
  }));
  const pick = vscode.window.createQuickPick<PromptItem>();
  pick.title = vscode.l10n.t('Go to Prompt in "{0}"', quickPickText(transcript.title(), 100));
  pick.placeholder = vscode.l10n.t('Type to filter your prompts; Enter goes to the one chosen');
  pick.matchOnDescription = true;
  pick.items = items;
  // The prompt being read: the last at or above the row the reader is at (else the first).
  pick.activeItems = [items[promptAt(prompts, transcript.readingRow())]];
  const picked = await new Promise<PromptItem | undefined>((resolve) => {
    pick.onDidAccept(() => {
      resolve(pick.selectedItems[0] ?? pick.activeItems[0]);
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
  if (picked) transcript.post({ type: 'revealRow', index: picked.prompt.index });
}
