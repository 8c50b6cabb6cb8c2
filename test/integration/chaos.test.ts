// The real extension in the real VS Code against the reference agent in chaos mode (faults drawn
// from a seed: delays, malformed, oversized, duplicate, out-of-order and unknown-id responses,
// -32002/-32603 storms, crashes and hangs mid-list, mid-load, mid-stream and mid-archive, stderr
// floods). A bounded number of steps (refresh, expand, load more, archive, unarchive, open a
// transcript, restart, retry), each chosen by the seed; after every step the tree is checked
// against the agent's store on disk, the client's pending requests against their deadline, and
// every agent process (and its child) against the one that should be running.
//
// Env: ACP_CHAOS_SEED=N|random (default 11; `random` prints the seed it drew), ACP_CHAOS_STEPS
// (default 20), ACP_CHAOS_FAULTS (comma list of kinds, default all), ACP_CHAOS_FIGURES (file the
// figures are written to as JSON). `npm run test:chaos` is the long run.
import * as assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AcpSessionsApi } from '../../src/extension';
import { prng } from '../agent/prng';
import { listStoredSessions, writeSession, type StoredSession } from '../agent/store';
import { activateExtension, agentScript, closeAllTranscripts, config, configureAgent, hoveredItem, removeTempDirs, tempDir, until, workspaceFolder } from './support';

const FIXED_SEED = 11;
const seedSetting = process.env.ACP_CHAOS_SEED?.trim();
const SEED = seedSetting === 'random' ? Math.floor(Math.random() * 2 ** 31) : seedSetting ? Number(seedSetting) : FIXED_SEED;
const STEPS = Number(process.env.ACP_CHAOS_STEPS ?? 20);
const FAULTS = process.env.ACP_CHAOS_FAULTS?.trim();
/** The deadline of every request (acpSessions.requestTimeout): an agent's start takes 2 s on a loaded 2-core machine. */
const REQUEST_TIMEOUT_MS = 5_000;
/** The client's grace between SIGTERM and SIGKILL (src/acp/client.ts). */
const KILL_GRACE_MS = 2_000;
/** How long a step may take to settle: a request's deadline, the kill grace, and slack for a loaded machine. */
const SETTLE_MS = REQUEST_TIMEOUT_MS + KILL_GRACE_MS + 10_000;
/** A pending request this much past its deadline is one the client never gave up on (timers run late on a loaded machine). */
const DEADLINE_SLACK_MS = 3_000;
/** How long after the kill grace an ended agent's processes may still show (exit handling on a loaded machine). */
const PROCESS_SLACK_MS = 6_000;
const ELSEWHERE = '/elsewhere/chaos-project';

const marker = process.env.ACP_EXT_TEST_MARKER ?? '';
const print = (text: string) => console.log(marker + text);

type StepKind = 'refresh' | 'expand' | 'loadMore' | 'archive' | 'unarchive' | 'open' | 'restart' | 'retry';
/** Drawn from by the seed; repeated kinds are the likelier steps. */
const STEP_KINDS: readonly StepKind[] = ['refresh', 'expand', 'restart', 'loadMore', 'loadMore', 'archive', 'archive', 'unarchive', 'unarchive', 'open', 'open', 'open', 'retry', 'retry'];

interface Row {
  node: any;
  item: vscode.TreeItem;
  label: string;
  children: Row[];
}

interface ChaosRecord {
  pid: number;
  process: number;
  event?: 'start';
  child?: number;
  kind?: string;
}

let api: AcpSessionsApi;

