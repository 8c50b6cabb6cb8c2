// What sessions changed, in the Sessions feature: the store in the extension's global storage
// (src/changes/changesStore.ts), which every client hands its replays to, and what it follows from
// the model: a session deleted here (or gone with no copy kept) is forgotten.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { ChangesStore } from '../../changes/changesStore';
import type { ReplayObserver } from '../../acp/types';
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

/** Both observers of one replay, each told every update (either may be undefined); one that fails stops alone, and is logged. */
export function bothObservers(a: ReplayObserver | undefined, b: ReplayObserver | undefined, log: Pick<vscode.LogOutputChannel, 'error'>): ReplayObserver | undefined {
  if (!a || !b) return a ?? b;
  const failed = new Set<ReplayObserver>();
  const tell = (o: ReplayObserver, run: () => void) => {
    if (failed.has(o)) return;
    try {
      run();
    } catch (error) {
      failed.add(o);
      log.error(`A replay observer failed: ${(error as Error)?.stack ?? error}`);
    }
  };
  return {
    update: (update, line) => {
      tell(a, () => a.update(update, line));
      tell(b, () => b.update(update, line));
    },
    end: (ok) => {
      for (const o of [a, b]) {
        const whole = ok && !failed.has(o);
        failed.delete(o);
        tell(o, () => o.end(whole));
      }
    },
  };
}
