// The transcript renderer, running inside the webview. It only renders: the host owns the
// timeline and sends a snapshot after every `ready`, then batches of patches. All DOM work
// happens in animation frames, a bounded amount per frame (a backlog continues in the next
// one); appended text is joined per row and goes in as text once per frame, Markdown is
// rendered for rows near the viewport once the stream is quiet.
import type { Entity } from '../transcript/model';
import type { HostAction, HostToWebview, Patch, TranscriptHeader, WebviewState, WebviewToHost } from '../transcript/protocol';
import { allowedLink } from '../transcript/protocol';
import { renderHeader } from './header';
import { appendText, buildLazyBody, createRow, focusTarget, isOpen, renderBodyMarkdown, setOpen, updateRow, type Row } from './rows';
import { trackFolds } from './rows';

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): WebviewState | undefined;
  setState(state: WebviewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** How long the stream must be quiet before streamed text is re-rendered as Markdown. */
const QUIET_MS = 200;
/** Script time per frame for applying messages; the rest waits for the next frame. */
const FRAME_BUDGET_MS = 30;
/** Appended characters put in per frame at most: the browser shapes new text in the frame it arrives. */
const FRAME_TEXT_CHARS = 96 * 1024;
/**
 * Rows are grouped in blocks of this many, each skipped as a whole while off-screen: the
 * browser's per-frame work (layout, visibility checks) then grows with the blocks, not the
 * rows, so building a long transcript over many frames costs little more than in one.
 */
const ROWS_PER_BLOCK = 32;

const vscode = acquireVsCodeApi();
const timelineEl = document.getElementById('timeline')!;
trackFolds(timelineEl);
const headerEl = document.getElementById('header')!;
const scroller = document.scrollingElement ?? document.documentElement;

const rows = new Map<string, Row>();
/** Messages not yet applied; `queue[queueHead]` may be partly applied (up to `cursor`). */
let queue: HostToWebview[] = [];
let queueHead = 0;
/** How many patches (or snapshot entities) of `queue[queueHead]` are applied already. */
let cursor = 0;
/** Text appended to rows during this frame, joined and put in once at its end. */
const pendingText = new Map<Row, string[]>();
let frameScheduled = false;
let header: TranscriptHeader | undefined;
let state: WebviewState | undefined = vscode.getState();
/** The place to restore after a reload or re-show, until its row has arrived. */
let restoreAnchor = state?.anchor ?? (state?.scrollTop ? { key: '', offset: -state.scrollTop } : undefined);
let atBottom = false;
let lastAppendAt = 0;
let quietTimer: ReturnType<typeof setTimeout> | undefined;
/** Rows whose body text is not yet Markdown; rendered when near the viewport and quiet. */
const dirtyRows = new Set<Row>();

window.addEventListener('message', (event: MessageEvent<HostToWebview>) => {
  const message = event.data;
  if (!message || typeof message !== 'object' || typeof message.type !== 'string') return;
  queue.push(message);
  scheduleFrame();
});

function scheduleFrame(): void {
  if (frameScheduled) return;
  frameScheduled = true;
  requestAnimationFrame(frame);
}

function frame(): void {
  frameScheduled = false;
  const deadline = performance.now() + FRAME_BUDGET_MS;
  let nextHeader: TranscriptHeader | undefined;
  while (queueHead < queue.length) {
    const message = queue[queueHead];
    let done = true;
    switch (message.type) {
      case 'snapshot':
        // The header first, so it shows while a long snapshot is still being built.
        if (cursor === 0) setHeader(message.header);
        done = applySnapshot(message.entities, deadline);
        break;
      case 'update':
        done = applyPatches(message.patches, deadline);
        if (done && message.header) nextHeader = message.header;
        break;
      case 'setCompactionsOpen':
        setCompactionsOpen(message.open);
        break;
    }
    if (!done) break;
    queueHead++;
    cursor = 0;
    if (performance.now() > deadline) break;
  }
  if (queueHead === queue.length) {
    queue = [];
    queueHead = 0;
  }
  if (pendingText.size) putPendingText();
  if (queueHead < queue.length || pendingText.size) scheduleFrame();
  // The header once per frame, whatever the number of messages.
  if (nextHeader) setHeader(nextHeader);
  afterChanges();
}

/** Puts the frame's appended text into its rows, one append per row, at most FRAME_TEXT_CHARS. */
function putPendingText(): void {
  let room = FRAME_TEXT_CHARS;
  for (const [row, texts] of pendingText) {
    let text = texts.length === 1 ? texts[0] : texts.join('');
    if (text.length > room) {
      // The rest waits for the next frame, ahead of any text that arrives meanwhile.
      texts.length = 0;
      texts.push(text.slice(room));
      text = text.slice(0, room);
    } else {
      pendingText.delete(row);
    }
    room -= text.length;
    appendText(row, text);
    dirtyRows.add(row);
    if (room <= 0) break;
  }
  lastAppendAt = performance.now();
}

/** Builds the snapshot's rows from `cursor` on; false when the frame's time ran out first. */
function applySnapshot(entities: Entity[], deadline: number): boolean {
  if (cursor === 0) {
    rows.clear();
    dirtyRows.clear();
    pendingText.clear();
    timelineEl.replaceChildren();
  }
  const added = new RowAppender();
  let i = cursor;
  while (i < entities.length) {
    added.append(addRow(entities[i++]).el);
    if ((i & 15) === 0 && performance.now() > deadline) break;
  }
  added.done();
  cursor = i;
  return i === entities.length;
}

/** Adds rows at the end of the timeline, filling its last block, then new ones, in one insertion each. */
class RowAppender {
  private readonly last = timelineEl.lastElementChild;
  private readonly toLast: HTMLElement[] = [];
  private fragment: DocumentFragment | undefined;
  private block: Element | null = this.last;
  private count = this.last?.childElementCount ?? ROWS_PER_BLOCK;

  append(el: HTMLElement): void {
    if (this.count >= ROWS_PER_BLOCK) {
      this.block = document.createElement('div');
      this.block.className = 'rows';
      (this.fragment ??= document.createDocumentFragment()).append(this.block);
      this.count = 0;
    }
    if (this.block === this.last) this.toLast.push(el);
    else this.block!.append(el);
    this.count++;
  }

  done(): void {
    if (this.toLast.length) this.last!.append(...this.toLast);
    if (this.fragment) timelineEl.append(this.fragment);
  }
}

/** Applies a batch from `cursor` on; false when the frame's time ran out first. */
function applyPatches(patches: Patch[], deadline: number): boolean {
  let added: RowAppender | undefined;
  let i = cursor;
  while (i < patches.length) {
    const patch = patches[i++];
    if (patch.op === 'append') {
      const row = rows.get(patch.key);
      if (!row) continue;
      const texts = pendingText.get(row);
      if (texts) texts.push(patch.text);
      else pendingText.set(row, [patch.text]);
    } else if (patch.op === 'upsert') {
      const row = rows.get(patch.entity.key);
      if (row) {
        // The replacement already holds the text appended before it.
        pendingText.delete(row);
        updateRow(row, patch.entity);
        if (row.dirty) dirtyRows.add(row);
      } else {
        (added ??= new RowAppender()).append(addRow(patch.entity).el);
      }
    } else if (patch.op === 'remove') {
      const row = rows.get(patch.key);
      if (!row) continue;
      // Rows created earlier in this batch are in the DOM first, so the block count is right.
      added?.done();
      added = undefined;
      const block = row.el.parentElement;
      row.el.remove();
      if (block && block !== timelineEl && !block.firstElementChild) block.remove();
      rows.delete(patch.key);
      dirtyRows.delete(row);
      pendingText.delete(row);
    }
    if ((i & 15) === 0 && performance.now() > deadline) break;
  }
  // New keys always go at the end, in the order the host created them.
  added?.done();
  cursor = i;
  return i === patches.length;
}

function addRow(entity: Entity): Row {
  const row = createRow(entity, state?.open?.[entity.key]);
  rows.set(entity.key, row);
  if (row.dirty) dirtyRows.add(row);
  return row;
}

function setHeader(next: TranscriptHeader): void {
  header = next;
  renderHeader(headerEl, next, postAction);
  document.body.dataset.loading = String(next.loading);
  document.title = next.title;
  saveState({
    agentName: next.agentName,
    sessionId: next.sessionId,
    cwd: next.cwd,
    title: next.title,
    updatedAt: next.updatedAt,
    archived: next.archived,
  });
}

function afterChanges(): void {
  timelineEl.dataset.rows = String(rows.size);
  if (restoreAnchor && rows.size) {
    const row = rows.get(restoreAnchor.key);
    if (row) {
      pinAnchor(row.el, restoreAnchor.offset);
      restoreAnchor = undefined;
    } else if (!restoreAnchor.key) {
      scroller.scrollTop = -restoreAnchor.offset;
      restoreAnchor = undefined;
    } else if (!header?.loading && queueHead === queue.length) {
      restoreAnchor = undefined;
    }
  } else if (header?.live && atBottom) {
    // Following live output: one scroll per frame at most.
    scroller.scrollTop = scroller.scrollHeight;
  }
  scheduleMarkdown(QUIET_MS);
}

// --- Markdown once quiet ---------------------------------------------------------------

function scheduleMarkdown(delay: number): void {
  if (!dirtyRows.size) return;
  if (quietTimer !== undefined) clearTimeout(quietTimer);
  quietTimer = setTimeout(() => {
    quietTimer = undefined;
    const quietFor = performance.now() - lastAppendAt;
    if (quietFor < QUIET_MS) return scheduleMarkdown(QUIET_MS - quietFor);
    requestAnimationFrame(renderDirtyMarkdown);
  }, delay);
}

function renderDirtyMarkdown(): void {
  const started = performance.now();
  for (const el of rowsNearViewport()) {
    const row = rows.get(el.dataset.key ?? '');
    if (!row || !dirtyRows.has(row) || !isOpen(row)) continue;
    renderBodyMarkdown(row);
    dirtyRows.delete(row);
    // Keep frames short: continue in the next frame.
    if (performance.now() - started > 12) {
      requestAnimationFrame(renderDirtyMarkdown);
      return;
    }
  }
}

/**
 * Rows within a screen's height of the visible area, top to bottom: found by bisecting the
 * blocks (in document order, so in vertical order), one layout read for all of them.
 */
function rowsNearViewport(): HTMLElement[] {
  const blocks = timelineEl.children;
  const top = -window.innerHeight;
  const bottom = 2 * window.innerHeight;
  let lo = 0;
  let hi = blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (blocks[mid].getBoundingClientRect().bottom < top) lo = mid + 1;
    else hi = mid;
  }
  const near: HTMLElement[] = [];
  for (let b = lo; b < blocks.length && blocks[b].getBoundingClientRect().top <= bottom; b++) {
    for (const el of blocks[b].children) {
      const rect = el.getBoundingClientRect();
      if (rect.bottom >= top && rect.top <= bottom) near.push(el as HTMLElement);
    }
  }
  return near;
}

