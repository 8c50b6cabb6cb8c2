// The transcript renderer, running inside the webview: a virtualized list. The host owns the
// timeline; the webview holds the rows on screen plus a margin (asking the host for them with
// `range`) and knows only how many rows there are. Rows not measured yet count as an estimated
// height, corrected as rows are measured, so the scrollbar covers the whole session from the
// first frame while the cost of a frame stays that of a screen. All DOM work happens in
// animation frames, a bounded amount per frame; appended text is joined per row and goes in
// once per frame; Markdown is rendered for the rows on screen once the stream is quiet.
import { bodyOf, type Entity } from '../transcript/model';
import type { HostAction, HostToWebview, Patch, StartAt, TranscriptHeader, Viewport, WebviewState, WebviewToHost } from '../transcript/protocol';
import { allowedLink, MARGIN_SCREENS } from '../transcript/protocol';
import { renderHeader } from './header';
import { Heights } from './heights';
import { t } from './l10n';
import { appendText, buildLazyBody, codicon, createRow, element, focusTarget, isOpen, renderBodyMarkdown, setOpen, updateRow, type Row } from './rows';
import { trackFolds } from './rows';

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): WebviewState | undefined;
  setState(state: WebviewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** How long the stream must be quiet before streamed text is re-rendered as Markdown. */
const QUIET_MS = 200;
/**
 * Script time per frame for applying messages; the rest waits for the next frame. With the
 * text the frame then lays out (TEXT_FRAME_MS, FRAME_BUILD_CHARS), one frame of ours stays
 * under the 50 ms after which the browser counts a long task: the workbench shares the thread.
 */
const FRAME_BUDGET_MS = 16;
/**
 * Appended text put in per frame: the browser shapes new text in the frame it arrives, at a cost
 * per character that depends on the fonts and the machine (3-4 µs with fallback fonts here), so
 * each frame puts in what the last one's rate says takes TEXT_FRAME_MS, starting small.
 */
const TEXT_FRAME_MS = 32;
/**
 * The same while following the end of a replay: the text scrolls away with the next batch, and
 * what a frame does not put in stays in the model (traces: 50-110 ms frames at TEXT_FRAME_MS).
 */
const REPLAY_TEXT_FRAME_MS = 12;
const MIN_FRAME_TEXT_CHARS = 2 * 1024;
const MAX_FRAME_TEXT_CHARS = 96 * 1024;
let frameTextChars = 8 * 1024;
/** The appended text the frame put in, and when (its rate sets the next frame's `frameTextChars`). */
let textPut = { chars: 0, at: 0 };
/** The height of a row not measured yet, until the first rows are measured. */
const FIRST_ESTIMATE_PX = 64;
/**
 * Bodies longer than this stay plain text: Markdown is rendered in one task, and a body of
 * hundreds of thousands of characters would hold the frame for longer than a reader notices.
 */
const MARKDOWN_MAX_CHARS = 64 * 1024;
/** The vertical gap after each row (media/transcript.css `--row-gap`). */
const ROW_GAP_PX = 10;
/**
 * Characters of text in the rows built (or rendered as Markdown) per frame, after the first
 * row: the browser shapes a row's text in the layout that measures it, at 5 to 9 µs a
 * character for mixed scripts on a loaded machine (traces: 160 ms for a screen built on the
 * first estimate; 60 to 110 ms a frame for 12 K; 61-70 ms for 4 K with the rows' script). The
 * rest follows in later frames.
 */
const FRAME_BUILD_CHARS = 2 * 1024;
/** Script time per frame for rendering streamed rows as Markdown once quiet. */
const MARKDOWN_FRAME_MS = 8;
/** What a built row costs besides its text, in the same unit. */
const ROW_BUILD_CHARS = 200;

const vscode = acquireVsCodeApi();
const timelineEl = document.getElementById('timeline')!;
trackFolds(timelineEl);
const headerEl = document.getElementById('header')!;
const scroller = document.scrollingElement ?? document.documentElement;

// The list: a spacer for the rows above those built, the built rows, a spacer for those below.
const topSpacer = element('div', 'spacer');
const listEl = element('div', 'rows');
listEl.setAttribute('role', 'feed');
listEl.setAttribute('aria-label', t('Transcript'));
const bottomSpacer = element('div', 'spacer');
timelineEl.replaceChildren(topSpacer, listEl, bottomSpacer);

// --- the model: how many rows, their heights, the rows held, the rows built ---------------------

let count = 0;
const heights = new Heights(FIRST_ESTIMATE_PX);
let estimated = false;
/** Rows held: entities [heldStart, heldStart + held.length), and their keys' indices. */
let heldStart = 0;
let held: Entity[] = [];
const heldIndex = new Map<string, number>();
/** Holding the last rows, which the host keeps sending as new rows arrive. */
let tailMode = false;
let tailSize = 0;
/** The range asked of the host and not answered yet. */
let requested: { start: number; end: number; tail: boolean } | undefined;
/** Built rows, by index: always a contiguous run [builtStart, builtEnd). */
const built = new Map<number, Row>();
let builtStart = 0;
let builtEnd = 0;
/** What is left of this frame's FRAME_BUILD_CHARS. */
let buildRoom = 0;

// --- the view ---------------------------------------------------------------------------------

let scrollPos = scroller.scrollTop;
/** The last scrollTop we wrote: its scroll event is not the reader's. */
let wroteScroll = -1;
/** Keep the last line in view (End, or the reader scrolled to the bottom). */
let stickBottom = false;
/** The host is replaying the session's history (`loading`): rows arrive in batches of many. */
let replaying = false;
/** Where the list starts in the document, and the sticky header's height (measured each frame). */
let listTop = 0;
let headerHeight = 0;
let spacerTop = -1;
let spacerBottom = -1;
/** A row to bring into view, then do something with (focus it, highlight a match). */
let reveal: { index: number; then?: (row: Row) => void } | undefined;

/** Messages not yet applied; `queue[queueHead]` may be partly applied (up to `cursor`). */
let queue: HostToWebview[] = [];
let queueHead = 0;
let cursor = 0;
/** Text appended to built rows during this frame, joined and put in once at its end. */
const pendingText = new Map<Row, string[]>();
let frameScheduled = false;
let state: WebviewState | undefined = vscode.getState();
/** The place to restore after a reload or re-show: the row at the top and where it stood. */
let restoreAnchor = state?.anchor;
let lastAppendAt = 0;
let quietTimer: ReturnType<typeof setTimeout> | undefined;
/** Built rows whose body text is not yet Markdown; rendered when quiet. */
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
  // The row at the top of the view stays where it is, whatever changes above it.
  const anchor = topRow();
  let nextHeader: TranscriptHeader | undefined;
  while (queueHead < queue.length) {
    const message = queue[queueHead];
    let done = true;
    switch (message.type) {
      case 'snapshot':
        setHeader(message.header);
        startOver(message.count, message.start, message.entities);
        break;
      case 'rows':
        requested = undefined;
        setCount(message.count);
        hold(message.start, message.entities);
        // Following the end, the host keeps as many rows as it sent: so does the webview.
        if (tailMode) tailSize = message.entities.length;
        break;
      case 'update':
        if (cursor === 0) setCount(message.count);
        done = applyPatches(message.patches, deadline);
        if (done && message.header) nextHeader = message.header;
        break;
      case 'setCompactionsOpen':
        setCompactionsOpen(message.open);
        break;
      case 'openFind':
        openFind();
        break;
      case 'found':
        found(message);
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
  // The header once per frame, whatever the number of messages.
  if (nextHeader) setHeader(nextHeader);
  textPut = { chars: 0, at: 0 };
  render(anchor);
  if (queueHead < queue.length || pendingText.size) scheduleFrame();
  // The text's cost is known once the frame's layout (in render) has shaped it; at most double.
  const textChars = textPut.chars;
  if (textChars >= frameTextChars / 2) {
    const rate = textChars / Math.max(1, performance.now() - textPut.at);
    frameTextChars = Math.round(Math.min(MAX_FRAME_TEXT_CHARS, 2 * frameTextChars, Math.max(MIN_FRAME_TEXT_CHARS, rate * TEXT_FRAME_MS)));
  }
  scheduleMarkdown(QUIET_MS);
}

// --- messages ---------------------------------------------------------------------------------

function startOver(rowCount: number, start: number, entities: Entity[]): void {
  for (const row of built.values()) itemOf(row).remove();
  built.clear();
  builtStart = builtEnd = 0;
  dirtyRows.clear();
  pendingText.clear();
  requested = undefined;
  count = rowCount;
  heights.reset(rowCount);
  tailMode = startAt?.end === true;
  hold(start, entities);
  if (tailMode) {
    tailSize = entities.length;
    stickBottom = true;
  } else if (restoreAnchor) {
    const index = heldIndex.get(restoreAnchor.key);
    if (index !== undefined) reveal = { index };
  }
}

function setCount(next: number): void {
  if (next === count) return;
  count = next;
  heights.count = next;
  for (const row of built.values()) itemOf(row).setAttribute('aria-setsize', String(count));
  if (tailMode && heldStart + held.length > 0) trimHeld(Math.max(0, count - tailSize));
}

/** Holds rows [start, start + entities.length), keeping the built rows that are among them. */
function hold(start: number, entities: Entity[]): void {
  const keep = new Map<number, Row>();
  for (const [index, row] of built) {
    const entity = entities[index - start];
    if (entity && entity.key === row.key) {
      // The built row's entity is current (its changes came as patches): one object for both.
      entities[index - start] = row.entity;
      keep.set(index, row);
    } else {
      unbuild(row);
    }
  }
  built.clear();
  for (const [index, row] of keep) built.set(index, row);
  if (keep.size) {
    builtStart = Math.min(...keep.keys());
    builtEnd = Math.max(...keep.keys()) + 1;
  } else {
    builtStart = builtEnd = 0;
  }
  heldStart = start;
  held = entities;
  heldIndex.clear();
  entities.forEach((e, i) => heldIndex.set(e.key, start + i));
}

/** Drops held rows before `start` (following the end: the host keeps the last rows only). */
function trimHeld(start: number): void {
  if (start <= heldStart) return;
  const drop = Math.min(held.length, start - heldStart);
  for (const e of held.slice(0, drop)) heldIndex.delete(e.key);
  held = held.slice(drop);
  heldStart += drop;
}

/** Applies a batch from `cursor` on; false when the frame's time ran out first. */
function applyPatches(patches: Patch[], deadline: number): boolean {
  let i = cursor;
  while (i < patches.length) {
    const patch = patches[i++];
    if (patch.op === 'append') {
      const index = heldIndex.get(patch.key);
      if (index === undefined) continue;
      const row = built.get(index);
      if (row) {
        const texts = pendingText.get(row);
        if (texts) texts.push(patch.text);
        else pendingText.set(row, [patch.text]);
      } else {
        appendToEntity(held[index - heldStart], patch.text);
      }
    } else if (patch.op === 'upsert') {
      const { entity, index } = patch;
      const heldEnd = heldStart + held.length;
      if (heldIndex.get(entity.key) === index) {
        held[index - heldStart] = entity;
        const row = built.get(index);
        if (row) {
          // The replacement already holds the text appended before it.
          pendingText.delete(row);
          updateRow(row, entity);
          if (row.dirty) dirtyRows.add(row);
        }
      } else if (index === heldEnd) {
        held.push(entity);
        heldIndex.set(entity.key, index);
      } else if (tailMode && index > heldEnd) {
        // More new rows than the tail holds arrived at once: hold from here.
        hold(index, [entity]);
      }
    }
    if ((i & 15) === 0 && performance.now() > deadline) break;
  }
  cursor = i;
  return i === patches.length;
}

/** Text appended to a held row that is not built: into the model, shown when it is built. */
function appendToEntity(entity: Entity, text: string): void {
  const parts = bodyOf(entity);
  const last = parts?.[parts.length - 1];
  if (last?.type === 'text') last.text += text;
}

/** Puts the frame's appended text into its rows, one append per row, at most `frameTextChars` (less while following a replay); how many went in. */
function putPendingText(): number {
  const budget = stickBottom && replaying ? Math.round((frameTextChars * REPLAY_TEXT_FRAME_MS) / TEXT_FRAME_MS) : frameTextChars;
  let room = budget;
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
  return budget - room;
}

function setHeader(next: TranscriptHeader): void {
  renderHeader(headerEl, next, postAction);
  document.body.dataset.loading = String(next.loading);
  replaying = next.loading;
  listEl.setAttribute('aria-busy', String(next.loading));
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

// --- layout -----------------------------------------------------------------------------------

interface Anchor {
  index: number;
  /** Where the row's top stands in the viewport. */
  screenTop: number;
}

/** The row at the top of the visible area (under the sticky header), from the model. */
function topRow(): Anchor | undefined {
  scrollPos = scroller.scrollTop;
  if (!count) return undefined;
  const visTop = scrollPos + headerHeight - listTop;
  const index = heights.indexAt(visTop);
  return { index, screenTop: listTop + heights.offset(index) - scrollPos };
}

function render(anchor: Anchor | undefined): void {
  const vh = window.innerHeight;
  if (reveal && reveal.index >= count) reveal = undefined;
  if (reveal) {
    stickBottom = false;
    const top = heights.offset(reveal.index);
    const visTop = scrollPos + headerHeight - listTop;
    const visible = top >= visTop && top + heights.get(reveal.index) <= visTop + vh - headerHeight;
    const restoring = restoreAnchor && heldIndex.get(restoreAnchor.key) === reveal.index;
    anchor = { index: reveal.index, screenTop: restoring ? restoreAnchor!.offset : visible ? listTop + top - scrollPos : headerHeight + 8 };
    if (restoring) restoreAnchor = undefined;
  }
  buildRoom = FRAME_BUILD_CHARS;
  let wanted = { from: 0, to: 0 };
  let need = { a: 0, b: 0 };
  for (let pass = 0; pass < 3; pass++) {
    // Which rows to build: the visible area and a margin, or the end when following it.
    let visTop = scrollPos + headerHeight - listTop;
    if (stickBottom) visTop = heights.total() - (vh - headerHeight);
    else if (anchor) visTop = heights.offset(anchor.index) - (anchor.screenTop - headerHeight);
    const visBottom = visTop + vh - headerHeight;
    // Following the end of a replay, rows above the screen scroll away with the next batch:
    // build only what is on screen (the margin follows once the replay is done).
    const margin = stickBottom && replaying ? 0 : vh * MARGIN_SCREENS;
    const a = count ? heights.indexAt(visTop - margin) : 0;
    const b = count ? Math.min(count, heights.indexAt(visBottom + margin) + 1) : 0;
    need = { a, b };
    wanted = { from: Math.max(a, heldStart), to: Math.min(b, heldStart + held.length) };
    const visible = count ? { from: heights.indexAt(visTop), to: Math.min(count, heights.indexAt(visBottom) + 1) } : { from: 0, to: 0 };
    const changed = build(wanted.from, wanted.to, visible);
    // Appended text goes in after the build, into the rows still built: the text of rows that
    // scrolled away (following a fast stream) stays in the model, never laid out.
    if (pass === 0 && pendingText.size) {
      textPut.at = performance.now();
      textPut.chars = putPendingText();
    }
    // The spacers take the place of unbuilt rows before the layout that measures the built
    // ones: a document shorter for a moment would have the browser clamp the scroll position.
    if (changed) placeSpacers();
    const measuredChanged = measure();
    placeSpacers();
    scrollTo(anchor);
    if (!changed && !measuredChanged) break;
  }
  // Asked once the frame's measuring has corrected the estimate (the first frame's is a guess).
  askFor(need.a, need.b);
  // The frame's building room ran out before the margin was built: the rest in the next frame.
  if (wanted.from < wanted.to && (builtStart > wanted.from || builtEnd < wanted.to)) scheduleFrame();
  timelineEl.dataset.rows = String(count);
  timelineEl.dataset.built = `${builtStart}-${builtEnd}`;
  timelineEl.dataset.held = `${heldStart}-${heldStart + held.length}`;
  if (reveal) {
    const row = built.get(reveal.index);
    if (row) {
      const then = reveal.then;
      reveal = undefined;
      then?.(row);
    }
  }
}

/** Asks the host for rows around [a, b) when it does not hold them (once per range). */
function askFor(a: number, b: number): void {
  if (!count || a >= b) return;
  const heldEnd = heldStart + held.length;
  const atEnd = b >= count;
  if (stickBottom && atEnd) {
    if ((tailMode && heldStart <= a) || requested?.tail) return;
    tailMode = true;
    send({ start: a, end: count, tail: true });
    return;
  }
  if (a >= heldStart && b <= heldEnd) return;
  if (requested && !requested.tail && a >= requested.start && b <= requested.end) return;
  tailMode = false;
  // The rows to build; the host adds a margin (a screen, bounded in characters).
  send({ start: a, end: b, tail: false });
}

function send(range: { start: number; end: number; tail: boolean }): void {
  requested = range;
  vscode.postMessage({ type: 'range', ...range, viewport: viewport() });
}

/** The visible area the host fills with rows. */
function viewport(): Viewport {
  return { width: Math.round(window.innerWidth), height: Math.round(Math.max(100, window.innerHeight - headerHeight)) };
}

/**
 * Builds rows of [from, to) (held ones) around the visible ones, reusing those already built,
 * within this frame's building room: the visible rows first (from the bottom when following
 * the end), then the margin. Always at least one row, so every frame makes progress. True if
 * any row was built or removed.
 */
function build(from: number, to: number, visible: { from: number; to: number }): boolean {
  if (from >= to) {
    if (!built.size) return false;
    for (const row of built.values()) unbuild(row);
    built.clear();
    builtStart = builtEnd = 0;
    return true;
  }
  if (from === builtStart && to === builtEnd && built.size === to - from) return false;
  let removed = false;
  for (const [index, row] of built) {
    if (index < from || index >= to) {
      unbuild(row);
      built.delete(index);
      removed = true;
    }
  }
  const visFrom = Math.min(to - 1, Math.max(from, visible.from));
  const visTo = Math.max(visFrom + 1, Math.min(to, visible.to));
  let lo: number;
  let hi: number;
  if (built.size) {
    lo = Math.max(from, builtStart);
    hi = Math.min(to, builtEnd);
  } else {
    lo = hi = stickBottom ? visTo : visFrom;
  }
  const before: HTMLElement[] = [];
  const after: HTMLElement[] = [];
  for (const limit of stickBottom ? [visFrom, to, from] : [visTo, visFrom, to, from]) {
    while (buildRoom > 0 && limit > hi) {
      const row = buildRow(hi++);
      after.push(itemOf(row));
      buildRoom -= buildCost(row);
    }
    while (buildRoom > 0 && limit < lo) {
      const row = buildRow(--lo);
      before.push(itemOf(row));
      buildRoom -= buildCost(row);
    }
  }
  builtStart = lo;
  builtEnd = hi;
  if (!before.length && !after.length) return removed;
  listEl.prepend(...before.reverse());
  listEl.append(...after);
  return true;
}

/** What building a row takes of the frame's room: the text it shows. */
function buildCost(row: Row): number {
  let chars = ROW_BUILD_CHARS;
  if (isOpen(row)) for (const part of bodyOf(row.entity) ?? []) if (part.type === 'text') chars += part.text.length;
  return chars;
}

/** Each built row's article in the feed (see buildRow). */
const items = new WeakMap<Row, HTMLElement>();
function itemOf(row: Row): HTMLElement {
  return items.get(row) ?? row.el;
}

function buildRow(index: number): Row {
  const entity = held[index - heldStart];
  const row = createRow(entity, openChoice(entity));
  // A feed's entries are articles with their place in the whole session; a <details> row may
  // carry neither role nor position, so each row stands in an article of its own.
  const item = document.createElement('div');
  item.className = 'row-item';
  item.setAttribute('role', 'article');
  item.setAttribute('aria-posinset', String(index + 1));
  item.setAttribute('aria-setsize', String(count));
  item.append(row.el);
  items.set(row, item);
  built.set(index, row);
  if (row.dirty) dirtyRows.add(row);
  return row;
}

function unbuild(row: Row): void {
  itemOf(row).remove();
  dirtyRows.delete(row);
  const texts = pendingText.get(row);
  // Text not put in yet stays in the model, for when the row is built again.
  if (texts) appendToEntity(row.entity, texts.join(''));
  pendingText.delete(row);
}

/** Measures the built rows (one layout); true when a height changed. */
function measure(): boolean {
  listTop = timelineEl.offsetTop;
  headerHeight = headerEl.offsetHeight;
  let changed = false;
  let sum = 0;
  for (let i = builtStart; i < builtEnd; i++) {
    const row = built.get(i);
    if (!row) continue;
    // Fractional: whole pixels would let the spacer that replaces a row drift by its rounding.
    const h = row.el.getBoundingClientRect().height + ROW_GAP_PX;
    sum += h;
    if (heights.set(i, h)) changed = true;
  }
  if (!estimated && builtEnd > builtStart) {
    // The first rows seen set the estimate for the others (once, so the view does not drift).
    estimated = true;
    heights.estimate = Math.min(400, Math.max(28, Math.round(sum / (builtEnd - builtStart))));
    changed = true;
  }
  return changed;
}

function placeSpacers(): void {
  const top = heights.offset(builtStart);
  const bottom = Math.max(0, heights.total() - heights.offset(builtEnd));
  if (top !== spacerTop) topSpacer.style.height = `${(spacerTop = top)}px`;
  if (bottom !== spacerBottom) bottomSpacer.style.height = `${(spacerBottom = bottom)}px`;
}

/** Puts the anchor row back where it stood, or the last line at the bottom when following. */
function scrollTo(anchor: Anchor | undefined): void {
  let target: number | undefined;
  if (stickBottom) target = scroller.scrollHeight - window.innerHeight;
  else if (anchor && anchor.index < count) target = listTop + heights.offset(anchor.index) - anchor.screenTop;
  if (target === undefined) return;
  target = Math.max(0, Math.round(target));
  // Read, not remembered: the browser may have moved it (clamping while the document was shorter).
  scrollPos = scroller.scrollTop;
  if (Math.abs(target - scrollPos) < 1) return;
  scroller.scrollTop = target;
  scrollPos = wroteScroll = scroller.scrollTop;
}

// --- Markdown once quiet ---------------------------------------------------------------

function scheduleMarkdown(delay: number): void {
  if (!dirtyRows.size) return;
  // Whether a Markdown pass is still to come (rows change height then): what a UI test waits for.
  document.body.dataset.markdown = 'pending';
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
  const anchor = topRow();
  let any = false;
  let more = false;
  let room = FRAME_BUILD_CHARS;
  for (let i = builtStart; i < builtEnd; i++) {
    const row = built.get(i);
    if (!row || !dirtyRows.has(row) || !isOpen(row)) continue;
    let chars = 0;
    for (const part of bodyOf(row.entity) ?? []) if (part.type === 'text') chars += part.text.length;
    if (chars > MARKDOWN_MAX_CHARS) {
      dirtyRows.delete(row);
      continue;
    }
    renderBodyMarkdown(row);
    dirtyRows.delete(row);
    // The row's text nodes were replaced, which collapses a find highlight in them: put it back.
    if (shownHighlight?.row === row) highlight(row, shownHighlight.query, shownHighlight.occurrence, false);
    any = true;
    room -= chars;
    // Keep frames short (script, and the text the layout shapes again): continue in the next frame.
    if (performance.now() - started > MARKDOWN_FRAME_MS || room <= 0) {
      requestAnimationFrame(renderDirtyMarkdown);
      more = true;
      break;
    }
  }
  // Rendered rows changed height: measure them, keeping the view where it was.
  if (any) render(anchor);
  if (!more && quietTimer === undefined) document.body.dataset.markdown = 'done';
}

// --- user interaction ----------------------------------------------------------------------

function openChoice(entity: Entity): boolean | undefined {
  if (entity.kind === 'compaction') return state?.open?.[`compaction:${entity.key}`] ?? state?.compactionsOpen;
  return state?.open?.[entity.key];
}

function setCompactionsOpen(open: boolean): void {
  const anchor = topRow();
  const choices: Record<string, boolean> = {};
  // The whole session's compactions: the built rows now, the others when they are built.
  for (const [key, value] of Object.entries(state?.open ?? {})) if (!key.startsWith('compaction:')) choices[key] = value;
  for (const row of built.values()) {
    if (row.entity.kind !== 'compaction') continue;
    row.chosen = open;
    (row.el as HTMLDetailsElement).open = open;
  }
  saveState({ open: choices, compactionsOpen: open });
  render(anchor);
}

/**
 * After a row opened or closed (by the reader, find, or a compaction's status): build,
 * render, and remember what the reader chose (a compaction's own opening is not a choice).
 */
function rowToggled(row: Row): void {
  const open = isOpen(row);
  if (open) buildLazyBody(row);
  if (open && row.dirty) {
    dirtyRows.add(row);
    scheduleMarkdown(0);
  }
  if (row.disclosure || row.chosen !== undefined) {
    const key = row.entity.kind === 'compaction' ? `compaction:${row.key}` : row.key;
    saveState({ open: { ...(state?.open ?? {}), [key]: open } });
  }
  scheduleFrame();
}

/** A compaction's head was activated (click, or Enter / Space, which click it): the reader's choice. */
function compactionHeadActivated(target: Element | null): void {
  const summary = target?.closest?.('details.compaction > summary');
  const row = rowOf(summary);
  if (row && summary?.parentElement === row.el) row.chosen = !(row.el as HTMLDetailsElement).open;
  if (row?.chosen) vscode.postMessage({ type: 'compactionRead' });
}

function rowOf(el: Element | null | undefined): Row | undefined {
  const rowEl = el?.closest?.('.row') as HTMLElement | null;
  const index = rowEl ? Number(rowEl.parentElement?.getAttribute('aria-posinset')) - 1 : -1;
  const row = built.get(index);
  return row?.el === rowEl ? row : undefined;
}

listEl.addEventListener(
  'toggle',
  (event) => {
    const el = event.target as HTMLElement;
    const row = el.classList.contains('row') ? rowOf(el) : undefined;
    if (row) rowToggled(row);
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
  const button = target?.closest?.('[data-action]') as HTMLElement | null;
  if (button) handleButton(button.dataset.action ?? '');
});

document.addEventListener('keydown', (event) => {
  const target = event.target as HTMLElement;
  if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'f') {
    event.preventDefault();
    openFind();
    return;
  }
  if (event.key === 'F3' && findInput.value) {
    event.preventDefault();
    stepFind(event.shiftKey ? -1 : 1);
    return;
  }
  if (target.closest?.('.find-bar')) return;
  if ((event.key === 'Enter' || event.key === ' ') && target.dataset?.href !== undefined) {
    event.preventDefault();
    openLink(target.dataset.href ?? '');
    return;
  }
  if ((event.key === 'Enter' || event.key === ' ') && target.matches?.('.disclosure > .row-head') && toggleDisclosure(target)) {
    event.preventDefault();
    return;
  }
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === 'Home' || event.key === 'End' || event.key === 'PageUp' || event.key === 'PageDown') {
    event.preventDefault();
    pageKey(event.key);
    return;
  }
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  // Arrow keys move between rows when a row (or its head) has focus; rows are built as needed.
  const row = rowOf(target);
  if (!row || (target !== row.el && target.parentElement !== row.el)) return;
  const index = Number(itemOf(row).getAttribute('aria-posinset')) - 1 + (event.key === 'ArrowDown' ? 1 : -1);
  if (index < 0 || index >= count) return;
  event.preventDefault();
  const next = built.get(index);
  if (next) {
    focusTarget(next).focus();
    return;
  }
  reveal = { index, then: (r) => focusTarget(r).focus() };
  scheduleFrame();
});

/** Home, End, Page Up and Page Down over the whole session, whatever has focus. */
function pageKey(key: string): void {
  const page = Math.max(40, window.innerHeight - headerHeight - 40);
  reveal = undefined;
  if (key === 'End') {
    stickBottom = true;
  } else {
    stickBottom = false;
    const target = key === 'Home' ? 0 : Math.max(0, scroller.scrollTop + (key === 'PageDown' ? page : -page));
    scroller.scrollTop = target;
    scrollPos = wroteScroll = scroller.scrollTop;
  }
  scheduleFrame();
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
    const now = scroller.scrollTop;
    if (Math.abs(now - wroteScroll) >= 1) {
      // The reader scrolled (wheel, scrollbar, keys): follow the end only if they reached it.
      wroteScroll = -1;
      scrollPos = now;
      reveal = undefined;
      stickBottom = now + window.innerHeight >= scroller.scrollHeight - 4;
      scheduleFrame();
    }
    if (scrollFrame) return;
    scrollFrame = true;
    requestAnimationFrame(() => {
      scrollFrame = false;
      const top = topRow();
      const key = top ? held[top.index - heldStart]?.key : undefined;
      saveState({ anchor: key && top ? { key, offset: Math.round(top.screenTop) } : undefined });
    });
  },
  { passive: true },
);
window.addEventListener('resize', () => scheduleFrame());

