// What a session changed, read from its updates as they come (a replay, live updates): the files
// its tool calls wrote, from their `diff` content (path, old and new text) and, for an edit that
// came without one, its `locations`. Counted per file: the lines each finished edit added and
// removed. Plain data from untrusted updates: every field is checked, nothing is read from disk.
// Pure: no `vscode`, no file system.
import { isAbsolute, join, normalize, relative } from 'node:path';
import type { SessionUpdate } from '../acp/types';

/** One file a session's tool calls wrote. */
export interface FileChange {
  /** The path as the agent first wrote it (untrusted text). */
  path: string;
  /** Lines its edits added and removed, summed over the edits. */
  added: number;
  removed: number;
  /** How many finished tool calls wrote it. */
  edits: number;
  /** False when a tool call wrote it without a diff (only its location): not all of its lines are counted. */
  linesKnown: boolean;
}

/** The files a session changed, in the order first written, and their lines summed. */
export interface SessionChanges {
  files: FileChange[];
  added: number;
  removed: number;
}

/** One `diff` content item as a tool call last sent it. */
interface Diff {
  path: string;
  key: string;
  /** Undefined for a new file; both texts are dropped when the collector's text budget is spent (see `counts`). */
  oldText?: string;
  newText?: string;
  /** Set once counted (and at once when the texts are dropped). */
  counts?: { added: number; removed: number };
}

interface Call {
  order: number;
  status?: string;
  kind?: string;
  diffs: Diff[];
  /** Paths of its locations, as sent. */
  locations: string[];
}

/** Tool call kinds (ACP `ToolKind`) that write the files they name. */
const WRITING_KINDS: ReadonlySet<string> = new Set(['edit', 'delete', 'move']);
/** Diff texts a collector holds at most (characters, old and new): past it, further edits are counted as they come and their texts not kept. */
export const MAX_HELD_TEXT = 32 * 1024 * 1024;
/** Tool calls a collector follows at most (a hostile replay could send any number). */
const MAX_CALLS = 200_000;

/**
 * Follows one session's tool calls: `add` each update in order, `summary()` the files written.
 * A tool call's later update replaces its content, locations, status and kind where it sends them;
 * only calls that ended `completed` count (a failed or unfinished edit wrote nothing).
 */
export class ChangeCollector {
  private readonly calls = new Map<string, Call>();
  private next = 0;
  private heldText = 0;
  private cached: SessionChanges | undefined;
  /** With `cached`: each file's diffs in order, by the file's index. */
  private cachedEdits: Diff[][] = [];

  /** `cwd`: the session's folder, which relative paths are read against. */
  constructor(private readonly cwd: string, private readonly maxHeldText = MAX_HELD_TEXT) {}

  add(update: SessionUpdate): void {
    const kind = update.sessionUpdate;
    if (kind !== 'tool_call' && kind !== 'tool_call_update') return;
    const u = update as unknown as Record<string, unknown>;
    const id = u.toolCallId;
    if (typeof id !== 'string') return;
    let call = this.calls.get(id);
    if (!call) {
      if (this.calls.size >= MAX_CALLS) return;
      call = { order: this.next++, diffs: [], locations: [] };
      this.calls.set(id, call);
    }
    if (typeof u.status === 'string') call.status = u.status;
    if (typeof u.kind === 'string') call.kind = u.kind;
    if (Array.isArray(u.locations)) {
      call.locations = u.locations.flatMap((l) => {
        const path = (l as { path?: unknown } | null)?.path;
        return typeof path === 'string' && path.trim() !== '' ? [path] : [];
      });
    }
    if (Array.isArray(u.content)) {
      for (const d of call.diffs) this.heldText -= textLength(d);
      call.diffs = u.content.flatMap((item) => {
        const diff = this.diffOf(item);
        return diff ? [diff] : [];
      });
    }
    this.cached = undefined;
  }

  /** Whether any tool call wrote a file so far (a quick check before `summary`). */
  get isEmpty(): boolean {
    return this.summary().files.length === 0;
  }

  /** The files written so far, in the order first written (computed once per change). */
  summary(): SessionChanges {
    if (this.cached) return this.cached;
    const files = new Map<string, FileChange>();
    const edits = new Map<string, Diff[]>();
    let added = 0;
    let removed = 0;
    const file = (key: string, path: string) => {
      let f = files.get(key);
      if (!f) {
        files.set(key, (f = { path, added: 0, removed: 0, edits: 0, linesKnown: true }));
        edits.set(key, []);
      }
      return f;
    };
    for (const call of this.finished()) {
      const written = new Set<string>();
      for (const diff of call.diffs) {
        const f = file(diff.key, diff.path);
        edits.get(diff.key)!.push(diff);
        const counts = countsOf(diff);
        f.added += counts.added;
        f.removed += counts.removed;
        added += counts.added;
        removed += counts.removed;
        if (!written.has(diff.key)) f.edits++;
        written.add(diff.key);
      }
      if (!call.kind || !WRITING_KINDS.has(call.kind)) continue;
      for (const path of call.locations) {
        const key = this.keyOf(path);
        if (written.has(key)) continue;
        written.add(key);
        const f = file(key, path);
        f.edits++;
        f.linesKnown = false;
      }
    }
    this.cached = { files: [...files.values()], added, removed };
    this.cachedEdits = [...edits.values()];
    return this.cached;
  }

