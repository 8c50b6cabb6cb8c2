// The webview's strings. Every user-visible string of the webview goes through `t`, written in
// English as the key, with `{0}`, `{1}` for arguments, like `vscode.l10n.t` on the host side.
// The host hands over the bundle of the display language (see src/ui/transcripts/transcriptHtml.ts) as JSON
// in `<script type="application/json" id="l10n-bundle">`; without one the English stands.

let bundle: Record<string, string> | undefined;

function loadBundle(): Record<string, string> {
  if (bundle) return bundle;
  bundle = {};
  const text = typeof document !== 'undefined' ? document.getElementById('l10n-bundle')?.textContent : undefined;
  if (text) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object') {
        for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string') bundle[key] = value;
      }
    } catch { /* a broken bundle leaves the English */ }
  }
  return bundle;
}

/** `message` in the display language, with `{N}` replaced by `args[N]`. */
export function t(message: string, ...args: Array<string | number>): string {
  const text = loadBundle()[message] ?? message;
  return args.length ? text.replace(/\{(\d+)\}/g, (whole, n: string) => (Number(n) < args.length ? String(args[Number(n)]) : whole)) : text;
}
