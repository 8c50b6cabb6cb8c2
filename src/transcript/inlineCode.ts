// Code spans in a line an agent sends as plain text, such as a tool call's title (Auggie 0.36.0
// titles its tools "Run `ls src`"): the only Markdown a title is read for. The transcript shows
// each span as code; surfaces without formatting (find, search, tab titles) show its text without
// the backticks; the export writes it as a Markdown code span. Nothing else in the line is
// Markdown: no emphasis, no links, no HTML. Pure (no `vscode`, no DOM).

/** A piece of a line: literal text, or the text of a code span (backticks removed). */
export interface LinePiece {
  readonly code: boolean;
  readonly text: string;
}

/**
 * The line cut into literal text and code spans, as CommonMark reads code spans: a run of N
 * backticks opens a span that the next run of exactly N backticks closes; a run nothing closes is
 * literal. A span's line breaks become spaces, and one space is stripped from each end when both
 * ends have one and the span is not all spaces. Linear in the line's length.
 */
export function codeSpans(line: string): LinePiece[] {
  const runs: { at: number; length: number }[] = [];
  for (let i = line.indexOf('`'); i >= 0; i = line.indexOf('`', i)) {
    let end = i;
    while (line.charCodeAt(end) === 96) end++;
    runs.push({ at: i, length: end - i });
    i = end;
  }
  if (runs.length < 2) return line ? [{ code: false, text: line }] : [];
  // For each run, the next run of the same length (the one that would close it).
  const closer = new Array<number>(runs.length).fill(-1);
  const lastOfLength = new Map<number, number>();
  for (let r = runs.length - 1; r >= 0; r--) {
    closer[r] = lastOfLength.get(runs[r].length) ?? -1;
    lastOfLength.set(runs[r].length, r);
  }
  const pieces: LinePiece[] = [];
  let literal = '';
  let from = 0;
  for (let r = 0; r < runs.length; r++) {
    const close = closer[r];
    if (close < 0) continue;
    const open = runs[r];
    literal += line.slice(from, open.at);
    if (literal) pieces.push({ code: false, text: literal });
    literal = '';
    let text = line.slice(open.at + open.length, runs[close].at).replace(/\r\n?|\n/g, ' ');
    if (text.length >= 2 && text.startsWith(' ') && text.endsWith(' ') && text.trim() !== '') text = text.slice(1, -1);
    pieces.push({ code: true, text });
    from = runs[close].at + runs[close].length;
    r = close;
  }
  literal += line.slice(from);
  if (literal) pieces.push({ code: false, text: literal });
  return pieces;
}

/** The line as a reader sees it shown: code spans' text without their backticks. */
export function withoutCodeTicks(line: string): string {
  return codeSpans(line).map((piece) => piece.text).join('');
}
