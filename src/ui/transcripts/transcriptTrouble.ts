// What transcripts could not keep, told where the user looks: a spill folder whose disk is full
// (once per folder, a warning through the extension's messages and the log), a folder a tab could
// make no file in (the log; its rows stay in memory) and the updates one tab could not keep (the
// log, and a notice in that tab's header with their count).
import * as vscode from 'vscode';
import type { Notice } from '../../transcript/model';
import { messageOf } from '../../acp/errors';
import { onSpillWriteError, SpillFile } from '../../transcript/spillFile';
import type { Unkept } from '../../transcript/updateLog';
import { Messages, type MessageRecorder } from '../common/messages';

/** Says once per folder that writing transcript files there failed, and which folder (the disk that is full). */
export function watchSpillFailures(log: vscode.LogOutputChannel, recorder: MessageRecorder | undefined): vscode.Disposable {
  const messages = new Messages();
  messages.recorder = recorder;
  const told = new Set<string>();
  const watch = onSpillWriteError(({ dir, path, error }) => {
    log.warn(`Could not write the transcript file ${path}: ${error.message}. Transcripts keep what they could not write in memory, up to a bound.`);
    if (told.has(dir)) return;
    told.add(dir);
    const full = error.code === 'ENOSPC' || error.code === 'EDQUOT';
    void messages.show(
      'warning',
      full
        ? vscode.l10n.t('The disk that holds {0} is full. Open transcripts keep what they could not write there in memory, up to a limit; free some space, then open them again.', dir)
        : vscode.l10n.t('Could not write transcript files in {0} ({1}). Open transcripts keep what they could not write there in memory, up to a limit.', dir, error.message),
    );
  });
  return new vscode.Disposable(() => watch.dispose());
}

/** A new file in `dir` for what the heap need not hold; none (all on the heap) when there is no directory or it cannot be written. */
export function spillFileIn(dir: string | undefined, tag: string, log: vscode.LogOutputChannel, sessionId: string): SpillFile | undefined {
  if (!dir) return undefined;
  try {
    return SpillFile.create(dir, tag);
  } catch (error) {
    log.warn(`Transcript of ${sessionId}: no file in ${dir} (${messageOf(error)}); its rows stay in memory.`);
    return undefined;
  }
}

/** Counts a tab's updates that could not be kept, logs each loss (a full disk's once), and makes the notice its header shows. */
export class UnkeptUpdates {
  private count = 0;
  private diskFullLogged = false;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly what: string,
  ) {}

  get total(): number {
    return this.count;
  }

  clear(): void {
    this.count = 0;
    this.diskFullLogged = false;
  }

  add(unkept: Unkept): void {
    this.count += unkept.count;
    if (unkept.diskFull && this.diskFullLogged) return;
    this.diskFullLogged ||= unkept.diskFull;
    this.log.warn(`${this.what}: ${unkept.count === 1 ? 'an update' : `${unkept.count} updates`} could not be kept: ${unkept.reason}.`);
  }

  /** The header's notices with ours after them, when updates were lost. */
  notices(notices: Notice[]): Notice[] {
    if (this.count === 0) return notices;
    return [...notices, { severity: 'warning', title: vscode.l10n.t('{0} updates of this transcript could not be kept (see the log).', this.count) }];
  }
}