// A usage marker in the header whose compaction row is not built: scroll there, then focus it.
document.addEventListener('acp-reveal-row', (event) => {
  const index = (event as CustomEvent<{ index?: unknown }>).detail?.index;
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) return;
  reveal = { index, then: (row) => focusTarget(row).focus() };
  scheduleFrame();
});

// --- find: matched in the host's timeline, so rows not built are found too -------------------

const findInput = element('input', 'find-input');
findInput.type = 'text';
findInput.placeholder = t('Find');
findInput.setAttribute('aria-label', t('Find in transcript'));
const findCount = element('span', 'find-count');
findCount.setAttribute('role', 'status');
const findBar = element('div', 'find-bar');
findBar.setAttribute('role', 'search');
findBar.hidden = true;
findBar.append(findInput, findCount, findButton('arrow-up', t('Previous Match (Shift+Enter)'), 'previous'), findButton('arrow-down', t('Next Match (Enter)'), 'next'), findButton('close', t('Close (Escape)'), 'close'));
document.body.append(findBar);
let findSeq = 0;
let findSent = '';
let findTimer: ReturnType<typeof setTimeout> | undefined;
let shownMatch = '';

function findButton(icon: string, label: string, action: string): HTMLElement {
  const b = element('button', 'icon-button');
  b.dataset.find = action;
  b.title = label;
  b.setAttribute('aria-label', label);
  b.append(codicon(icon));
  return b;
}

