// Drives the real workbench like a person: VS Code's server (from code-server) with this
// extension loaded from the working tree (the current build), in Debian's Chromium through
// playwright-core. UI tests: `const wb = await startWorkbench({ agents })` ... `await wb.close()`,
// or one workbench for a whole file (or describe block): `const ui = useWorkbench(...)`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserContext, FrameLocator, Locator, Page } from 'playwright-core';
import type { AgentConfig } from '../../src/acp/types';
import type { StoredSession } from '../agent/store';

/** An entry of `acpSessions.agents`. */
export type AgentEntry = AgentConfig;

export interface WorkbenchOptions {
  /** Written to `acpSessions.agents` in the remote machine's settings before the window opens. */
  agents?: AgentEntry[];
  /** Workspace folders: one opens as a folder, several as a multi-root workspace. */
  folders?: string[];
  /** More settings for the remote machine's settings.json (any non-application scope). */
  settings?: Record<string, unknown>;
  /** The extension to load as extensionDevelopmentPath; defaults to this repository. */
  extensionPath?: string;
  /** Workspace trust on (folders open in Restricted Mode until trusted); off by default. */
  workspaceTrust?: boolean;
  /** The server's extensions folder: extensions installed there load beside ours. */
  extensionsDir?: string;
  /** VS Code's display language (e.g. 'de'), through a language pack whose VS Code strings stay English. */
  displayLanguage?: string;
  /** Show the browser (for debugging a test by hand). */
  headed?: boolean;
}

export interface Workbench {
  page: Page;
  context: BrowserContext;
  /** The workbench address. */
  url: string;
  /** The server's folders (server data, extensions, ...), e.g. to inspect logs. */
  dirs: Record<string, string>;
  /** The last `lines` lines of the extension's log (Output › ACP Sessions), for a failure's message. */
  extensionLog(lines?: number): string;
  /** Saves test-results/screenshots/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>;
  /** The content of the active webview (editor tab or view). */
  webviewFrame(): FrameLocator;
  /** Runs a command from the palette by its full title, e.g. "ACP Sessions: Show Log". */
  runCommand(title: string): Promise<void>;
  /** Clicks the ACP Sessions activity bar entry and returns the Sessions view's pane (named `name` in the display language). */
  openSessionsView(name?: string): Promise<Locator>;
  /**
   * Waits until `condition` holds, for at most HANG_GUARD_MS; on time-out, saves a screenshot and
   * fails with `what` and the end of the extension's log.
   */
  until(what: string, condition: () => Promise<boolean> | boolean): Promise<void>;
  /**
   * The quick input (palette, input box, quick pick) once it shows and holds the keyboard focus:
   * a key pressed before goes where the focus was (a webview keeps it for a moment), not to it.
   */
  quickInput(): Promise<Locator>;
  /**
   * Presses `key` on a tree row: first waits until the row is selected and focused in its list
   * and the list holds the keyboard focus. Then waits until `effect` holds; when it does not, the
   * failure says which `when` clause kept VS Code from running the key (see keyTrouble).
   */
  pressOnRow(row: Locator, key: string, effect: { what: string; holds: () => Promise<boolean> | boolean }): Promise<void>;
  /**
   * Waits until the transcript tab titled `title` shows its rows. Until then its webview may still
   * take the keyboard focus as it loads, from a palette opened meanwhile (VS Code focuses a
   * webview of the active editor once it is ready).
   */
  transcriptShown(title: string): Promise<void>;
  /** Closes every editor and waits until no tab is left. */
  closeEditors(): Promise<void>;
  /**
   * Answers VS Code's own file dialog (in a browser, a quick input) with `path`, then its `button`.
   * The dialog first shows its starting folder, late on a loaded machine: a path typed before that
   * is replaced by the folder's, so the path goes in only once the dialog shows its folder.
   */
  answerFileDialog(path: string, button: string): Promise<void>;
  /** Puts the keyboard focus on the Sessions tree (its focused and selected rows stay as they were). */
  focusSessionsView(): Promise<void>;
  /** The modal dialog once it is attached, shows `text` and has the keyboard focus (its buttons take a click or a key). */
  dialog(text: RegExp): Promise<Locator>;
  /**
   * Why VS Code did or did not run a key: turns on its keyboard troubleshooting (Developer:
   * Toggle Keyboard Shortcuts Troubleshooting), presses `key` again where the focus is, and
   * returns what VS Code logged about it (the `when` clauses it checked). For failure messages only.
   */
  keyTrouble(key: string): Promise<string>;
  close(): Promise<void>;
}

