// The extension, in a real VS Code extension host, pointed at real agents through the one
// setting a user writes (`acpSessions.agents`): their sessions show in the Sessions tree,
// delete works end to end, and agents that need a login or cannot list get a clear item.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../../src/extension';
import { agentEntry, ensureAgents, makeAgentHome, type InteropAgentName } from '../agents.mjs';
import { QWEN_OFFLINE_LOGIN, claudeProjectDir, writeClaudeSession, writeCodexAuth, writeCodexSession, writeQwenSession } from '../stores.mjs';

interface Row {
  node: unknown;
  label: string;
  description: string;
  contextValue: string;
}

const installed = ensureAgents();
let api: AcpSessionsApi;
const homes: string[] = [];

function tempHome(): { home: string; project: string } {
  const made = makeAgentHome('acp-interop-ext-');
  homes.push(made.home);
  return made;
}

/** The entry a user would write, started by the extension host's own Node (24), as a user's PATH `node` would be. */
function entry(name: InteropAgentName, label: string, home: string, env: Record<string, string> = {}) {
  return agentEntry(installed.agents[name], { name: label, home, env });
}

async function configure(agents: unknown[]): Promise<void> {
  const config = vscode.workspace.getConfiguration('acpSessions');
  await config.update('scope', 'all', vscode.ConfigurationTarget.Global);
  await config.update('agents', agents, vscode.ConfigurationTarget.Global);
}

function text(label: string | vscode.TreeItemLabel | undefined): string {
  return typeof label === 'string' ? label : label?.label ?? '';
}

/** Every row the Sessions view shows, expanded (walking the view's own data provider). */
function rows(): Row[] {
  const view = api.sessions.view;
  const out: Row[] = [];
  const walk = (node: unknown) => {
    const item = view.getTreeItem(node as never);
    out.push({ node, label: text(item.label), description: String(item.description ?? ''), contextValue: item.contextValue ?? '' });
    for (const child of view.getChildren(node as never)) walk(child);
  };
  for (const root of view.getChildren()) walk(root);
  return out;
}

/** Re-reads the tree on every change until `find` returns something (mocha's timeout is the hang guard). */
async function waitForTree<T>(find: (rows: Row[]) => T | undefined): Promise<T> {
  for (;;) {
    const changed = new Promise<void>((resolve) => {
      const subscription = api.sessions.view.onDidChangeTreeData(() => {
        subscription.dispose();
        resolve();
      });
    });
    const found = find(rows());
    if (found !== undefined && found !== false) return found;
    await changed;
  }
}

const sessionRows = (all: Row[]) => all.filter((r) => r.contextValue.startsWith('session:'));

/** The session titles of each section, read from the items' contextValue (`session:active…` or `session:archived…`). */
function sectionTitles(all: Row[]): { active: string[]; archived: string[] } {
  const titles = (section: string) => sessionRows(all).filter((r) => r.contextValue.startsWith(`session:${section}:`)).map((r) => r.label).sort();
  return { active: titles('active'), archived: titles('archived') };
}

/**
 * Archives the session titled `title` from the tree, checks it moved under Archived, takes the
 * notification's Undo, then archives it again and unarchives it from the Archived section.
 */
async function archiveRoundTrip(title: string, others: string[]): Promise<void> {
  const messages = api.sessions.messages;
  const row = await waitForTree((all) => sessionRows(all).find((r) => r.label === title && r.contextValue.startsWith('session:active:')));
  assert.match(row.contextValue, /:archivable/);
  let seen = messages.shown.length;
  await vscode.commands.executeCommand('acpSessions.archive', row.node);
  const archived = { active: [...others].sort(), archived: [title] };
  assert.deepEqual(await waitForTree((all) => (sectionTitles(all).archived.includes(title) ? sectionTitles(all) : undefined)), archived);
  const shown = messages.shown[seen];
  assert.deepEqual([shown?.text, shown?.actions], [`Archived "${title}".`, ['Undo']]);
  messages.choose(shown!, 'Undo');
  const restored = { active: [...others, title].sort(), archived: [] };
  assert.deepEqual(await waitForTree((all) => (sectionTitles(all).archived.length === 0 && sectionTitles(all).active.includes(title) ? sectionTitles(all) : undefined)), restored);
  // Listing again asks the agent: it agrees that the session is active.
  await vscode.commands.executeCommand('acpSessions.refresh');
  assert.deepEqual(await waitForTree((all) => (sectionTitles(all).active.includes(title) ? sectionTitles(all) : undefined)), restored);
  // And the Unarchive command from the Archived section.
  seen = messages.shown.length;
  await vscode.commands.executeCommand('acpSessions.archive', (await waitForTree((all) => sessionRows(all).find((r) => r.label === title))).node);
  const inArchived = await waitForTree((all) => sessionRows(all).find((r) => r.label === title && r.contextValue.startsWith('session:archived:')));
  await vscode.commands.executeCommand('acpSessions.unarchive', inArchived.node);
  assert.deepEqual(await waitForTree((all) => (sectionTitles(all).archived.length === 0 && sectionTitles(all).active.includes(title) ? sectionTitles(all) : undefined)), restored);
}

