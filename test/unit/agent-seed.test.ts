// The seeded store: deterministic, realistic, every compaction kind, and valid on the wire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import { seedMany, seedStore } from '../agent/seed';
import { listStoredSessions } from '../agent/store';
import { tempStore } from '../agent/fixtures';
import { listAll, RawAgent } from '../agent/rawClient';

const folders = ['/work/demo/app', '/work/demo/lib'];
const now = new Date('2026-02-01T09:00:00Z');
const DAY = 86_400_000;

const byId = <T extends { sessionId: string }>(sessions: T[]) => [...sessions].sort((a, b) => (a.sessionId < b.sessionId ? -1 : 1));

test('the same seed and now write the same store; another seed writes another', async (t) => {
  const [a, b, c] = [await tempStore(t), await tempStore(t), await tempStore(t)];
  await seedStore({ store: a, folders, seed: 7, now });
  await seedStore({ store: b, folders, seed: 7, now });
  await seedStore({ store: c, folders, seed: 8, now });
  assert.deepEqual(byId(await listStoredSessions(a)), byId(await listStoredSessions(b)));
  assert.notDeepEqual(byId(await listStoredSessions(a)), byId(await listStoredSessions(c)));
});

test('the seeded store spreads a few dozen sessions over both folders and weeks, some archived', async (t) => {
  const store = await tempStore(t);
  const { sessions, special } = await seedStore({ store, folders, now });
  assert.equal(sessions.length, 36);
  for (const folder of folders) {
    const here = sessions.filter((s) => s.cwd === folder);
    assert.ok(here.some((s) => s.archived) && here.some((s) => !s.archived), `${folder} has archived and active sessions`);
  }
  const ages = sessions.map((s) => (now.getTime() - Date.parse(s.updatedAt)) / DAY);
  assert.ok(ages.some((d) => d < 1), 'some from today');
  assert.ok(ages.some((d) => d >= 1 && d < 2), 'some from yesterday');
  assert.ok(ages.some((d) => d > 28), 'some weeks old');
  assert.ok(ages.every((d) => d >= 0), 'none in the future');
  const [first, second] = special.sameTime.map((id) => sessions.find((s) => s.sessionId === id)!);
  assert.equal(first.updatedAt, second.updatedAt, 'two sessions share an updatedAt (tie-break)');
  assert.equal(sessions.find((s) => s.sessionId === special.untitled)?.title, undefined);
  for (const id of special.bothFolders) {
    const s = sessions.find((x) => x.sessionId === id)!;
    assert.deepEqual([s.cwd, ...(s.additionalDirectories ?? [])].sort(), folders, `${id} references both folders`);
  }
  assert.equal(new Set(sessions.map((s) => s.title).filter((title) => title !== undefined)).size, sessions.length - 1, 'titles are distinct (one session has none)');
});

test('the seeded transcripts hold messages, thoughts, tool calls with updates, a plan, usage and unknown kinds', async (t) => {
  const store = await tempStore(t);
  const { sessions } = await seedStore({ store, folders, now });
  const kinds = new Set(sessions.flatMap((s) => s.updates.map((u) => u.sessionUpdate)));
  for (const kind of ['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan', 'usage_update', 'session_info_update', 'compaction_update', 'compaction_summary_chunk', 'checkpoint_created', '_acme_telemetry']) {
    assert.ok(kinds.has(kind), kind);
  }
  const all = JSON.stringify(sessions.map((s) => s.updates));
  assert.ok(all.includes('```ts\\n'), 'Markdown code blocks');
  for (const status of ['completed', 'failed']) assert.ok(all.includes(`"status":"${status}"`), `tool status ${status}`);
  assert.ok(all.includes('"type":"diff"') && all.includes('"locations":[{"path":"/work/demo/'), 'diffs and locations');
});

test('the compaction showcase holds every kind of compaction', async (t) => {
  const store = await tempStore(t);
  const { sessions, special } = await seedStore({ store, folders, now });
  const updates = sessions.find((s) => s.sessionId === special.compactions)!.updates as Array<Record<string, any>>;
  const byCompaction = new Map<string, Array<Record<string, any>>>();
  for (const u of updates) if (u.compactionId) byCompaction.set(u.compactionId, [...(byCompaction.get(u.compactionId) ?? []), u]);
  const shapes = [...byCompaction.values()].map((us) => us.map((u) => (u.sessionUpdate === 'compaction_summary_chunk' ? 'chunk' : u.status + (u.summary === undefined ? '' : Array.isArray(u.summary) ? (u.summary.length ? '+summary' : '+[]') : '+null') + (u.error ? '+error' : ''))).filter((s, i, a) => s !== 'chunk' || a[i - 1] !== 'chunk'));
  const has = (shape: string[]) => shapes.some((s) => JSON.stringify(s) === JSON.stringify(shape));
  assert.ok(has(['in_progress', 'chunk', 'completed']), 'streamed summary then completed');
  assert.ok(has(['completed+summary']), 'completed with summary only');
  assert.ok(has(['in_progress', 'chunk', 'completed+summary']), 'replacement after chunks');
  assert.ok(has(['in_progress', 'chunk', 'completed+[]']), 'cleared with summary: []');
  assert.ok(has(['in_progress', 'chunk', 'failed+error']), 'failed with error after partial output');
  assert.ok(has(['in_progress', 'chunk', 'cancelled']), 'cancelled');
  assert.ok(has(['in_progress', '_vendor_status']), 'unknown _vendor_status');
  assert.ok(has(['in_progress', 'chunk', 'completed', 'chunk']), 'chunks after terminal');
  assert.ok(has(['in_progress+summary', 'completed+null']), 'summary cleared with null');
});