/** A hang guard for waits on the workbench, not a speed limit (a loaded machine is slow). */
export const HANG_GUARD_MS = 120_000;

interface MenuCount { __acpMenus: { opened: number; closed: number } }

/** In the page: counts context menus opened and closed from now on (the observer is set up once). */
function countMenus(): void {
  const w = window as unknown as MenuCount & { __acpMenuObserver?: MutationObserver };
  w.__acpMenus = { opened: 0, closed: 0 };
  const view = document.querySelector('.context-view');
  if (w.__acpMenuObserver || !view) return;
  const isMenu = (n: Node) => n instanceof HTMLElement && (n.matches('.monaco-menu') || n.querySelector('.monaco-menu') !== null);
  w.__acpMenuObserver = new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) if (isMenu(n)) w.__acpMenus.opened++;
      for (const n of r.removedNodes) if (isMenu(n)) w.__acpMenus.closed++;
    }
  });
  w.__acpMenuObserver.observe(view, { childList: true, subtree: true });
}

/** The repository root: the nearest folder above this (bundled) file with our package.json. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'acp-sessions') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the acp-sessions repository above the UI test');
    dir = parent;
  }
}

/** A stored session for the reference agent: one user message, updated `hoursAgo` hours ago. */
export function storedSession(sessionId: string, title: string, cwd: string, hoursAgo: number, extra: Partial<StoredSession> = {}): StoredSession {
  return {
    sessionId,
    cwd,
    title,
    updatedAt: new Date(Date.now() - hoursAgo * 3_600_000).toISOString(),
    archived: false,
    deleted: false,
    updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `About: ${title}` } }],
    ...extra,
  };
}

/** The reference agent (test/agent), built beside the tests. */
export const REFERENCE_AGENT = join(repoRoot(), 'out', 'test', 'agent', 'agent.mjs');

/** An `acpSessions.agents` entry that runs the reference agent over `store` with `flags`. */
export function referenceAgent(store: string, flags: string[] = [], name = 'Reference') {
  return { name, command: process.execPath, args: [REFERENCE_AGENT, '--store', store, ...flags] };
}

interface HostModule {
  startServer(options: { machineSettings?: Record<string, unknown>; workspaceTrust?: boolean; extensionsDir?: string; displayLanguage?: string }): Promise<{
    origin: string;
    dirs: Record<string, string>;
    remoteUri(path: string): string;
    workbenchUrl(options: { folders?: string[]; payload?: [string, string][] }): string;
    stop(): Promise<void>;
  }>;
  whenWorkbenchStarted(page: Page, options?: { phase?: 3 | 4; timeoutMs?: number }): Promise<number>;
  openBrowser(options: { headless?: boolean }): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }>;
}

/** The host module, loaded from the repository at run time (it finds its lockfiles beside it). */
async function hostModule(): Promise<HostModule> {
  const url = pathToFileURL(join(repoRoot(), 'test', 'host', 'server.mjs')).href;
  return (await import(url)) as HostModule;
}

const ACTIVITY_BAR_ENTRY = '.activitybar a[aria-label^="ACP Sessions"]';

type Until = (what: string, condition: () => Promise<boolean>) => Promise<void>;

/**
 * Runs a command from the command palette as a person does. The palette first lists every
 * command unfiltered (ours near the top), then refilters as typed into, reusing its row elements:
 * a click aimed at a row can land once it shows another command. So: wait until the list is
 * filtered (its active row highlights the match), move the active row to the exact title by
 * keyboard (the best match can be a longer title), and Enter.
 */
/** The ACP Sessions view's badge as the activity bar shows it ('' when there is none). */
export async function viewBadge(page: Page): Promise<string> {
  const entry = page.locator('.activitybar li.action-item', { has: page.locator('a[aria-label^="ACP Sessions"]') });
  const content = entry.locator('.badge .badge-content');
  if ((await content.count()) === 0 || !(await content.first().isVisible().catch(() => false))) return '';
  return (await content.first().innerText()).trim();
}

