// What a `vscode://…/open?agent=…&session=…&cwd=…` link may do. Any web page can open such a
// link, so it does what a click on that session's row would do and nothing more: it opens a
// session that a running agent lists, in a folder open in this window. Anything else would start
// an agent, or load a session, in a folder the link chose (an agent reads that folder's hooks,
// settings and MCP servers), so it asks first. Ids and folders that are not plain values never
// reach the agent at all. Plain Node only (no `vscode`).
import { isAbsolute, relative, resolve, win32 } from 'node:path';
import type { SessionInfo } from '../acp/types';
import { isPlainToken } from './resume';

/** Why a link asks before it opens. */
export type LinkDoubt =
  /** No list of the agent's holds the session. */
  | 'notListed'
  /** The session's folder is not one of the window's folders (or below one). */
  | 'outsideWorkspace'
  /** The agent is not running: opening starts it. */
  | 'agentStopped'
  /** The window is in Restricted Mode. */
  | 'untrusted';

/** Why a link is refused outright. */
export type LinkRefusal = 'badSessionId' | 'badFolder';

export type LinkVerdict =
  | { kind: 'open'; session: SessionInfo }
  | { kind: 'ask'; session: SessionInfo; doubts: LinkDoubt[] }
  | { kind: 'refuse'; why: LinkRefusal };

export interface LinkFacts {
  sessionId: string;
  /** The folder the link names (may be empty). */
  cwd: string;
  /** The session as the agent's list holds it, if one does. */
  listed: SessionInfo | undefined;
  agentRunning: boolean;
  trusted: boolean;
  /** The window's folders (absolute paths). */
  folders: readonly string[];
  platform?: NodeJS.Platform;
}

/** The longest folder a link may name (longer paths are not folders anyone opens by link). */
const MAX_FOLDER = 4096;
// Controls, bidi overrides and line separators: a folder holding one is not shown as it is.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u2028\u2029]/;

/** Whether `folder` is an absolute path of printable characters, fit to show and to hand an agent. */
export function isPlainFolder(folder: string, platform: NodeJS.Platform = process.platform): boolean {
  if (typeof folder !== 'string' || folder.length === 0 || folder.length > MAX_FOLDER || UNPRINTABLE.test(folder)) return false;
  return platform === 'win32' ? win32.isAbsolute(folder) : isAbsolute(folder);
}

/** Whether `folder` is one of `folders` or below one. */
export function isInFolders(folder: string, folders: readonly string[], platform: NodeJS.Platform = process.platform): boolean {
  const path = platform === 'win32' ? win32 : { resolve, relative, isAbsolute };
  const norm = (p: string) => (platform === 'win32' ? path.resolve(p).toLowerCase() : path.resolve(p));
  const target = norm(folder);
  return folders.some((f) => {
    const rel = path.relative(norm(f), target);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

/**
 * What a link may do. A listed session opens with the list's folder, never the link's; a session
 * no list holds is asked about with the link's folder, which must then be a plain absolute path.
 */
export function linkVerdict(facts: LinkFacts): LinkVerdict {
  const platform = facts.platform ?? process.platform;
  if (!isPlainToken(facts.sessionId)) return { kind: 'refuse', why: 'badSessionId' };
  const listed = facts.listed?.sessionId === facts.sessionId ? facts.listed : undefined;
  const session: SessionInfo = listed ?? { sessionId: facts.sessionId, cwd: facts.cwd, title: null };
  if (!isPlainFolder(session.cwd, platform)) return { kind: 'refuse', why: 'badFolder' };
  const doubts: LinkDoubt[] = [];
  if (!listed) doubts.push('notListed');
  if (!isInFolders(session.cwd, facts.folders, platform)) doubts.push('outsideWorkspace');
  if (!facts.agentRunning) doubts.push('agentStopped');
  if (!facts.trusted) doubts.push('untrusted');
  return doubts.length === 0 ? { kind: 'open', session } : { kind: 'ask', session, doubts };
}