  /**
   * The two sides a file's diff shows, from this session's own texts: its first old text to its
   * last new text when its edits follow each other (each starts from the text the one before it
   * left, or there is one), else each edit's old and new text in turn (edits of parts of the file).
   * Undefined when the file was not written with a diff, or its texts were not kept.
   */
  sides(index: number): { path: string; oldText: string; newText: string; chained: boolean; edits: number } | undefined {
    const wanted = this.summary().files[index];
    if (!wanted || !this.diffable(index)) return undefined;
    const edits = this.cachedEdits[index];
    const chained = edits.every((d, i) => i === 0 || (d.oldText ?? '') === edits[i - 1].newText);
    if (chained) return { path: wanted.path, oldText: edits[0].oldText ?? '', newText: edits[edits.length - 1].newText!, chained, edits: edits.length };
    return { path: wanted.path, oldText: edits.map((d) => withNewline(d.oldText ?? '')).join(''), newText: edits.map((d) => withNewline(d.newText!)).join(''), chained, edits: edits.length };
  }

  /** Whether file `index` of the summary was written with diffs whose texts are kept (its diff can be shown). */
  diffable(index: number): boolean {
    this.summary();
    const edits = this.cachedEdits[index];
    return edits !== undefined && edits.length > 0 && edits.every((d) => d.newText !== undefined);
  }

  private finished(): Call[] {
    return [...this.calls.values()].filter((c) => c.status === 'completed').sort((a, b) => a.order - b.order);
  }

  private diffOf(item: unknown): Diff | undefined {
    const d = item as { type?: unknown; path?: unknown; oldText?: unknown; newText?: unknown } | null;
    if (!d || typeof d !== 'object' || d.type !== 'diff' || typeof d.path !== 'string' || d.path.trim() === '' || typeof d.newText !== 'string') return undefined;
    if (d.oldText !== undefined && d.oldText !== null && typeof d.oldText !== 'string') return undefined;
    const diff: Diff = { path: d.path, key: this.keyOf(d.path), newText: d.newText };
    if (typeof d.oldText === 'string') diff.oldText = d.oldText;
    const length = textLength(diff);
    if (this.heldText + length > this.maxHeldText) {
      // Counted now, while the texts are at hand; the diff cannot be shown from them later.
      diff.counts = lineChanges(diff.oldText ?? '', diff.newText ?? '');
      diff.oldText = undefined;
      diff.newText = undefined;
    } else {
      this.heldText += length;
    }
    return diff;
  }

  /** One key per file: a relative path is read against the session's folder. */
  private keyOf(path: string): string {
    if (isAbsolute(path)) return normalize(path);
    return isAbsolute(this.cwd) ? join(this.cwd, path) : path;
  }
}

function textLength(d: Diff): number {
  return (d.oldText?.length ?? 0) + (d.newText?.length ?? 0);
}

function countsOf(diff: Diff): { added: number; removed: number } {
  return (diff.counts ??= lineChanges(diff.oldText ?? '', diff.newText ?? ''));
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/** Work a line diff may do at most (line comparisons); past it the count is every line that differs between the first and last common lines. */
const MAX_DIFF_WORK = 20_000_000;

/**
 * How many lines `newText` adds to `oldText` and removes from it (a shortest edit script, Myers'
 * O(ND) algorithm, bounded: past MAX_DIFF_WORK the lines between the common start and end count
 * as removed and added). A final newline ends the last line; it is not a line of its own.
 */
export function lineChanges(oldText: string, newText: string): { added: number; removed: number } {
  if (oldText === newText) return { added: 0, removed: 0 };
  const a = linesOf(oldText);
  const b = linesOf(newText);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  if (n === 0 || m === 0) return { added: m, removed: n };
  // Lines as numbers: comparing them is then cheap.
  const ids = new Map<string, number>();
  const idOf = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    return id;
  };
  const x = Int32Array.from({ length: n }, (_, i) => idOf(a[start + i]));
  const y = Int32Array.from({ length: m }, (_, i) => idOf(b[start + i]));
  const maxD = Math.min(n + m, Math.max(1, Math.floor(MAX_DIFF_WORK / (n + m))));
  const d = editDistance(x, y, maxD);
  if (d === undefined) return { added: m, removed: n };
  // d = added + removed, and m - n = added - removed.
  return { added: (d + m - n) / 2, removed: (d - m + n) / 2 };
}

/** Myers' forward search for the length of a shortest edit script (insertions and deletions), or undefined past `maxD`. */
function editDistance(a: Int32Array, b: Int32Array, maxD: number): number | undefined {
  const n = a.length;
  const m = b.length;
  const offset = maxD + 1;
  const v = new Int32Array(2 * maxD + 3);
  for (let d = 0; d <= maxD; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return d;
    }
  }
  return undefined;
}

function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A path inside the session's folder, relative to it; any other as the agent wrote it. */
export function shownPath(file: string, cwd: string): string {
  if (!isAbsolute(file) || !isAbsolute(cwd)) return file;
  const inside = relative(cwd, file);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : file;
}