export async function runPaletteCommand(page: Page, title: string, until: Until): Promise<void> {
  await page.keyboard.press('F1');
  await chooseInQuickInput(page, `>${title}`, title, until);
}

/** Types `text` into the open quick input and accepts the row labelled exactly `label` (see runPaletteCommand). */
export async function chooseInQuickInput(page: Page, text: string, label: string, until: Until): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  // Keys reach the quick input only once it has the focus (fill focuses it; the arrows and Enter below need it to keep it).
  await until('the quick input shows and has the keyboard focus', () => input.evaluate((e) => e === document.activeElement).catch(() => false));
  await input.fill(text);
  const active = page.locator('.quick-input-list .monaco-list-row.focused');
  const activeLabel = async () => ((await active.isVisible()) ? await active.locator('.label-name').first().textContent() : null);
  await until(`the quick input is filtered by "${text}"`, async () => (await active.isVisible()) && (await active.locator('.highlight').count()) > 0);
  for (let moves = 0; moves < 10 && (await activeLabel()) !== label; moves++) await page.keyboard.press('ArrowDown');
  const chosen = await activeLabel();
  if (chosen !== label) throw new Error(`"${label}" is not among the first rows for "${text}" (the active row is "${chosen}")`);
  await page.keyboard.press('Enter');
  await until(`the quick input accepted "${label}"`, async () => !(await input.isVisible()) || (await input.inputValue()) !== text);
}

/**
 * Waits until the workbench has made the parts it starts "when restored", among them the one
 * that registers the Output view's log channels: before, VS Code drops a LogOutputChannel.show()
 * without a trace. On a loaded machine a test that ran "Show Log" at once saw no log (with the
 * page's CPU slowed six times, every time); a person is rarely that quick, a test always is.
 */
export async function workbenchStarted(page: Page): Promise<void> {
  await (await hostModule()).whenWorkbenchStarted(page, { timeoutMs: HANG_GUARD_MS });
}

