// The virtual list: a spacer for the rows above those built, the built rows, a spacer for those
// below. Rows not measured yet count as an estimated height, corrected as rows are measured, so
// the scrollbar covers the whole session from the first frame while a frame costs a screen. It
// owns the heights, the built rows, the scroll position, following the end and revealing a row;
// the rows it builds come from HeldRows, and it asks for others through `request`.
import { bodyOf, type Entity } from '../transcript/model';
import { MARGIN_SCREENS, type Viewport } from '../transcript/protocol';
import { appendToEntity, type HeldRows, type RangeRequest } from './held';
import { Heights } from './heights';
import { t } from './l10n';
import { BuildOrder, rowsInView } from './listLayout';
import { createRow, element, focusTarget, isOpen, updateRow, type Row } from './rows';
import type { StreamedText } from './streamedText';

/** The height of a row not measured yet, until the first rows are measured. */
const FIRST_ESTIMATE_PX = 64;
/** The vertical gap after each row (media/transcript.css `--row-gap`). */
const ROW_GAP_PX = 10;
/**
 * Characters of text in the rows built (or rendered as Markdown) per frame, after the first
 * row: the browser shapes a row's text in the layout that measures it, at 5 to 9 µs a
 * character for mixed scripts on a loaded machine (traces: 160 ms for a screen built on the
 * first estimate; 60 to 110 ms a frame for 12 K; 61-70 ms for 4 K with the rows' script). The
 * rest follows in later frames.
 */
export const FRAME_BUILD_CHARS = 2 * 1024;
/** What a built row costs besides its text, in the same unit. */
const ROW_BUILD_CHARS = 200;

/** A row and where its top stands in the viewport. */
export interface Anchor {
  index: number;
  screenTop: number;
}

export interface VirtualListOptions {
  /** The list's container, and the sticky header above it. */
  timeline: HTMLElement;
  header: HTMLElement;
  held: HeldRows;
  text: StreamedText<Row>;
  /** Whether a row starts open, as the reader chose before (undefined: its kind's default). */
  openChoice(entity: Entity): boolean | undefined;
  /** Asks for a frame (the frame loop's). */
  schedule(): void;
  /** Asks the host for rows. */
  request(range: RangeRequest): void;
  /** The row to show at the top first (a reload, a tab shown again), where it stood. */
  restore?: { key: string; offset: number };
  /** The row at the top of the view changed (after a scroll): remembered for a reload. */
  anchorChanged(anchor: { key: string; offset: number } | undefined): void;
  /** After a scroll: the row the reader is at (see `readingRow`). */
  readingChanged?(index: number): void;
}

