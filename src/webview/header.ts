// The transcript's header: session facts, replay progress, problems with their actions, and
// the tab's own buttons. Rebuilt whole when anything but the update count changed (it is a
// handful of elements); while a replay runs only the count's text changes.
import type { HeaderChanges, HostAction, TranscriptHeader } from '../transcript/protocol';
import { share, type CompactionMark, type UsageSeries } from '../transcript/usage';
import { t } from './l10n';
import { codicon, element } from './rows';

const ACTION_LABELS: Record<HostAction, string> = {
  unarchiveAndOpen: t('Unarchive and Open'),
  retry: t('Try Again'),
  showLog: t('Show Log'),
  exportMarkdown: t('Export as Markdown'),
  rename: t('Rename…'),
  resume: t('Resume in Terminal'),
  copyLink: t('Copy Link'),
  goToPrompt: t('Go to Prompt…'),
};

/** Per header element: what it shows apart from the count, the element holding the count, and the replay's bar. */
const rendered = new WeakMap<HTMLElement, { shape: string; status: HTMLElement; bar?: HTMLElement }>();

/**
 * Places of the replay's bar along the header: it moves one place each time the count grows,
 * so it moves while updates come and stands still while none do. It slides by itself (a CSS
 * animation) only until the first update: an animation runs the compositor every frame for as
 * long as a replay comes in (0.08 to 0.10 of a core of Chromium's here), the count's steps only
 * when the page changes anyway.
 */
const BAR_STEPS = 16;

/**
 * Shows `header` in `el`. `revealRow` is the list's reveal: a compaction marker brings its row
 * (by key, else by the host's index for it) just below the header and focuses it.
 */
export function renderHeader(el: HTMLElement, header: TranscriptHeader, revealRow: (key: string, index?: number) => void): void {
  const shape = JSON.stringify({ ...header, updateCount: 0 });
  const last = rendered.get(el);
  if (last && last.shape === shape) {
    last.status.textContent = statusText(header);
    if (last.bar) stepBar(last.bar, header.updateCount);
    return;
  }
  const title = element('h1', 'title', header.title || header.sessionId);
  const facts = element('div', 'facts');
  facts.append(fact('hubot', header.agentName), fact('folder', header.cwd, header.cwd));
  if (header.updatedAt) facts.append(fact('history', formatDate(header.updatedAt), header.updatedAt));
  if (header.notFound) facts.append(fact('question', t('Not found'), t('The agent does not have this session: there is nothing to show, and nothing to do with it here.'), 'not-found'));
  if (header.deleted) facts.append(fact('trash', t('Deleted'), t('The agent no longer has this session. What is shown is what it replayed before; nothing more will come.'), 'deleted'));
  if (header.archived) facts.append(fact('archive', t('Archived'), undefined, 'archived'));
  if (header.exported?.keptAt) facts.append(fact('save', t('Kept copy, read-only'), t('The agent no longer has this session. ACP Sessions kept this copy of it on {0}, when it was last read.', formatDate(header.exported.keptAt)), 'kept'));
  else if (header.exported) facts.append(fact('file', t('Exported copy, read-only'), header.exported.file, 'exported'));
  if (header.resumed) {
    const when = header.resumed.updatedAt ? formatDate(header.resumed.updatedAt) : undefined;
    facts.append(fact('debug-restart', t('Resumed by the agent'), when ? t('Loading this session resumed it on the agent: it now counts as updated {0}.', when) : t('Loading this session resumed it on the agent.'), 'resumed'));
  }
  if (header.lateUpdates) {
    facts.append(fact('history', t('Replay went on after the load'), t('{0} updates arrived after the agent answered the load: it does not mark the end of its replay, so they are shown in order as they came.', header.lateUpdates), 'late'));
  }
  if (header.currentModeId) facts.append(fact('symbol-enum', t('Mode: {0}', header.currentModeId)));
  if (header.usage) {
    const { used, size, cost } = header.usage;
    facts.append(fact('dashboard', `${t('Context {0} / {1}', compact(used), compact(size))}${cost ? ` · ${cost.amount.toFixed(2)} ${cost.currency}` : ''}`));
  }

  const children: Node[] = [title, facts];
  // A session not found has nothing to rename, resume, link to, walk, fold or export.
  if (!header.notFound) children.push(toolbar(header));
  if (header.usageSeries) children.push(usageChart(header.usageSeries, revealRow));
  if (header.changes) children.push(changesList(header.changes));
  // Always one line, so that the page below does not move when the replay ends.
  const progress = element('div', 'progress');
  progress.setAttribute('role', 'status');
  const status = element('span', undefined, statusText(header));
  let bar: HTMLElement | undefined;
  if (header.loading) {
    // The bar below moves; a spinning icon beside it cost the renderer about 5% of a core for as
    // long as a replay came in (measured in Chromium), so the icon here stands still.
    progress.append(codicon('watch'), status);
    bar = element('div', 'progress-bar');
    bar.setAttribute('aria-hidden', 'true');
    stepBar(bar, header.updateCount);
    children.push(bar);
  } else {
    progress.append(codicon(header.problem ? 'warning' : 'check'), status);
  }
  children.push(progress);
  if (header.problem) {
    const problem = element('div', `problem problem-${header.problem.kind}`);
    problem.setAttribute('role', 'alert');
    problem.append(codicon(header.problem.kind === 'no-load' ? 'info' : 'warning'), element('span', 'problem-text', header.problem.message));
    const actions = element('div', 'problem-actions');
    for (const action of header.problem.actions) {
      const b = element('button', 'button', ACTION_LABELS[action]);
      b.dataset.action = action;
      actions.append(b);
    }
    problem.append(actions);
    children.push(problem);
  }
  for (const notice of header.notices) {
    const n = element('div', `notice severity-${notice.severity === 'error' || notice.severity === 'warning' ? notice.severity : 'info'}`);
    n.append(codicon(notice.severity === 'error' ? 'error' : notice.severity === 'warning' ? 'warning' : 'info'), element('strong', undefined, notice.title));
    if (notice.description) n.append(element('span', 'notice-description', notice.description));
    children.push(n);
  }
  el.replaceChildren(...children);
  rendered.set(el, { shape, status, bar });
}

