// One keyed DOM row per timeline entity, updated in place. Text is always set as text; the
// only HTML is sanitized Markdown. Appended text goes into a text node at the end of the body
// and is re-rendered as Markdown later (see main.ts), so a chunk never rebuilds the row.
import {
  bodyOf,
  describePart,
  type CompactionEntity,
  type Entity,
  type MessageEntity,
  type Part,
  type PlanEntity,
  type SubagentEntity,
  type ToolCallEntity,
  type UnknownEntity,
} from '../transcript/model';
import { codeSpans } from '../transcript/inlineCode';
import { isAllowedLink, openSubagentAction } from '../transcript/protocol';
import { t } from './l10n';
import type { RenderMarkdown } from './markdownLoader';
import { sanitizedFragment } from './sanitize';

export interface Row {
  key: string;
  entity: Entity;
  /**
   * The row element: a <details> for compactions; an <article> for the others, where thoughts,
   * tool calls and unknown updates fold by a button head (thousands of <details> cost 40 µs
   * each to create and style, several times a plain element).
   */
  el: HTMLElement;
  /** An <article> that folds: its head is a button, its body is `hidden="until-found"` while closed. */
  disclosure?: boolean;
  /** Whether a disclosure row is open (a <details> keeps its own `open`). */
  open?: boolean;
  /**
   * A compaction's open state as the reader chose it (click, keyboard, Expand all, find);
   * undefined while they have not. Unchosen, a compaction is open exactly while it is in
   * progress, whatever batches its updates came in.
   */
  chosen?: boolean;
  /** Where the entity's text renders (messages, thoughts, compaction summaries). */
  body?: HTMLElement;
  /** The text node appended chunks go into. */
  tail?: Text;
  /** The body text changed since it was last rendered as Markdown. */
  dirty: boolean;
  /** Collapsible bodies that are built only when first opened (tool calls, unknown updates). */
  lazyBody?: boolean;
  built?: boolean;
}

const MESSAGE_HEADS = {
  user_message: ['account', t('You')],
  agent_message: ['hubot', t('Agent')],
  thought: ['lightbulb', t('Thinking')],
  session_message: ['mail', t('Message between sessions')],
} as const;

// Maps: a kind or status is the agent's string, and an object's lookup would find `constructor`.
const TOOL_KIND_ICONS: ReadonlyMap<string, string> = new Map(Object.entries({
  read: 'file-code', edit: 'edit', delete: 'trash', move: 'arrow-swap', search: 'search',
  execute: 'terminal', think: 'lightbulb', fetch: 'globe', switch_mode: 'arrow-swap', other: 'tools',
}));
const TOOL_STATUS_ICONS: ReadonlyMap<string, string> = new Map(Object.entries({
  pending: 'circle-large-outline', in_progress: 'loading codicon-modifier-spin', completed: 'check', failed: 'error',
}));
const PLAN_STATUS_ICONS: ReadonlyMap<string, string> = new Map(Object.entries({
  completed: 'pass-filled', in_progress: 'circle-large-filled', pending: 'circle-large-outline',
}));
const SAFE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The Markdown renderer, once markdown.js has loaded (markdownLoader.ts); until then text shows plain. */
let renderMarkdown: RenderMarkdown | undefined;

/** Makes Markdown available to the rows built from now on and to the Markdown pass. */
export function useMarkdown(render: RenderMarkdown): void {
  renderMarkdown = render;
}

/** Builds the row for a new entity. `open` is the user's remembered choice, if any. */
export function createRow(entity: Entity, open: boolean | undefined): Row {
  const compaction = entity.kind === 'compaction';
  const disclosure = entity.kind === 'thought' || entity.kind === 'tool_call' || entity.kind === 'unknown';
  const el = document.createElement(compaction ? 'details' : 'article');
  el.dataset.key = entity.key;
  el.dataset.kind = entity.kind;
  const row: Row = { key: entity.key, entity, el, dirty: false };
  if (compaction) {
    row.chosen = open;
  } else if (disclosure) {
    row.disclosure = true;
    row.open = open ?? false;
    row.lazyBody = entity.kind === 'tool_call' || entity.kind === 'unknown';
  } else {
    el.tabIndex = -1;
  }
  updateRow(row, entity);
  return row;
}