function openFind(): void {
  findBar.hidden = false;
  findInput.focus();
  findInput.select();
}

function closeFind(): void {
  findBar.hidden = true;
  findSeq++;
  findSent = '';
  shownMatch = '';
  clearHighlight();
  built.get(topRow()?.index ?? -1)?.el.focus({ preventScroll: true });
}

function search(step: 0 | 1 | -1): void {
  if (findTimer !== undefined) clearTimeout(findTimer);
  findTimer = undefined;
  const query = findInput.value;
  if (query !== findSent) step = 0;
  findSent = query;
  shownMatch = '';
  if (!query) {
    findCount.textContent = '';
    clearHighlight();
    findSeq++;
    return;
  }
  vscode.postMessage({ type: 'find', seq: ++findSeq, query, step, from: topRow()?.index ?? 0 });
}

function stepFind(step: 1 | -1): void {
  search(step);
}

findInput.addEventListener('input', () => {
  if (findTimer !== undefined) clearTimeout(findTimer);
  findTimer = setTimeout(() => search(0), 120);
});
findInput.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') {
    event.preventDefault();
    stepFind(event.shiftKey ? -1 : 1);
  } else if (event.key === 'Escape') {
    event.preventDefault();
    closeFind();
  }
});
findBar.addEventListener('click', (event) => {
  const action = ((event.target as Element).closest('[data-find]') as HTMLElement | null)?.dataset.find;
  if (action === 'close') closeFind();
  else if (action === 'next' || action === 'previous') stepFind(action === 'next' ? 1 : -1);
});

