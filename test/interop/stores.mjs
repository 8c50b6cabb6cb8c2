#!/usr/bin/env node
// Fabricates the on-disk session stores of real agents in a (temporary) HOME, in the formats
// the agents read: Claude Code's ~/.claude/projects/<cwd>/<uuid>.jsonl and Codex's
// ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl. Used by the interop tests and by the demo
// (`node test/interop/stores.mjs --home DIR --cwd DIR` writes a small realistic set).
import { randomUUID } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Claude Code keeps a folder per working directory: every non-alphanumeric becomes '-'. */
export function claudeProjectDir(home, cwd) {
  return join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
}

/**
 * Writes one Claude Code transcript. `turns` are [user, assistant] text pairs; `compactedAfter`
 * (a turn count) puts a compaction there: a `compact_boundary` record followed by the
 * `isCompactSummary` user message carrying `summary`, framed as Claude Code persists it.
 * `title` becomes a `summary` record (Claude's stored title). The file's mtime and the last
 * record's timestamp are `updatedAt`, which is what claude-agent-acp lists. Returns the file's path.
 */
export function writeClaudeSession(home, { sessionId, cwd, title, updatedAt, turns, compactedAfter, summary }) {
  const dir = claudeProjectDir(home, cwd);
  mkdirSync(dir, { recursive: true });
  const end = Date.parse(updatedAt);
  // One minute per record, the last one at `updatedAt`: claude's AIR session index dates a session by its last record, not the mtime.
  const compacted = compactedAfter !== undefined && compactedAfter < turns.length;
  let clock = end - (turns.length * 2 + (compacted ? 2 : 0)) * 60_000;
  const at = () => new Date((clock += 60_000)).toISOString();
  const common = () => ({ isSidechain: false, userType: 'external', cwd, sessionId, version: '2.1.0', gitBranch: 'main', timestamp: at() });
  const records = [];
  let parent = null;
  const push = (record) => {
    records.push(record);
    parent = record.uuid;
  };
  const user = (text, extra = {}) => push({ ...common(), parentUuid: parent, type: 'user', message: { role: 'user', content: text }, uuid: randomUUID(), ...extra });
  const assistant = (text) => {
    const uuid = randomUUID();
    push({
      ...common(), parentUuid: parent, type: 'assistant', uuid, requestId: `req_${uuid.slice(0, 12)}`,
      message: {
        id: `msg_${uuid.slice(0, 12)}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null,
        usage: { input_tokens: 1200, output_tokens: 80 },
      },
    });
  };
  turns.forEach(([question, answer], index) => {
    if (index === compactedAfter) {
      const boundary = {
        ...common(), parentUuid: null, logicalParentUuid: parent, type: 'system', subtype: 'compact_boundary',
        content: 'Conversation compacted', isMeta: false, level: 'info',
        compactMetadata: { trigger: 'manual', preTokens: 48_000 }, uuid: randomUUID(),
      };
      push(boundary);
      user(
        'This session is being continued from a previous conversation that ran out of context. ' +
          `The summary below covers the earlier portion of the conversation.\n\nSummary:\n${summary}\n\n` +
          'If you need specific details from before compaction (like exact code snippets, error messages, or content you generated), ' +
          `read the full transcript at: ${join(dir, `${sessionId}.jsonl`)}`,
        { isCompactSummary: true, isVisibleInTranscriptOnly: true },
      );
    }
    user(question);
    assistant(answer);
  });
  if (title) records.push({ type: 'summary', summary: title, leafUuid: parent });
  const file = join(dir, `${sessionId}.jsonl`);
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  utimesSync(file, new Date(end), new Date(end));
  return file;
}

/** Codex starts only once ~/.codex/auth.json holds an API key; any key will do offline. */
export function writeCodexAuth(home) {
  mkdirSync(join(home, '.codex'), { recursive: true });
  writeFileSync(join(home, '.codex', 'auth.json'), JSON.stringify({ OPENAI_API_KEY: 'sk-offline-interop-test' }));
}

/**
 * Writes one Codex rollout (a `session_meta` line, then per turn the model's items and the
 * UI events). Codex titles a thread by its first user message and dates it by the file's
 * mtime, set to `updatedAt`. Returns the file's path.
 */
export function writeCodexSession(home, { sessionId, cwd, startedAt, updatedAt, turns }) {
  const [date] = startedAt.split('T');
  const [year, month, day] = date.split('-');
  const dir = join(home, '.codex', 'sessions', year, month, day);
  mkdirSync(dir, { recursive: true });
  const stamp = startedAt.replace(/\.\d+Z$/, '').replace(/Z$/, '').replace(/:/g, '-');
  const file = join(dir, `rollout-${stamp}-${sessionId}.jsonl`);
  let clock = Date.parse(startedAt);
  const at = () => new Date((clock += 1000)).toISOString();
  const lines = [{
    timestamp: startedAt, type: 'session_meta',
    payload: { id: sessionId, timestamp: startedAt, cwd, originator: 'codex_cli_rs', cli_version: '0.166.0', instructions: null, source: 'cli', model_provider: 'openai' },
  }];
  for (const [question, answer] of turns) {
    lines.push({ timestamp: at(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: question }] } });
    lines.push({ timestamp: at(), type: 'event_msg', payload: { type: 'user_message', message: question, images: [] } });
    lines.push({ timestamp: at(), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] } });
    lines.push({ timestamp: at(), type: 'event_msg', payload: { type: 'agent_message', message: answer } });
  }
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const end = new Date(updatedAt ?? clock);
  utimesSync(file, end, end);
  return file;
}

/** A small, realistic Claude store for the demo: a few sessions in `cwd`, one of them compacted. */
export function writeClaudeDemoStore(home, cwd, now = Date.now()) {
  const ago = (hours) => new Date(now - hours * 3_600_000).toISOString();
  const sessions = [
    {
      title: 'Fix the flaky login test', updatedAt: ago(1), compactedAfter: 2,
      summary: 'The login test failed one run in five because the session cookie expired during the test. ' +
        'We traced it to a 1-second clock skew in the fake timer, pinned the timer, and removed the retry wrapper.',
      turns: [
        ['The login test is flaky, can you look?', 'It fails when the cookie expires mid-test; the fake timer drifts.'],
        ['Pin the timer then.', 'Done: `useFakeTimers({ now: 0 })` in the setup.'],
        ['Does it pass 50 times in a row now?', 'Yes, 50 of 50 runs passed.'],
        ['Remove the retry wrapper too.', 'Removed; the test is now a plain `it`.'],
      ],
    },
    {
      title: 'Add pagination to the users API', updatedAt: ago(26),
      turns: [
        ['Add cursor pagination to GET /users.', 'Added `cursor` and `limit` query parameters and a `nextCursor` field.'],
        ['Document it in the README.', 'The README has a new "Pagination" section with an example.'],
      ],
    },
    {
      title: 'Why is the build slow?', updatedAt: ago(24 * 5),
      turns: [['The build takes 4 minutes, why?', 'Type checking runs twice: once in the bundler and once in `tsc`. Drop one.']],
    },
  ];
  return sessions.map((s) => writeClaudeSession(home, { sessionId: randomUUID(), cwd, ...s }));
}

// Run as a program (not when bundled into a test under out/).
if (process.argv[1] && /[\\/]test[\\/]interop[\\/]stores\.mjs$/.test(resolve(process.argv[1]))) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const home = arg('--home');
  const cwd = arg('--cwd');
  if (!home || !cwd) {
    console.error('usage: node test/interop/stores.mjs --home DIR --cwd /abs/folder   (writes a Claude demo store)');
    process.exit(2);
  }
  for (const file of writeClaudeDemoStore(resolve(home), resolve(cwd))) console.log(file);
}
