// Fork from Here (issue 34, item 5) in a real browser driving a real VS Code, against the
// reference agent: a prompt of a transcript offers Fork from Here (on hover, and by keyboard once
// its row has the focus); choosing it sends `session/fork` with that prompt as the fork point,
// and the new session opens and shows in the tree nested under its origin.
// Screenshot: test-results/screenshots/fork-from-here.png (`--update-screenshots` copies it to media/screenshots/).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { writeSession, type StoredSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, useWorkbench } from './harness';

const TITLE = 'Plan the release';
const PROMPTS = ['Plan the release for Friday', 'Now draft the announcement', 'Make it shorter'];

const text = (t: string) => ({ type: 'text', text: t });

function session(folder: string): StoredSession {
  const updates: Record<string, unknown>[] = [];
  PROMPTS.forEach((prompt, i) => {
    updates.push({ sessionUpdate: 'user_message_chunk', messageId: `u${i + 1}`, content: text(prompt) });
    updates.push({ sessionUpdate: 'agent_message_chunk', messageId: `a${i + 1}`, content: text(`Answer ${i + 1}: done as asked.`) });
  });
  return { sessionId: 'sess_release', cwd: folder, title: TITLE, updatedAt: new Date(Date.now() - 10 * 60_000).toISOString(), archived: false, deleted: false, updates: updates as never };
}

let requestLog = '';

const ui = useWorkbench('fork', async ({ work, folder, store }) => {
  await writeSession(store, session(folder));
  requestLog = join(work, 'requests.ndjson');
  return { agents: [{ ...referenceAgent(store, ['--request-log', requestLog]), resume: ['echo', '${sessionId}'] }], folders: [folder] };
}, {
  ready: async ({ row }) => { await row(TITLE).waitFor({ timeout: HANG_GUARD_MS }); },
});
const { until } = ui;

const webview = (): FrameLocator => ui.wb.webviewFrame();

function forkRequests(): { params: { sessionId?: string; _meta?: { jetbrains?: { air?: { fork?: unknown } } } } }[] {
  if (!existsSync(requestLog)) return [];
  return readFileSync(requestLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.method === 'session/fork');
}

test('Fork from Here on a prompt of a reference-agent session creates the fork nested under its origin', async () => {
  await ui.row(TITLE).click();
  await ui.wb.transcriptShown(TITLE);
  await until('the transcript has finished loading', async () => (await webview().locator('body[data-loading="false"][data-can-fork="true"]').count().catch(() => 0)) > 0);
  const prompt = webview().locator('.row.user_message', { hasText: PROMPTS[1] });
  await prompt.hover();
  const fork = prompt.locator('.fork-here');
  await until('the prompt offers Fork from Here', () => fork.isVisible().catch(() => false));
  assert.equal(await fork.getAttribute('aria-label'), 'Fork from Here: a new session that ends at this message');
  await ui.wb.screenshot('fork-button');
  await fork.click();

  // The reference agent got session/fork with that prompt as the fork point.
  await until('the agent got session/fork', () => forkRequests().length === 1);
  assert.deepEqual(forkRequests()[0].params._meta?.jetbrains?.air?.fork, { version: 1, messageId: 'u2' });
  assert.equal(forkRequests()[0].params.sessionId, 'sess_release');

  // The fork opens, ending at that prompt.
  const forkTitle = `${TITLE} (fork)`;
  await ui.wb.transcriptShown(forkTitle);
  await until('the fork has finished loading', async () => (await webview().locator('body[data-loading="false"]').count().catch(() => 0)) > 0);
  const texts = (await webview().locator('#timeline .row').allInnerTexts()).join('\n');
  assert.match(texts, new RegExp(PROMPTS[1]));
  assert.doesNotMatch(texts, new RegExp(PROMPTS[2]), 'the fork ends at the prompt it was made from');
  // Resume in Terminal is offered for it (read from the notification center, whether or not a toast shows).
  await ui.wb.runCommand('Notifications: Show Notifications');
  const offer = ui.page.locator('.notifications-center .notification-list-item', { hasText: 'was forked into a new session' });
  await offer.waitFor({ timeout: HANG_GUARD_MS });
  assert.equal(await offer.locator('.monaco-button', { hasText: 'Resume in Terminal' }).count(), 1);
  await ui.wb.runCommand('Notifications: Hide Notifications');

  // In the tree: nested under its origin, with the fork icon.
  const origin = ui.row(TITLE).first();
  if ((await origin.getAttribute('aria-expanded')) === 'false') await origin.locator('.monaco-tl-twistie').click();
  const forkRow = ui.pane.locator('.monaco-list-row', { has: ui.page.locator('.label-name', { hasText: forkTitle }) });
  await until('the fork is nested under its origin', async () => {
    const [originLevel, forkLevel] = [Number(await origin.getAttribute('aria-level')), Number(await forkRow.getAttribute('aria-level').catch(() => '0'))];
    return forkLevel === originLevel + 1;
  });
  assert.equal(await forkRow.locator('.codicon-repo-forked').count(), 1);
  await ui.page.mouse.move(0, 0);
  await ui.wb.screenshot('fork-from-here');
  await ui.wb.closeEditors();
});