/** Moves the replay's bar one place when `updateCount` grew since it last moved (see BAR_STEPS). */
function stepBar(bar: HTMLElement, updateCount: number): void {
  const seen = bar.dataset.count;
  if (updateCount <= 0 || String(updateCount) === seen) return;
  const step = seen === undefined ? 0 : (Number(bar.dataset.step) + 1) % BAR_STEPS;
  bar.dataset.count = String(updateCount);
  bar.dataset.step = String(step);
  bar.classList.add('stepped');
  bar.style.setProperty('--step', String(step));
}

/** The tab's own buttons: what the session allows here. */
function toolbar(header: TranscriptHeader): HTMLElement {
  const bar = element('div', 'toolbar');
  bar.setAttribute('role', 'toolbar');
  bar.setAttribute('aria-label', t('Transcript'));
  // The same Rename… as the tree's (F2 here too), run by the host: only where the agent can rename.
  if (header.canRename) bar.append(button('edit', t('Rename…'), 'rename', 'F2'));
  if (header.canResume) bar.append(button('terminal', t('Resume in Terminal'), 'resume'));
  if (!header.exported && !header.deleted) bar.append(button('link', t('Copy Link'), 'copyLink'));
  bar.append(
    button('list-selection', t('Go to Prompt…'), 'goToPrompt'),
    button('unfold', t('Expand All Compactions'), 'expandAll'),
    button('fold', t('Collapse All Compactions'), 'collapseAll'),
    button('markdown', t('Export as Markdown'), 'exportMarkdown'),
  );
  return bar;
}

/** Whether the reader left the list of changed files open (the header is rebuilt whole as it changes). */
let changesOpen = false;

/**
 * What the session's tool calls wrote: a fold with the figures, and per file a button that opens
 * its diff in this session (where its texts came) and one that opens the file. The paths are the
 * agent's: text only. The buttons name the file by its place in the list; the host finds it.
 */
function changesList(changes: HeaderChanges): HTMLElement {
  const fold = element('details', 'changes');
  fold.open = changesOpen;
  fold.addEventListener('toggle', () => (changesOpen = fold.open));
  const files = changes.total === 1 ? t('1 file changed') : t('{0} files changed', NUMBER_FORMAT.format(changes.total));
  const summary = element('summary', 'changes-summary');
  summary.append(codicon('diff'), document.createTextNode(`${files} `), lines(changes.added, changes.removed));
  fold.append(summary);
  const list = element('ul', 'changes-files');
  list.setAttribute('aria-label', t('Files this session changed'));
  changes.files.forEach((file, i) => {
    const item = element('li', 'changes-file');
    const open = element('button', 'change-diff');
    open.dataset.change = String(i);
    open.dataset.changeTarget = file.diff ? 'diff' : 'file';
    open.title = file.diff ? t('Open its diff in this session (read-only)') : t('Open the file (this session wrote it without a diff)');
    open.append(element('span', 'diff-path', file.shown), document.createTextNode(' '), lines(file.added, file.removed, file.linesKnown));
    const openFile = element('button', 'icon-button change-file');
    openFile.dataset.change = String(i);
    openFile.dataset.changeTarget = 'file';
    openFile.title = t('Open File');
    openFile.setAttribute('aria-label', t('Open File {0}', file.shown));
    openFile.append(codicon('go-to-file'));
    item.append(open, openFile);
    list.append(item);
  });
  if (changes.total > changes.files.length) list.append(element('li', 'changes-more', t('and {0} more', NUMBER_FORMAT.format(changes.total - changes.files.length))));
  fold.append(list);
  return fold;
}

