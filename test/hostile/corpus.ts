// The hostile-strings corpus: text an agent may send in any field it controls (titles, cwd,
// agent name and version, error messages and `data`, tool titles and locations, plan entries,
// compaction summaries, stderr). Each kind names what it attacks; `hostileStrings()` crosses the
// short ones with the places text lands in a sentence, and adds the long ones.

export interface HostileString {
  kind: string;
  text: string;
}

const MB = 1024 * 1024;

/** Short strings by kind, as an agent would send them. */
export const BASE: Record<string, readonly string[]> = {
  'command link': [
    '[Undo](command:workbench.action.files.newUntitledFile)',
    'Fix [Undo](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%5Cn%22%7D)',
    '[x](command:workbench.action.openSettings "Open")',
    "[x](command:workbench.action.openSettings 'Open')",
    '[[nested](command:a)](command:b)',
    '[Undo](COMMAND:workbench.action.files.newUntitledFile)',
    '<command:workbench.action.files.newUntitledFile>',
    '[x]( command:workbench.action.files.newUntitledFile)',
  ],
  'file link': [
    '[key](file:///home/user/.ssh/id_rsa)',
    '[hosts](file:///etc/hosts)',
    '[c](file://C:/Windows/win.ini)',
    '[x](FILE:///etc/passwd)',
    '[x](vscode://file/etc/passwd)',
    '[x](vscode-remote://ssh-remote+h/etc/passwd)',
  ],
  'web link': [
    '[docs](https://evil.example/phish)',
    '[docs](HTTPS://EVIL.EXAMPLE/)',
    '[docs]( https://evil.example/)',
    '[docs](http://127.0.0.1:8080/admin)',
    'https://evil.example/autolink',
    'www.evil.example',
    'mail me: victim@evil.example',
    '<https://evil.example/angle>',
    '[mail](mailto:victim@evil.example)',
    '[js](javascript:alert(1))',
    '[data](data:text/html,<script>alert(1)</script>)',
  ],
  markup: [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<svg onload=alert(1)>',
    '<a href="command:workbench.action.files.newUntitledFile">click</a>',
    '<iframe src="https://evil.example"></iframe>',
    '<style>*{display:none}</style>',
    '**bold** _italic_ ~~gone~~',
    '# Heading',
    '`code` ```fence```',
    '> quoted',
    '- [ ] task',
    '| a | b |',
    '![img](https://evil.example/x.png)',
    '&lt;b&gt; &amp; &#x3C;',
    '<!-- comment -->',
    '\\[escaped\\](command:x)',
    '"><script>alert(1)</script>',
    "'; DROP TABLE sessions; --",
  ],
  codicon: ['$(zap) Zap', '$(loading~spin)', '\\$(zap)', '$(zap', '$()', '$(account) $(gear) $(trash)'],
  'variable syntax': ['${workspaceFolder}', '${env:HOME}', '${command:workbench.action.files.newUntitledFile}', '%s %d %o', '{0} {1}', '$HOME `whoami` $(whoami)'],
  bidi: ['\u202Egnp.exe', 'safe\u2066evil\u2069', '\u202Atext\u202C', '\u200Fright-to-left mark', 'عنوان الجلسة', '\u2067isolate\u2069'],
  'zero width': ['zero\u200Bwidth', 'joiner\u200D\u200C', '\uFEFFbom', '\u2060word joiner', '\u00ADsoft hyphen', '[Undo]\u200B(command:x)'],
  surrogates: ['lone high \uD800', 'lone low \uDC00', 'reversed \uDC00\uD800', 'emoji 🤖 fine', 'cut emoji \uD83E', '\uDFFF\uD800\uDBFF'],
  newlines: ['line one\nline two', 'crlf\r\nline', 'cr\rline', 'sep\u2028line', 'para\u2029line', '\n\n\nleading', 'trailing\n\n', 'tab\there'],
  control: ['nul\u0000byte', 'escape \u001b[31mred\u001b[0m', 'bell\u0007', 'backspace\b\b\bxxx', 'c1\u0085\u009b31m', 'del\u007f', 'form\ffeed', 'vertical\vtab'],
  'path-like': ['../../../../etc/passwd', '/etc/passwd', 'C:\\Windows\\System32', '\\\\server\\share', '~/.ssh/id_rsa', 'a/b\\c:d*e?f"g<h>i|j'],
  'not much': ['', ' ', '\t', '.', '-', '…'],
};

/** Where agent text lands in our sentences: alone, after our words, before our words. */
const PLACES: readonly ((s: string) => string)[] = [(s) => s, (s) => `Fix ${s}`, (s) => `${s} (done)`];

/** Long strings: 1 MB plain, 1 MB of links, 1 MB of icons, many lines, a deep nest. */
export function longStrings(): HostileString[] {
  return [
    { kind: '1 MB', text: 'x'.repeat(MB) },
    { kind: '1 MB of command links', text: '[Undo](command:workbench.action.files.newUntitledFile) '.repeat(Math.ceil(MB / 56)) },
    { kind: '1 MB of icons', text: '$(zap)'.repeat(Math.ceil(MB / 6)) },
    { kind: '100k lines', text: 'line\n'.repeat(100_000) },
    { kind: 'deep nesting', text: '['.repeat(10_000) + '](command:x)' + ')'.repeat(10_000) },
  ];
}

/** Every short string in every place, then the long ones: well over 200 strings. */
export function hostileStrings(options: { long?: boolean } = {}): HostileString[] {
  const strings: HostileString[] = [];
  for (const [kind, texts] of Object.entries(BASE)) {
    for (const text of texts) for (const place of PLACES) strings.push({ kind, text: place(text) });
  }
  if (options.long !== false) strings.push(...longStrings());
  return strings;
}