function seededSessions(folder: string): StoredSession[] {
  const random = prng(SEED ^ 0x5eed);
  const sessions: StoredSession[] = [];
  for (let i = 1; i <= 16; i++) {
    const id = `chaos-${String(i).padStart(2, '0')}`;
    const updates: StoredSession['updates'] = [];
    const turns = 2 + Math.floor(random() * 4);
    for (let t = 0; t < turns; t++) {
      updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `question ${t} of ${id}` } });
      updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer ${t} of ${id}` } });
    }
    sessions.push({
      sessionId: id,
      cwd: i > 14 ? ELSEWHERE : folder,
      title: `Chaos session ${i}`,
      updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + i * 3_600_000).toISOString(),
      archived: i % 3 === 0,
      deleted: false,
      updates,
    });
  }
  return sessions;
}

/** The whole tree as VS Code would fetch it with `expanded` sections open (Archived starts collapsed). */
async function rows(expanded: ReadonlySet<string>, parent?: any): Promise<Row[]> {
  const provider = api.sessions.view;
  const result: Row[] = [];
  for (const node of (await provider.getChildren(parent)) ?? []) {
    const item = await hoveredItem(api, node);
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    const open =
      item.collapsibleState === vscode.TreeItemCollapsibleState.Expanded ? !expanded.has(`-${node.id}`) : item.collapsibleState === vscode.TreeItemCollapsibleState.Collapsed && expanded.has(node.id);
    result.push({ node, item, label, children: open ? await rows(expanded, node) : [] });
  }
  return result;
}

function flatten(list: Row[]): Row[] {
  return list.flatMap((r) => [r, ...flatten(r.children)]);
}

function readLog(file: string): ChaosRecord[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ChaosRecord);
}

/** Alive and not a zombie (an orphan whose reaper has not reaped it is gone for our purposes). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

class ChaosRun {
  readonly store = tempDir('acp-chaos-store-');
  readonly log = join(tempDir('acp-chaos-log-'), 'chaos.jsonl');
  readonly expanded = new Set<string>();
  /** Archived state each session must have in the store (undefined: an operation's outcome is unknown). */
  readonly expectedArchived = new Map<string, boolean | undefined>();
  readonly seeded: StoredSession[];
  agent = '';
  steps: { step: number; kind: StepKind; target?: string; outcome: string; faults: string[] }[] = [];
  checks = 0;
  private random = prng(SEED);

  constructor() {
    this.seeded = seededSessions(workspaceFolder());
    for (const s of this.seeded) this.expectedArchived.set(s.sessionId, s.archived);
  }

  async start(): Promise<void> {
    for (const s of this.seeded) await writeSession(this.store, s);
    writeFileSync(this.log, '');
    const flags = ['--page-size', '3', '--chaos-seed', String(SEED), '--chaos-log', this.log, '--chaos-rate', '0.25'];
    if (FAULTS) flags.push('--chaos-faults', FAULTS);
    this.agent = await configureAgent(api, `Chaos agent ${SEED}`, process.execPath, [agentScript, '--store', this.store, ...flags]);
  }

  faults(): ChaosRecord[] {
    return readLog(this.log).filter((r) => r.event !== 'start');
  }

  /** The step's target: drawn once per step whether or not it is used, so the draws stay in step with the seed. */
  private targetDraw = 0;

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.targetDraw * items.length)];
  }

  /** What the tree shows now, and what in it is still under way (empty when settled). */
  async observe(): Promise<{ tree: Row[]; busy: string[] }> {
    const tree = await rows(this.expanded);
    const busy: string[] = [];
    for (const r of flatten(tree)) {
      if (r.item.contextValue === 'message:loading' || r.label === 'Loading more…') busy.push(`row "${r.label}" (${r.node.id})`);
    }
    const state = api.agents.agent(this.agent)?.state.kind;
    if (state === 'starting' || state === 'idle') busy.push(`the agent is ${state}`);
    for (const list of api.sessions.model.allLists(this.agent)) if (list.busy) busy.push(`list ${list.section} is being fetched`);
    const client = api.agents.connectedClient(this.agent);
    for (const p of client?.pendingRequests ?? []) {
      busy.push(`${p.method} pending for ${p.ageMs} ms`);
      // Precise: a request older than its deadline means the client never gives up on a silent agent.
      assert.ok(
        p.ageMs <= REQUEST_TIMEOUT_MS + DEADLINE_SLACK_MS,
        `${p.method} has been pending for ${p.ageMs} ms, past its deadline (acpSessions.requestTimeout ${REQUEST_TIMEOUT_MS} ms): ` +
          `the client sets a deadline on initialize only (issue 11 item 4). Faults so far: ${this.faultSummary()}`,
      );
    }
    return { tree, busy };
  }

  /** Waits until nothing in the tree is loading and the step's command has finished. */
  async settle(what: string, command?: Promise<unknown>): Promise<Row[]> {
    let finished = command === undefined;
    let failure: unknown;
    command?.then(
      () => (finished = true),
      (error) => {
        finished = true;
        failure = error;
      },
    );
    const deadline = Date.now() + SETTLE_MS;
    for (;;) {
      const { tree, busy } = await this.observe();
      if (finished && busy.length === 0) {
        if (failure) throw new Error(`${what}: the command failed: ${(failure as Error)?.stack ?? failure}`);
        return tree;
      }
      if (Date.now() > deadline) {
        throw new Error(`${what}: not settled within ${SETTLE_MS} ms: ${[...(finished ? [] : ['the command has not finished']), ...busy].join('; ')}. Faults so far: ${this.faultSummary()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  faultSummary(): string {
    const byKind = new Map<string, number>();
    for (const f of this.faults()) byKind.set(f.kind!, (byKind.get(f.kind!) ?? 0) + 1);
    return [...byKind].map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  }

  /** Every check, on a settled tree. */
  async check(tree: Row[], when: string): Promise<void> {
    this.checks++;
    const stored = new Map((await listStoredSessions(this.store)).map((s) => [s.sessionId, s]));
    const folder = workspaceFolder();
    const agentRow = tree.find((r) => r.node?.name === this.agent);
    assert.ok(agentRow, `${when}: the agent is in the tree`);
    const client = api.agents.connectedClient(this.agent);

    // Nothing shown that the store lacks, and each in the section the store says.
    for (const row of flatten(agentRow.children)) {
      const session = row.node?.session;
      if (!session) continue;
      const record = stored.get(session.sessionId);
      assert.ok(record && !record.deleted, `${when}: the tree shows ${session.sessionId}, which the store does not have`);
      assert.equal(record.cwd, folder, `${when}: the tree shows ${session.sessionId} of another folder (${record.cwd})`);
      const section = row.node.section as 'active' | 'archived';
      assert.equal(
        section === 'archived',
        record.archived,
        `${when}: ${session.sessionId} is shown under ${section} but the store has it ${record.archived ? 'archived' : 'active'}`,
      );
    }

    // Nothing the store has that a finished list (loaded from this client, no more pages, open in the tree) misses.
    for (const sectionRow of agentRow.children.filter((r) => r.node?.section && r.children.length > 0)) {
      const list = api.sessions.model.list(this.agent, sectionRow.node.section, folder);
      if (list.status !== 'loaded' || list.hasMore || list.loadedFrom !== client || !client) continue;
      const shown = new Set(flatten(sectionRow.children).map((r) => r.node?.session?.sessionId).filter(Boolean));
      for (const record of stored.values()) {
        if (record.deleted || record.cwd !== folder || record.archived !== (list.section === 'archived')) continue;
        assert.ok(shown.has(record.sessionId), `${when}: the finished ${list.section} list misses ${record.sessionId}, which the store has`);
      }
    }

    // Data lost: every seeded session is still in the store, whole, in the state the operations left it.
    assert.equal(this.dataLost(stored), 0, `${when}: data lost: ${this.lostDetail(stored)}`);

    // No leaked process: only the connected agent and its child may run.
    await this.checkProcesses(when, client?.pid);
  }

  dataLost(stored: Map<string, StoredSession>): number {
    return this.seeded.filter((s) => !this.intact(s, stored.get(s.sessionId))).length;
  }

  private intact(seed: StoredSession, record: StoredSession | undefined): boolean {
    if (!record || record.deleted || record.updates.length !== seed.updates.length) return false;
    const expected = this.expectedArchived.get(seed.sessionId);
    return expected === undefined || record.archived === expected;
  }

  private lostDetail(stored: Map<string, StoredSession>): string {
    return this.seeded
      .filter((s) => !this.intact(s, stored.get(s.sessionId)))
      .map((s) => `${s.sessionId}: ${JSON.stringify(stored.get(s.sessionId) && { ...stored.get(s.sessionId), updates: stored.get(s.sessionId)!.updates.length })}`)
      .join('; ');
  }

  /** Pids of agent processes and their children that should be gone by now. */
  strayProcesses(currentPid: number | undefined): string[] {
    const stray: string[] = [];
    for (const start of readLog(this.log).filter((r) => r.event === 'start')) {
      if (start.pid === currentPid) continue;
      if (alive(start.pid)) stray.push(`agent process ${start.pid} (start #${start.process})`);
      if (start.child && alive(start.child)) {
        stray.push(`process ${start.child}, the child of agent process ${start.pid} (start #${start.process}, ${alive(start.pid) ? 'still running' : 'ended'})`);
      }
    }
    return stray;
  }

  async checkProcesses(when: string, currentPid: number | undefined): Promise<void> {
    const deadline = Date.now() + KILL_GRACE_MS + PROCESS_SLACK_MS;
    for (;;) {
      const stray = this.strayProcesses(currentPid);
      if (stray.length === 0) return;
      if (Date.now() > deadline) {
        assert.fail(
          `${when}: leaked processes ${KILL_GRACE_MS + PROCESS_SLACK_MS} ms after their agent was replaced or ended: ${stray.join('; ')}. ` +
            'A child that outlives its agent means the process group was not ended once the agent itself had exited (issue 11 item 6b).',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Settles once the agent has gone through a new start (whether it connected or failed). */
  restarted(): Promise<void> {
    return new Promise((resolve) => {
      let starting = false;
      const subscription = api.agents.onDidChangeState((agent) => {
        if (agent.name !== this.agent) return;
        if (agent.state.kind === 'starting') starting = true;
        else if (starting) {
          subscription.dispose();
          resolve();
        }
      });
    });
  }

  /** Chooses and runs one step, prints what it did and returns the settled tree. */
  async step(n: number, tree: Row[]): Promise<Row[]> {
    const all = flatten(tree);
    const sessionRows = (section: string) => all.filter((r) => r.node?.session && r.node.section === section);
    const loadMore = all.filter((r) => r.item.contextValue === 'loadMore' && r.item.command);
    const retry = all.filter((r) => r.item.contextValue === 'retry');
    // Two draws per step, always, so the seed's draws never shift; a step whose target is not in
    // the tree (no Load more, no Retry, the agent down) is a Refresh, as a user would do.
    const drawn = STEP_KINDS[Math.floor(this.random() * STEP_KINDS.length)];
    this.targetDraw = this.random();
    const available: Record<StepKind, boolean> = {
      refresh: true,
      expand: true,
      restart: true,
      loadMore: loadMore.length > 0,
      retry: retry.length > 0,
      archive: sessionRows('active').length > 0,
      unarchive: sessionRows('archived').length > 0,
      open: sessionRows('active').length + sessionRows('archived').length > 0,
    };
    const kind: StepKind = available[drawn] ? drawn : 'refresh';
    const before = this.faults().length;
    let target: string | undefined;
    let command: Promise<unknown> | undefined;
    let outcome = 'done';
    const archivedSection = tree.find((r) => r.node?.name === this.agent)?.children.find((r) => r.node?.section === 'archived');
    switch (kind) {
      case 'refresh':
        command = Promise.resolve(vscode.commands.executeCommand('acpSessions.refresh'));
        break;
      case 'restart':
        // Not the command's promise: a failed restart waits for the user's answer to its notification.
        command = this.restarted();
        void vscode.commands.executeCommand('acpSessions.restartAgent', this.agent);
        break;
      case 'expand':
        if (archivedSection) {
          target = archivedSection.node.id;
          if (this.expanded.has(archivedSection.node.id)) this.expanded.delete(archivedSection.node.id);
          else this.expanded.add(archivedSection.node.id);
          outcome = this.expanded.has(archivedSection.node.id) ? 'expanded' : 'collapsed';
        } else outcome = 'no Archived section';
        break;
      case 'loadMore': {
        const row = this.pick(loadMore);
        target = row.node.id;
        command = Promise.resolve(vscode.commands.executeCommand('acpSessions.loadMore', row.node));
        break;
      }
      case 'retry': {
        const row = this.pick(retry);
        target = row.node.id;
        // An agent's Retry is a restart: not awaited, as above.
        if ('list' in row.node.target) command = Promise.resolve(vscode.commands.executeCommand('acpSessions.retry', row.node));
        else {
          command = this.restarted();
          void vscode.commands.executeCommand('acpSessions.retry', row.node);
        }
        break;
      }
      case 'archive':
      case 'unarchive': {
        const row = this.pick(sessionRows(kind === 'archive' ? 'active' : 'archived'));
        const id: string = row.node.session.sessionId;
        target = id;
        // Until the command answers, the store may or may not have changed.
        this.expectedArchived.set(id, undefined);
        command = Promise.resolve(vscode.commands.executeCommand<{ done: unknown[]; gone: unknown[]; failed: unknown[] }>(`acpSessions.${kind}`, row.node)).then(
          (summary) => {
            outcome = summary.done.length ? 'done' : summary.gone.length ? 'gone (-32002)' : 'failed';
            // Done: the store must say so from now on; failed or gone: it may have changed before the fault.
            if (summary.done.length) this.expectedArchived.set(id, kind === 'archive');
          },
        );
        break;
      }
      case 'open': {
        const row = this.pick([...sessionRows('active'), ...sessionRows('archived')]);
        const id: string = row.node.session.sessionId;
        target = id;
        command = Promise.resolve(vscode.commands.executeCommand('acpSessions.openTranscript', row.node)).then(async () => {
          const state = await until(`the transcript of ${id} has loaded or failed`, () => {
            const s = api.transcripts.getState(this.agent, id);
            return s && s.loaded && !s.loading ? s : undefined;
          }, SETTLE_MS);
          if (state.problem) outcome = `problem: ${state.problem.kind}`;
          else {
            // Data lost: a transcript that loaded without a problem holds every stored update.
            const seed = this.seeded.find((s) => s.sessionId === id)!;
            assert.equal(state.updateCount, seed.updates.length, `step ${n}: the transcript of ${id} loaded ${state.updateCount} of ${seed.updates.length} updates`);
            outcome = `${state.updateCount} updates`;
          }
          await closeAllTranscripts(api);
        });
        break;
      }
    }
    const settled = await this.settle(`step ${n} (${kind}${target ? ` ${target}` : ''})`, command);
    const faults = this.faults()
      .slice(before)
      .map((f) => f.kind!);
    this.steps.push({ step: n, kind, target, outcome, faults });
    print(`  chaos step ${n}: ${kind}${target ? ` ${target}` : ''} -> ${outcome}${faults.length ? ` [faults: ${faults.join(', ')}]` : ''}`);
    return settled;
  }

  figures(passed: boolean) {
    const faults = this.faults();
    const byKind: Record<string, number> = {};
    for (const f of faults) byKind[f.kind!] = (byKind[f.kind!] ?? 0) + 1;
    const starts = readLog(this.log).filter((r) => r.event === 'start');
    return {
      seed: SEED,
      steps: this.steps.length,
      checks: this.checks,
      faultsInjected: faults.length,
      faultsSurvived: passed ? faults.length : 0,
      byKind,
      agentProcesses: starts.length,
      processesLeaked: this.strayProcesses(api.agents.connectedClient(this.agent)?.pid).length,
    };
  }
}

suite('Chaos', () => {
  let run: ChaosRun;

  suiteSetup(async () => {
    api = await activateExtension();
    await config().update('scope', 'workspace', vscode.ConfigurationTarget.Global);
    await config().update('groupByDate', false, vscode.ConfigurationTarget.Global);
    await config().update('pageSize', 4, vscode.ConfigurationTarget.Global);
    await config().update('requestTimeout', REQUEST_TIMEOUT_MS, vscode.ConfigurationTarget.Global);
    await config().update('maxMessageSize', 1_048_576, vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async () => {
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    // A failed run must not leave its strays on the machine (they are in their agent's process group, not ours).
    if (run) for (const start of readLog(run.log).filter((r) => r.event === 'start')) for (const pid of [start.pid, start.child]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    for (const key of ['scope', 'groupByDate', 'pageSize', 'requestTimeout', 'maxMessageSize']) {
      await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    }
    removeTempDirs();
  });

  test(`seed ${SEED}: after every step the tree matches the store, no request outlives its deadline, no process leaks`, async function () {
    print(`  chaos seed ${SEED} (reproduce: ACP_CHAOS_SEED=${SEED} npm run test:chaos), ${STEPS} steps${FAULTS ? `, faults ${FAULTS}` : ''}`);
    this.timeout(STEPS * (SETTLE_MS + 10_000) + 60_000);
    run = new ChaosRun();
    await run.start();
    let passed = false;
    try {
      let tree = await run.settle('the first listing');
      await run.check(tree, 'after the first listing');
      for (let n = 1; n <= STEPS; n++) {
        tree = await run.step(n, tree);
        await run.check(tree, `after step ${n} (${run.steps[run.steps.length - 1].kind})`);
      }
      await finalCheck(run);
      passed = true;
    } finally {
      const figures = { ...run.figures(passed), dataLost: run.dataLost(new Map((await listStoredSessions(run.store)).map((s) => [s.sessionId, s]))) };
      print(`  CHAOS_FIGURES ${JSON.stringify(figures)}`);
      if (process.env.ACP_CHAOS_FIGURES) appendFileSync(process.env.ACP_CHAOS_FIGURES, JSON.stringify(figures) + '\n');
    }
  });
});

/**
 * The same store through a calm agent (no chaos), every section expanded and paged to the end:
 * the tree lists exactly what the store holds, so nothing the chaos did was lost or hidden. Then
 * the agents are removed and no process of any of them may remain.
 */
async function finalCheck(run: ChaosRun): Promise<void> {
  const calm = await configureAgent(api, `Calm agent ${SEED}`, process.execPath, [agentScript, '--store', run.store, '--page-size', '3']);
  await run.checkProcesses('after the chaos agent was replaced by a calm one', undefined);
  const expanded = new Set<string>([`agent:${calm}/section:archived`]);
  const folder = workspaceFolder();
  const shown = await until(
    'the calm agent lists both sections to the end',
    async () => {
      // A start that timed out on a loaded machine is retried, as the user would with Refresh.
      const state = api.agents.agent(calm)?.state.kind;
      if (state === 'failed') void vscode.commands.executeCommand('acpSessions.refresh');
      // Reading the tree is what starts an idle agent, as VS Code's fetch would.
      const tree = await rows(expanded);
      if (state !== 'connected') return undefined;
      const all = flatten(tree);
      if (all.some((r) => r.item.contextValue === 'message:loading' || r.label === 'Loading more…')) return undefined;
      const more = all.find((r) => r.item.contextValue === 'loadMore' && r.item.command);
      if (more) {
        await vscode.commands.executeCommand('acpSessions.loadMore', more.node);
        return undefined;
      }
      return all.filter((r) => r.node?.session).map((r) => `${r.node.section}:${r.node.session.sessionId}`);
    },
    SETTLE_MS * 3,
  );
  const stored = (await listStoredSessions(run.store)).filter((s) => !s.deleted && s.cwd === folder);
  const expected = stored.map((s) => `${s.archived ? 'archived' : 'active'}:${s.sessionId}`);
  assert.deepEqual([...shown].sort(), expected.sort(), 'a calm agent lists exactly what the store holds');
  await config().update('agents', [], vscode.ConfigurationTarget.Global);
  await until('no agent is configured', () => api.agents.agents.length === 0);
  await run.checkProcesses('after every agent was removed', undefined);
}
