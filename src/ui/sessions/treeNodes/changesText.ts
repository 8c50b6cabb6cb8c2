// What a session changed, as its row says it: a short figure for the description
// (`acpSessions.showChanges`) and lines for the tooltip. Only what a replay the extension received
// told (src/changes/); a session none was seen of says so, never "0 files". Paths are the agent's:
// plain text, cut to a line.
import * as vscode from 'vscode';
import type { SessionInfo } from '../../../acp/types';
import { shownPath } from '../../../changes/changes';
import { isBehind, type StoredChanges } from '../../../changes/changesStore';
import { plainLine } from '../../common/plainText';

/** "5 files, +120 −30", "1 file, +3 −0", or "no files changed". */
export function changesFigure(changes: Pick<StoredChanges, 'files' | 'moreFiles' | 'added' | 'removed'>): string {
  const files = changes.files.length + changes.moreFiles;
  if (files === 0) return vscode.l10n.t('no files changed');
  return files === 1
    ? vscode.l10n.t('1 file, +{0} −{1}', changes.added, changes.removed)
    : vscode.l10n.t('{0} files, +{1} −{2}', files, changes.added, changes.removed);
}

/** The description's part, or undefined when nothing is known (the tooltip says so). */
export function changesDescription(changes: StoredChanges | undefined): string | undefined {
  return changes ? changesFigure(changes) : undefined;
}

/** How many of a session's files the tooltip names. */
const FILES_IN_TOOLTIP = 8;

/** The tooltip's lines (plain text, each to be escaped): the figure, when it was counted, and the first files. */
export function changesTooltip(changes: StoredChanges | undefined, session: SessionInfo): string[] {
  if (!changes) return [vscode.l10n.t('Changes: not known yet. Open it to see what it changed.')];
  const when = new Date(Date.parse(changes.observedAt)).toLocaleString();
  const behind = isBehind(changes, session.updatedAt);
  const lines = [behind
    ? vscode.l10n.t('Changes: {0}, as of {1}. Updated since: open it to see what it changed.', changesFigure(changes), when)
    : vscode.l10n.t('Changes: {0} (its replay of {1})', changesFigure(changes), when)];
  for (const file of changes.files.slice(0, FILES_IN_TOOLTIP)) {
    const figure = file.linesKnown ? `+${file.added} −${file.removed}` : vscode.l10n.t('+{0} −{1}, not every line known', file.added, file.removed);
    lines.push(`• ${plainLine(shownPath(file.path, session.cwd), 200)} (${figure})`);
  }
  const more = changes.files.length - FILES_IN_TOOLTIP + changes.moreFiles;
  if (more > 0) lines.push(`• ${vscode.l10n.t('and {0} more', more)}`);
  return lines;
}
