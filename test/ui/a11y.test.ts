// axe-core, the field's accessibility checker, over our two surfaces in a real VS Code: the
// Sessions view's welcome content (no agent configured) and a transcript webview with every
// kind of row, each in the dark, light and high-contrast themes: zero WCAG 2.1 A/AA
// violations. A screenshot of each theme goes to test-results/screenshots/a11y-*.png.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Frame } from 'playwright-core';
import { seedStore, type SeedResult } from '../agent/seed';
import { chooseInQuickInput, HANG_GUARD_MS, repoRoot, referenceAgent, useWorkbench } from './harness';

const AXE = readFileSync(join(repoRoot(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
/** The themes, by their names in VS Code's Color Theme picker, and the class the workbench then has. */
const THEMES = [
  { name: 'Dark Modern', id: 'dark', workbenchClass: 'vs-dark', webviewClass: 'vscode-dark' },
  { name: 'Light Modern', id: 'light', workbenchClass: 'vs', webviewClass: 'vscode-light' },
  { name: 'Dark High Contrast', id: 'high-contrast', workbenchClass: 'hc-black', webviewClass: 'vscode-high-contrast' },
] as const;

interface Violation { id: string; impact: string; help: string; nodes: { target: string[]; failureSummary: string }[] }

let seed: SeedResult;

const ui = useWorkbench('a11y', async ({ folder, store }) => {
  seed = await seedStore({ store, folders: [folder], count: 6, seed: 5 });
  return { agents: [], folders: [folder] };
});
const { until } = ui;

async function useTheme(theme: (typeof THEMES)[number]): Promise<void> {
  await ui.wb.runCommand('Preferences: Color Theme');
  await chooseInQuickInput(ui.page, theme.name, theme.name, until);
  await until(`the workbench uses ${theme.name}`, () =>
    ui.page.locator('.monaco-workbench').evaluate((el, cls) => el.classList.contains(cls), theme.workbenchClass),
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
  await until('the transcript webview is loaded', async () => {
    for (const frame of ui.page.frames()) {
      if (await frame.evaluate(() => document.body?.dataset.loading === 'false' && !!document.getElementById('timeline')).catch(() => false)) found = frame;
    }
    return found !== undefined;
  });
  return found!;
}

test('the welcome view (no agent yet) has no WCAG 2.1 AA violation in the dark, light and high-contrast themes', async () => {
  const welcome = ui.pane.locator('.welcome-view-content');
  await welcome.getByRole('button', { name: 'Add Agent…' }).waitFor({ timeout: HANG_GUARD_MS });
  // A stable selector for axe: VS Code's welcome content of our pane only.
  await welcome.evaluate((el) => el.setAttribute('data-axe-scope', 'welcome'));
  for (const theme of THEMES) {
    await useTheme(theme);
    const violations = await axe(ui.page.mainFrame(), '[data-axe-scope="welcome"]');
    await ui.wb.screenshot(`a11y-welcome-${theme.id}`);
    assert.deepEqual(violations.map((v) => v.id), [], `${theme.name}:\n${report(violations)}`);
  }
});

test('a transcript (messages, thoughts, tool calls, plans, compactions) has no WCAG 2.1 AA violation in the three themes', async () => {
  const agents = [referenceAgent(ui.store)];
  const machineSettings = join(ui.wb.dirs.userData, 'Machine', 'settings.json');
  writeFileSync(machineSettings, JSON.stringify({ ...JSON.parse(readFileSync(machineSettings, 'utf8')), 'acpSessions.agents': agents }, null, 2));
  const compacted = seed.sessions.find((s) => s.sessionId === seed.special.compactions)!;
  const row = ui.rowWithText(compacted.title!).first();
  await row.waitFor({ timeout: HANG_GUARD_MS });
  await row.click();
  const frame = await transcriptFrame();
  // One compaction open, so its summary is checked too.
  await frame.locator('details.compaction > summary').first().click();
  await frame.locator('details.compaction[open] .body').first().waitFor();
  for (const theme of THEMES) {
    await useTheme(theme);
    await until(`the transcript uses ${theme.name}`, () => frame.evaluate((cls) => document.body.classList.contains(cls), theme.webviewClass));
    const violations = await axe(frame, 'html');
    await ui.wb.screenshot(`a11y-transcript-${theme.id}`);
    assert.deepEqual(violations.map((v) => v.id), [], `${theme.name}:\n${report(violations)}`);
  }
});
