// The quick pick steps Clean Up Sessions… and Export Sessions… share: the rules that select
// sessions, and a preview that asks to go ahead. UI only, no state: both bundles may carry it
// (src/ui/sessions/cleanup.ts is in extension.js, src/ui/transcripts/exportSessions.ts in transcripts.js).
import * as vscode from 'vscode';
import type { CleanupAction, CleanupRule } from '../../sessions/cleanup';

export const CLEANUP_TITLE = () => vscode.l10n.t('Clean Up Sessions');

type RuleKey = 'olderThanDays' | 'missingFolder' | 'titlePattern' | 'problems';

/** The rule steps (also Export Sessions…, with its own `placeHolder` and no rule needed). */
export async function pickRule(action: CleanupAction | 'kept', title: string, placeHolder?: string): Promise<CleanupRule | undefined> {
  const all: (vscode.QuickPickItem & { key: RuleKey })[] = [
    { key: 'olderThanDays', label: `$(history) ${vscode.l10n.t('Older than… days')}`, description: vscode.l10n.t('last updated before a number of days ago') },
    { key: 'missingFolder', label: `$(folder) ${vscode.l10n.t('In folders that no longer exist')}` },
    { key: 'titlePattern', label: `$(filter) ${vscode.l10n.t('Title matches a pattern…')}`, description: vscode.l10n.t('* matches any text') },
    { key: 'problems', label: `$(warning) ${vscode.l10n.t('Sessions with problems')}`, description: vscode.l10n.t('folder gone, or the last load failed') },
  ];
  // A kept copy has no problem to find: its agent no longer has the session.
  const items = action === 'kept' ? all.filter((i) => i.key !== 'problems') : all;
  const picked = await vscode.window.showQuickPick(items, {
    title,
    canPickMany: true,
    placeHolder: placeHolder ??
      (action === 'delete'
        ? vscode.l10n.t('Archived sessions that match every rule you check (none checked: all archived sessions)')
        : action === 'kept'
          ? vscode.l10n.t('Kept copies that match every rule you check (none checked: every copy under Kept Here)')
          : vscode.l10n.t('Active sessions that match every rule you check')),
  });
  if (!picked) return undefined;
  const keys = new Set(picked.map((p) => p.key));
  if (action === 'archive' && keys.size === 0 && placeHolder === undefined) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Check at least one rule: nothing was archived.'));
    return undefined;
  }
  const rule: CleanupRule = {};
  if (keys.has('olderThanDays')) {
    const days = await vscode.window.showInputBox({
      title: placeHolder === undefined ? CLEANUP_TITLE() : title,
      prompt: vscode.l10n.t('Sessions last updated more than this many days ago'),
      value: '30',
      validateInput: (v) => (/^\s*\d{1,5}\s*$/.test(v) ? undefined : vscode.l10n.t('A whole number of days, such as 30.')),
    });
    if (days === undefined) return undefined;
    rule.olderThanDays = Number(days.trim());
  }
  if (keys.has('missingFolder')) rule.missingFolder = true;
  if (keys.has('titlePattern')) {
    const pattern = await vscode.window.showInputBox({
      title: placeHolder === undefined ? CLEANUP_TITLE() : title,
      prompt: vscode.l10n.t('Titles that contain this text (case does not matter; * matches any text, ? one character)'),
      validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Type some text of the titles to select.')),
    });
    if (pattern === undefined) return undefined;
    rule.titlePattern = pattern;
  }
  if (keys.has('problems')) rule.problems = true;
  return rule;
}

/** Shows a preview pick; true when the user goes ahead (Enter), false on Escape. The pick is disposed either way. */
export function confirmInPick(pick: vscode.QuickPick<vscode.QuickPickItem>, shown?: (pick: vscode.QuickPick<vscode.QuickPickItem>) => void): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let accepted = false;
    pick.onDidAccept(() => {
      accepted = true;
      pick.hide();
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve(accepted);
    });
    pick.show();
    shown?.(pick);
  });
}
