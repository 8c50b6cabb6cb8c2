// Agent text in the real workbench, as a person sees it: a session titled with a command link
// is archived and its notification shows the brackets as text, with no link to click; a file
// link likewise; a `$(icon)` in a title shows as text in the tree and in Find Session. And what
// another extension gets from ours outside the Test mode: no hook to answer a confirmation.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { readSession, writeSession } from '../agent/store';
import { HANG_GUARD_MS, referenceAgent, useWorkbench } from './harness';

const COMMAND_TITLE = 'Fix [Undo](command:workbench.action.files.newUntitledFile)';
const FILE_TITLE = 'Read [the key](file:///etc/hosts)';
const ICON_TITLE = '$(zap) Zap the cache';

let consumer: string;

/**
 * Another extension, as any installed one could be: it activates ours and writes down every
 * property name reachable from what ours returned.
 */
function writeConsumerExtension(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({
    name: 'api-consumer', publisher: 'acp-tests', version: '0.0.1', engines: { vscode: '^1.85.0' },
    main: './extension.js', activationEvents: ['onStartupFinished'],
  }));
  writeFileSync(join(dir, 'extension.js'), `
const vscode = require('vscode');
const { writeFileSync } = require('fs');
const { join } = require('path');
exports.activate = async (context) => {
  const ours = vscode.extensions.getExtension('acp-sessions.acp-sessions');
  const api = ours ? await ours.activate() : undefined;
  const names = new Set();
  const seen = new Set();
  const walk = (value, depth) => {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value) || depth > 6) return;
    seen.add(value);
    for (let o = value; o && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o)) {
      for (const name of Object.getOwnPropertyNames(o)) {
        names.add(name);
        let child;
        try { child = value[name]; } catch { continue; }
        walk(child, depth + 1);
      }
    }
  };
  walk(api, 0);
  writeFileSync(join(context.extensionPath, 'result.json'), JSON.stringify({ found: !!ours, mode: context.extensionMode, type: typeof api, names: [...names] }));
};
`);
}

const ui = useWorkbench('hostile', async ({ work, folder, store }) => {
  const now = Date.now();
  for (const [i, [sessionId, title]] of [['s-command', COMMAND_TITLE], ['s-file', FILE_TITLE], ['s-icon', ICON_TITLE]].entries()) {
    await writeSession(store, {
      sessionId, cwd: folder, title, updatedAt: new Date(now - (i + 1) * 3_600_000).toISOString(), archived: false, deleted: false,
      updates: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hello' } }],
    });
  }
  // Installed like any extension from the Marketplace would be: in the server's extensions folder.
  const extensions = join(work, 'extensions');
  consumer = join(extensions, 'acp-tests.api-consumer-0.0.1');
  writeConsumerExtension(consumer);
  return { agents: [referenceAgent(store)], folders: [folder], extensionsDir: extensions };
});
const { row, until } = ui;

/** The notification in the notification center whose text, read as plain text, is `text`. */
async function notificationSaying(text: string): Promise<Locator> {
  await ui.wb.runCommand('Notifications: Show Notifications');
  const items = ui.page.locator('.notifications-center .notification-list-item');
  let found: Locator | undefined;
  await until(`a notification says ${JSON.stringify(text)}`, async () => {
    for (const item of await items.all()) {
      const message = item.locator('.notification-list-item-message');
      if ((await message.innerText().catch(() => '')).replace(/\u200B/g, '') === text) {
        found = item;
        return true;
      }
    }
    return false;
  });
  return found!;
}

for (const [sessionId, title] of [['s-command', COMMAND_TITLE], ['s-file', FILE_TITLE]]) {
  test(`archiving "${title}" notifies with the brackets as text and no link in the message`, async () => {
    const target = row(title).first();
    await target.waitFor({ timeout: HANG_GUARD_MS });
    await target.hover();
    await target.locator('.action-label[aria-label="Archive"]').click();
    await until('the agent stores it archived', async () => (await readSession(ui.store, sessionId))?.archived === true);
    const notification = await notificationSaying(`Archived "${title}".`);
    await ui.wb.screenshot(`hostile-notification-${sessionId}`);
    assert.equal(await notification.locator('.notification-list-item-message a').count(), 0, 'no link in the message');
    assert.ok(await notification.locator('.monaco-button', { hasText: 'Undo' }).count(), 'the Undo button is ours and still there');
    await ui.page.keyboard.press('Escape');
  });
}

test('a $(icon) in a title shows as text in the tree and in Find Session, not as an icon', async () => {
  const target = row('Zap the cache').first();
  await target.waitFor({ timeout: HANG_GUARD_MS });
  assert.equal(await target.locator('.label-name').innerText(), ICON_TITLE);
  assert.equal(await target.locator('.label-name .codicon').count(), 0, 'no icon in the tree label');

  await ui.wb.runCommand('ACP Sessions: Find Session…');
  const pick = ui.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Zap the cache' });
  await pick.waitFor({ timeout: HANG_GUARD_MS });
  const label = pick.locator('.label-name').first();
  assert.equal(await label.locator('.codicon').count(), 0, 'no icon in the quick pick label');
  assert.equal((await label.innerText()).trim(), ICON_TITLE);
  await ui.quickInput();
  await ui.page.keyboard.press('Escape');
});

test('another extension gets no way to answer our confirmations (the extension is not in Test mode here)', async () => {
  const resultFile = join(consumer, 'result.json');
  await until('the other extension has read our API', () => existsSync(resultFile));
  const result = JSON.parse(readFileSync(resultFile, 'utf8')) as { found: boolean; mode: number; type: string; names: string[] };
  assert.equal(result.found, true, 'the other extension sees ours');
  assert.notEqual(result.mode, 3, 'not the Test mode (3)');
  for (const hook of ['answerNextModal', 'choose', 'recorder', 'shown', 'messages']) {
    assert.ok(!result.names.includes(hook), `"${hook}" is reachable from our API: ${result.type}`);
  }
});
