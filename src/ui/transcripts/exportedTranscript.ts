// Open Exported Transcript…: a replay file anyone may have handed the user, shown read-only with
// no agent. It is data: read bounded (a regular file within acpSessions.exportedTranscript.maxSizeMB,
// each line within acpSessions.maxMessageSize) and streamed into its tab a slice at a time, and a
// subagent row in it opens its child from the same export, never from an agent.
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { messageOf } from '../../acp/errors';
import { openKept } from '../../keep/keptFile';
import type { KeptCopy, KeptStore } from '../../keep/keptStore';
import { sessionLabel } from '../../sessions/format';
import type { ReplayHeader } from '../../transcript/replayFile';
import { findReplayIn, openReplay, ReplayOpenError, type ReplayReadLimits } from '../../transcript/replayReader';
import type { Messages } from '../common/messages';
import type { TranscriptMatch, TranscriptPanels } from './transcriptPanel';

const MB = 1024 * 1024;
export const exportedSizeBounds = { min: 1, max: 65_536, default: 256 };
/** As the client bounds an agent's line (acpSessions.maxMessageSize): an export holds those lines. */
const DEFAULT_LINE_BYTES = 64 * MB;

/** From user and machine settings only: a workspace cannot raise what a file it ships may make us read. */
export function readExportedLimits(): ReplayReadLimits {
  const config = vscode.workspace.getConfiguration('acpSessions');
  const size = config.inspect<unknown>('exportedTranscript.maxSizeMB')?.globalValue;
  const mb = typeof size === 'number' && Number.isFinite(size) ? Math.min(exportedSizeBounds.max, Math.max(exportedSizeBounds.min, size)) : exportedSizeBounds.default;
  const line = config.inspect<unknown>('maxMessageSize')?.globalValue;
  const maxLineBytes = typeof line === 'number' && Number.isFinite(line) && line >= MB ? line : DEFAULT_LINE_BYTES;
  return { maxFileBytes: Math.round(mb * MB), maxLineBytes };
}

/** Opens `file` in a tab; resolves when it has been read (or refused), every problem shown as a message. */
export async function openExportedFile(messages: Messages, panels: TranscriptPanels, file: string): Promise<void> {
  const limits = readExportedLimits();
  let opened;
  try {
    opened = await openReplay(file, limits);
  } catch (error) {
    void messages.show('error', refusal(file, error));
    return;
  }
  const { header, counts } = opened;
  const reading = { kind: 'export' as const, path: file, agentName: header.agentName, sessionId: header.sessionId, ...limits };
  const state = await panels.openExported({ ...opened, file, reading, openChild: (sessionId) => openChild(messages, panels, file, header, sessionId) });
  if (state.problem) {
    void messages.show('error', vscode.l10n.t('Could not open {0} as an exported transcript: {1}', file, state.problem.message));
    return;
  }
  if (counts.tooLong > 0) {
    void messages.show('warning', vscode.l10n.t('{0} lines of {1} were longer than {2} MB (setting acpSessions.maxMessageSize) and were left out.', counts.tooLong, file, megabytes(limits.maxLineBytes)));
  }
  if (counts.skipped > 0) void messages.show('warning', vscode.l10n.t('{0} lines of {1} were not session updates of this session and were left out.', counts.skipped, file));
}

function refusal(file: string, error: unknown): string {
  if (error instanceof ReplayOpenError && error.reason === 'too-large' && error.figures) {
    return vscode.l10n.t(
      '{0} was not opened: it is {1} MB, and exported transcripts of up to {2} MB are read (setting acpSessions.exportedTranscript.maxSizeMB).',
      file,
      megabytes(error.figures.size),
      megabytes(error.figures.limit),
    );
  }
  if (error instanceof ReplayOpenError && error.reason === 'not-a-file') {
    return vscode.l10n.t('{0} was not opened: it is not a regular file (a named pipe, a device or a folder is never read as a transcript).', file);
  }
  return vscode.l10n.t('Could not open {0} as an exported transcript: {1}', file, messageOf(error));
}

function megabytes(bytes: number): string {
  const mb = bytes / MB;
  return mb >= 10 ? String(Math.round(mb)) : String(Math.round(mb * 10) / 10);
}

/** A subagent row of an exported tab: the child's own export from the same folder, or a message; no agent is asked. */
async function openChild(messages: Messages, panels: TranscriptPanels, file: string, parent: ReplayHeader, sessionId: string): Promise<void> {
  const folder = dirname(file);
  let found: string | undefined;
  try {
    found = await findReplayIn(folder, parent.agentName, sessionId, readExportedLimits().maxFileBytes);
  } catch (error) {
    void messages.show('warning', vscode.l10n.t('Could not look for the subagent session "{0}" in {1}: {2}', sessionId.slice(0, 200), folder, messageOf(error)));
    return;
  }
  if (found) {
    await openExportedFile(messages, panels, found);
    return;
  }
  void messages.show(
    'info',
    vscode.l10n.t('The subagent session "{0}" is not in this export: no file in {1} beside {2} holds it. An exported transcript opens only what was exported with it, and starts no agent.', sessionId.slice(0, 200), folder, basename(file)),
  );
}

/**
 * Opens a kept copy (Kept Here) in a tab, read-only, no agent asked; a subagent row opens its own
 * kept copy. A copy that does not read as whole says so, and Kept Here lists it as damaged.
 */
export async function openKeptCopy(messages: Messages, panels: TranscriptPanels, store: KeptStore, copy: KeptCopy, match?: TranscriptMatch): Promise<void> {
  const label = sessionLabel({ sessionId: copy.meta.sessionId, title: copy.meta.title ?? null });
  const damaged = (error: unknown) => {
    store.markDamaged(copy, messageOf(error));
    void messages.show('error', vscode.l10n.t('The kept copy of "{0}" is damaged ({1}): it is not shown as whole. Kept Here lists it as a damaged copy, which you can delete.', label, messageOf(error)));
  };
  const limits = readExportedLimits();
  let opened;
  try {
    opened = await openKept(copy.path, limits.maxLineBytes);
  } catch (error) {
    damaged(error);
    return;
  }
  const state = await panels.openExported({
    ...opened,
    file: copy.path,
    reading: { kind: 'kept', path: copy.path, agentName: opened.meta.agentName, sessionId: opened.meta.sessionId, ...limits },
    keptAt: copy.meta.keptAt,
    openChild: async (sessionId) => {
      const child = store.get(copy.meta.agentName, sessionId);
      if (child) return openKeptCopy(messages, panels, store, child);
      void messages.show('info', vscode.l10n.t('No copy of the subagent session "{0}" was kept: it was never read here. A kept copy opens only what was kept, and asks no agent.', sessionId.slice(0, 200)));
    },
  });
  if (state.problem) damaged(new Error(state.problem.message));
  else if (match) panels.showExportedMatch(copy.path, match);
}
