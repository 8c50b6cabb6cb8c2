// What loading a session changes on an agent, as measured in the interop tests (the README's
// compatibility table): where nothing the user would notice changes, search indexes and kept
// copies load in the background; elsewhere they ask first, saying what a load changes. Pure.

/** What loading a session does on an agent, as far as measured. */
export type LoadEffect =
  /**
   * Nothing the user would notice: the reference agent; OpenCode 1.18.33 and Auggie 0.36.0
   * (test/interop/opencode.test.ts, auggie.test.ts: the store's bytes, dates and list order are
   * the same after loads).
   */
  | { kind: 'none' }
  /** Claude with the session index: a few bookkeeping records appended to the session's file. */
  | { kind: 'claude' }
  /** Codex: about 1.5 KB appended to the rollout; without the index its date becomes now. */
  | { kind: 'codex' }
  /** pi-acp 0.0.34 with pi 0.73.1 (test/interop/pi.test.ts): a line appended to the session's file, and offline the load does not answer. */
  | { kind: 'pi' }
  /** Not measured: a load may resume the session (its date can become now). */
  | { kind: 'unknown' };

export function loadEffect(agentInfoName: string | undefined): LoadEffect {
  const name = (agentInfoName ?? '').toLowerCase();
  if (name === 'acp-reference-agent' || name === 'opencode' || name === 'auggie') return { kind: 'none' };
  if (name.includes('claude')) return { kind: 'claude' };
  if (name.includes('codex')) return { kind: 'codex' };
  if (name === 'pi' || name.includes('pi-acp')) return { kind: 'pi' };
  return { kind: 'unknown' };
}