// --- user interaction ----------------------------------------------------------------------

function setCompactionsOpen(open: boolean): void {
  const choices = { ...(state?.open ?? {}) };
  for (const row of rows.values()) {
    if (row.entity.kind !== 'compaction') continue;
    row.chosen = open;
    (row.el as HTMLDetailsElement).open = open;
    choices[row.key] = open;
  }
  saveState({ open: choices });
}

/**
 * After a row opened or closed (by the reader, find-in-page, or a compaction's status): build,
 * render, and remember what the reader chose (a compaction's own opening is not a choice).
 */
function rowToggled(row: Row): void {
  const open = isOpen(row);
  if (open) buildLazyBody(row);
  if (open && row.dirty) {
    dirtyRows.add(row);
    scheduleMarkdown(0);
  }
  if (row.disclosure || row.chosen !== undefined) saveState({ open: { ...(state?.open ?? {}), [row.key]: open } });
}

/** A compaction's head was activated (click, or Enter / Space, which click it): the reader's choice. */
function compactionHeadActivated(target: Element | null): void {
  const summary = target?.closest?.('details.compaction > summary');
  const row = rowOf(summary);
  if (row && summary?.parentElement === row.el) row.chosen = !(row.el as HTMLDetailsElement).open;
  if (row?.chosen) vscode.postMessage({ type: 'compactionRead' });
}