suiteSetup(async () => {
  api = (await vscode.extensions.getExtension('acp-sessions.acp-sessions')!.activate()) as AcpSessionsApi;
});

suiteTeardown(async () => {
  await configure([]);
  await vscode.workspace.getConfiguration('acpSessions').update('scope', undefined, vscode.ConfigurationTarget.Global);
  for (const home of homes) rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

suite(`Real agents in the Sessions view: claude-agent-acp ${installed.agents.claude.version}`, () => {
  let home: string;
  let project: string;
  const ids = {
    login: '0a1b2c3d-0000-4000-8000-0000000000a1',
    parser: '0a1b2c3d-0000-4000-8000-0000000000a2',
    doomed: '0a1b2c3d-0000-4000-8000-0000000000a3',
  };

  suiteSetup(async () => {
    ({ home, project } = tempHome());
    writeClaudeSession(home, {
      sessionId: ids.login, cwd: project, title: 'Fix the login bug', updatedAt: new Date(Date.now() - 3_600_000).toISOString(),
      turns: [['The login fails after a password reset.', 'Fixed: the reset now clears the old session.']],
    });
    writeClaudeSession(home, {
      sessionId: ids.parser, cwd: project, title: 'Split the parser', updatedAt: new Date(Date.now() - 7_200_000).toISOString(),
      turns: [['Split the parser.', 'Started with the lexer.'], ['Go on.', 'The parser reads tokens now.']],
      compactedAfter: 1,
      summary: 'The lexer is done; the parser is next.',
    });
    writeClaudeSession(home, {
      sessionId: ids.doomed, cwd: project, title: 'Throwaway experiment', updatedAt: new Date(Date.now() - 86_400_000 * 3).toISOString(),
      turns: [['Try something.', 'Tried.']],
    });
    await configure([entry('claude', 'Claude', home)]);
  });

  test('the tree shows claude\'s sessions by title under the Claude agent', async () => {
    const titles = await waitForTree((all) => {
      const titles = sessionRows(all).map((r) => r.label).sort();
      return titles.length === 3 ? titles : undefined;
    });
    assert.deepEqual(titles, ['Fix the login bug', 'Split the parser', 'Throwaway experiment']);
    const agent = api.agents.agents.find((a) => a.name === 'Claude');
    assert.equal(agent?.agentInfo?.name, '@agentclientprotocol/claude-agent-acp');
    // Delete is offered (claude advertises it), and archive through the JetBrains AIR extension.
    const row = sessionRows(rows()).find((r) => r.label === 'Fix the login bug')!;
    assert.match(row.contextValue, /:deletable/);
    assert.match(row.contextValue, /:archivable/);
    assert.equal(agent?.capabilities?.archiveMethod, 'jetbrains-air');
    // Live state through the AIR index: claude states "idle" for a stored session; the row says so
    // in its tooltip only (idle is the usual look), never by loading it.
    assert.equal(api.sessions.model.find('Claude', ids.login)?.session.state, 'idle');
    const tooltip = api.sessions.view.getTreeItem(row.node as never).tooltip;
    assert.match(tooltip instanceof vscode.MarkdownString ? tooltip.value : String(tooltip), /Live state: Idle \\\(reported by the agent\\\)/);
  });

  test('archive from the tree moves a session under Archived, Undo brings it back, and so does Unarchive', async () => {
    await archiveRoundTrip('Fix the login bug', ['Split the parser', 'Throwaway experiment']);
  });

  test('opening a compacted transcript from the tree shows a completed compaction row with its summary', async () => {
    const row = await waitForTree((all) => sessionRows(all).find((r) => r.label === 'Split the parser'));
    await vscode.commands.executeCommand('acpSessions.openTranscript', row.node);
    const state = await api.transcripts.whenLoaded('Claude', ids.parser);
    assert.equal(state.problem, undefined);
    assert.deepEqual(
      state.compactions.map((c) => [c.status, c.summary]),
      [['completed', 'The lexer is done; the parser is next.']],
    );
    // Claude replays from the compaction on: the turn after it, and nothing unknown.
    assert.deepEqual(state.kinds, { compaction: 1, user_message: 1, agent_message: 1 });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('deleting a session from the tree removes its transcript file and its item', async () => {
    const file = join(claudeProjectDir(home, project), `${ids.doomed}.jsonl`);
    assert.ok(existsSync(file));
    const row = await waitForTree((all) => sessionRows(all).find((r) => r.label === 'Throwaway experiment'));
    api.sessions.messages.answerNextModal('Delete');
    await vscode.commands.executeCommand('acpSessions.delete', row.node);
    assert.equal(existsSync(file), false);
    const titles = await waitForTree((all) => {
      const titles = sessionRows(all).map((r) => r.label);
      return titles.includes('Throwaway experiment') ? undefined : titles.sort();
    });
    assert.deepEqual(titles, ['Fix the login bug', 'Split the parser']);
  });
});

/**
 * The Claude CLI that claude-agent-acp runs (its SDK's platform package), resolved as the agent
 * resolves it: the linux package for this libc first, then the other.
 */
function claudeCli(): string {
  const sdk = createRequire(join(installed.dir, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'package.json'));
  const musl = process.platform === 'linux' && !(process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
  const ext = process.platform === 'win32' ? '.exe' : '';
  const base = `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}`;
  const candidates = process.platform === 'linux' ? (musl ? [`${base}-musl`, base] : [base, `${base}-musl`]) : [base];
  for (const candidate of candidates) {
    try {
      return sdk.resolve(`${candidate}/claude${ext}`);
    } catch {
      // the next one
    }
  }
  throw new Error(`No Claude CLI beside claude-agent-acp: none of ${candidates.join(', ')} is installed in ${installed.dir}`);
}

/** The processes below `root` (linux /proc) that run `executable`. */
function cliProcesses(root: number, executable: string): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === root) return true;
    return false;
  };
  return [...parents.keys()].filter((pid) => {
    if (!below(pid)) return false;
    try {
      return realpathSync(`/proc/${pid}/exe`) === realpathSync(executable);
    } catch {
      return false;
    }
  });
}

/** The files under HOME/.claude with their ages (what a failed clean-up left). */
function claudeFiles(home: string): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(`${path.slice(home.length + 1)} (${Math.round((Date.now() - statSync(path).mtimeMs) / 1000)} s old)`);
    }
  };
  walk(join(home, '.claude'));
  return out.join(', ');
}

