// The transcript renderer, running inside the webview: wires its parts. The host owns the
// timeline; the webview holds the rows on screen plus a margin (held.ts, asking the host for
// them with `range`) and builds those in view (virtualList.ts). All DOM work happens in
// animation frames, a bounded amount per frame (frameLoop.ts); appended text is joined per row
// and goes in once per frame (streamedText.ts); Markdown is rendered for the rows on screen once
// the stream is quiet (markdownPass.ts); find runs on the host's timeline (find.ts); the host is
// reached through one channel (channel.ts).
import type { Entity } from '../transcript/model';
import type { HostAction, HostToWebview, Patch, StartAt, TranscriptHeader } from '../transcript/protocol';
import { allowedLink } from '../transcript/protocol';
import { stepPrompt } from '../transcript/prompts';
import { connectToHost } from './channel';
import { FindBar } from './find';
import { FrameLoop } from './frameLoop';
import { renderHeader } from './header';
import { HeldRows } from './held';
import { MarkdownLoader, markdownScriptBeside } from './markdownLoader';
import { MarkdownPass, QUIET_MS } from './markdownPass';
import { appendText, buildLazyBody, focusTarget, isOpen, setOpen, trackFolds, useMarkdown, type Row } from './rows';
import { StreamedText } from './streamedText';
import { createVirtualList, FRAME_BUILD_CHARS, type VirtualList } from './virtualList';

/**
 * Script time per frame for applying messages; the rest waits for the next frame. With the
 * text the frame then lays out (streamedText.ts, FRAME_BUILD_CHARS), one frame of ours stays
 * under the 50 ms after which the browser counts a long task: the workbench shares the thread.
 */
const FRAME_BUDGET_MS = 16;

/**
 * The page's start in the browser's performance timeline, once each: the script ran, `ready`
 * went, the first message came, the first rows were built. The benchmark reads them to tell
 * our part of the first screen apart (bench/e2e.bench.ts).
 */
const marked = new Set<string>();
function markOnce(name: 'acp.script' | 'acp.ready' | 'acp.firstMessage' | 'acp.firstRows'): void {
  if (marked.has(name)) return;
  marked.add(name);
  performance.mark(name);
}
markOnce('acp.script');

const host = connectToHost();
/** markdown.js, beside this script: read while this script evaluates (currentScript is null later). */
const markdownLoader = new MarkdownLoader(markdownScriptBeside(document.currentScript));
const timelineEl = document.getElementById('timeline')!;
trackFolds(timelineEl);
const headerEl = document.getElementById('header')!;
/** The place to restore after a reload or re-show: the row at the top and where it stood. */
const restoreAnchor = host.state?.anchor;
/** Where the webview starts: the row it showed before (a tab shown again, a reload), else the top. */
const startAt: StartAt | undefined = restoreAnchor?.key ? { key: restoreAnchor.key } : undefined;