/** Whether the row shows its body (rows that do not fold always do). */
export function isOpen(row: Row): boolean {
  if (row.disclosure) return row.open === true;
  return row.el.tagName === 'DETAILS' ? (row.el as HTMLDetailsElement).open : true;
}

/** Opens or closes a foldable row; a lazily built body is built on first opening. */
export function setOpen(row: Row, open: boolean): void {
  if (!row.disclosure) {
    if (row.el.tagName === 'DETAILS') (row.el as HTMLDetailsElement).open = open;
    return;
  }
  if (row.open === open) return;
  row.open = open;
  if (open && row.lazyBody && !row.built) return buildLazyBody(row);
  showOpenState(row);
}

/** Re-renders a row for a replaced entity, keeping the element (and its open state). */
export function updateRow(row: Row, entity: Entity): void {
  row.entity = entity;
  const el = row.el;
  // The head is rebuilt: keyboard focus on it moves to the new one.
  const focused = el.firstElementChild !== null && el.firstElementChild === document.activeElement;
  el.className = row.disclosure ? `row ${entity.kind} disclosure${row.open ? ' open' : ''}` : `row ${entity.kind}`;
  switch (entity.kind) {
    case 'user_message':
    case 'agent_message':
    case 'thought':
    case 'session_message':
      renderMessage(row, entity);
      break;
    case 'compaction':
      renderCompaction(row, entity);
      // Open while its summary streams in, closed once it ended: one rule, so the same
      // transcript opens the same way however its replay was batched.
      (el as HTMLDetailsElement).open = row.chosen ?? entity.status === 'in_progress';
      syncExpanded(el as HTMLDetailsElement);
      break;
    case 'tool_call':
      renderToolCall(row, entity);
      break;
    case 'plan':
      renderPlan(row, entity);
      break;
    case 'subagent':
      renderSubagent(row, entity);
      break;
    case 'unknown':
      renderUnknown(row, entity);
      break;
  }
  if (row.disclosure) showOpenState(row);
  if (focused) (el.firstElementChild as HTMLElement | null)?.focus({ preventScroll: true });
}

/**
 * A disclosure row's head says whether it is expanded; its body is hidden until opened, or
 * until find-in-page matches text inside (`until-found`, as a closed <details> behaves).
 */
function showOpenState(row: Row): void {
  const el = row.el;
  el.classList.toggle('open', row.open === true);
  const head = el.firstElementChild as HTMLElement | null;
  head?.setAttribute('aria-expanded', String(row.open === true));
  for (let child = head?.nextElementSibling; child; child = child.nextElementSibling) {
    if (row.open) child.removeAttribute('hidden');
    else child.setAttribute('hidden', 'until-found');
  }
}

/** Adds appended text to the model and, as text, to the end of the body. */
export function appendText(row: Row, text: string): void {
  const parts = bodyOf(row.entity);
  const last = parts?.[parts.length - 1];
  if (!parts || last?.type !== 'text') return;
  last.text += text;
  if (!row.body) return;
  if (!row.tail) {
    row.tail = plainBlock(row.body);
    row.body.parentElement?.querySelector(':scope > .empty')?.remove();
  }
  row.dirty = true;
  // Streamed text goes into blocks of whole lines, so the browser shapes only the new text
  // rather than all of it again (appending to a text node reshapes it); a block ending in a
  // newline shows no extra line. A block is cut after a newline past BLOCK_CHARS, and, once
  // past SEAL_CHARS, after the last newline of each append, so the next reshapes only a line.
  let tail = row.tail;
  if (tail.length >= SEAL_CHARS && tail.substringData(tail.length - 1, 1) === '\n') tail = row.tail = plainBlock(row.body);
  while (tail.length + text.length > BLOCK_CHARS) {
    const cut = text.indexOf('\n', Math.max(0, BLOCK_CHARS - tail.length - 1));
    if (cut < 0 || cut === text.length - 1) break;
    tail.appendData(text.slice(0, cut + 1));
    text = text.slice(cut + 1);
    tail = row.tail = plainBlock(row.body);
  }
  const lastLine = text.lastIndexOf('\n') + 1;
  if (lastLine > 0 && lastLine < text.length && tail.length + lastLine >= SEAL_CHARS) {
    tail.appendData(text.slice(0, lastLine));
    text = text.slice(lastLine);
    tail = row.tail = plainBlock(row.body);
  }
  tail.appendData(text);
}

