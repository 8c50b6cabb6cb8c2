// Shared by the session index probes: waiting for a live list change, with a deadline that names
// what was waited for (the agents coalesce file events: claude 150 ms to 1 s).
import type { AcpClient } from '../../src/acp/client';
import type { SessionListChange } from '../../src/acp/types';

/** How long a change by another process may take to be reported (issue 22's goal is 2 s in the tree; this is the hang guard). */
export const CHANGE_DEADLINE_MS = 15_000;

/** The first change of `subscriptionId` that satisfies `wanted`; fails naming `what` after {@link CHANGE_DEADLINE_MS}. */
export function changeWithin(client: AcpClient, subscriptionId: string, wanted: (change: SessionListChange) => boolean, what: string): Promise<SessionListChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      listener.dispose();
      reject(new Error(`no list change within ${CHANGE_DEADLINE_MS} ms: ${what}`));
    }, CHANGE_DEADLINE_MS);
    const listener = client.onDidChangeSessionList((change) => {
      if (change.subscriptionId !== subscriptionId || !wanted(change)) return;
      clearTimeout(timer);
      listener.dispose();
      resolve(change);
    });
  });
}
