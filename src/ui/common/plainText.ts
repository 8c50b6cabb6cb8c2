// Agent text as plain text on the VS Code surfaces that parse some syntax of their own.
// Notifications and dialogs turn `[label](command:…|file:…|https://…)` into links (VS Code's
// linkedText parser), quick pick rows turn `$(name)` into icons, Markdown tooltips render
// Markdown (and autolink bare URLs). Tree labels and descriptions given as strings, tab titles
// and string tooltips parse nothing, but still get one bounded line without bidi tricks.
// No `vscode` import: the unit tests run these under plain Node.

/** Longest agent text put into one label, description or notification (VS Code cuts at 1000). */
export const MAX_LINE = 500;
/** Longest agent text put into a tooltip or a dialog's detail. */
export const MAX_BLOCK = 4000;

const ZERO_WIDTH_SPACE = '\u200B';
const REPLACEMENT = '\uFFFD';

// Explicit bidi embeddings, overrides and isolates reorder what follows them ("Trojan Source").
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
// C0 and C1 controls, DEL; line and paragraph separators. Tab and newline are handled apart.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// VS Code's label icon syntax: `$(name)` or `$(name~modifier)`.
const ICON = /\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Lone surrogates, controls and bidi overrides become U+FFFD, so what was there stays visible. */
function clean(text: string): string {
  return text.replace(LONE_SURROGATE, REPLACEMENT).replace(BIDI_CONTROLS, REPLACEMENT).replace(CONTROLS, REPLACEMENT);
}

/** Cuts at `max` UTF-16 units without splitting a surrogate pair, marking the cut with "…". */
function bound(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end--;
  return `${text.slice(0, end)}…`;
}

/** One line: whitespace runs (newlines, tabs, U+2028/9) become one space; bounded; cleaned. */
export function plainLine(text: string, max = MAX_LINE): string {
  return bound(clean(String(text).replace(/[\s\u2028\u2029]+/g, ' ').trim()), max);
}

/** Several lines: newlines kept (normalised to \n), each line cleaned; bounded. */
export function plainBlock(text: string, max = MAX_BLOCK): string {
  return bound(clean(String(text).replace(/\r\n?|[\u2028\u2029]/g, '\n').replace(/\t/g, ' ')), max);
}

/**
 * Text for showInformationMessage / showWarningMessage / showErrorMessage and modal dialogs.
 * VS Code finds links as `[label](target)` with `](` adjacent; a zero-width space between them
 * leaves the text looking the same and gives the parser nothing to match.
 */
export function notificationText(text: string, multiline = false): string {
  const unlinked = String(text).replace(/\]\(/g, `]${ZERO_WIDTH_SPACE}(`);
  return multiline ? plainBlock(unlinked) : plainLine(unlinked, 2 * MAX_LINE);
}

/**
 * Text for a quick pick's label, description or detail, which render `$(name)` as an icon and
 * `\$(name)` as the text `$(name)`: each icon gets one more backslash, so even `\$(x)` reads as written.
 */
export function quickPickText(text: string, max = MAX_LINE): string {
  return plainLine(text, max).replace(ICON, '\\$&');
}

/**
 * Text for a MarkdownString (without supportThemeIcons or supportHtml): every ASCII punctuation
 * character is backslash-escaped, which CommonMark allows for all of them, so no emphasis, link,
 * autolink (`https\://`, `www\.`, `a\@b\.c`), HTML or entity survives; newlines become hard breaks.
 */
export function markdownText(text: string, max = MAX_BLOCK): string {
  return plainBlock(text, max)
    .replace(/[!-/:-@[-`{-~]/g, '\\$&')
    .replace(/\n/g, '  \n');
}

/** JSON safe as the text of a `<script>` element: `<`, `>`, `&` and U+2028/9 as `\uXXXX` escapes, so nothing in it ends the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
