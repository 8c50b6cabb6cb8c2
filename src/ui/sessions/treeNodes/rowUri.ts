// A session row's resourceUri, which carries its decorations (src/ui/sessions/readMarks.ts): the
// agent and the session id, encoded, under a scheme of ours that nothing opens.
import * as vscode from 'vscode';

/** The scheme of a session row's resourceUri: only this provider reads it, nothing opens it. */
export const SESSION_ROW_SCHEME = 'acp-session-row';

/** A session row's resourceUri: the agent and the id, encoded (agent text never becomes a path of its own). */
export function sessionRowUri(agent: string, sessionId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SESSION_ROW_SCHEME, path: `/${encodeURIComponent(agent)}/${encodeURIComponent(sessionId)}` });
}

export function parseRowUri(uri: vscode.Uri): { agent: string; sessionId: string } | undefined {
  if (uri.scheme !== SESSION_ROW_SCHEME) return undefined;
  const match = /^\/([^/]*)\/([^/]*)$/.exec(uri.path);
  if (!match) return undefined;
  try {
    return { agent: decodeURIComponent(match[1]), sessionId: decodeURIComponent(match[2]) };
  } catch {
    return undefined;
  }
}