/** Characters of streamed text per block at most (cut after a newline past this). */
const BLOCK_CHARS = 8192;
/** A block this long ends after the last whole line appended to it. */
const SEAL_CHARS = 1024;

function plainBlock(body: HTMLElement): Text {
  const plain = element('div', 'plain');
  const text = document.createTextNode('');
  plain.append(text);
  body.append(plain);
  return text;
}

/** Renders the body's text as (sanitized) Markdown; a plan shown before Markdown was available is rendered again. */
export function renderBodyMarkdown(row: Row): void {
  if (!renderMarkdown) return;
  if (row.entity.kind === 'plan') return renderPlan(row, row.entity);
  const parts = bodyOf(row.entity);
  if (row.body && parts) fillBody(row, parts, true);
}

/** Builds a lazily built body (tool call, unknown update) the first time it is needed. */
export function buildLazyBody(row: Row): void {
  if (!row.lazyBody || row.built) return;
  row.built = true;
  updateRow(row, row.entity);
}

/** The element keyboard focus goes to for this row. */
export function focusTarget(row: Row): HTMLElement {
  if (row.disclosure) return row.el.firstElementChild as HTMLElement;
  return row.el.tagName === 'DETAILS' ? (row.el.querySelector(':scope > summary') as HTMLElement) : row.el;
}

// --- kinds ---------------------------------------------------------------------------------

function renderMessage(row: Row, entity: MessageEntity): void {
  const [icon, label] = MESSAGE_HEADS[entity.kind];
  const head = rowHead(row.disclosure === true, icon, label);
  const body = element('div', 'body');
  // A prompt or an agent message the agent named can be forked from (shown where the header says the agent can fork).
  if ((entity.kind === 'user_message' || entity.kind === 'agent_message') && typeof entity.messageId === 'string' && entity.messageId.trim() !== '') {
    row.el.replaceChildren(head, forkButton(), body);
  } else {
    row.el.replaceChildren(head, body);
  }
  row.body = body;
  fillBody(row, entity.parts, false);
}

function renderCompaction(row: Row, entity: CompactionEntity): void {
  const el = row.el;
  el.dataset.status = entity.status;
  el.classList.add(`status-${statusClass(entity.status)}`);
  const head = element('summary', 'row-head');
  let icon: string;
  let label: string;
  switch (entity.status) {
    case 'in_progress':
      icon = 'loading codicon-modifier-spin';
      label = t('Compacting context…');
      break;
    case 'completed':
      icon = 'fold';
      label = t('Context compacted');
      break;
    case 'failed':
      icon = 'error';
      label = t('Context compaction failed');
      break;
    case 'cancelled':
      icon = 'circle-slash';
      label = t('Context compaction cancelled');
      break;
    default:
      icon = 'question';
      label = t('Context compaction');
  }
  head.append(codicon(icon), element('span', 'label', label));
  // The visible text is the accessible name; hidden separators keep its parts apart when read.
  if (!['in_progress', 'completed', 'failed', 'cancelled'].includes(entity.status)) {
    head.append(element('span', 'visually-hidden', ', '), element('span', 'status-unknown', entity.status));
  }
  if (entity.error) head.append(element('span', 'visually-hidden', ': '), element('span', 'error-text', entity.error));
  const children: Node[] = [head];
  if (entity.summary.length === 0) {
    children.push(element('div', 'empty', entity.status === 'in_progress' ? t('Waiting for the summary…') : t('The agent shared no summary for this compaction.')));
  }
  const body = element('div', 'body summary');
  children.push(body);
  el.replaceChildren(...children);
  row.body = body;
  fillBody(row, entity.summary, false);
}