function rowOf(el: Element | null | undefined): Row | undefined {
  const key = (el?.closest?.('.row') as HTMLElement | null)?.dataset.key;
  return key ? rows.get(key) : undefined;
}

timelineEl.addEventListener(
  'toggle',
  (event) => {
    const el = event.target as HTMLElement;
    const row = el.classList.contains('row') ? rows.get(el.dataset.key ?? '') : undefined;
    if (row) rowToggled(row);
  },
  true,
);

// Find-in-page reveals a match inside a closed disclosure row: the row opens for it.
timelineEl.addEventListener(
  'beforematch',
  (event) => {
    const row = rowOf(event.target as Element);
    // A closed compaction that find-in-page opens stays open for the reader.
    if (row?.entity.kind === 'compaction') row.chosen = true;
    if (!row?.disclosure || row.open) return;
    setOpen(row, true);
    rowToggled(row);
  },
  true,
);

function toggleDisclosure(head: Element): boolean {
  const row = rowOf(head);
  if (!row?.disclosure || head.parentElement !== row.el) return false;
  setOpen(row, !row.open);
  rowToggled(row);
  return true;
}

document.addEventListener('click', (event) => {
  const target = event.target as Element | null;
  compactionHeadActivated(target);
  const head = target?.closest?.('.disclosure > .row-head');
  if (head && toggleDisclosure(head)) return;
  const link = target?.closest?.('[data-href]') as HTMLElement | null;
  if (link) {
    event.preventDefault();
    openLink(link.dataset.href ?? '');
    return;
  }
  const button = target?.closest?.('[data-action]') as HTMLElement | null;
  if (button) handleButton(button.dataset.action ?? '');
});

