// What sessions changed, in the Sessions feature: the store in the extension's global storage
// (src/changes/changesStore.ts), which every client hands its replays to, and what it follows from
// the model: a session deleted here (or gone with no copy kept) is forgotten.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { ChangesStore } from '../../changes/changesStore';
import type { SessionsModel } from '../../sessions/sessionsModel';

/** The store, before the agents start (each client hands it every replay). */
export function createChangesStore(context: vscode.ExtensionContext, model: () => SessionsModel | undefined, log: vscode.LogOutputChannel): ChangesStore {
  return new ChangesStore(join(context.globalStorageUri.fsPath, 'changes'), {
    facts: (agent, sessionId) => {
      const updatedAt = model()?.find(agent, sessionId)?.session.updatedAt;
      return typeof updatedAt === 'string' ? { updatedAt } : undefined;
    },
    log,
  });
}

/** `acpSessions.showChanges`: what a session changed, in its row's description too. */
export function readShowChanges(): boolean {
  return vscode.workspace.getConfiguration('acpSessions').get<boolean>('showChanges') === true;
}

/** The store's part in the model's events. */
export function followDeletes(store: ChangesStore, model: SessionsModel, hasKeptCopy: (agent: string, sessionId: string) => boolean): vscode.Disposable {
  // A session gone by no act here whose copy is kept still shows under Kept Here, with what it changed.
  return model.onDidDelete(({ agent, sessionId, how }) => (how === 'gone' && hasKeptCopy(agent, sessionId) ? undefined : void store.forget(agent, [sessionId])));
}
