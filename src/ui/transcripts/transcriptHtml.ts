// The page of a transcript tab: the webview's options (what it may load, nothing kept while it is
// hidden) and its HTML, a shell with a strict Content-Security-Policy and a nonce that loads the
// renderer (dist/webview/transcript.js) and hands it the display language's strings.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { scriptJson } from '../common/plainText';

/** The options of a transcript tab's webview, for a new tab and for one VS Code brings back. */
export function transcriptWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    // Rebuilt from the host's timeline when shown again: nothing to keep while hidden.
    retainContextWhenHidden: false,
    // The webview holds only the rows on screen: its own find bar searches the host's timeline.
    enableFindWidget: false,
    localResourceRoots: [
      vscode.Uri.joinPath(extensionUri, 'media'),
      vscode.Uri.joinPath(extensionUri, 'dist', 'webview'),
      vscode.Uri.joinPath(extensionUri, 'dist', 'codicons'),
    ],
  };
}

/** The HTML of a transcript tab: empty header and timeline, filled by the renderer from the host's snapshot. */
export function transcriptHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const asset = (...path: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...path)).toString();
  const nonce = makeNonce();
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
  ].join('; ');
  // The display language's strings for the webview's t(); a data block, never run, and no `<` in it can end the element.
  const bundle = scriptJson(vscode.l10n.bundle ?? {});
  return `<!DOCTYPE html>
<html lang="${escapeAttribute(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('dist', 'codicons', 'codicon.css')}">
<link rel="stylesheet" href="${asset('media', 'transcript.css')}">
<title>${escapeAttribute(vscode.l10n.t('Transcript'))}</title>
</head>
<body data-loading="true" data-markdown="done">
<header id="header" class="header"></header>
<main id="timeline" class="timeline" aria-label="${escapeAttribute(vscode.l10n.t('Transcript'))}" data-rows="0"></main>
<script type="application/json" id="l10n-bundle">${bundle}</script>
<script nonce="${nonce}" src="${asset('dist', 'webview', 'transcript.js')}"></script>
</body>
</html>`;
}

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// node:crypto, not globalThis.crypto: the Node of older extension hosts has no global Web Crypto.
function makeNonce(): string {
  return randomBytes(16).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}