function found(message: Extract<HostToWebview, { type: 'found' }>): void {
  if (message.seq !== findSeq || findBar.hidden) return;
  findCount.textContent = message.total === 0
    ? (message.done ? t('No results') : '')
    : message.done ? t('{0} of {1}', message.current, message.total) : t('{0} of {1}+', message.current, message.total);
  findBar.classList.toggle('no-results', message.done && message.total === 0);
  if (message.index < 0) return;
  const shown = `${message.index}:${message.occurrence}`;
  if (shown === shownMatch) return;
  shownMatch = shown;
  reveal = {
    index: message.index,
    then: (row) => {
      // A match inside a folded row opens it, as find-in-page opens a closed <details>.
      if (!isOpen(row)) {
        if (row.entity.kind === 'compaction') {
          row.chosen = true;
          (row.el as HTMLDetailsElement).open = true;
        } else setOpen(row, true);
        rowToggled(row);
      }
      highlight(row, message.query, message.occurrence);
    },
  };
  scheduleFrame();
}

const FIND_HIGHLIGHT = 'transcript-find';
function clearHighlight(): void {
  shownHighlight = undefined;
  (CSS as unknown as { highlights?: Map<string, unknown> }).highlights?.delete(FIND_HIGHLIGHT);
}

/** The match find shows, to put back when its row's text is rendered anew (Markdown once quiet). */
let shownHighlight: { row: Row; query: string; occurrence: number } | undefined;