test('the hostile session carries script tags, event handlers, javascript: links and remote images', async (t) => {
  const store = await tempStore(t);
  const { sessions, special } = await seedStore({ store, folders, now });
  const hostile = sessions.find((s) => s.sessionId === special.hostile)!;
  assert.match(hostile.title!, /<script>/);
  // Messages are streamed in chunks, so an attack may span several: join them first.
  const text = hostile.updates.map((u) => (u as { content?: { text?: string } }).content?.text ?? JSON.stringify(u)).join('');
  for (const attack of ['<script>alert(1)</script>', 'onerror=alert(2)', '](javascript:alert(3))', '![tracking pixel](https://tracker.example.com/', 'JAVASCRIPT:', 'data:text/html', '<iframe', 'onload=alert(5)']) {
    assert.ok(text.includes(attack), attack);
  }
});

test('every message the agent sends for the seeded store validates against the SDK v1 schema, except the deliberately unknown update kinds', async (t) => {
  const store = await tempStore(t);
  const { sessions } = await seedStore({ store, folders, now, subagents: true });
  const require = createRequire(import.meta.url);
  const schema = JSON.parse(readFileSync(require.resolve('@agentclientprotocol/sdk/schema/v1/schema.unstable.json'), 'utf8'));
  const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as new (o: object) => any;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema(schema, 'acp');
  const validator = (def: string) => ajv.getSchema(`acp#/$defs/${def}`)!;
  const check = (def: string, value: unknown, what: string) => {
    const validate = validator(def);
    assert.ok(validate(value), `${what} is not a valid ${def}: ${ajv.errorsText(validate.errors)}`);
  };
  const knownKinds = new Set(schema.$defs.SessionUpdate.oneOf.map((v: any) => v.properties.sessionUpdate.const));

  const agent = RawAgent.start(['--store', store, '--page-size', '10']);
  t.after(() => agent.close());
  // Compaction and subagents advertised: every stored update is replayed as stored.
  const initialize = { protocolVersion: 1, clientCapabilities: { session: { compaction: {} }, subagents: {} }, clientInfo: { name: 'agent-tests', version: '0' } };
  check('InitializeResponse', await agent.initialize(initialize), 'initialize response');
  for (const archived of ['exclude', 'only']) {
    const result = await agent.call('session/list', { archived });
    check('ListSessionsResponse', result, `list (${archived})`);
  }
  assert.equal((await listAll(agent, { archived: 'include' })).length, sessions.length);
  let unknown = 0;
  for (const s of sessions) {
    const from = agent.updates().length;
    check('LoadSessionResponse', await agent.call('session/load', { sessionId: s.sessionId, cwd: s.cwd, mcpServers: [] }), 'load response');
    const sent = agent.stdout.filter((e) => e.kind === 'notification').slice(from);
    assert.equal(sent.length, s.updates.length, `${s.sessionId}: every update replayed`);
    for (const { message } of sent as Array<{ message: { params: { update: { sessionUpdate: string } } } }>) {
      if (!knownKinds.has(message.params.update.sessionUpdate)) {
        unknown++;
        continue;
      }
      check('SessionNotification', message.params, `${s.sessionId} ${message.params.update.sessionUpdate}`);
    }
  }
  assert.ok(unknown > 0, 'the unknown kinds were replayed too');
});

test('the seed command writes a store and says how many sessions it wrote', async (t) => {
  const store = await tempStore(t);
  const seedPath = fileURLToPath(new URL('../agent/seed.mjs', import.meta.url));
  const run = spawnSync(process.execPath, [seedPath, '--store', store, '--folders', folders.join(','), '--count', '12', '--seed', '3'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /seeded 12 sessions \(\d+ archived\)/);
  assert.equal((await readdir(store)).filter((n) => n.endsWith('.json')).length, 12);
  const bad = spawnSync(process.execPath, [seedPath, '--store', store, '--folders', 'relative/path'], { encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /folder "relative\/path" is not absolute/);
});

test('seed --many: N sessions with distinct ids and titles, folders in turn (missing ones too), dates over the days, some archived, the same for the same seed', async (t) => {
  const [a, b] = [await tempStore(t), await tempStore(t)];
  const options = { count: 120, folders, missingFolders: ['/work/demo/gone'], days: 90, seed: 4, now };
  const written = await seedMany({ store: a, ...options });
  await seedMany({ store: b, ...options });
  const stored = await listStoredSessions(a);
  assert.deepEqual(byId(stored), byId(await listStoredSessions(b)));
  assert.equal(stored.length, 120);
  assert.equal(new Set(stored.map((s) => s.title)).size, 120);
  for (const [i, s] of written.entries()) assert.equal(s.cwd, [...folders, '/work/demo/gone'][i % 3]);
  const ages = stored.map((s) => now.getTime() - Date.parse(s.updatedAt));
  assert.ok(ages.every((ms) => ms > 0 && ms <= 90 * DAY));
  assert.ok(Math.max(...ages) > 60 * DAY && Math.min(...ages) < 30 * DAY, 'spread over the days');
  const archived = stored.filter((s) => s.archived).length;
  assert.ok(archived > 5 && archived < 60, `${archived} archived`);
});