document.addEventListener('keydown', (event) => {
  const target = event.target as HTMLElement;
  if ((event.key === 'Enter' || event.key === ' ') && target.dataset?.href !== undefined) {
    event.preventDefault();
    openLink(target.dataset.href ?? '');
    return;
  }
  if ((event.key === 'Enter' || event.key === ' ') && target.matches?.('.disclosure > .row-head') && toggleDisclosure(target)) {
    event.preventDefault();
    return;
  }
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  // Arrow keys move between rows when a row (or its summary) has focus.
  const rowEl = target.closest?.('.row') as HTMLElement | null;
  if (!rowEl || (target !== rowEl && target.parentElement !== rowEl)) return;
  const sibling = (event.key === 'ArrowDown' ? nextRowElement(rowEl) : previousRowElement(rowEl)) as HTMLElement | null;
  const next = sibling?.dataset.key ? rows.get(sibling.dataset.key) : undefined;
  if (!next) return;
  event.preventDefault();
  focusTarget(next).focus();
});

/** The row after `rowEl`, across block boundaries. */
function nextRowElement(rowEl: Element): Element | null {
  return rowEl.nextElementSibling ?? rowEl.parentElement?.nextElementSibling?.firstElementChild ?? null;
}

function previousRowElement(rowEl: Element): Element | null {
  return rowEl.previousElementSibling ?? rowEl.parentElement?.previousElementSibling?.lastElementChild ?? null;
}

function openLink(href: string): void {
  // The normalised link: the host opens exactly what passed the check.
  const link = allowedLink(href);
  if (link) vscode.postMessage({ type: 'openLink', href: link });
}

function handleButton(action: string): void {
  if (action === 'expandAll') setCompactionsOpen(true);
  else if (action === 'collapseAll') setCompactionsOpen(false);
  else postAction(action as HostAction);
}

function postAction(action: HostAction): void {
  vscode.postMessage({ type: 'action', action });
}

let scrollFrame = false;
window.addEventListener(
  'scroll',
  () => {
    if (scrollFrame) return;
    scrollFrame = true;
    requestAnimationFrame(() => {
      scrollFrame = false;
      atBottom = scroller.scrollTop + window.innerHeight >= scroller.scrollHeight - 4;
      saveState({ scrollTop: scroller.scrollTop, anchor: topAnchor() });
      // Rows that came near the viewport get their Markdown.
      scheduleMarkdown(0);
    });
  },
  { passive: true },
);

/**
 * Keeps a restored row where it was on screen for a moment: rows above it get their real
 * height only once rendered (content-visibility), which would push it away. Any user input
 * ends the pin.
 */
let pin: { el: HTMLElement; offset: number; until: number } | undefined;
function pinAnchor(el: HTMLElement, offset: number): void {
  const first = pin === undefined;
  pin = { el, offset, until: performance.now() + 1500 };
  if (first) requestAnimationFrame(holdPin);
}
function holdPin(): void {
  if (!pin) return;
  const delta = pin.el.getBoundingClientRect().top - pin.offset;
  if (Math.abs(delta) >= 1) window.scrollBy(0, delta);
  if (performance.now() < pin.until && pin.el.isConnected) requestAnimationFrame(holdPin);
  else pin = undefined;
}
for (const type of ['wheel', 'keydown', 'mousedown', 'touchstart']) {
  window.addEventListener(type, () => (pin = undefined), { passive: true, capture: true });
}

/** The row just below the sticky header, and where it stands. */
function topAnchor(): WebviewState['anchor'] {
  const top = headerEl.getBoundingClientRect().bottom + 1;
  // Rows have gaps between them: probe a little lower when the first point misses.
  for (const y of [top, top + 12, top + 24]) {
    const rowEl = document.elementFromPoint(Math.min(40, window.innerWidth - 1), y)?.closest?.('.row') as HTMLElement | null;
    if (rowEl?.dataset.key) return { key: rowEl.dataset.key, offset: rowEl.getBoundingClientRect().top };
  }
  return undefined;
}

function saveState(patch: Partial<WebviewState>): void {
  state = { ...(state ?? { agentName: '', sessionId: '', cwd: '', title: '' }), ...patch };
  vscode.setState(state);
}

vscode.postMessage({ type: 'ready' });
