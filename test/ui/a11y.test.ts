// axe-core, the field's accessibility checker, over our two surfaces in a real VS Code: the
// Sessions view's welcome content (no agent configured) and a transcript webview with every
// kind of row, each in the dark, light and high-contrast themes: zero WCAG 2.1 A/AA
// violations. A screenshot of each theme goes to test-results/screenshots/a11y-*.png.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';
import { seedStore, type SeedResult } from '../agent/seed';
import { chooseInQuickInput, HANG_GUARD_MS, repoRoot, startWorkbench, type Workbench, referenceAgent } from './harness';

const AXE = readFileSync(join(repoRoot(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
/** The themes, by their names in VS Code's Color Theme picker, and the class the workbench then has. */
const THEMES = [
  { name: 'Dark Modern', id: 'dark', workbenchClass: 'vs-dark', webviewClass: 'vscode-dark' },
  { name: 'Light Modern', id: 'light', workbenchClass: 'vs', webviewClass: 'vscode-light' },
  { name: 'Dark High Contrast', id: 'high-contrast', workbenchClass: 'hc-black', webviewClass: 'vscode-high-contrast' },
] as const;

interface Violation { id: string; impact: string; help: string; nodes: { target: string[]; failureSummary: string }[] }

let work: string;
let seed: SeedResult;
let wb: Workbench;
let page: Page;
let pane: Locator;
let machineSettings: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'acp-ui-a11y-'));
  const folder = join(work, 'project');
  mkdirSync(folder);
  seed = await seedStore({ store: join(work, 'store'), folders: [folder], count: 6, seed: 5 });
  wb = await startWorkbench({ agents: [], folders: [folder] });
  page = wb.page;
  machineSettings = join(wb.dirs.userData, 'Machine', 'settings.json');
  pane = await wb.openSessionsView();
});

after(async () => {
  await wb?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function useTheme(theme: (typeof THEMES)[number]): Promise<void> {
  await wb.runCommand('Preferences: Color Theme');
  await chooseInQuickInput(page, theme.name, theme.name, (what, condition) => wb.until(what, condition));
  await wb.until(`the workbench uses ${theme.name}`, () =>
    page.locator('.monaco-workbench').evaluate((el, cls) => el.classList.contains(cls), theme.workbenchClass),
  );
}

/** Runs axe-core in `frame` over `selector` for WCAG 2.0/2.1 A and AA; returns the violations. */
async function axe(frame: Frame, selector: string): Promise<Violation[]> {
  // Evaluated through the debugging protocol, so the webview's Content-Security-Policy does not apply.
  await frame.evaluate(`${AXE}\n;0`);
  return frame.evaluate(async (sel) => {
    const result = await (window as unknown as { axe: { run(ctx: unknown, options: unknown): Promise<{ violations: Violation[] }> } }).axe.run(
      { include: [sel] },
      { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] },
    );
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  }, selector);
}

function report(violations: Violation[]): string {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}: ${n.failureSummary}`).join('\n')}`).join('\n');
}

/** The transcript's frame: the webview's inner document that holds #timeline. */
async function transcriptFrame(): Promise<Frame> {
  let found: Frame | undefined;
  await wb.until('the transcript webview is loaded', async () => {
    for (const frame of page.frames()) {
      if (await frame.evaluate(() => document.body?.dataset.loading === 'false' && !!document.getElementById('timeline')).catch(() => false)) found = frame;
    }
    return found !== undefined;
  });
  return found!;
}

test('the welcome view (no agent yet) has no WCAG 2.1 AA violation in the dark, light and high-contrast themes', async () => {
  const welcome = pane.locator('.welcome-view-content');
  await welcome.getByRole('button', { name: 'Add Agent…' }).waitFor({ timeout: HANG_GUARD_MS });
  // A stable selector for axe: VS Code's welcome content of our pane only.
  await welcome.evaluate((el) => el.setAttribute('data-axe-scope', 'welcome'));
  for (const theme of THEMES) {
    await useTheme(theme);
    const violations = await axe(page.mainFrame(), '[data-axe-scope="welcome"]');
    await wb.screenshot(`a11y-welcome-${theme.id}`);
    assert.deepEqual(violations.map((v) => v.id), [], `${theme.name}:\n${report(violations)}`);
  }
});

test('a transcript (messages, thoughts, tool calls, plans, compactions) has no WCAG 2.1 AA violation in the three themes', async () => {
  const agents = [referenceAgent(join(work, 'store'))];
  writeFileSync(machineSettings, JSON.stringify({ ...JSON.parse(readFileSync(machineSettings, 'utf8')), 'acpSessions.agents': agents }, null, 2));
  const compacted = seed.sessions.find((s) => s.sessionId === seed.special.compactions)!;
  const row = pane.locator('.monaco-list-row', { hasText: compacted.title! }).first();
  await row.waitFor({ timeout: HANG_GUARD_MS });
  await row.click();
  const frame = await transcriptFrame();
  // One compaction open, so its summary is checked too.
  await frame.locator('details.compaction > summary').first().click();
  await frame.locator('details.compaction[open] .body').first().waitFor();
  for (const theme of THEMES) {
    await useTheme(theme);
    await wb.until(`the transcript uses ${theme.name}`, () => frame.evaluate((cls) => document.body.classList.contains(cls), theme.webviewClass));
    const violations = await axe(frame, 'html');
    await wb.screenshot(`a11y-transcript-${theme.id}`);
    assert.deepEqual(violations.map((v) => v.id), [], `${theme.name}:\n${report(violations)}`);
  }
});