function renderToolCall(row: Row, entity: ToolCallEntity): void {
  const status = entity.status ?? 'pending';
  const head = rowHead(true, TOOL_KIND_ICONS.get(entity.toolKind ?? 'other') ?? 'tools', entity.title || entity.toolCallId);
  if (entity.title) setCodeSpans(head.lastElementChild as HTMLElement, entity.title);
  const badge = () => {
    const el = element('span', `badge tool-status status-${statusClass(status)}`);
    el.append(codicon(TOOL_STATUS_ICONS.get(status) ?? 'question'), document.createTextNode(status.replace(/_/g, ' ')));
    return el;
  };
  // Only the protocol's statuses are templates: an agent's own strings would grow the cache.
  head.append(TOOL_STATUS_ICONS.has(status) ? cloned(`badge\u0000${status}`, badge) : badge());
  row.el.dataset.status = status;
  const children: Node[] = [head];
  if (row.built || isOpen(row)) {
    row.built = true;
    const body = element('div', 'tool-body');
    if (entity.locations.length) {
      const list = element('ul', 'locations');
      entity.locations.forEach((l, i) => {
        // A link the host opens from its own timeline (by row and position, never the path shown).
        const link = element('a', 'location-link', `${l.path}${l.line ? `:${l.line}` : ''}`);
        link.setAttribute('role', 'link');
        link.tabIndex = 0;
        link.title = t('Open the file at this line');
        link.dataset.tool = `location:${i}`;
        const li = element('li', 'location');
        li.append(link);
        list.append(li);
      });
      body.append(list);
    }
    entity.content.forEach((item, i) => {
      if (item.type === 'content') body.append(item.part.type === 'text' ? element('pre', 'tool-output', item.part.text) : renderPart(item.part));
      else if (item.type === 'diff') {
        const diff = element('div', 'diff');
        const open = element('button', 'icon-button diff-open');
        open.dataset.tool = `diff:${i}`;
        open.title = t('Open in Diff Editor');
        open.setAttribute('aria-label', t('Open {0} in the diff editor', item.path));
        open.append(codicon('diff'));
        const top = element('div', 'diff-head');
        top.append(element('span', 'diff-path', item.path), open);
        diff.append(top);
        const pre = element('pre', 'diff-lines');
        if (item.oldText !== undefined) for (const line of item.oldText.split('\n')) pre.append(element('span', 'diff-removed', `-${line}\n`));
        for (const line of item.newText.split('\n')) pre.append(element('span', 'diff-added', `+${line}\n`));
        diff.append(pre);
        body.append(diff);
      } else if (item.type === 'terminal') body.append(element('div', 'terminal', t('Terminal {0}', item.terminalId)));
      else body.append(element('pre', 'json', item.json));
    });
    if (entity.rawInput !== undefined) body.append(rawDetails(t('Raw input'), entity.rawInput));
    if (entity.rawOutput !== undefined) body.append(rawDetails(t('Raw output'), entity.rawOutput));
    if (!body.childElementCount) body.append(element('div', 'empty', t('No output.')));
    children.push(body);
  }
  row.el.replaceChildren(...children);
}

function renderPlan(row: Row, entity: PlanEntity): void {
  const head = element('div', 'row-head');
  head.append(codicon('checklist'), element('span', 'label', t('Plan')));
  const children: Node[] = [head];
  if (entity.entries.length) {
    const list = element('ul', 'checklist');
    for (const entry of entity.entries) {
      const status = entry.status ?? 'pending';
      const item = element('li', `plan-entry status-${statusClass(status)}`);
      item.append(codicon(PLAN_STATUS_ICONS.get(status) ?? 'circle-large-outline'), element('span', 'plan-text', entry.content));
      item.append(element('span', 'visually-hidden', ` (${status.replace(/_/g, ' ')})`));
      if (entry.priority) item.append(element('span', `badge priority-${statusClass(entry.priority)}`, entry.priority));
      list.append(item);
    }
    children.push(list);
  }
  row.dirty = false;
  if (entity.markdown) {
    const md = element('div', 'body');
    if (renderMarkdown) {
      md.append(sanitizedFragment(renderMarkdown(entity.markdown)));
    } else {
      md.append(element('div', 'plain', entity.markdown));
      row.dirty = true;
    }
    children.push(md);
  }
  if (entity.file) children.push(element('div', 'plan-file', entity.file));
  row.el.replaceChildren(...children);
}

