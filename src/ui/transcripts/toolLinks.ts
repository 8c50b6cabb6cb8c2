// A tool call's locations, opened from a transcript: a location opens its file at that line (its
// diffs open from the provider the main bundle registers: ToolDiffs in src/ui/transcripts/register.ts).
// The path comes from the host's timeline, never from the webview.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolCallLocation } from '../../transcript/model';

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