export async function startWorkbench(options: WorkbenchOptions = {}): Promise<Workbench> {
  const root = repoRoot();
  const host = await hostModule();
  const extensionPath = resolve(options.extensionPath ?? root);
  if (!existsSync(join(extensionPath, 'dist', 'extension.js'))) {
    throw new Error(`${extensionPath}/dist/extension.js is missing: build first (node esbuild.mjs)`);
  }
  const machineSettings: Record<string, unknown> = { ...options.settings };
  if (options.agents) machineSettings['acpSessions.agents'] = options.agents;
  const server = await host.startServer({ machineSettings, workspaceTrust: options.workspaceTrust, extensionsDir: options.extensionsDir, displayLanguage: options.displayLanguage });
  let browser: Awaited<ReturnType<HostModule['openBrowser']>> | undefined;
  try {
    browser = await host.openBrowser({ headless: !options.headed });
    const { page, context } = browser;
    const url = server.workbenchUrl({
      folders: options.folders ?? [],
      payload: [
        ['extensionDevelopmentPath', server.remoteUri(extensionPath)],
        ['skipWelcome', 'true'],
        ['skipReleaseNotes', 'true'],
      ],
    });
    // A loaded machine on demand (the suite must pass on one): ACP_UI_CPU_THROTTLE=N slows the
    // workbench page's CPU N times (Chrome DevTools' throttling).
    const throttle = Number(process.env.ACP_UI_CPU_THROTTLE ?? 1);
    if (throttle > 1) await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: throttle });
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor();
    // Ready for a person once the extension's contributions are in: its activity bar entry.
    await page.locator(ACTIVITY_BAR_ENTRY).waitFor();
    await workbenchStarted(page);
    const opened = browser;
    const shots = join(root, 'test-results', 'screenshots');
    const workbench: Workbench = {
      page,
      context,
      url,
      dirs: server.dirs,
      extensionLog(lines = 40) {
        const logs = join(server.dirs.userData, 'logs');
        const files = existsSync(logs) ? readdirSync(logs, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('ACP Sessions.log')) : [];
        const text = files.map((f) => readFileSync(join(logs, f), 'utf8')).join('');
        return text.trimEnd().split('\n').slice(-lines).join('\n') || '(no extension log)';
      },
      async screenshot(name) {
        mkdirSync(shots, { recursive: true });
        const path = join(shots, `${name}.png`);
        await page.screenshot({ path });
        return path;
      },
      webviewFrame() {
        return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
      },
      async runCommand(title) {
        await runPaletteCommand(page, title, (what, condition) => workbench.until(what, condition));
      },
      async openSessionsView(name = 'Sessions') {
        await page.locator(ACTIVITY_BAR_ENTRY).click();
        const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: name }) }).first();
        await pane.waitFor();
        return pane;
      },
      async until(what, condition) {
        const deadline = Date.now() + HANG_GUARD_MS;
        while (!(await condition())) {
          if (Date.now() > deadline) {
            // What the workbench showed then is the first thing to look at.
            await workbench.screenshot(`timed-out-${what.replace(/\W+/g, '-')}`).catch(() => undefined);
            throw new Error(`timed out waiting until ${what}; the extension's log ends with:\n${workbench.extensionLog()}`);
          }
          await page.waitForTimeout(50);
        }
      },
      async quickInput() {
        const input = page.locator('.quick-input-widget input');
        await workbench.until('the quick input shows and has the keyboard focus', () =>
          input.evaluate((e) => e === document.activeElement).catch(() => false),
        );
        return input;
      },
      async pressOnRow(row, key, effect) {
        await workbench.until('the row is selected and focused, and its list has the keyboard focus', () =>
          row.evaluate((e) => {
            const list = e.closest('.monaco-list');
            return e.getAttribute('aria-selected') === 'true' && e.classList.contains('focused') && !!list && list.contains(document.activeElement);
          }).catch(() => false),
        );
        await page.keyboard.press(key);
        const deadline = Date.now() + HANG_GUARD_MS;
        while (!(await effect.holds())) {
          if (Date.now() > deadline) {
            const trouble = await workbench.keyTrouble(key).catch((e: Error) => `(no troubleshooting log: ${e.message})`);
            await workbench.screenshot(`key-${key}-did-nothing`).catch(() => undefined);
            throw new Error(`${key} did not lead to: ${effect.what}. VS Code's keyboard troubleshooting:\n${trouble}\nThe extension's log ends with:\n${workbench.extensionLog()}`);
          }
          await page.waitForTimeout(50);
        }
      },
      async transcriptShown(title) {
        const tab = page.locator('.tabs-container .tab', { hasText: title });
        const rows = workbench.webviewFrame().locator('#timeline:not([data-rows="0"])');
        await workbench.until(`the transcript "${title}" shows its rows`, async () => (await tab.count()) > 0 && (await rows.count()) > 0);
      },
      async focusSessionsView() {
        await workbench.runCommand('ACP Sessions: Focus on Sessions View');
        const list = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Sessions' }) }).locator('.monaco-list').first();
        await workbench.until('the Sessions tree has the keyboard focus', () => list.evaluate((e) => e.contains(document.activeElement)).catch(() => false));
      },
      async answerFileDialog(path, button) {
        const input = await workbench.quickInput();
        const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
        await workbench.until('the file dialog shows its starting folder', async () => /[\\/]$/.test(await input.inputValue()) && (await rows.count()) > 0);
        await input.fill(path);
        await workbench.until(`the file dialog holds ${path}`, async () => (await input.inputValue()) === path);
        await page.locator('.quick-input-widget .monaco-button', { hasText: button }).click();
        await workbench.until('the file dialog closed', async () => !(await input.isVisible()));
      },
      async closeEditors() {
        await workbench.runCommand('View: Close All Editors');
        await workbench.until('every editor is closed', async () => (await page.locator('.tabs-container .tab').count()) === 0);
      },
      async dialog(text) {
        const dialog = page.locator('.monaco-dialog-box');
        await workbench.until(`a modal dialog says ${text} and has the keyboard focus`, async () =>
          (await dialog.isVisible()) && text.test(await dialog.innerText()) && (await dialog.evaluate((e) => e.contains(document.activeElement)).catch(() => false)),
        );
        return dialog;
      },
      async keyTrouble(key) {
        const focused = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 200) ?? '(nothing)');
        const element = await page.evaluateHandle(() => document.activeElement);
        // Logs each key's dispatch (the `when` clauses checked) to the Window log, shown in the Output panel.
        await runPaletteCommand(page, 'Developer: Toggle Keyboard Shortcuts Troubleshooting', (what, condition) => workbench.until(what, condition));
        // The Output panel took the focus: the key goes where it went before.
        await element.evaluate((e) => (e as HTMLElement | null)?.focus());
        await page.keyboard.press(key);
        const output = page.locator('.part.panel .monaco-editor').first();
        const lines = async () => (await page.locator('.part.panel .view-lines').allInnerTexts().catch(() => [])).join('\n');
        const deadline = Date.now() + 10_000;
        // The panel shows the log's first lines: move to its end until the dispatch of the key shows.
        // (By the wheel: a key pressed there would log its own dispatch.)
        while (!/KeybindingService/.test(await lines()) && Date.now() < deadline) {
          await output.hover().catch(() => undefined);
          await page.mouse.wheel(0, 1_000_000);
          await page.waitForTimeout(100);
        }
        const text = (await lines()).split('\n').filter((l) => /KeybindingService|when|\|/.test(l));
        return [`focus was on: ${focused}`, ...(text.length ? text : ['(the Window log showed no dispatch of the key)'])].join('\n');
      },
      async close() {
        await opened.close();
        await server.stop();
      },
    };
    return workbench;
  } catch (e) {
    await browser?.close();
    await server.stop();
    throw e;
  }
}

