// A tool call's locations and diffs, opened from a transcript: a location opens its file at that
// line; a diff opens in VS Code's diff editor from two virtual, read-only documents (our own
// scheme, served from memory by a TextDocumentContentProvider): nothing is ever written to disk.
// The path and texts come from the host's timeline, never from the webview.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolCallLocation } from '../../transcript/model';

export const DIFF_SCHEME = 'acp-sessions-diff';

/** Serves the two sides of every diff opened; a side is kept until its documents are closed. */
export class ToolDiffs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private next = 0;
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.disposables = [
      vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme === DIFF_SCHEME) this.texts.delete(d.uri.query);
      }),
    ];
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '';
  }

  /** Opens `oldText` (empty for a new file) against `newText` in the diff editor. */
  async open(diff: { path: string; oldText?: string; newText: string }, title: string): Promise<void> {
    const side = (text: string) => {
      const id = String(++this.next);
      this.texts.set(id, text);
      // The file's own name, so the editor picks its language; the query finds the text.
      return vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${path.basename(diff.path) || 'file'}`, query: id });
    };
    await vscode.commands.executeCommand('vscode.diff', side(diff.oldText ?? ''), side(diff.newText), title, { preview: true });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.texts.clear();
  }
}

/**
 * The file a location names: absolute as given, or relative to the session's folder. Undefined
 * for anything else (a URI with a scheme, an empty path).
 */
export function locationUri(location: ToolCallLocation, cwd: string): vscode.Uri | undefined {
  const p = location.path;
  if (typeof p !== 'string' || p.trim() === '' || /^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(p)) return undefined;
  const absolute = path.isAbsolute(p) ? p : path.isAbsolute(cwd) ? path.join(cwd, p) : undefined;
  return absolute ? vscode.Uri.file(path.normalize(absolute)) : undefined;
}

/** Opens a location's file at its line (1-based, as ACP's `line`); a message when it cannot. */
export async function openLocation(location: ToolCallLocation, cwd: string, warn: (text: string) => void): Promise<void> {
  const uri = locationUri(location, cwd);
  if (!uri) {
    warn(vscode.l10n.t('This location is not a file path: {0}', String(location.path)));
    return;
  }
  // The path is the agent's (or an exported file's): a named pipe or a device would hold the read.
  const stat = await fs.stat(uri.fsPath).catch(() => undefined);
  if (stat && !stat.isFile()) {
    warn(vscode.l10n.t('Not opened: {0} is not a regular file.', uri.fsPath));
    return;
  }
  try {
    const document = await vscode.workspace.openTextDocument(uri);
    const line = typeof location.line === 'number' && location.line >= 1 ? Math.min(location.line, document.lineCount) - 1 : 0;
    const position = new vscode.Position(line, 0);
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position), preview: true });
  } catch (error) {
    warn(vscode.l10n.t('Could not open {0}: {1}', uri.fsPath, error instanceof Error ? error.message : String(error)));
  }
}