/** The row the reader was at when the host was last told (the top of a new page at first). */
let readingIndex = 0;
/** Whether the page had the keyboard focus since it loaded (see `openFind`). */
let hadFocus = document.hasFocus();
window.addEventListener('focus', () => (hadFocus = true));
const loop = new FrameLoop<HostToWebview>({ requestFrame: (f) => requestAnimationFrame(f), now: () => performance.now(), budgetMs: FRAME_BUDGET_MS }, frame);
const text = new StreamedText<Row>({ appendText, now: () => performance.now() });
const held: HeldRows = new HeldRows({
  beforeHold: (start, entities) => list.beforeHold(start, entities),
  appendTo: (index, appended) => list.appendTo(index, appended),
  replaced: (index, entity) => list.replaced(index, entity),
  countChanged: (count) => list.countChanged(count),
});
const list: VirtualList = createVirtualList({
  timeline: timelineEl,
  header: headerEl,
  held,
  text,
  openChoice,
  schedule: () => loop.schedule(),
  request: (range) => host.post({ type: 'range', ...range, viewport: list.viewport() }),
  restore: restoreAnchor,
  anchorChanged: (anchor) => host.saveState({ anchor }),
  readingChanged: (index) => {
    // Told when it changes: Go to Prompt… (on the host) starts at the prompt at or above it.
    if (index === readingIndex) return;
    readingIndex = index;
    host.post({ type: 'top', index });
  },
});
const markdown = new MarkdownPass({
  dirty: text.dirty,
  lastAppendAt: () => text.lastAppendAt,
  waiting: () => loop.pending || text.waiting,
  now: () => performance.now(),
  requestFrame: (f) => requestAnimationFrame(f),
  rows: () => list.builtRows(),
  frameChars: FRAME_BUILD_CHARS,
  rendered: (row) => find.rendered(row),
  keepingPlace: (change) => list.keepingPlace(change),
  // Whether a Markdown pass is still to come (rows change height then): what a UI test waits for.
  signal: (state) => (document.body.dataset.markdown = state),
  ready: () => markdownLoader.renderer !== undefined,
  load: async () => {
    const loaded = await markdownLoader.load();
    if (markdownLoader.renderer) useMarkdown(markdownLoader.renderer);
    return loaded;
  },
});
const find = new FindBar({
  post: (message) => host.post(message),
  topIndex: () => list.topRow()?.index ?? 0,
  reveal: (index, then) => list.reveal(index, then),
  open: (row) => {
    if (isOpen(row)) return;
    if (row.entity.kind === 'compaction') {
      row.chosen = true;
      (row.el as HTMLDetailsElement).open = true;
    } else setOpen(row, true);
    rowToggled(row);
  },
  scrollIntoView: (top, bottom) => list.scrollIntoView(top, bottom),
  closed: () => list.builtRow(list.topRow()?.index ?? -1)?.el.focus({ preventScroll: true }),
});

host.listen(window, (message) => {
  markOnce('acp.firstMessage');
  loop.push(message);
});

function frame(): void {
  const deadline = loop.deadline();
  // The row at the top of the view stays where it is, whatever changes above it.
  const anchor = list.topRow();
  let nextHeader: TranscriptHeader | undefined;
  loop.drain(deadline, (message, from) => {
    switch (message.type) {
      case 'snapshot':
        setHeader(message.header);
        startOver(message.count, message.start, message.entities, message.tail === true);
        break;
      case 'rows':
        held.rows(message.count, message.start, message.entities);
        break;
      case 'update': {
        if (from === 0) held.setCount(message.count);
        const done = applyPatches(message.patches, from, deadline);
        if (done !== true) return done;
        if (message.header) nextHeader = message.header;
        break;
      }
      case 'setCompactionsOpen':
        setCompactionsOpen(message.open);
        break;
      case 'openFind': {
        const also = Array.isArray(message.also) ? message.also.filter((w): w is string => typeof w === 'string') : [];
        const query = typeof message.query === 'string' ? message.query : undefined;
        // Find (a key, the palette) takes the focus. A match's bar comes once the replay is read,
        // seconds later for a long one: it takes the focus only where the reader still is, or
        // before the page first had it (VS Code gives it to a tab it opens a moment later).
        const takeFocus = query === undefined || document.hasFocus() || !hadFocus;
        find.open(query, typeof message.from === 'number' ? message.from : undefined, message.words === true ? { also } : undefined, takeFocus);
        break;
      }
      case 'revealRow':
        revealIndex(message.index);
        break;
      case 'stepPrompt': {
        // From the row that has the focus (a prompt just gone to), else the row at the top of the view.
        const focusedKey = list.rowOf(document.activeElement)?.key;
        const at = focusedKey === undefined ? -1 : message.keys.indexOf(focusedKey);
        const from = at >= 0 ? message.indices[at] : (list.topRow()?.index ?? -1);
        const to = stepPrompt(message.indices.map((index) => ({ index })), from, message.step);
        // What the step did, for the reader's tools and the UI tests: from which row to which.
        document.body.dataset.promptStep = `${from}>${to ?? 'none'}`;
        if (to !== undefined) revealIndex(to);
        break;
      }
      case 'found':
        find.found(message);
        break;
    }
    return true;
  });
  // The header once per frame, whatever the number of messages.
  if (nextHeader) setHeader(nextHeader);
  text.beginFrame();
  list.render(anchor);
  if (!list.builtRows().next().done) markOnce('acp.firstRows');
  if (loop.pending || text.waiting) loop.schedule();
  // The text's cost is known once the frame's layout (in render) has shaped it.
  text.endFrame();
  markdown.schedule(QUIET_MS);
}