/** A child session the parent started: its head is a button that opens the child's transcript. */
function renderSubagent(row: Row, entity: SubagentEntity): void {
  const head = element('button', 'row-head subagent-open');
  // The row's key, not the agent's id: the host finds the child in its own timeline.
  head.dataset.action = openSubagentAction(entity.key);
  const name = entity.title || entity.sessionId;
  head.append(codicon('robot'), element('span', 'label', t('Subagent')), element('span', 'subagent-title', name));
  if (entity.state) head.append(element('span', `badge subagent-state status-${statusClass(entity.state)}`, entity.state.replace(/_/g, ' ')));
  head.append(codicon('link-external'));
  head.title = t('Open the subagent\'s transcript');
  head.setAttribute('aria-label', t('Subagent {0}: open its transcript', name));
  const children: Node[] = [head];
  if (entity.description) children.push(element('div', 'subagent-description', entity.description));
  row.el.dataset.sessionId = entity.sessionId;
  row.el.replaceChildren(...children);
}

function renderUnknown(row: Row, entity: UnknownEntity): void {
  const head = rowHead(true, entity.problem ? 'warning' : 'question', entity.problem ? t('Malformed {0}', entity.sessionUpdate) : t('Update “{0}”', entity.sessionUpdate));
  if (entity.problem) head.append(element('span', 'problem', entity.problem));
  const children: Node[] = [head];
  if (row.built || isOpen(row)) {
    row.built = true;
    children.push(element('pre', 'json', entity.json));
  }
  row.el.replaceChildren(...children);
}

// --- bodies and parts ----------------------------------------------------------------------

function fillBody(row: Row, parts: readonly Part[], markdown: boolean): void {
  const body = row.body!;
  const nodes: Node[] = [];
  row.tail = undefined;
  // A fold the reader opened stays open when the body is drawn again (its Markdown pass).
  const opened = [...body.querySelectorAll('details.model-context')].map((d) => (d as HTMLDetailsElement).open);
  let folds = 0;
  parts.forEach((part, index) => {
    if (part.forModel) {
      // The agent's context for the model (annotations.audience without "user"): folded and
      // labelled, plain text, never shown as the message's words.
      const details = element('details', 'model-context') as HTMLDetailsElement;
      if (opened[folds++]) details.open = true;
      const summary = element('summary');
      summary.append(codicon('eye-closed'), element('span', 'label', t('Context sent to the model')));
      const pre = element('pre', 'model-context-text');
      const text = document.createTextNode(part.type === 'text' ? part.text : describePart(part));
      pre.append(text);
      details.append(closedSummary(summary), pre);
      if (part.type === 'text' && index === parts.length - 1) row.tail = text;
      return nodes.push(details);
    }
    if (part.type !== 'text') return nodes.push(renderPart(part));
    if (markdown && renderMarkdown) {
      const md = element('div', 'md');
      md.append(sanitizedFragment(renderMarkdown(part.text)));
      nodes.push(md);
    } else {
      const plain = element('div', 'plain');
      const text = document.createTextNode(part.text);
      plain.append(text);
      nodes.push(plain);
      if (index === parts.length - 1) row.tail = text;
    }
  });
  body.replaceChildren(...nodes);
  row.dirty = !(markdown && renderMarkdown) && parts.some((p) => p.type === 'text');
}

function renderPart(part: Part): HTMLElement {
  switch (part.type) {
    case 'text':
      return element('div', 'plain', part.text);
    case 'image': {
      if (part.data && SAFE_IMAGE_TYPES.has(part.mimeType) && /^[A-Za-z0-9+/=\s]*$/.test(part.data)) {
        const img = document.createElement('img');
        img.className = 'image';
        img.alt = part.uri ? t('Image {0}', part.uri) : t('Image');
        img.src = `data:${part.mimeType};base64,${part.data.replace(/\s/g, '')}`;
        return img;
      }
      return chip('file-media', t('Image ({0})', part.mimeType), part.uri);
    }
    case 'audio':
      return chip('unmute', t('Audio ({0})', part.mimeType));
    case 'resource_link':
      return chip('link', part.title || part.name, part.uri);
    case 'resource': {
      const details = element('details', 'resource');
      const summary = element('summary');
      summary.append(codicon('file'), element('span', 'label', part.uri));
      details.append(closedSummary(summary), element('pre', 'resource-text', part.text ?? (part.mimeType ? t('({0} content)', part.mimeType) : t('(binary content)'))));
      return details;
    }
    case 'unknown': {
      const details = element('details', 'resource');
      const summary = element('summary');
      summary.append(codicon('question'), element('span', 'label', t('Unsupported content “{0}”', part.blockType)));
      details.append(closedSummary(summary), element('pre', 'json', part.json));
      return details;
    }
  }
}