/** The list in `options.timeline`; the rows it builds are `options.held`'s. */
export function createVirtualList(options: VirtualListOptions) {
  const held = options.held;
  const listEl = element('div', 'rows');
  const topSpacer = element('div', 'spacer');
  const bottomSpacer = element('div', 'spacer');
  const scroller = document.scrollingElement ?? document.documentElement;
  const heights = new Heights(FIRST_ESTIMATE_PX);
  let estimated = false;
  /** Built rows, by index: always a contiguous run [builtStart, builtEnd). */
  const built = new Map<number, Row>();
  let builtStart = 0;
  let builtEnd = 0;
  /** Each built row's article in the feed (see buildRow). */
  const items = new WeakMap<Row, HTMLElement>();
  /** What is left of this frame's FRAME_BUILD_CHARS. */
  let buildRoom = 0;
  let scrollPos = scroller.scrollTop;
  /** The last scrollTop we wrote: its scroll event is not the reader's. */
  let wroteScroll = -1;
  /** Keep the last line in view (End, or the reader scrolled to the bottom). */
  let stickBottom = false;
  /** The host is replaying the session's history: rows arrive in batches of many. */
  let replaying = false;
  /** Where the list starts in the document, and the sticky header's height (measured each frame). */
  let listTop = 0;
  let headerHeight = 0;
  let spacerTop = -1;
  let spacerBottom = -1;
  /** A row to bring into view, then do something with (focus it, highlight a match). */
  let pendingReveal: { index: number; top?: boolean; then?: (row: Row) => void } | undefined;
  let restoreAnchor = options.restore;
  let anchorFrame = false;

  listEl.setAttribute('role', 'feed');
  listEl.setAttribute('aria-label', t('Transcript'));
  options.timeline.replaceChildren(topSpacer, listEl, bottomSpacer);
  window.addEventListener('scroll', () => scrolled(), { passive: true });
  window.addEventListener('resize', () => options.schedule());

  // --- what HeldRows tells (HeldRowsView) ------------------------------------------------------

  /** Rows [start, ...) replace the held ones: the built rows among them stay, with one entity object for both. */
  function beforeHold(start: number, entities: Entity[]): void {
    const keep = new Map<number, Row>();
    for (const [index, row] of built) {
      const entity = entities[index - start];
      if (entity && entity.key === row.key) {
        // The built row's entity is current (its changes came as patches).
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
  }

  function appendTo(index: number, text: string): boolean {
    const row = built.get(index);
    if (!row) return false;
    options.text.add(row, text);
    return true;
  }

  function replaced(index: number, entity: Entity): void {
    const row = built.get(index);
    if (!row) return;
    // The replacement already holds the text appended before it.
    options.text.replaced(row);
    updateRow(row, entity);
    if (row.dirty) options.text.dirty.add(row);
  }

  function countChanged(count: number): void {
    heights.count = count;
    for (const row of built.values()) itemOf(row).setAttribute('aria-setsize', String(count));
  }

  /** The host is replaying the session's history (or has stopped). */
  function setReplaying(loading: boolean): void {
    replaying = loading;
    listEl.setAttribute('aria-busy', String(loading));
  }

  // --- starting over ----------------------------------------------------------------------------

  /** A fresh list of `count` rows (a snapshot): nothing built, nothing measured. */
  function startOver(count: number): void {
    for (const row of built.values()) itemOf(row).remove();
    built.clear();
    builtStart = builtEnd = 0;
    options.text.clear();
    heights.reset(count);
  }

  /** After a snapshot: the row to restore, when it is held, is brought back where it stood. */
  function restore(): void {
    if (!restoreAnchor) return;
    const index = held.indexOf(restoreAnchor.key);
    if (index !== undefined) pendingReveal = { index };
  }

  // --- reading the view -------------------------------------------------------------------------

  /** The row at the top of the visible area (under the sticky header), from the model. */
  function topRow(): Anchor | undefined {
    scrollPos = scroller.scrollTop;
    if (!held.count) return undefined;
    const visTop = scrollPos + headerHeight - listTop;
    const index = heights.indexAt(visTop);
    return { index, screenTop: listTop + heights.offset(index) - scrollPos };
  }

  /**
   * The row the reader is at: the first one under the header, once past the gap after the row
   * above (a row revealed just below the header leaves a few pixels of that gap in view).
   */
  function readingRow(): number | undefined {
    if (!held.count) return undefined;
    return heights.indexAt(scroller.scrollTop + headerHeight - listTop + ROW_GAP_PX);
  }

  /** The visible area the host fills with rows. */
  function viewport(): Viewport {
    return { width: Math.round(window.innerWidth), height: Math.round(Math.max(100, window.innerHeight - headerHeight)) };
  }

  function builtRow(index: number): Row | undefined {
    return built.get(index);
  }

  /** The built rows, in order. */
  function* builtRows(): IterableIterator<Row> {
    for (let i = builtStart; i < builtEnd; i++) {
      const row = built.get(i);
      if (row) yield row;
    }
  }

  /** The built row an element is in. */
  function rowOf(el: Element | null | undefined): Row | undefined {
    const rowEl = el?.closest?.('.row') as HTMLElement | null;
    const index = rowEl ? indexOfRow(rowEl) : -1;
    const row = built.get(index);
    return row?.el === rowEl ? row : undefined;
  }

  /** A built row's index in the session (from its place in the feed). */
  function indexOfRow(rowEl: HTMLElement): number {
    return Number(rowEl.parentElement?.getAttribute('aria-posinset')) - 1;
  }

  /** Runs `change` keeping the row at the top of the view where it stands, and lays out again when it returns true. */
  function keepingPlace(change: () => boolean): void {
    const anchor = topRow();
    if (change()) render(anchor);
  }

  // --- moving -----------------------------------------------------------------------------------

  /**
   * Brings row `index` into view (building it, after asking the host for it if need be), then
   * calls `then` with it. `top`: just below the header, even when it is in view already.
   */
  function reveal(index: number, then?: (row: Row) => void, top = false): void {
    if (!Number.isInteger(index) || index < 0 || index >= held.count) return;
    pendingReveal = { index, then, top };
    options.schedule();
  }

  /** Home, End, Page Up and Page Down over the whole session. */
  function pageKey(key: 'Home' | 'End' | 'PageUp' | 'PageDown'): void {
    const page = Math.max(40, window.innerHeight - headerHeight - 40);
    pendingReveal = undefined;
    if (key === 'End') {
      stickBottom = true;
    } else {
      stickBottom = false;
      const target = key === 'Home' ? 0 : Math.max(0, scroller.scrollTop + (key === 'PageDown' ? page : -page));
      writeScroll(target);
    }
    options.schedule();
  }

  /** Scrolls so that a point now `rectTop` px from the viewport's top stands a third of the way down the view, unless it is in view. */
  function scrollIntoView(rectTop: number, rectBottom: number): void {
    if (rectTop >= headerHeight && rectBottom <= window.innerHeight) return;
    writeScroll(scrollPos + rectTop - headerHeight - (window.innerHeight - headerHeight) / 3);
    options.schedule();
  }

  function writeScroll(target: number): void {
    scroller.scrollTop = target;
    scrollPos = wroteScroll = scroller.scrollTop;
  }

  function scrolled(): void {
    const now = scroller.scrollTop;
    if (Math.abs(now - wroteScroll) >= 1) {
      // The reader scrolled (wheel, scrollbar, keys): follow the end only if they reached it.
      wroteScroll = -1;
      scrollPos = now;
      pendingReveal = undefined;
      stickBottom = now + window.innerHeight >= scroller.scrollHeight - 4;
      options.schedule();
    }
    if (anchorFrame) return;
    anchorFrame = true;
    requestAnimationFrame(() => {
      anchorFrame = false;
      const top = topRow();
      const key = top ? held.at(top.index)?.key : undefined;
      options.anchorChanged(key && top ? { key, offset: Math.round(top.screenTop) } : undefined);
      const reading = readingRow();
      if (reading !== undefined) options.readingChanged?.(reading);
    });
  }

  // --- the frame's layout -----------------------------------------------------------------------

  /** Builds, measures and places the rows the view needs, keeping `anchor` (or the end) where it stands. */
  function render(anchor: Anchor | undefined): void {
    const count = held.count;
    const vh = window.innerHeight;
    let reveal = pendingReveal;
    if (reveal && reveal.index >= count) reveal = pendingReveal = undefined;
    if (reveal) {
      stickBottom = false;
      const top = heights.offset(reveal.index);
      const visTop = scrollPos + headerHeight - listTop;
      const visible = top >= visTop && top + heights.get(reveal.index) <= visTop + vh - headerHeight;
      const restore = restoreAnchor;
      const restoring = restore && held.indexOf(restore.key) === reveal.index;
      const screenTop = restoring ? restore.offset : reveal.top ? headerHeight + 4 : visible ? listTop + top - scrollPos : headerHeight + 8;
      anchor = { index: reveal.index, screenTop };
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
      // Following the end of a replay, rows above the screen scroll away with the next batch:
      // build only what is on screen (the margin follows once the replay is done).
      const margin = stickBottom && replaying ? 0 : vh * MARGIN_SCREENS;
      const { a, b, visible } = rowsInView(heights, visTop, vh - headerHeight, margin);
      need = { a, b };
      wanted = { from: Math.max(a, held.start), to: Math.min(b, held.end) };
      const changed = build(wanted.from, wanted.to, visible);
      // Appended text goes in after the build, into the rows still built: the text of rows that
      // scrolled away (following a fast stream) stays in the model, never laid out.
      if (pass === 0 && options.text.waiting) options.text.put(stickBottom && replaying);
      // The spacers take the place of unbuilt rows before the layout that measures the built
      // ones: a document shorter for a moment would have the browser clamp the scroll position.
      if (changed) placeSpacers();
      const measuredChanged = measure();
      placeSpacers();
      scrollTo(anchor);
      if (!changed && !measuredChanged) break;
    }
    // Asked once the frame's measuring has corrected the estimate (the first frame's is a guess).
    const range = held.ask(need.a, need.b, stickBottom);
    if (range) options.request(range);
    // The frame's building room ran out before the margin was built: the rest in the next frame.
    if (wanted.from < wanted.to && (builtStart > wanted.from || builtEnd < wanted.to)) options.schedule();
    const dataset = options.timeline.dataset;
    dataset.rows = String(count);
    dataset.built = `${builtStart}-${builtEnd}`;
    dataset.held = `${held.start}-${held.end}`;
    if (pendingReveal) {
      const row = built.get(pendingReveal.index);
      if (row) {
        const then = pendingReveal.then;
        pendingReveal = undefined;
        then?.(row);
      }
    }
  }

  /**
   * Builds rows of [from, to) (held ones) around the visible ones, reusing those already built,
   * within this frame's building room (always at least one row, so every frame makes progress).
   * True if any row was built or removed.
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
    const order = new BuildOrder({ from, to }, visible, built.size ? { start: builtStart, end: builtEnd } : undefined, stickBottom);
    const before: HTMLElement[] = [];
    const after: HTMLElement[] = [];
    for (let step = buildRoom > 0 ? order.next() : undefined; step; step = buildRoom > 0 ? order.next() : undefined) {
      const row = buildRow(step.index);
      (step.before ? before : after).push(itemOf(row));
      buildRoom -= buildCost(row);
    }
    builtStart = order.lo;
    builtEnd = order.hi;
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

  function itemOf(row: Row): HTMLElement {
    return items.get(row) ?? row.el;
  }

  function buildRow(index: number): Row {
    const entity = held.at(index)!;
    const row = createRow(entity, options.openChoice(entity));
    // A feed's entries are articles with their place in the whole session; a <details> row may
    // carry neither role nor position, so each row stands in an article of its own.
    const item = document.createElement('div');
    item.className = 'row-item';
    item.setAttribute('role', 'article');
    item.setAttribute('aria-posinset', String(index + 1));
    item.setAttribute('aria-setsize', String(held.count));
    item.append(row.el);
    items.set(row, item);
    built.set(index, row);
    if (row.dirty) options.text.dirty.add(row);
    return row;
  }

  function unbuild(row: Row): void {
    itemOf(row).remove();
    // Text not put in yet stays in the model, for when the row is built again.
    const text = options.text.forget(row);
    if (text !== undefined) appendToEntity(row.entity, text);
  }

  /** Measures the built rows (one layout); true when a height changed. */
  function measure(): boolean {
    listTop = options.timeline.offsetTop;
    headerHeight = options.header.offsetHeight;
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
    else if (anchor && anchor.index < held.count) target = listTop + heights.offset(anchor.index) - anchor.screenTop;
    if (target === undefined) return;
    target = Math.max(0, Math.round(target));
    // Read, not remembered: the browser may have moved it (clamping while the document was shorter).
    scrollPos = scroller.scrollTop;
    if (Math.abs(target - scrollPos) < 1) return;
    writeScroll(target);
  }

  /** Moves the focus to the row `delta` rows from `row`, building it first if need be; false when there is none. */
  function moveFocus(row: Row, delta: number): boolean {
    const index = Number(itemOf(row).getAttribute('aria-posinset')) - 1 + delta;
    if (index < 0 || index >= held.count) return false;
    const next = built.get(index);
    if (next) focusTarget(next).focus();
    else reveal(index, (r) => focusTarget(r).focus());
    return true;
  }

  return {
    listEl, beforeHold, appendTo, replaced, countChanged, setReplaying, startOver, restore,
    topRow, readingRow, viewport, builtRow, builtRows, rowOf, keepingPlace, reveal, pageKey, scrollIntoView, render, moveFocus,
  };
}

export type VirtualList = ReturnType<typeof createVirtualList>;
