// Kept copies in the Sessions feature: the store in the extension's global storage (on the remote
// machine in a remote window), the settings it follows (`acpSessions.keep.*`, from user and
// machine settings only), Kept Here under each agent, and the commands: open a kept copy (the
// transcripts open it read-only) and Delete Kept Copy (with a modal).
import { join } from 'node:path';
import * as vscode from 'vscode';
import { KeptHere } from '../../keep/keptHere';
import { KeptStore, type KeepMode, type KeptCopy } from '../../keep/keptStore';
import type { SessionsModel } from '../../sessions/sessionsModel';
import { sessionLabel } from '../../sessions/format';
import type { Messages } from '../common/messages';
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

export function registerKept(context: vscode.ExtensionContext, store: KeptStore, model: SessionsModel, deps: { messages: Messages; log: vscode.LogOutputChannel; transcripts: () => TranscriptsLike | undefined }): KeptFeature {
  const here = new KeptHere(store, model, deps.log);
  const view: KeptFeature['view'] = {
    sessions: (agent) => here.sessions(agent),
    damaged: (agent) => store.damaged(agent),
    onDidChange: (listener) => here.onDidChange(() => listener()),
  };
  const forgotten = new vscode.EventEmitter<{ agent: string; sessionId: string }>();
  const copyOf = (value: unknown): KeptCopy | undefined => (value instanceof KeptNode ? value.copy : undefined);
  context.subscriptions.push(
    here,
    store,
    forgotten,
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
      const keptOnly = here.isKeptOnly(copy.meta.agentName, copy.meta.sessionId);
      await store.delete(copy.meta.agentName, [copy.meta.sessionId]);
      if (keptOnly) forgotten.fire({ agent: copy.meta.agentName, sessionId: copy.meta.sessionId });
    }),
  );
  return { store, here, view, onDidForget: forgotten.event };
}
