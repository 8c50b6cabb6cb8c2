// Kept copies near their budget and ahead of the agent (issue 33), in a real browser driving a real
// VS Code, against the reference agent: near `acpSessions.keep.maxMegabytes` the Sessions view
// says so; Clear Kept Copies… deletes by rule (which agent, which folder, how old) after a modal
// that counts them, and the warning goes once there is room. With `acpSessions.keep.mode`
// `expiring`, the sessions a Claude agent will remove soon are loaded in the background with a
// progress notification whose Cancel stops the run (the agent here is the reference agent run
// by a script named claude-agent-acp, Claude's settings in its CLAUDE_CONFIG_DIR; its loads hang).
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { keptPath, readKeptMeta } from '../../src/keep/keptFile';
import { writeSession, type StoredSession } from '../agent/store';
import { chooseInQuickInput, HANG_GUARD_MS, referenceAgent, REFERENCE_AGENT, useWorkbench } from './harness';

const AGENT = 'Reference';
const CLAUDE = 'Soon Gone';
const DAY = 86_400_000;
const RECENT = { id: 'sess_recent', title: 'Recent here' };
const OLD_HERE = { id: 'sess_old_here', title: 'Old here' };
const OLD_THERE = { id: 'sess_old_there', title: 'Old over there' };

function session(folder: string, sessionId: string, title: string, ageMs: number): StoredSession {
  const updates = [
    { sessionUpdate: 'user_message_chunk', messageId: `${sessionId}-0`, content: { type: 'text', text: `A question about ${title}` } },
    { sessionUpdate: 'agent_message_chunk', messageId: `${sessionId}-1`, content: { type: 'text', text: `An answer about ${title}` } },
  ];
  return { sessionId, cwd: folder, title, updatedAt: new Date(Date.now() - ageMs).toISOString(), archived: false, deleted: false, updates: updates as never };
}

let other = '';
let claudeStore = '';
let requestLog = '';

const ui = useWorkbench('kept-budget', async ({ work, folder, store }) => {
  other = join(work, 'other');
  mkdirSync(other);
  await writeSession(store, session(folder, RECENT.id, RECENT.title, 5 * 60_000));
  await writeSession(store, session(folder, OLD_HERE.id, OLD_HERE.title, 40 * DAY));
  await writeSession(store, session(other, OLD_THERE.id, OLD_THERE.title, 40 * DAY));
  // Claude's clean-up after 10 days: both of its sessions are due within the 7 days ahead.
  claudeStore = join(work, 'claude-store');
  await writeSession(claudeStore, session(folder, 'sess_due_1', 'Due first', 6 * DAY));
  await writeSession(claudeStore, session(folder, 'sess_due_2', 'Due second', 8 * DAY));
  const claudeConfig = join(work, 'claude-config');
  mkdirSync(claudeConfig);
  writeFileSync(join(claudeConfig, 'settings.json'), JSON.stringify({ cleanupPeriodDays: 10 }));
  requestLog = join(work, 'claude-requests.ndjson');
  const bin = join(work, 'bin');
  mkdirSync(bin);
  const command = join(bin, 'claude-agent-acp');
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(command, `#!/bin/sh\nexec ${[process.execPath, REFERENCE_AGENT, '--store', claudeStore, '--hang', 'session/load', '--request-log', requestLog].map(quote).join(' ')} "$@"\n`);
  chmodSync(command, 0o755);
  return {
    agents: [referenceAgent(store), { name: CLAUDE, command, args: [], env: { CLAUDE_CONFIG_DIR: claudeConfig } }],
    folders: [folder, other],
    settings: { 'acpSessions.keep.mode': 'expiring' },
  };
}, {
  ready: async ({ row }) => { await row(OLD_THERE.title).waitFor({ timeout: HANG_GUARD_MS }); },
});
const { until } = ui;

const keptRoot = () => join(ui.wb.dirs.userData, 'User', 'globalStorage', 'acp-sessions.acp-sessions', 'kept');
const copyOf = (sessionId: string) => keptPath(keptRoot(), AGENT, sessionId);
const machineSettings = () => join(ui.wb.dirs.userData, 'Machine', 'settings.json');

function setMachineSetting(key: string, value: unknown): void {
  const settings = JSON.parse(readFileSync(machineSettings(), 'utf8')) as Record<string, unknown>;
  settings[key] = value;
  writeFileSync(machineSettings(), JSON.stringify(settings, null, 2));
}

/** The notification saying `text`, from the notification center (whether or not a toast shows). */
async function notification(text: string | RegExp) {
  await ui.wb.runCommand('Notifications: Show Notifications');
  const item = ui.page.locator('.notifications-center .notification-list-item', { hasText: text });
  await item.waitFor({ timeout: HANG_GUARD_MS });
  return item;
}