/** Polls `probe` every 100 ms until it holds; fails after `ms` naming what it waited for and `context()`. */
async function until(what: string, ms: number, probe: () => boolean, context: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting until ${what}${context() ? `: ${context()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

suite(`Claude Code's own clean-up (the CLI of claude-agent-acp ${installed.agents.claude.version}) and Kept Here`, () => {
  let home: string;
  let project: string;
  const ids = { old: '0a1b2c3d-0000-4000-8000-0000000000e1', recent: '0a1b2c3d-0000-4000-8000-0000000000e2' };

  suiteSetup(async () => {
    ({ home, project } = tempHome());
    // Claude Code deletes transcripts older than cleanupPeriodDays when a session of its CLI starts.
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ cleanupPeriodDays: 1 }));
    writeClaudeSession(home, {
      sessionId: ids.old, cwd: project, title: 'Last week\'s migration plan', updatedAt: new Date(Date.now() - 5 * 86_400_000).toISOString(),
      turns: [['Plan the database migration.', 'Step one: copy the orders table to the new schema.']],
    });
    writeClaudeSession(home, {
      sessionId: ids.recent, cwd: project, title: 'This morning\'s fix', updatedAt: new Date(Date.now() - 3_600_000).toISOString(),
      turns: [['Fix the flaky test.', 'Fixed.']],
    });
    await vscode.workspace.getConfiguration('acpSessions').update('keep.mode', 'read', vscode.ConfigurationTarget.Global);
    await configure([entry('claude', 'Claude', home)]);
  });

  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('acpSessions').update('keep.mode', undefined, vscode.ConfigurationTarget.Global);
  });

  test('a session read here, then removed by Claude Code\'s clean-up (cleanupPeriodDays 1, its CLI offline), shows under Kept Here', async function () {
    // The CLI's clean-up waits for its settings hooks first (about 5 s here); a hang guard.
    this.timeout(240_000);
    const file = join(claudeProjectDir(home, project), `${ids.old}.jsonl`);
    const row = await waitForTree((all) => sessionRows(all).find((r) => r.label === 'Last week\'s migration plan'));
    await vscode.commands.executeCommand('acpSessions.openTranscript', row.node);
    const state = await api.transcripts.whenLoaded('Claude', ids.old);
    assert.equal(state.problem, undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const kept = api.sessions.kept;
    await kept.store.lastWrite;
    assert.ok(kept.store.get('Claude', ids.old), 'reading it kept a copy');
    assert.ok(existsSync(file), 'listing and loading it left Claude Code\'s transcript in place');
    // The agent's CLI for this session ends (session/close); until it has, it may still write.
    const agentClient = api.agents.connectedClient('Claude')!;
    await agentClient.closeSession(ids.old);
    const cli = claudeCli();
    await until('the CLI claude-agent-acp started for the load has exited', 60_000, () => cliProcesses(agentClient.pid!, cli).length === 0, () => `still running: ${cliProcesses(agentClient.pid!, cli).join(', ')}`);
    // The load and the close wrote to the transcript: its mtime, by which Claude Code's sweep
    // dates it, is now. Five days pass: it is set back as the clock would leave it, and so is a
    // `.last-cleanup` a CLI may have left (no sweep for a day after one).
    const fiveDaysAgo = new Date(Date.now() - 5 * 86_400_000);
    utimesSync(file, fiveDaysAgo, fiveDaysAgo);
    const sentinel = join(home, '.claude', '.last-cleanup');
    if (existsSync(sentinel)) utimesSync(sentinel, fiveDaysAgo, fiveDaysAgo);

    // Claude Code's CLI, as claude-agent-acp starts it, with a prompt: its first prompt starts
    // its background housekeeping, the retention sweep among it. Offline: the API and every
    // proxy point at a closed local port (and, as root, it runs in a network namespace of its
    // own); the key is a placeholder that gets the CLI past its login check, never sent anywhere.
    const offline = 'http://127.0.0.1:9';
    const isolate = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/unshare');
    const child = spawn(isolate ? '/usr/bin/unshare' : cli, [...(isolate ? ['-n', cli] : []), '-p', 'Say hello.'], {
      cwd: project,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), IS_SANDBOX: '1',
        DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ANTHROPIC_API_KEY: 'sk-ant-placeholder-offline', ANTHROPIC_BASE_URL: offline, HTTPS_PROXY: offline, HTTP_PROXY: offline, ALL_PROXY: offline, NO_PROXY: '',
      },
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await until('Claude Code\'s clean-up removed the transcript of 5 days ago', 90_000, () => !existsSync(file), () => `the CLI (${isolate ? 'unshare -n ' : ''}${cli}) said: ${output.slice(-2000) || '(nothing)'}; ${home}/.claude holds ${claudeFiles(home)}`);
    } finally {
      // It retries the unreachable API for minutes: ended here, with its group.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    }
    assert.ok(existsSync(join(claudeProjectDir(home, project), `${ids.recent}.jsonl`)), 'the transcript of an hour ago stays');

    await vscode.commands.executeCommand('acpSessions.refresh');
    const keptRow = await waitForTree((all) => (kept.here.isKeptOnly('Claude', ids.old) ? all.find((r) => r.contextValue.startsWith('kept') && r.label === 'Last week\'s migration plan') : undefined));
    assert.match(keptRow.description, /kept copy/);
    assert.equal(api.sessions.model.find('Claude', ids.old), undefined, 'the agent no longer lists it');
    assert.ok(sessionRows(rows()).some((r) => r.label === 'This morning\'s fix'), 'the recent session is still listed as the agent\'s');
  });
});