/** The paths a file's set-up seeds: a fresh temporary folder and, in it, a workspace folder and a store. */
export interface WorkbenchPaths {
  /** The temporary folder, removed after the file's tests. */
  readonly work: string;
  /** `<work>/project`, created (empty). */
  readonly folder: string;
  /** `<work>/store`, for the reference agent (not created: seeding creates it). */
  readonly store: string;
}

/** One workbench shared by the tests of a file or describe block; its properties are there once `before` ran. */
export interface WorkbenchFixture extends WorkbenchPaths {
  readonly wb: Workbench;
  readonly page: Page;
  /** The Sessions view's pane, opened in `before`. */
  readonly pane: Locator;
  /** `wb.until`. */
  until(what: string, condition: () => Promise<boolean> | boolean): Promise<void>;
  /** `wb.quickInput`. */
  quickInput(): Promise<Locator>;
  /** `wb.dialog`. */
  dialog(text: RegExp): Promise<Locator>;
  /** The Sessions tree's row whose label (the title, not its description) has `title`. */
  row(title: string): Locator;
  /** The Sessions tree's row with `text` anywhere in it (label, description, section name). */
  rowWithText(text: string | RegExp): Locator;
  /**
   * Opens `row`'s context menu and chooses `item` by keyboard once it is the focused entry (a
   * click can land while the menu still moves); resolves once the menu closed.
   */
  contextMenu(row: Locator, item: string): Promise<void>;
  /** The entries of `row`'s context menu, top to bottom; the menu is closed again (Escape) before it resolves. */
  menuEntries(row: Locator): Promise<string[]>;
}

/** The Search view's pane in the ACP Sessions container, expanded. */
export async function searchPane(fixture: WorkbenchFixture): Promise<Locator> {
  const pane = fixture.page.locator('.pane', { has: fixture.page.locator('.pane-header', { hasText: /^Search/ }) }).first();
  await pane.waitFor({ timeout: HANG_GUARD_MS });
  const header = pane.locator('.pane-header').first();
  if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
  await fixture.until('the Search view is expanded', async () => (await header.getAttribute('aria-expanded')) === 'true');
  return pane;
}

/**
 * Registers `before` and `after` hooks in the current file or describe block: `before` makes
 * the paths (the temporary folder is named acp-ui-<name>-…), runs `setUp` (which seeds and returns the workbench's options), starts the
 * workbench, opens the Sessions view (named `sessionsView` in the display language; `false`:
 * the tests open it themselves) and waits for `ready`; `after` closes the workbench and removes
 * the folder. (A second top-level `before` would not wait for this one: node:test runs a file's
 * top-level hooks as they are registered.)
 */
