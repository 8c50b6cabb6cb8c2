// Subagent lineage and what opened transcripts learned, for the tree. A session's parent comes
// from its list entry (`_meta`, read at the acp boundary) or from a `subagent_update` of a
// parent whose transcript was opened; nothing is loaded just to find children.
import { subagentParentOf } from '../acp/validate';
import type { SessionInfo } from '../acp/types';
import type { Usage } from '../acp/types';
import { Emitter, type Disposable } from './events';

/** One list's sessions as the tree shows them: top-level sessions and, per parent, its children. */
export interface NestedSessions {
  roots: SessionInfo[];
  /** By parent session id, in list order. */
  children: Map<string, SessionInfo[]>;
}

/**
 * Nests each subagent session under its parent when the parent is in the same list; a child whose
 * parent is not listed stays at the top (hiding it would lose it). With `show` false, every
 * session known to be a subagent is left out.
 */
export function nestSubagents(sessions: readonly SessionInfo[], parentOf: (session: SessionInfo) => string | undefined, show: boolean): NestedSessions {
  const byId = new Map(sessions.map((s) => [s.sessionId, s]));
  const roots: SessionInfo[] = [];
  const children = new Map<string, SessionInfo[]>();
  for (const session of sessions) {
    const parent = parentOf(session);
    if (parent !== undefined && !show) continue;
    if (parent === undefined || !byId.has(parent) || createsCycle(session, parentOf, byId)) {
      roots.push(session);
      continue;
    }
    const siblings = children.get(parent);
    if (siblings) siblings.push(session);
    else children.set(parent, [session]);
  }
  return { roots, children };
}

/** Whether following parents from `session` comes back to it (agent data can say anything). */
function createsCycle(session: SessionInfo, parentOf: (session: SessionInfo) => string | undefined, byId: ReadonlyMap<string, SessionInfo>): boolean {
  const seen = new Set<string>([session.sessionId]);
  let parent = parentOf(session);
  while (parent !== undefined) {
    if (seen.has(parent)) return true;
    seen.add(parent);
    const next = byId.get(parent);
    parent = next ? parentOf(next) : undefined;
  }
  return false;
}

/** What opened transcripts told about their sessions, per agent: last figures and children. */
export class LearnedFacts implements Disposable {
  private readonly usages = new Map<string, Usage>();
  private readonly parents = new Map<string, string>();
  private readonly origins = new Map<string, string>();
  private readonly onDidChangeEmitter = new Emitter<{ agent: string }>();
  readonly onDidChange = this.onDidChangeEmitter.event;

  /** A transcript of `sessionId` ended its replay or changed: its last usage and announced children. */
  learned(agent: string, sessionId: string, facts: { usage?: Usage; subagents: readonly string[] }): void {
    if (facts.usage) this.usages.set(key(agent, sessionId), { ...facts.usage });
    for (const child of facts.subagents) if (child !== sessionId) this.parents.set(key(agent, child), sessionId);
    this.onDidChangeEmitter.fire({ agent });
  }

  /** The last `usage_update` of a session whose transcript was opened in this window. */
  usage(agent: string, sessionId: string): Usage | undefined {
    return this.usages.get(key(agent, sessionId));
  }

  /** A fork made in this window (Fork from Here): its origin, for an agent whose list does not tell it. */
  forked(agent: string, forkId: string, originId: string): void {
    if (forkId === originId) return;
    this.origins.set(key(agent, forkId), originId);
    this.onDidChangeEmitter.fire({ agent });
  }

  /** The session a fork was made from: its list entry's word first, else a fork made here. */
  forkOriginOf(agent: string, session: SessionInfo): string | undefined {
    return session.details?.forkedFrom ?? this.origins.get(key(agent, session.sessionId));
  }

  /** The parent of a subagent session: its list entry's word first, else a parent's replay. */
  parentOf(agent: string, session: SessionInfo): string | undefined {
    return subagentParentOf(session) ?? this.parents.get(key(agent, session.sessionId));
  }

  dispose(): void {
    this.onDidChangeEmitter.dispose();
  }
}

function key(agent: string, sessionId: string): string {
  return JSON.stringify([agent, sessionId]);
}