suite('Add Agent… with the real agents installed', () => {
  const saved = { PATH: process.env.PATH, HOME: process.env.HOME, IS_SANDBOX: process.env.IS_SANDBOX };

  suiteSetup(async () => {
    await configure([]);
    // As after `npm install -g`: the bins on the PATH the extension host (and the agent) sees;
    // a temporary HOME so the agent never reads the machine's own sessions.
    const { home } = tempHome();
    process.env.PATH = [join(installed.dir, 'node_modules', '.bin'), join(process.execPath, '..'), saved.PATH].join(':');
    process.env.HOME = home;
    process.env.IS_SANDBOX = '1';
  });

  suiteTeardown(async () => {
    await configure([]);
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  test('the Claude preset writes a plain user entry that starts claude-agent-acp, with Claude Code\'s resume command', async () => {
    // The resume arguments are the installed CLI's own (test/interop/resume.test.ts reads its --help).
    const entry = { name: 'Claude', command: 'claude-agent-acp', args: [], resume: ['claude', '--resume', '${sessionId}'] };
    const written = await vscode.commands.executeCommand('acpSessions.addAgent', 'claude');
    assert.deepEqual(written, entry);
    const inspected = vscode.workspace.getConfiguration('acpSessions').inspect('agents');
    assert.deepEqual(inspected?.globalValue, [entry]);
    const info = await waitForTree(() => {
      const agent = api.agents.agents.find((a) => a.name === 'Claude');
      return agent?.state.kind === 'connected' ? agent.agentInfo : undefined;
    });
    assert.equal(info?.name, '@agentclientprotocol/claude-agent-acp');
  });

  test('adding the same agent again writes nothing', async () => {
    const written = await vscode.commands.executeCommand('acpSessions.addAgent', 'claude');
    assert.equal(written, undefined);
    const inspected = vscode.workspace.getConfiguration('acpSessions').inspect('agents');
    assert.equal((inspected?.globalValue as unknown[]).length, 1);
  });
});

suite(`Real agents in the Sessions view: codex-acp ${installed.agents.codex.version}`, () => {
  const id = '0196a1b2-0000-7000-8000-0000000000c1';

  suiteSetup(async () => {
    const { home, project } = tempHome();
    writeCodexAuth(home);
    writeCodexSession(home, {
      sessionId: id, cwd: project, startedAt: '2025-05-03T09:30:00.000Z',
      turns: [['Write tests for the parser', 'Wrote 3 tests.'], ['Run them', 'All 3 pass.']],
    });
    await configure([entry('codex', 'Codex', home)]);
  });

  test('the tree lists codex\'s session and its transcript opens with every message', async () => {
    const row = await waitForTree((all) => sessionRows(all).find((r) => r.label === 'Write tests for the parser'));
    await vscode.commands.executeCommand('acpSessions.openTranscript', row.node);
    const state = await api.transcripts.whenLoaded('Codex', id);
    assert.equal(state.problem, undefined);
    assert.deepEqual(state.kinds, { user_message: 2, agent_message: 2 });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('archive from the tree moves a session under Archived, Undo brings it back, and so does Unarchive', async () => {
    assert.equal(api.agents.agents.find((a) => a.name === 'Codex')?.capabilities?.archiveMethod, 'jetbrains-air');
    await archiveRoundTrip('Write tests for the parser', []);
  });

  test('rename from the tree (session/set_title) shows the new title at once, codex stores it, and Undo restores it', async () => {
    const messages = api.sessions.messages;
    const row = await waitForTree((all) => sessionRows(all).find((r) => r.label === 'Write tests for the parser'));
    assert.match(row.contextValue, /:renamable/);
    const seen = messages.shown.length;
    await vscode.commands.executeCommand('acpSessions.rename', row.node, undefined, 'Parser tests');
    assert.deepEqual(sessionRows(rows()).map((r) => r.label), ['Parser tests'], 'the tree shows it without a re-list');
    const stored = async () => (await api.agents.connectedClient('Codex')!.listSessions({})).sessions.find((s) => s.sessionId === id)?.title;
    assert.equal(await stored(), 'Parser tests');
    const shown = messages.shown[seen];
    assert.deepEqual([shown?.text, shown?.actions], ['Renamed "Write tests for the parser" to "Parser tests".', ['Undo']]);
    messages.choose(shown!, 'Undo');
    assert.deepEqual(await waitForTree((all) => (sessionRows(all).some((r) => r.label === 'Write tests for the parser') ? sessionRows(all).map((r) => r.label) : undefined)), ['Write tests for the parser']);
    assert.equal(await stored(), 'Write tests for the parser');
  });
});

suite(`Real agents in the Sessions view: codex-acp ${installed.agents.codex.version} without a login`, () => {
  suiteSetup(async () => {
    const { home, project } = tempHome();
    writeCodexSession(home, {
      sessionId: '0196a1b2-0000-7000-8000-0000000000b1', cwd: project, startedAt: '2025-05-01T10:00:00.000Z',
      turns: [['Add a README', 'Added README.md.']],
    });
    await configure([entry('codex', 'Codex', home)]);
  });

  test('its session is listed: AIR\'s session index (which we offer) reads codex\'s local state without a login', async () => {
    // A plain client gets -32000 here and shows "sign-in required" (tested with the reference agent's --auth-required).
    const titles = await waitForTree((all) => (sessionRows(all).length > 0 ? sessionRows(all).map((r) => r.label) : undefined));
    assert.deepEqual(titles, ['Add a README']);
    assert.equal(api.agents.agents.find((a) => a.name === 'Codex')?.state.kind, 'connected');
  });
});

suite(`Real agents in the Sessions view: gemini-cli ${installed.agents.gemini.version} --acp`, () => {
  suiteSetup(async () => {
    const { home } = tempHome();
    await configure([entry('gemini', 'Gemini CLI', home)]);
  });

  test('an agent without session/list gets a "does not list its sessions" item, not an error', async () => {
    const labels = await waitForTree((all) => {
      const agent = api.agents.agents.find((a) => a.name === 'Gemini CLI');
      return agent?.state.kind === 'connected' && all.length > 1 ? all.map((r) => r.label) : undefined;
    });
    assert.ok(labels.some((l) => /does not list its sessions/i.test(l)), labels.join(' | '));
    assert.ok(!labels.some((l) => /error|failed/i.test(l)), labels.join(' | '));
  });
});

suite(`Real agents in the Sessions view: qwen-code ${installed.agents.qwen.version} --acp`, () => {
  const ids = { health: '1a2b3c4d-0000-4000-8000-0000000000d1', cache: '1a2b3c4d-0000-4000-8000-0000000000d2' };

  suiteSetup(async () => {
    const { home } = tempHome();
    // The default scope, the open workspace folder: qwen lists one folder per request (its cwd without one).
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    writeQwenSession(home, {
      sessionId: ids.health, cwd: folder, updatedAt: new Date(Date.now() - 3_600_000).toISOString(),
      turns: [['Add a health check endpoint', 'Added GET /healthz.'], ['Now a readiness check', 'Added GET /readyz.']],
      compressedAfter: 1, summary: 'GET /healthz is done.',
    });
    writeQwenSession(home, {
      sessionId: ids.cache, cwd: folder, updatedAt: new Date(Date.now() - 86_400_000).toISOString(), title: 'Cold cache after deploys',
      turns: [['Why is the cache cold after a deploy?', 'The deploy clears it.']],
    });
    await vscode.workspace.getConfiguration('acpSessions').update('scope', 'workspace', vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('acpSessions').update('agents', [entry('qwen', 'Qwen Code', home, QWEN_OFFLINE_LOGIN)], vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('acpSessions').update('scope', 'all', vscode.ConfigurationTarget.Global);
  });

  test('the tree lists qwen\'s sessions of the workspace folder by title, with no archive, delete or rename offered', async () => {
    const titles = await waitForTree((all) => (sessionRows(all).length === 2 ? sessionRows(all).map((r) => r.label) : undefined));
    assert.deepEqual(titles, ['Add a health check endpoint', 'Cold cache after deploys']);
    const agent = api.agents.agents.find((a) => a.name === 'Qwen Code');
    assert.equal(agent?.agentInfo?.name, 'qwen-code');
    for (const row of sessionRows(rows())) assert.doesNotMatch(row.contextValue, /:(archivable|deletable|renamable)/, row.contextValue);
    assert.deepEqual(sectionTitles(rows()).archived, []);
  });

  test('its transcript opens from the tree with every message (the compression checkpoint is not replayed)', async () => {
    const row = await waitForTree((all) => sessionRows(all).find((r) => r.label === 'Add a health check endpoint'));
    await vscode.commands.executeCommand('acpSessions.openTranscript', row.node);
    const state = await api.transcripts.whenLoaded('Qwen Code', ids.health);
    assert.equal(state.problem, undefined);
    assert.deepEqual(state.kinds, { user_message: 2, agent_message: 2 });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