export function useWorkbench(
  name: string,
  setUp: (paths: WorkbenchPaths) => WorkbenchOptions | Promise<WorkbenchOptions>,
  { sessionsView = 'Sessions', ready: whenReady }: { sessionsView?: string | false; ready?: (fixture: WorkbenchFixture) => Promise<void> } = {},
): WorkbenchFixture {
  let paths: WorkbenchPaths | undefined;
  let wb: Workbench | undefined;
  let pane: Locator | undefined;
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not there: use it in a test or a hook after the fixture's before`);
    return value;
  };
  before(async () => {
    const work = mkdtempSync(join(tmpdir(), `acp-ui-${name}-`));
    paths = { work, folder: join(work, 'project'), store: join(work, 'store') };
    mkdirSync(paths.folder);
    wb = await startWorkbench(await setUp(paths));
    if (sessionsView !== false) pane = await wb.openSessionsView(sessionsView);
    await whenReady?.(fixture);
  });
  after(async () => {
    await wb?.close();
    if (paths) rmSync(paths.work, { recursive: true, force: true });
  });
  const fixture: WorkbenchFixture = {
    get work() { return ready(paths, 'the temporary folder').work; },
    get folder() { return ready(paths, 'the workspace folder').folder; },
    get store() { return ready(paths, 'the store').store; },
    get wb() { return ready(wb, 'the workbench'); },
    get page() { return ready(wb, 'the workbench').page; },
    get pane() { return ready(pane, sessionsView === false ? 'the Sessions view (this fixture does not open it)' : 'the Sessions view'); },
    until: (what, condition) => fixture.wb.until(what, condition),
    quickInput: () => fixture.wb.quickInput(),
    dialog: (text) => fixture.wb.dialog(text),
    row: (title) => fixture.pane.locator('.monaco-list-row', { has: fixture.page.locator('.label-name', { hasText: title }) }),
    rowWithText: (text) => fixture.pane.locator('.monaco-list-row', { hasText: text }),
    async contextMenu(row, item) {
      const menu = await openMenu(row);
      const escaped = item.replace(/[.*+?^$(){}|[\]\\]/g, '\\$&');
      const entry = menu.locator('.action-item', { hasText: new RegExp(`^${escaped}$`) }).first();
      await entry.waitFor({ timeout: HANG_GUARD_MS });
      await fixture.until(`"${item}" is the focused menu entry`, async () => {
        if (await entry.evaluate((e) => e.classList.contains('focused') || e.contains(document.activeElement)).catch(() => false)) return true;
        await fixture.page.keyboard.press('ArrowDown');
        return false;
      });
      await fixture.page.keyboard.press('Enter');
      await menuClosed(menu);
    },
    async menuEntries(row) {
      const menu = await openMenu(row);
      const entries = (await menu.locator('.action-item .action-label').allInnerTexts()).map((e) => e.trim()).filter(Boolean);
      await fixture.page.keyboard.press('Escape');
      await menuClosed(menu);
      return entries;
    },
  };
  /** Right-clicks `row` and resolves with its menu once it shows and has the keyboard focus. */
  async function openMenu(row: Locator): Promise<Locator> {
    await fixture.page.evaluate(countMenus);
    await row.click({ button: 'right' });
    const menu = fixture.page.locator('.context-view .monaco-menu');
    await fixture.until('the context menu shows and has the keyboard focus', async () => {
      if ((await menu.count()) > 0 && (await menu.first().evaluate((m) => m.contains(document.activeElement)).catch(() => false))) return true;
      const { opened, closed } = await fixture.page.evaluate(() => (window as unknown as MenuCount).__acpMenus);
      // VS Code's tree view takes the focus back when a redraw ends, and a menu closes on losing it.
      if (opened > 0 && closed >= opened) throw new Error(`the context menu on "${(await row.innerText()).trim()}" opened and closed by itself: the view redrew as it opened and took the focus back. Wait for the previous step's redraw before this right-click.`);
      return false;
    });
    return menu.first();
  }
  const menuClosed = (menu: Locator) => fixture.until('the context menu closed', async () => (await menu.count()) === 0 || !(await menu.isVisible().catch(() => false)));
  return fixture;
}