/** Highlights the `occurrence`th match of `query` in the row's text and brings it into view (unless `scroll` is false). */
function highlight(row: Row, query: string, occurrence: number, scroll = true): void {
  shownHighlight = { row, query, occurrence };
  const needle = query.toLowerCase();
  const walker = document.createTreeWalker(row.el, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  let text = '';
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    nodes.push(node as Text);
    text += (node as Text).data;
  }
  const hay = text.toLowerCase();
  let at = -1;
  for (let i = hay.indexOf(needle), n = 0; i >= 0; i = hay.indexOf(needle, i + needle.length), n++) {
    at = i;
    if (n === occurrence) break;
  }
  if (at < 0) {
    clearHighlight();
    return;
  }
  const range = document.createRange();
  let pos = 0;
  for (const node of nodes) {
    const end = pos + node.data.length;
    if (at >= pos && at < end) range.setStart(node, at - pos);
    if (at + needle.length > pos && at + needle.length <= end) {
      range.setEnd(node, at + needle.length - pos);
      break;
    }
    pos = end;
  }
  const Highlight = (window as unknown as { Highlight?: new (r: Range) => unknown }).Highlight;
  const registry = (CSS as unknown as { highlights?: Map<string, unknown> }).highlights;
  if (Highlight && registry) registry.set(FIND_HIGHLIGHT, new Highlight(range));
  if (!scroll) return;
  const rect = range.getBoundingClientRect();
  if (rect.top < headerHeight || rect.bottom > window.innerHeight) {
    scroller.scrollTop = scrollPos + rect.top - headerHeight - (window.innerHeight - headerHeight) / 3;
    scrollPos = wroteScroll = scroller.scrollTop;
    scheduleFrame();
  }
}

function saveState(patch: Partial<WebviewState>): void {
  state = { ...(state ?? { agentName: '', sessionId: '', cwd: '', title: '' }), ...patch };
  vscode.setState(state);
}

/** Where the webview starts: the row it showed before (a tab shown again, a reload), else the top. */
const startAt: StartAt | undefined = restoreAnchor?.key ? { key: restoreAnchor.key } : undefined;
vscode.postMessage({ type: 'ready', ...(startAt ? { start: startAt } : {}), viewport: viewport() });