function startOver(count: number, start: number, entities: Entity[], tail: boolean): void {
  list.startOver(count);
  // From the tail, the rows held follow the end as after a `tail` range; whether the view
  // follows it stays as the reader left it.
  held.snapshot(count, start, entities, tail);
  list.restore();
}

/** Applies a batch from `from` on: true when done, else where to go on in the next frame (the frame's time ran out). */
function applyPatches(patches: Patch[], from: number, deadline: number): true | number {
  let i = from;
  while (i < patches.length) {
    held.apply(patches[i++]);
    if ((i & 15) === 0 && performance.now() > deadline) break;
  }
  return i === patches.length ? true : i;
}

function setHeader(next: TranscriptHeader): void {
  renderHeader(headerEl, next, revealCompaction);
  document.body.dataset.loading = String(next.loading);
  // Messages show Fork from Here only while the agent can fork this session.
  document.body.dataset.canFork = String(next.canFork === true);
  list.setReplaying(next.loading);
  document.title = next.title;
  host.saveState({
    agentName: next.agentName,
    sessionId: next.sessionId,
    cwd: next.cwd,
    title: next.title,
    updatedAt: next.updatedAt,
    archived: next.archived,
    exportedFile: next.exported?.file,
  });
}

// --- folds: what the reader opened and closed ----------------------------------------------

function openChoice(entity: Entity): boolean | undefined {
  const state = host.state;
  if (entity.kind === 'compaction') return state?.open?.[`compaction:${entity.key}`] ?? state?.compactionsOpen;
  return state?.open?.[entity.key];
}

function setCompactionsOpen(open: boolean): void {
  list.keepingPlace(() => {
    const choices: Record<string, boolean> = {};
    // The whole session's compactions: the built rows now, the others when they are built.
    for (const [key, value] of Object.entries(host.state?.open ?? {})) if (!key.startsWith('compaction:')) choices[key] = value;
    for (const row of list.builtRows()) {
      if (row.entity.kind !== 'compaction') continue;
      row.chosen = open;
      (row.el as HTMLDetailsElement).open = open;
    }
    host.saveState({ open: choices, compactionsOpen: open });
    return true;
  });
}

/**
 * After a row opened or closed (by the reader, find, or a compaction's status): build,
 * render, and remember what the reader chose (a compaction's own opening is not a choice).
 */
function rowToggled(row: Row): void {
  const open = isOpen(row);
  if (open) buildLazyBody(row);
  if (open && row.dirty) {
    text.dirty.add(row);
    markdown.schedule(0);
  }
  if (row.disclosure || row.chosen !== undefined) {
    const key = row.entity.kind === 'compaction' ? `compaction:${row.key}` : row.key;
    host.saveState({ open: { ...(host.state?.open ?? {}), [key]: open } });
  }
  loop.schedule();
}

/** A compaction's head was activated (click, or Enter / Space, which click it): the reader's choice. */
function compactionHeadActivated(target: Element | null): void {
  const summary = target?.closest?.('details.compaction > summary');
  const row = list.rowOf(summary);
  if (row && summary?.parentElement === row.el) row.chosen = !(row.el as HTMLDetailsElement).open;
  if (row?.chosen) host.post({ type: 'compactionRead' });
}

function toggleDisclosure(head: Element): boolean {
  const row = list.rowOf(head);
  if (!row?.disclosure || head.parentElement !== row.el) return false;
  setOpen(row, !row.open);
  rowToggled(row);
  return true;
}

list.listEl.addEventListener(
  'toggle',
  (event) => {
    const el = event.target as HTMLElement;
    const row = el.classList.contains('row') ? list.rowOf(el) : undefined;
    if (row) rowToggled(row);
  },
  true,
);

// --- input ---------------------------------------------------------------------------------