/** A labelled chip; a link when `uri` is an allowed link, plain text otherwise. */
function chip(icon: string, label: string, uri?: string): HTMLElement {
  const linked = uri !== undefined && isAllowedLink(uri);
  const el = element(linked ? 'a' : 'span', linked ? 'chip link' : 'chip');
  el.append(codicon(icon), document.createTextNode(label));
  if (uri !== undefined) el.title = uri;
  if (linked) {
    el.dataset.href = uri;
    el.setAttribute('role', 'link');
    el.tabIndex = 0;
  }
  return el;
}

function rawDetails(label: string, json: string): HTMLElement {
  const details = element('details', 'raw');
  details.append(closedSummary(element('summary', undefined, label)), element('pre', 'json', json));
  return details;
}

function closedSummary(summary: HTMLElement): HTMLElement {
  summary.setAttribute('aria-expanded', 'false');
  return summary;
}

/** A fold's summary says whether it is open (`aria-expanded`), as the disclosure rows' heads do. */
function syncExpanded(details: HTMLDetailsElement): void {
  details.querySelector(':scope > summary')?.setAttribute('aria-expanded', String(details.open));
}

/** Keeps every <details> fold's `aria-expanded` in step with it, however it was opened or closed. */
export function trackFolds(root: Node): void {
  root.addEventListener('toggle', (event) => {
    if (event.target instanceof HTMLDetailsElement) syncExpanded(event.target);
  }, true);
}

/** Prebuilt pieces of rows, cloned (one call instead of a handful of element creations). */
const templates = new Map<string, HTMLElement>();
function cloned(key: string, build: () => HTMLElement): HTMLElement {
  let template = templates.get(key);
  if (!template) templates.set(key, (template = build()));
  return template.cloneNode(true) as HTMLElement;
}

/** Fork from Here: the host finds the message by the row's key. */
function forkButton(): HTMLElement {
  return cloned('fork', () => {
    const b = element('button', 'icon-button fork-here');
    b.dataset.fork = '';
    b.title = t('Fork from Here');
    b.setAttribute('aria-label', t('Fork from Here: a new session that ends at this message'));
    b.append(codicon('repo-forked'));
    return b;
  });
}

/** A row's head: icon and label; a focusable button when the row folds. */
function rowHead(button: boolean, icon: string, label: string): HTMLElement {
  const head = cloned(`head\u0000${button}\u0000${icon}`, () => {
    const el = element('div', 'row-head');
    if (button) {
      el.setAttribute('role', 'button');
      el.tabIndex = 0;
    } else {
      // A message's head ("You", "Agent") is a heading: screen readers jump message to message.
      el.setAttribute('role', 'heading');
      el.setAttribute('aria-level', '2');
    }
    el.append(codicon(icon), element('span', 'label'));
    return el;
  });
  (head.lastElementChild as HTMLElement).textContent = label;
  return head;
}

/**
 * Fills `label` with `line`, its code spans as `code` elements ("Run `ls src`"): text nodes only,
 * so nothing in the line (an agent's) becomes markup, a link or another element.
 */
function setCodeSpans(label: HTMLElement, line: string): void {
  const pieces = codeSpans(line);
  if (!pieces.some((piece) => piece.code)) return;
  label.replaceChildren(...pieces.map((piece) => (piece.code ? element('code', undefined, piece.text) : document.createTextNode(piece.text))));
}

export function codicon(name: string): HTMLElement {
  const icon = document.createElement('span');
  icon.className = `codicon codicon-${name}`;
  icon.setAttribute('aria-hidden', 'true');
  return icon;
}

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A status string as a CSS class fragment (agents' strings are arbitrary). */
function statusClass(status: string): string {
  return status.replace(/[^a-zA-Z0-9_-]/g, '-').slice(0, 40) || 'unknown';
}
