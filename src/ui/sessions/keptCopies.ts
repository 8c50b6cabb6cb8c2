// Kept copies in the Sessions feature: the store in the extension's global storage (on the remote
// machine in a remote window), the settings it follows (`acpSessions.keep.*`, from user and
// machine settings only), Kept Here under each agent, and the commands: open a kept copy (the
// transcripts open it read-only) and Delete Kept Copy (with a modal).
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { KeptHere } from '../../keep/keptHere';
import { KeptStore, type KeepMode, type KeptCopy } from '../../keep/keptStore';
import type { SessionsModel } from '../../sessions/sessionsModel';
import { sessionLabel } from '../../sessions/format';
import type { Messages } from '../common/messages';
import { plainLine } from '../common/plainText';
import type { TranscriptsLike } from './commandContext';
import { DamagedKeptNode, KeptNode } from './treeNodes/keptNodes';
import type { KeptView } from './treeNodes/treeNode';

const MB = 1024 * 1024;
/** About 1,000 ordinary sessions (a copy of a few hundred kilobytes each). */
export const DEFAULT_KEEP_MEGABYTES = 512;

/** A setting as the user or the machine set it: a workspace does not decide what is kept of the user's history. */
function userSetting<T>(key: string): T | undefined {
  const inspected = vscode.workspace.getConfiguration('acpSessions').inspect<T>(key);
  return inspected?.globalValue ?? inspected?.defaultValue;
}

export function readKeepMode(): KeepMode {
  const mode = userSetting<unknown>('keep.mode');
  return mode === 'off' || mode === 'expiring' ? mode : 'read';
}

export function readKeepAheadDays(): number {
  const days = userSetting<unknown>('keep.aheadDays');
  return typeof days === 'number' && Number.isFinite(days) && days >= 1 ? Math.min(365, days) : 7;
}

export function readKeepBudgetBytes(): number {
  const mb = userSetting<unknown>('keep.maxMegabytes');
  return (typeof mb === 'number' && Number.isFinite(mb) && mb > 0 ? mb : DEFAULT_KEEP_MEGABYTES) * MB;
}

export interface KeptFeature {
  readonly store: KeptStore;
  readonly here: KeptHere;
  /** What the tree reads, and when to redraw. */
  readonly view: KeptView & { onDidChange(listener: () => void): vscode.Disposable };
  /** The copy of a session the agent no longer has was deleted: nothing of it is left (search drops it). */
  readonly onDidForget: vscode.Event<{ agent: string; sessionId: string }>;
  /** Deletes these copies; those of sessions under Kept Here are forgotten (onDidForget). */
  deleteCopies(copies: readonly KeptCopy[]): Promise<void>;
}

/** The store, before the agents start (each client hands it every replay). */
export function createKeptStore(context: vscode.ExtensionContext, model: () => SessionsModel | undefined, log: vscode.LogOutputChannel): KeptStore {
  const store = new KeptStore({
    root: join(context.globalStorageUri.fsPath, 'kept'),
    mode: readKeepMode,
    budgetBytes: readKeepBudgetBytes,
    facts: (agent, sessionId) => {
      const found = model()?.find(agent, sessionId);
      if (!found) return undefined;
      const { session } = found;
      return {
        cwd: session.cwd,
        title: typeof session.title === 'string' ? session.title : undefined,
        updatedAt: typeof session.updatedAt === 'string' ? session.updatedAt : undefined,
        archived: found.list.section === 'archived',
      };
    },
    log,
  });
  void store.scan();
  return store;
}