document.addEventListener('click', (event) => {
  const target = event.target as Element | null;
  if (target?.closest?.('.find-bar')) return;
  compactionHeadActivated(target);
  const head = target?.closest?.('.disclosure > .row-head');
  if (head && toggleDisclosure(head)) return;
  const link = target?.closest?.('[data-href]') as HTMLElement | null;
  if (link) {
    event.preventDefault();
    openLink(link.dataset.href ?? '');
    return;
  }
  const fork = target?.closest?.('[data-fork]') as HTMLElement | null;
  if (fork) {
    event.preventDefault();
    const row = list.rowOf(fork);
    if (row && document.body.dataset.canFork === 'true') host.post({ type: 'forkFromHere', key: row.key });
    return;
  }
  const change = target?.closest?.('[data-change]') as HTMLElement | null;
  if (change) {
    event.preventDefault();
    host.post({ type: 'openChange', index: Number(change.dataset.change), target: change.dataset.changeTarget === 'file' ? 'file' : 'diff' });
    return;
  }
  const tool = target?.closest?.('[data-tool]') as HTMLElement | null;
  if (tool) {
    event.preventDefault();
    openTool(tool);
    return;
  }
  const button = target?.closest?.('[data-action]') as HTMLElement | null;
  if (button) handleButton(button.dataset.action ?? '');
});

document.addEventListener('keydown', (event) => {
  const target = event.target as HTMLElement;
  if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'f') {
    event.preventDefault();
    find.open();
    return;
  }
  if (event.key === 'F3' && find.hasQuery) {
    event.preventDefault();
    find.step(event.shiftKey ? -1 : 1);
    return;
  }
  if (target.closest?.('.find-bar')) return;
  if ((event.key === 'Enter' || event.key === ' ') && target.dataset?.href !== undefined) {
    event.preventDefault();
    openLink(target.dataset.href ?? '');
    return;
  }
  if ((event.key === 'Enter' || event.key === ' ') && target.dataset?.tool !== undefined && target.tagName === 'A') {
    event.preventDefault();
    openTool(target);
    return;
  }
  if ((event.key === 'Enter' || event.key === ' ') && target.matches?.('.disclosure > .row-head') && toggleDisclosure(target)) {
    event.preventDefault();
    return;
  }
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === 'Home' || event.key === 'End' || event.key === 'PageUp' || event.key === 'PageDown') {
    event.preventDefault();
    list.pageKey(event.key);
    return;
  }
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  // Arrow keys move between rows when a row (or its head) has focus; rows are built as needed.
  const row = list.rowOf(target);
  if (!row || (target !== row.el && target.parentElement !== row.el)) return;
  if (list.moveFocus(row, event.key === 'ArrowDown' ? 1 : -1)) event.preventDefault();
});

function openLink(href: string): void {
  // The normalised link: the host opens exactly what passed the check.
  const link = allowedLink(href);
  if (link) host.post({ type: 'openLink', href: link });
}

function handleButton(action: string): void {
  if (action === 'expandAll') setCompactionsOpen(true);
  else if (action === 'collapseAll') setCompactionsOpen(false);
  else postAction(action as HostAction);
}

/** A usage marker's compaction: by its key among the rows held, else the host's index for it; just below the header, focused. */
function revealCompaction(key: string, index?: number): void {
  const at = held.indexOf(key) ?? index;
  if (at !== undefined) list.reveal(at, (row) => focusTarget(row).focus(), true);
}

/** A row by index, just below the header, focused (Go to Prompt, Previous / Next Prompt). */
function revealIndex(index: number): void {
  list.reveal(index, (row) => focusTarget(row).focus(), true);
}

/** A tool call's location or diff: the host opens it from its own timeline. */
function openTool(el: HTMLElement): void {
  const row = list.rowOf(el);
  if (row && el.dataset.tool) host.post({ type: 'openTool', key: row.key, target: el.dataset.tool });
}

function postAction(action: HostAction): void {
  host.post({ type: 'action', action });
}

host.post({ type: 'ready', ...(startAt ? { start: startAt } : {}), viewport: list.viewport() });
markOnce('acp.ready');
