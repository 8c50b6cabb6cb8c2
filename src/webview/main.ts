// The transcript renderer, running inside the webview. It only renders: the host owns the
// timeline and sends a snapshot after every `ready`, then batches of patches. All DOM work
// happens once per animation frame; appended text goes in as text, Markdown is rendered for
// rows near the viewport once the stream is quiet.
import type { Entity } from '../transcript/model';
import type { HostAction, HostToWebview, Patch, TranscriptHeader, WebviewState, WebviewToHost } from '../transcript/protocol';
import { isAllowedLink } from '../transcript/protocol';
import { renderHeader } from './header';
import { appendText, buildLazyBody, createRow, focusTarget, renderBodyMarkdown, updateRow, type Row } from './rows';

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): WebviewState | undefined;
  setState(state: WebviewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** How long the stream must be quiet before streamed text is re-rendered as Markdown. */
const QUIET_MS = 200;

const vscode = acquireVsCodeApi();
const timelineEl = document.getElementById('timeline')!;
const headerEl = document.getElementById('header')!;
const scroller = document.scrollingElement ?? document.documentElement;

const rows = new Map<string, Row>();
let queue: HostToWebview[] = [];
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
const visibleRows = new Set<Element>();

const observer = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (entry.isIntersecting) visibleRows.add(entry.target);
      else visibleRows.delete(entry.target);
    }
    scheduleMarkdown(0);
  },
  { rootMargin: '100% 0px' },
);

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
  const messages = queue;
  queue = [];
  let appended = false;
  for (const message of messages) {
    switch (message.type) {
      case 'snapshot':
        applySnapshot(message.entities);
        setHeader(message.header);
        break;
      case 'update':
        if (message.patches.length) appended = applyPatches(message.patches) || appended;
        if (message.header) setHeader(message.header);
        break;
      case 'setCompactionsOpen':
        setCompactionsOpen(message.open);
        break;
    }
  }
  if (appended) lastAppendAt = performance.now();
  afterChanges();
}

function applySnapshot(entities: Entity[]): void {
  for (const row of rows.values()) observer.unobserve(row.el);
  rows.clear();
  dirtyRows.clear();
  visibleRows.clear();
  const fragment = document.createDocumentFragment();
  for (const entity of entities) fragment.append(addRow(entity).el);
  timelineEl.replaceChildren(fragment);
}

/** Applies a batch; returns whether text was appended (the stream is not quiet). */
function applyPatches(patches: Patch[]): boolean {
  let appended = false;
  let fragment: DocumentFragment | undefined;
  for (const patch of patches) {
    if (patch.op === 'append') {
      const row = rows.get(patch.key);
      if (!row) continue;
      appendText(row, patch.text);
      dirtyRows.add(row);
      appended = true;
    } else if (patch.op === 'upsert') {
      const row = rows.get(patch.entity.key);
      if (row) {
        updateRow(row, patch.entity);
        if (row.dirty) dirtyRows.add(row);
      } else {
        (fragment ??= document.createDocumentFragment()).append(addRow(patch.entity).el);
      }
    } else if (patch.op === 'remove') {
      const row = rows.get(patch.key);
      if (!row) continue;
      observer.unobserve(row.el);
      row.el.remove();
      rows.delete(patch.key);
      dirtyRows.delete(row);
    }
  }
  // New keys always go at the end, in the order the host created them.
  if (fragment) timelineEl.append(fragment);
  return appended;
}

function addRow(entity: Entity): Row {
  const row = createRow(entity, state?.open?.[entity.key]);
  rows.set(entity.key, row);
  if (row.dirty) dirtyRows.add(row);
  observer.observe(row.el);
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
    } else if (!header?.loading) {
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
  for (const row of dirtyRows) {
    if (!visibleRows.has(row.el)) continue;
    if (row.el.tagName === 'DETAILS' && !(row.el as HTMLDetailsElement).open) continue;
    renderBodyMarkdown(row);
    dirtyRows.delete(row);
    // Keep frames short: continue in the next frame.
    if (performance.now() - started > 12) {
      requestAnimationFrame(renderDirtyMarkdown);
      return;
    }
  }
}

// --- user interaction ----------------------------------------------------------------------

function setCompactionsOpen(open: boolean): void {
  const choices = { ...(state?.open ?? {}) };
  for (const row of rows.values()) {
    if (row.entity.kind !== 'compaction') continue;
    (row.el as HTMLDetailsElement).open = open;
    choices[row.key] = open;
  }
  saveState({ open: choices });
}

timelineEl.addEventListener(
  'toggle',
  (event) => {
    const el = event.target as HTMLElement;
    const key = el.dataset?.key;
    const row = key ? rows.get(key) : undefined;
    if (!row) return;
    const open = (el as HTMLDetailsElement).open;
    if (open) buildLazyBody(row);
    if (open && row.dirty) {
      dirtyRows.add(row);
      scheduleMarkdown(0);
    }
    saveState({ open: { ...(state?.open ?? {}), [row.key]: open } });
  },
  true,
);

document.addEventListener('click', (event) => {
  const target = event.target as Element | null;
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
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  // Arrow keys move between rows when a row (or its summary) has focus.
  const rowEl = target.closest?.('.row') as HTMLElement | null;
  if (!rowEl || (target !== rowEl && target.parentElement !== rowEl)) return;
  const sibling = (event.key === 'ArrowDown' ? rowEl.nextElementSibling : rowEl.previousElementSibling) as HTMLElement | null;
  const next = sibling?.dataset.key ? rows.get(sibling.dataset.key) : undefined;
  if (!next) return;
  event.preventDefault();
  focusTarget(next).focus();
});

function openLink(href: string): void {
  if (isAllowedLink(href)) vscode.postMessage({ type: 'openLink', href });
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