async function readOnce(title: string, sessionId: string): Promise<void> {
  await ui.wb.closeEditors();
  await ui.row(title).click();
  await ui.wb.transcriptShown(title);
  await until(`a whole copy of "${title}" is kept`, async () => readKeptMeta(copyOf(sessionId)).then(() => true, () => false));
  await ui.wb.closeEditors();
}

/** In the quick input asking `placeholder`: types `text` and takes the one row left, which must show `shows`. */
async function chooseRow(placeholder: string, text: string, shows: string): Promise<void> {
  const input = ui.page.locator('.quick-input-widget input');
  await until(`the quick input asks "${placeholder}" and has the keyboard focus`, async () => (await input.getAttribute('placeholder')) === placeholder && (await input.evaluate((e) => e === document.activeElement).catch(() => false)));
  await input.fill(text);
  const rows = ui.page.locator('.quick-input-list .monaco-list-row');
  await until(`the one row left for "${text}" shows ${shows} and is active`, async () => (await rows.count()) === 1 && (await rows.first().innerText()).includes(shows) && (await rows.first().getAttribute('class'))!.includes('focused'));
  await ui.page.keyboard.press('Enter');
  await until(`the quick input took the row for "${text}"`, async () => !(await input.isVisible()) || (await input.getAttribute('placeholder')) !== placeholder);
}

const viewMessage = async () => (await ui.pane.locator('.message').innerText().catch(() => '')).trim();
const loadsOf = () => (existsSync(requestLog) ? readFileSync(requestLog, 'utf8').split('\n').filter((l) => l.includes('"session/load"')).length : 0);

test('with keep.mode "expiring", the sessions Claude Code will remove are loaded in the background with progress, and its Cancel stops the run', async () => {
  const progress = await notification(`Keeping copies of sessions ${CLAUDE} will remove`);
  await until('the run is loading its first session', () => loadsOf() === 1);
  await progress.locator('.monaco-button', { hasText: /^Cancel$/ }).click();
  await notification(`Kept copies of 0 of 2 sessions ${CLAUDE} will remove: they stay readable under Kept Here once it does.`);
  assert.equal(loadsOf(), 1, 'the second session was not loaded after Cancel');
  assert.equal(existsSync(keptPath(keptRoot(), CLAUDE, 'sess_due_1')), false, 'no copy of a cancelled load');
  await ui.page.keyboard.press('Escape');
});

test('near keep.maxMegabytes the view says so; Clear Kept Copies… deletes by agent, folder and age after a modal, and the warning goes', async () => {
  await readOnce(RECENT.title, RECENT.id);
  await readOnce(OLD_HERE.title, OLD_HERE.id);
  await readOnce(OLD_THERE.title, OLD_THERE.id);
  const sizes = [RECENT, OLD_HERE, OLD_THERE].map((s) => statSync(copyOf(s.id)).size);
  const used = sizes.reduce((a, b) => a + b, 0);
  // 95% of the budget: the view warns; once a copy goes (below 90%) it does not.
  assert.ok((used - sizes[1]) / (used / 0.95) < 0.9, 'deleting the old copy here makes room');
  setMachineSetting('acpSessions.keep.maxMegabytes', used / 0.95 / 1048576);
  await until('the view says the copies are near their budget', async () => /^Kept copies use [\d.]+ MB of their [\d.]+ MB \(acpSessions\.keep\.maxMegabytes\)\. Clear Kept Copies… \(in this view's menu\) makes room\.$/.test(await viewMessage()));
  await ui.wb.screenshot('kept-budget');

  await ui.wb.runCommand('ACP Sessions: Clear Kept Copies…');
  await chooseInQuickInput(ui.page, AGENT, AGENT, until);
  // Its copies come from two folders: which one is asked.
  await chooseRow('Of sessions in which folder?', 'project', ui.folder);
  await chooseInQuickInput(ui.page, '30 days', 'Sessions not updated for 30 days', until);
  await chooseInQuickInput(ui.page, 'still have', 'Copies of sessions the agents still have', until);
  const dialog = await ui.dialog(/Delete 1 kept copies\?/);
  assert.match(await dialog.innerText(), /Their agents still have these sessions; a copy is made again when one is next read\./);
  await dialog.locator('.monaco-button', { hasText: /^Delete$/ }).click();
  await notification(/^Deleted 1 kept copies \(/);
  await until('the old copy of this folder is deleted', () => !existsSync(copyOf(OLD_HERE.id)));
  assert.ok(existsSync(copyOf(RECENT.id)), 'the recent copy stays');
  assert.ok(existsSync(copyOf(OLD_THERE.id)), 'the old copy of the other folder stays');
  await until('the view no longer warns', async () => (await viewMessage()) === '');
  await ui.page.keyboard.press('Escape');
});