export function registerKept(
  context: vscode.ExtensionContext,
  store: KeptStore,
  model: SessionsModel,
  deps: { messages: Messages; log: vscode.LogOutputChannel; transcripts: () => TranscriptsLike | undefined; treeView: () => { message?: string } },
): KeptFeature {
  const here = new KeptHere(store, model, deps.log);
  const view: KeptFeature['view'] = {
    sessions: (agent) => here.sessions(agent),
    damaged: (agent) => store.damaged(agent),
    usage: (agent) => store.usage(agent),
    onDidChange: (listener) => here.onDidChange(() => listener()),
  };
  const forgotten = new vscode.EventEmitter<{ agent: string; sessionId: string }>();
  // Near the budget the view says so (nothing is ever dropped unasked: Clear Kept Copies… does it).
  const budgetMessage = () => {
    const { bytes } = store.usage();
    const budget = readKeepBudgetBytes();
    deps.treeView().message = bytes >= budget * 0.9
      ? vscode.l10n.t('Kept copies use {0} MB of their {1} MB (acpSessions.keep.maxMegabytes){2}. Clear Kept Copies… (in this view\'s menu) makes room.', megabytes(bytes), megabytes(budget), bytes >= budget ? vscode.l10n.t(': no new copy is made') : '')
      : undefined;
  };
  const copyOf = (value: unknown): KeptCopy | undefined => (value instanceof KeptNode ? value.copy : undefined);
  const deleteCopies = async (copies: readonly KeptCopy[]): Promise<void> => {
    const lost = copies.filter((c) => here.isKeptOnly(c.meta.agentName, c.meta.sessionId));
    const byAgent = new Map<string, string[]>();
    for (const c of copies) byAgent.set(c.meta.agentName, [...(byAgent.get(c.meta.agentName) ?? []), c.meta.sessionId]);
    for (const [agent, ids] of byAgent) await store.delete(agent, ids);
    for (const c of lost) forgotten.fire({ agent: c.meta.agentName, sessionId: c.meta.sessionId });
  };
  context.subscriptions.push(
    here,
    store,
    forgotten,
    store.onDidChange(budgetMessage),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('acpSessions.keep.maxMegabytes') && budgetMessage()),
    vscode.commands.registerCommand('acpSessions.clearKeptCopies', () => clearKeptCopies(store, here, deps.messages, deleteCopies)),
    vscode.commands.registerCommand('acpSessions.showKeptCopies', () => showKeptCopies(store, here, deps.messages)),
    vscode.commands.registerCommand('acpSessions.openKeptCopy', async (node: unknown) => {
      const copy = copyOf(node);
      if (!copy) return;
      const transcripts = deps.transcripts();
      if (!transcripts?.openKept) {
        void deps.messages.show('error', vscode.l10n.t('Transcripts could not start in this window; see the log (ACP Sessions: Show Log).'));
        return;
      }
      await transcripts.openKept(copy);
    }),
    vscode.commands.registerCommand('acpSessions.deleteKeptCopy', async (node: unknown) => {
      if (node instanceof DamagedKeptNode) {
        const question = vscode.l10n.t('Delete the damaged copy?');
        const detail = vscode.l10n.t('{0} does not read as a whole copy ({1}). Deleting it cannot be undone.', node.damaged.path, node.damaged.reason);
        if (await deps.messages.confirm(question, detail, vscode.l10n.t('Delete'))) await store.deleteDamaged(node.damaged.path);
        return;
      }
      const copy = copyOf(node);
      if (!copy) return;
      const label = sessionLabel({ sessionId: copy.meta.sessionId, title: copy.meta.title ?? null });
      const question = vscode.l10n.t('Delete the kept copy of "{0}"?', label);
      const detail = vscode.l10n.t('{0} no longer has this session: the copy kept here is the last one. Deleting it cannot be undone.', copy.meta.agentName);
      if (!(await deps.messages.confirm(question, detail, vscode.l10n.t('Delete Kept Copy')))) return;
      await deleteCopies([copy]);
    }),
  );
  return { store, here, view, onDidForget: forgotten.event, deleteCopies };
}

function megabytes(bytes: number): string {
  const mb = bytes / MB;
  return mb >= 10 ? String(Math.round(mb)) : String(Math.round(mb * 10) / 10);
}

const DAY = 86_400_000;

/**
 * Clear Kept Copies…: by rule (which agent, how old, of sessions the agents still have or no
 * longer have), then a modal that says how many, how much disk and how many are the last copy.
 */