/** `+12 −3` (in the text's own colour: the diff colours are too faint on some themes); `known` false: not every line of it was counted. */
function lines(added: number, removed: number, known = true): HTMLElement {
  const span = element('span', 'change-lines');
  span.append(element('span', 'change-added', `+${NUMBER_FORMAT.format(added)}`), document.createTextNode(' '), element('span', 'change-removed', `−${NUMBER_FORMAT.format(removed)}`));
  if (!known) span.append(document.createTextNode(` ${t('(not every line known)')}`));
  return span;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
/** The chart's own units; the SVG stretches to the header's width. */
const CHART_WIDTH = 1000;
const CHART_HEIGHT = 100;

/**
 * Context use along the transcript: the agent's figures as a line (share of the window), each
 * compaction a marker button where its row is, labelled with what it freed.
 */
function usageChart(series: UsageSeries, revealRow: (key: string, index?: number) => void): HTMLElement {
  const chart = element('div', 'usage-chart');
  chart.setAttribute('role', 'group');
  chart.setAttribute('aria-label', t('Context use along the transcript'));
  const x = (at: number) => (series.total > 0 ? (at / series.total) * CHART_WIDTH : 0);
  const y = (fraction: number) => CHART_HEIGHT - fraction * CHART_HEIGHT;
  const coords = series.points.map((p) => `${x(p.at).toFixed(1)},${y(share(p)).toFixed(1)}`);
  // A single figure still shows as a level line to the end.
  if (series.points.length === 1) coords.push(`${CHART_WIDTH},${y(share(series.points[0])).toFixed(1)}`);
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-hidden', 'true');
  svg.classList.add('usage-sparkline');
  const first = coords[0].split(',')[0];
  const last = coords[coords.length - 1].split(',')[0];
  const area = document.createElementNS(SVG_NS, 'polygon');
  area.setAttribute('points', `${first},${CHART_HEIGHT} ${coords.join(' ')} ${last},${CHART_HEIGHT}`);
  area.classList.add('usage-area');
  const line = document.createElementNS(SVG_NS, 'polyline');
  line.setAttribute('points', coords.join(' '));
  line.setAttribute('vector-effect', 'non-scaling-stroke');
  line.classList.add('usage-line');
  svg.append(area, line);
  chart.append(svg);
  series.marks.forEach((mark, i) => chart.append(compactionMarker(mark, i + 1, (x(mark.at) / CHART_WIDTH) * 100, revealRow)));
  return chart;
}

function compactionMarker(mark: CompactionMark, n: number, leftPercent: number, revealRow: (key: string, index?: number) => void): HTMLElement {
  const marker = element('button', 'usage-marker');
  marker.dataset.compactionKey = mark.key;
  marker.style.left = `${leftPercent.toFixed(2)}%`;
  const label = markLabel(mark, n);
  marker.title = label;
  marker.setAttribute('aria-label', label);
  marker.addEventListener('click', (event) => {
    event.stopPropagation();
    revealRow(mark.key, mark.index);
  });
  return marker;
}

/** `Compaction 2: 182k → 24k, freed 158k`: only the figures the agent sent around it. */
function markLabel(mark: CompactionMark, n: number): string {
  const { before, after } = mark;
  if (before && after) return t('Compaction {0}: {1} → {2}, freed {3}', n, compact(before.used), compact(after.used), compact(Math.max(0, before.used - after.used)));
  if (before) return t('Compaction {0}: at {1}', n, compact(before.used));
  return t('Compaction {0}', n);
}

function statusText(header: TranscriptHeader): string {
  const n = NUMBER_FORMAT.format(header.updateCount);
  if (header.loading) return header.updateCount === 1 ? t('Replaying session… {0} update', n) : t('Replaying session… {0} updates', n);
  const count = header.updateCount === 1 ? t('{0} update replayed', n) : t('{0} updates replayed', n);
  const after = header.live ? t('following live updates') : header.deleted ? t('deleted, no live updates') : header.archived ? t('archived, no live updates') : '';
  return after ? `${count} · ${after}` : count;
}

function fact(icon: string, text: string, title?: string, className?: string): HTMLElement {
  const span = element('span', `fact${className ? ` ${className}` : ''}`);
  span.append(codicon(icon), document.createTextNode(text));
  if (title) span.title = title;
  return span;
}

function button(icon: string, label: string, action: string, key?: string): HTMLElement {
  const b = element('button', 'icon-button');
  b.dataset.action = action;
  b.title = key ? `${label} (${key})` : label;
  b.setAttribute('aria-label', label);
  if (key) b.setAttribute('aria-keyshortcuts', key);
  b.append(codicon(icon));
  return b;
}

// Made once: toLocaleString makes a formatter per call (a millisecond each), and the header
// is shown again with every batch of a replay.
const DATE_FORMAT = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
const NUMBER_FORMAT = new Intl.NumberFormat();

function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : DATE_FORMAT.format(date);
}

function compact(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 100000 ? 0 : 1)}k` : String(n);
}

// F2 renames, as in the tree: a click on the header's button (so it does nothing where the
// agent cannot rename), unless the key is typed into a field.
if (typeof document !== 'undefined') {
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'F2' || event.defaultPrevented || (event.target as HTMLElement | null)?.closest?.('input, textarea, [contenteditable="true"]')) return;
    const rename = document.querySelector<HTMLElement>('#header button[data-action="rename"]');
    if (!rename) return;
    event.preventDefault();
    rename.click();
  });
}
