// The hostile-strings corpus (test/hostile/corpus.ts) through the extension's own code paths in
// the real VS Code host, from the reference agent over real pipes: session titles and folders
// into tree labels, descriptions and tooltips, Find Session rows, archive notifications and
// delete confirmations; agent name, title, version, error messages and stderr into the agent's
// row and the messages. Each surface must show plain text: no link VS Code renders in
// notifications, no icon in quick picks, no Markdown in tooltips, no bidi override, control
// character or lone surrogate, and every line bounded. Prints the figures per surface.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import type { SessionPick } from '../../src/ui/sessions/findSession';
import type { ShownMessage } from '../../src/ui/common/messages';
import { terminalName } from '../../src/ui/sessions/resumeTerminal';
import { linkToOpen } from '../../src/ui/transcripts/transcriptPanel';
import { markSessionDeleted, writeSession } from '../agent/store';
import { BASE, hostileStrings, longStrings } from '../hostile/corpus';
import { activateExtension, agentScript, config, configureAgent, removeTempDirs, tempDir, until, treeRows } from './support';

/** What VS Code's notification link parser needs: `[label](` directly followed by a target. */
const NOTIFICATION_LINK = /\[[^\]]+\]\((?:https?:\/\/|command:|file:)/i;
/** A `$(name)` icon that is not escaped by a backslash (VS Code's label icon syntax). */
const UNESCAPED_ICON = /(^|[^\\])\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/;
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Hovers render with links, autolinks and HTML on: stricter than VS Code's own.
const markdown = new MarkdownIt({ html: true, linkify: true });

let api: AcpSessionsApi;
let agentCounter = 0;
const tried: Record<string, number> = {};

function check(surface: string, value: string | undefined, what: string, rule: (v: string) => void): void {
  if (value === undefined) return;
  tried[surface] = (tried[surface] ?? 0) + 1;
  try {
    rule(value);
  } catch (error) {
    throw new Error(`${surface} of ${what}: ${(error as Error).message}\n  shown: ${JSON.stringify(value.slice(0, 200))}`);
  }
}

const plainLine = (max: number) => (v: string) => {
  assert.doesNotMatch(v, UNSAFE, 'a bidi override, control character or lone surrogate');
  assert.doesNotMatch(v, /[\n\r\u2028\u2029]/, 'a line break');
  assert.ok(v.length <= max, `${v.length} characters`);
};

const notification = (multiline: boolean) => (v: string) => {
  assert.doesNotMatch(v, NOTIFICATION_LINK, 'a link VS Code renders');
  assert.doesNotMatch(v, UNSAFE, 'a bidi override, control character or lone surrogate');
  if (!multiline) plainLine(1000)(v);
};

const quickPick = (v: string) => {
  assert.doesNotMatch(v, UNESCAPED_ICON, 'an icon');
  plainLine(1000)(v);
};

function tooltip(surface: string, item: vscode.TreeItem, what: string): void {
  const t = item.tooltip;
  if (t === undefined) return;
  if (typeof t === 'string') return check(surface, t, what, (v) => assert.doesNotMatch(v, UNSAFE));
  check(surface, t.value, what, (v) => {
    assert.ok(!t.isTrusted && !t.supportHtml && !t.supportThemeIcons, 'an untrusted Markdown tooltip without HTML or icons');
    const tags = new Set([...markdown.render(v).matchAll(/<([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1].toLowerCase()));
    assert.deepEqual([...tags].filter((tag) => !['p', 'br', 'strong'].includes(tag)), [], 'Markdown, links or HTML from agent text');
    assert.doesNotMatch(v, UNSAFE, 'a bidi override, control character or lone surrogate');
  });
}

const walk = () => treeRows(api);

async function settled(): Promise<{ node: any; item: vscode.TreeItem }[]> {
  return until('the tree has settled', async () => {
    const all = await walk();
    return all.some((r) => r.item.contextValue === 'message:loading' || r.item.label === 'Loading more…') ? undefined : all;
  }, 60_000);
}

function labelOf(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

function checkTreeItem(row: { item: vscode.TreeItem }, what: string): void {
  check('tree label', labelOf(row.item), what, plainLine(501));
  check('tree description', typeof row.item.description === 'string' ? row.item.description : undefined, what, plainLine(1000));
  check('accessibility label', row.item.accessibilityInformation?.label, what, (v) => assert.doesNotMatch(v, UNSAFE));
  tooltip('tree tooltip', row.item, what);
}

/**
 * Runs a command and returns the first message it shows (through the Test-mode recorder). Not
 * awaited: a command that waits for the user's answer to its message would never return.
 */
async function messageOf(run: () => Thenable<unknown>): Promise<ShownMessage> {
  const recorder = api.sessions.messages;
  // The next message shown, heard as it is shown: an index into `shown` stops growing once the
  // recorder holds its most (the oldest go first), which earlier suites' messages can reach.
  let next: ShownMessage | undefined;
  const listener = recorder.onDidShow((m) => (next ??= m));
  let failure: unknown;
  try {
    Promise.resolve(run()).then(undefined, (error: unknown) => (failure = error));
    return await until('the command showed a message', () => {
      if (failure) throw failure;
      return next;
    });
  } finally {
    listener.dispose();
  }
}

suite('Hostile strings on every VS Code surface', () => {
  const corpus = hostileStrings();

  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'all', vscode.ConfigurationTarget.Global);
    await config().update('pageSize', 1000, vscode.ConfigurationTarget.Global);
    await until('the page size is 1000', () => api.sessions.model.pageSize === 1000);
  });

  suiteTeardown(async () => {
    await config().update('scope', undefined, vscode.ConfigurationTarget.Global);
    await config().update('pageSize', undefined, vscode.ConfigurationTarget.Global);
    // About a thousand messages were recorded here: the suites after this one count from none.
    api.sessions.messages.clear();
    const marker = process.env.ACP_EXT_TEST_MARKER ?? '';
    console.log(`${marker}hostile strings tried per surface (integration): ${JSON.stringify(tried)}; escapes: 0`);
    removeTempDirs();
  });

  test(`${corpus.length} session titles and folders: tree, Find Session, archive notifications and delete confirmations show plain text`, async function () {
    // A hang guard for a few hundred round trips on a loaded machine, not a speed limit.
    this.timeout(600_000);
    const store = tempDir('acp-hostile-');
    const now = Date.now();
    for (const [i, { text }] of corpus.entries()) {
      await writeSession(store, {
        sessionId: `h${i}`,
        cwd: `/hostile/${text}`,
        title: text,
        updatedAt: new Date(now - i * 60_000).toISOString(),
        archived: false,
        deleted: false,
        updates: [],
      });
    }
    const agent = await configureAgent(api, `Hostile ${++agentCounter}`, process.execPath, [agentScript, '--store', store, '--page-size', '1000']);
    const rows = await until(`all ${corpus.length} sessions are in the tree`, async () => {
      const all = await settled();
      const sessions = all.filter((r) => r.node?.session && r.node.agent === agent);
      return sessions.length === corpus.length ? sessions : undefined;
    }, 60_000);
    for (const row of rows) checkTreeItem(row, `session ${row.node.session.sessionId}`);

    const pick = await vscode.commands.executeCommand<vscode.QuickPick<SessionPick>>('acpSessions.findSession');
    try {
      const items = await until('Find Session lists every session', () => {
        const found = pick.items.filter((i) => i.agent === agent);
        return !pick.busy && found.length === corpus.length ? found : undefined;
      }, 60_000);
      for (const item of items) {
        const what = `session ${item.session?.sessionId}`;
        check('quick pick label', item.label, what, quickPick);
        check('quick pick description', item.description, what, quickPick);
        check('quick pick detail', item.detail, what, quickPick);
      }
    } finally {
      pick.hide();
    }

    // The clean-up preview (every session matches "*"; their folders are missing), then cancelled.
    const cleanup = (await vscode.commands.executeCommand('acpSessions.cleanUp', {
      agent,
      rule: { titlePattern: '*' },
      onPreview: (preview: vscode.QuickPick<vscode.QuickPickItem>) => {
        assert.equal(preview.items.length, corpus.length + 1, 'the action row, then every session');
        for (const item of preview.items.slice(1)) {
          check('clean-up preview label', item.label, 'a clean-up preview row', quickPick);
          // The one icon of ours (a missing folder) is allowed once, before the agent's text.
          check('clean-up preview description', item.description?.replace(/^([^$]*)\$\(warning\) /, '$1'), 'a clean-up preview row', quickPick);
          check('clean-up preview detail', item.detail, 'a clean-up preview row', quickPick);
        }
        preview.hide();
      },
    })) as { stopped?: string };
    assert.equal(cleanup.stopped, 'cancelled');

    // Archived in parallel (each command shows its own notification naming its session).
    const recorder = api.sessions.messages;
    const before = recorder.shown.length;
    await Promise.all(rows.map((row) => vscode.commands.executeCommand('acpSessions.archive', row.node)));
    const notifications = await until('every archive showed its notification', () =>
      recorder.shown.length - before >= rows.length ? recorder.shown.slice(before) : undefined,
    );
    for (const shown of notifications) {
      check('notification', shown.text, 'an archive', notification(false));
      assert.match(shown.text, /^Archived "/, `the archive was done and said so (it said: ${shown.text.slice(0, 300)})`);
    }

    const archived = (await settled()).filter((r) => r.node?.session && r.node.agent === agent && r.node.section === 'archived');
    assert.equal(archived.length, corpus.length, 'every session was archived');
    // Confirmations, all cancelled: ten sessions listed in the detail, or one named in the question.
    const batches = [
      ...Array.from({ length: Math.ceil(archived.length / 10) }, (_, i) => archived.slice(i * 10, i * 10 + 10).map((r) => r.node)),
      ...archived.map((r) => [r.node]),
    ];
    const asked = recorder.shown.length;
    for (const _ of batches) recorder.answerNextModal(undefined);
    await Promise.all(batches.map((batch) => vscode.commands.executeCommand('acpSessions.delete', batch[0], batch)));
    const modals = recorder.shown.slice(asked);
    assert.equal(modals.length, batches.length, 'one confirmation per delete');
    for (const shown of modals) {
      assert.equal(shown.modal, true);
      check('modal text', shown.text, 'a delete', notification(false));
      check('modal detail', shown.detail, 'a delete', notification(true));
    }
    assert.equal((await settled()).filter((r) => r.node?.session && r.node.agent === agent).length, corpus.length, 'cancelled: nothing deleted');
  });

  test('a transcript link the webview sends opens exactly when allowed and never throws: whitespace around it, HTTPS://, hostile hrefs', () => {
    const opens = (href: unknown) => linkToOpen(href)?.toString(true);
    assert.equal(opens(' https://example.com/a'), 'https://example.com/a');
    assert.equal(opens('\thttps://example.com/a\n'), 'https://example.com/a');
    assert.equal(opens('HTTPS://example.com/A'), 'https://example.com/A');
    assert.equal(opens('mailto:a@example.com'), 'mailto:a@example.com');
    for (const bad of [' command:workbench.action.files.newUntitledFile', 'file:///etc/passwd', ' javascript:alert(1)', 'https://', 'https:// a', 42, undefined, { href: 'https://a' }]) {
      assert.equal(opens(bad), undefined, JSON.stringify(bad));
    }
    for (const { text } of corpus) {
      tried['transcript link'] = (tried['transcript link'] ?? 0) + 1;
      const uri = linkToOpen(text);
      if (uri) assert.ok(['http', 'https', 'mailto'].includes(uri.scheme), text.slice(0, 80));
    }
  });

  // Two agent processes per string (one running, one failing at start): a representative of
  // each kind, after our words, and the long ones.
  const agentStrings = [...Object.values(BASE).map((texts) => `Fix ${texts[0]}`), ...longStrings().slice(0, 2).map((s) => s.text)];

  test(`${agentStrings.length} agent names, versions, error messages and stderr: the agent's row and the messages show plain text`, async function () {
    this.timeout(600_000);
    const store = tempDir('acp-hostile-agent-');
    await writeSession(store, { sessionId: 'b1', cwd: '/benign', title: 'Benign', updatedAt: new Date().toISOString(), archived: false, deleted: false, updates: [] });
    for (const [i, text] of agentStrings.entries()) {
      const strings = join(tempDir('acp-hostile-strings-'), 'strings.json');
      writeFileSync(strings, JSON.stringify({ agentInfo: { name: text, title: text, version: text }, errorMessage: text, errorData: { text }, stderr: `${text}\n` }));
      const what = `agent string ${i}`;
      // One agent runs with a hostile identity and archive errors; one writes hostile stderr and
      // exits at start, so its failure reason is that stderr.
      const running = `Hostile agent ${++agentCounter}`;
      const failing = `Hostile failing ${agentCounter}`;
      await config().update('agents', [
        { name: running, command: process.execPath, args: [agentScript, '--store', store, '--strings', strings, '--fail', 'session/archive=-32603'] },
        { name: failing, command: process.execPath, args: [agentScript, '--store', store, '--strings', strings, '--exit-at', 'start'] },
      ], vscode.ConfigurationTarget.Global);
      const tree = await until('one agent lists and the other has failed', async () => {
        const all = await settled();
        const listed = all.some((r) => r.node?.session?.sessionId === 'b1' && r.node.agent === running);
        const failed = all.some((r) => r.item.contextValue === 'message:error' && r.node?.parent?.name === failing);
        return listed && failed ? all : undefined;
      }, 120_000);
      for (const row of tree) checkTreeItem(row, what);
      const session = tree.find((r) => r.node?.session?.sessionId === 'b1')!;
      const archive = await messageOf(() => vscode.commands.executeCommand('acpSessions.archive', session.node));
      check('notification', archive.text, `${what}: archive error`, notification(false));
      assert.match(archive.text, /^Could not archive/);
      const restart = await messageOf(() => vscode.commands.executeCommand('acpSessions.restartAgent', failing));
      check('notification', restart.text, `${what}: restart error`, notification(false));
      assert.match(restart.text, /did not start/);
    }
  });

  test(`${corpus.length} titles and folders on issue 24's surfaces: Resume's messages and terminal names, and pinned sessions shown as gone, are plain text`, async function () {
    // A hang guard for a few hundred round trips on a loaded machine, not a speed limit.
    this.timeout(600_000);
    const store = tempDir('acp-hostile-pins-');
    const now = Date.now();
    for (const [i, { text }] of corpus.entries()) {
      await writeSession(store, { sessionId: `p${i}`, cwd: `/hostile/${text}`, title: text, updatedAt: new Date(now - i * 60_000).toISOString(), archived: false, deleted: false, updates: [] });
    }
    const agent = `Hostile ${++agentCounter}`;
    // A resume command that exists (node): every folder is gone, so each Resume must say so.
    await config().update('agents', [{ name: agent, command: process.execPath, args: [agentScript, '--store', store, '--page-size', '1000'], resume: [process.execPath, '${sessionId}'] }], vscode.ConfigurationTarget.Global);
    const rows = await until(`all ${corpus.length} sessions are in the tree`, async () => {
      const sessions = (await settled()).filter((r) => r.node?.session && r.node.agent === agent);
      return sessions.length === corpus.length ? sessions : undefined;
    }, 60_000);

    for (const row of rows) {
      check('terminal name', terminalName(row.node.session), `session ${row.node.session.sessionId}`, (v) => {
        quickPick(v);
        plainLine(80)(v);
      });
      const shown = await messageOf(() => vscode.commands.executeCommand('acpSessions.resumeInTerminal', row.node));
      check('resume message', shown.text, `session ${row.node.session.sessionId}`, notification(false));
      assert.match(shown.text, /^Not resumed: /, shown.text.slice(0, 300));
    }
    assert.equal(vscode.window.terminals.length, 0, 'no folder exists, so no terminal opened');

    await vscode.commands.executeCommand('acpSessions.pin', rows[0].node, rows.map((r) => r.node));
    for (const { sessionId } of rows.map((r) => r.node.session)) await markSessionDeleted(store, sessionId);
    await vscode.commands.executeCommand('acpSessions.refresh');
    const gone = await until(`all ${corpus.length} pins show as gone`, async () => {
      const found = (await settled()).filter((r) => r.item.contextValue === 'pin:gone' && r.node.agent === agent);
      return found.length === corpus.length ? found : undefined;
    }, 60_000);
    for (const row of gone) checkTreeItem(row, `gone pin ${row.node.pin.sessionId}`);
    await vscode.commands.executeCommand('acpSessions.unpin', gone[0].node);
    await until('an unpinned gone row leaves the tree', async () => (await settled()).filter((r) => r.item.contextValue === 'pin:gone' && r.node.agent === agent).length === corpus.length - 1, 60_000);
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
  });
});