async function clearKeptCopies(store: KeptStore, here: KeptHere, messages: Messages, deleteCopies: (copies: readonly KeptCopy[]) => Promise<void>): Promise<void> {
  await store.scanned;
  const all = store.all();
  if (all.length === 0) {
    void messages.show('info', vscode.l10n.t('No copies are kept here.'));
    return;
  }
  const title = vscode.l10n.t('Clear Kept Copies');
  const agents = [...new Set(all.map((c) => c.meta.agentName))].sort();
  type Item<T> = vscode.QuickPickItem & { value: T };
  const agentPick = await vscode.window.showQuickPick<Item<string | undefined>>(
    [{ label: vscode.l10n.t('Every agent'), description: vscode.l10n.t('{0} copies', all.length), value: undefined }, ...agents.map((a) => ({ label: plainLine(a), description: vscode.l10n.t('{0} copies', store.of(a).length), value: a }))],
    { title, placeHolder: vscode.l10n.t('Whose copies?') },
  );
  if (!agentPick) return;
  // Which folder, when the agent's copies come from more than one.
  const ofAgent = all.filter((c) => agentPick.value === undefined || c.meta.agentName === agentPick.value);
  const folders = [...new Set(ofAgent.map((c) => c.meta.cwd))].sort();
  let folder: string | undefined;
  if (folders.length > 1) {
    const folderPick = await vscode.window.showQuickPick<Item<string | undefined>>(
      [
        { label: vscode.l10n.t('Every folder'), description: vscode.l10n.t('{0} copies', ofAgent.length), value: undefined },
        ...folders.map((f) => ({ label: `$(folder) ${plainLine(basename(f) || f)}`, description: plainLine(f), detail: vscode.l10n.t('{0} copies', ofAgent.filter((c) => c.meta.cwd === f).length), value: f })),
      ],
      { title, placeHolder: vscode.l10n.t('Of sessions in which folder?'), matchOnDescription: true },
    );
    if (!folderPick) return;
    folder = folderPick.value;
  }
  const agePick = await vscode.window.showQuickPick<Item<number>>(
    [
      { label: vscode.l10n.t('Any age'), value: 0 },
      { label: vscode.l10n.t('Sessions not updated for 30 days'), value: 30 },
      { label: vscode.l10n.t('Sessions not updated for 90 days'), value: 90 },
      { label: vscode.l10n.t('Sessions not updated for a year'), value: 365 },
    ],
    { title, placeHolder: vscode.l10n.t('How old?') },
  );
  if (!agePick) return;
  const kindPick = await vscode.window.showQuickPick<Item<'all' | 'listed' | 'kept'>>(
    [
      { label: vscode.l10n.t('Copies of sessions the agents still have'), description: vscode.l10n.t('the agent keeps the session; only the copy goes'), value: 'listed' },
      { label: vscode.l10n.t('Copies under Kept Here'), description: vscode.l10n.t('the agent no longer has these: they are lost for good'), value: 'kept' },
      { label: vscode.l10n.t('Both'), value: 'all' },
    ],
    { title, placeHolder: vscode.l10n.t('Which copies?') },
  );
  if (!kindPick) return;
  const now = Date.now();
  const chosen = all.filter((c) => {
    if (agentPick.value !== undefined && c.meta.agentName !== agentPick.value) return false;
    if (folder !== undefined && c.meta.cwd !== folder) return false;
    const updated = Date.parse(c.meta.updatedAt ?? c.meta.keptAt);
    if (agePick.value > 0 && !(now - updated >= agePick.value * DAY)) return false;
    const keptOnly = here.isKeptOnly(c.meta.agentName, c.meta.sessionId);
    return kindPick.value === 'all' || (kindPick.value === 'kept') === keptOnly;
  });
  if (chosen.length === 0) {
    void messages.show('info', vscode.l10n.t('No kept copy matches these rules: nothing was deleted.'));
    return;
  }
  const lost = chosen.filter((c) => here.isKeptOnly(c.meta.agentName, c.meta.sessionId));
  const bytes = chosen.reduce((n, c) => n + c.bytes, 0);
  const detail = lost.length > 0
    ? vscode.l10n.t('{0} MB. {1} of them are the last copy of a session its agent no longer has: those are lost for good. This cannot be undone.', megabytes(bytes), lost.length)
    : vscode.l10n.t('{0} MB. Their agents still have these sessions; a copy is made again when one is next read.', megabytes(bytes));
  if (!(await messages.confirm(vscode.l10n.t('Delete {0} kept copies?', chosen.length), detail, vscode.l10n.t('Delete')))) return;
  await deleteCopies(chosen);
  void messages.show('info', vscode.l10n.t('Deleted {0} kept copies ({1} MB).', chosen.length, megabytes(bytes)));
}

/**
 * Show Kept Copies (the walkthrough links it): how many sessions have a copy, how much disk they
 * use against the budget, how many are the last copy, and where they live.
 */
async function showKeptCopies(store: KeptStore, here: KeptHere, messages: Messages): Promise<void> {
  await store.scanned;
  const { count, bytes } = store.usage();
  const agents = [...new Set(store.all().map((c) => c.meta.agentName))];
  const onlyHere = agents.reduce((n, a) => n + here.sessions(a).length, 0);
  const mode = readKeepMode();
  const text = [
    count === 0
      ? vscode.l10n.t('No session has a copy kept here yet.')
      : vscode.l10n.t('{0} sessions have a copy kept here, using {1} MB of {2} MB (acpSessions.keep.maxMegabytes).', count, megabytes(bytes), megabytes(readKeepBudgetBytes())),
    onlyHere > 0 ? vscode.l10n.t('{0} of them are under Kept Here: their agents no longer have them.', onlyHere) : '',
    mode === 'off'
      ? vscode.l10n.t('No new copy is made (acpSessions.keep.mode is off).')
      : vscode.l10n.t('Each session you read is kept (acpSessions.keep.mode: {0}).', mode),
    vscode.l10n.t('The copies are in {0}.', store.root),
  ].filter(Boolean).join(' ');
  const clear = vscode.l10n.t('Clear Kept Copies…');
  const settings = vscode.l10n.t('Settings');
  const choice = await messages.show('info', text, ...(count > 0 ? [clear, settings] : [settings]));
  if (choice === clear) await vscode.commands.executeCommand('acpSessions.clearKeptCopies');
  if (choice === settings) await vscode.commands.executeCommand('workbench.action.openSettings', '@id:acpSessions.keep.mode @id:acpSessions.keep.aheadDays @id:acpSessions.keep.maxMegabytes');
}
