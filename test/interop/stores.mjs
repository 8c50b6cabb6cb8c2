#!/usr/bin/env node
// Fabricates the on-disk session stores of real agents in a (temporary) HOME, in the formats
// the agents read: Claude Code's ~/.claude/projects/<cwd>/<uuid>.jsonl, Codex's
// ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, Qwen Code's ~/.qwen/projects/<cwd>/chats/<uuid>.jsonl
// Gemini CLI's ~/.gemini/tmp/<slug>/chats/session-*.jsonl, OpenCode's export files (which
// `opencode import` reads into its SQLite store) and Auggie's ~/.augment/sessions/<uuid>.json.
// Used by the interop tests and by the demo
// (`node test/interop/stores.mjs --home DIR --cwd DIR` writes a small realistic set).
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
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
 * mtime, set to `updatedAt`. `compactedAfter` (a turn count) puts a compaction there as codex
 * records one: a `compacted` item carrying `summary`, then a `context_compacted` event (the
 * line codex-acp 2.6.0 replays as a compaction). `turnIds`: each turn framed as current Codex CLIs
 * persist one (`task_started` with its `turn_id`, a `turn_context`, `task_complete`), which is what
 * codex needs to fork at a turn (a rollout without them has no "persisted canonical turn"). Returns
 * the file's path.
 */
export function writeCodexSession(home, { sessionId, cwd, startedAt, updatedAt, turns, compactedAfter, summary, turnIds = false }) {
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
  for (const [index, [question, answer]] of turns.entries()) {
    if (index === compactedAfter) {
      lines.push({ timestamp: at(), type: 'compacted', payload: { message: summary } });
      lines.push({ timestamp: at(), type: 'event_msg', payload: { type: 'context_compacted' } });
    }
    const turnId = `${sessionId.slice(0, 8)}-turn-${index + 1}`;
    if (turnIds) {
      lines.push({ timestamp: at(), type: 'event_msg', payload: { type: 'task_started', turn_id: turnId, model_context_window: 272000 } });
      lines.push({ timestamp: at(), type: 'turn_context', payload: { turn_id: turnId, cwd, approval_policy: 'never', sandbox_policy: { type: 'read-only' }, model: 'gpt-5-codex', summary: 'auto' } });
    }
    lines.push({ timestamp: at(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: question }] } });
    lines.push({ timestamp: at(), type: 'event_msg', payload: { type: 'user_message', message: question, images: [] } });
    lines.push({ timestamp: at(), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] } });
    lines.push({ timestamp: at(), type: 'event_msg', payload: { type: 'agent_message', message: answer } });
    if (turnIds) lines.push({ timestamp: at(), type: 'event_msg', payload: { type: 'task_complete', turn_id: turnId, last_agent_message: answer } });
  }
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const end = new Date(updatedAt ?? clock);
  utimesSync(file, end, end);
  return file;
}

/**
 * Qwen Code keeps a folder per working directory (every non-alphanumeric becomes '-', as Claude's),
 * with the transcripts in `chats/` (read from qwen-code 0.24.4's SessionService and Storage).
 */
export function qwenChatsDir(home, cwd) {
  return join(home, '.qwen', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'), 'chats');
}

/**
 * Writes one Qwen Code transcript: a chain of records (`uuid` / `parentUuid`), the first of which
 * names the session and its `cwd` (qwen lists a file only when that `cwd` is the folder asked for).
 * Messages are Gemini-style contents (`{ role, parts: [{ text }] }`, the answer's role `model`).
 * `compressedAfter` (a turn count) puts a `chat_compression` checkpoint there carrying `summary`,
 * as qwen persists one; `title` a `custom_title` record (what /rename writes). qwen lists a session
 * by its first prompt (or that title) and dates it by the file's mtime, set to `updatedAt`.
 */
export function writeQwenSession(home, { sessionId, cwd, title, updatedAt, turns, compressedAfter, summary }) {
  const dir = qwenChatsDir(home, cwd);
  mkdirSync(dir, { recursive: true });
  const end = Date.parse(updatedAt);
  let clock = end - (turns.length * 2 + 2) * 60_000;
  let parent = null;
  const records = [];
  const push = (type, fields) => {
    const uuid = randomUUID();
    records.push({ uuid, parentUuid: parent, sessionId, timestamp: new Date((clock += 60_000)).toISOString(), type, cwd, version: '0.24.4', gitBranch: 'main', ...fields });
    parent = uuid;
  };
  turns.forEach(([question, answer], index) => {
    if (index === compressedAfter) {
      push('system', {
        subtype: 'chat_compression',
        systemPayload: {
          info: { originalTokenCount: 48_000, newTokenCount: 1_200, compressionStatus: 1 },
          compressedHistory: [{ role: 'user', parts: [{ text: summary }] }, { role: 'model', parts: [{ text: 'Got it. Thanks for the additional context!' }] }],
        },
      });
    }
    push('user', { message: { role: 'user', parts: [{ text: question }] } });
    push('assistant', { model: 'qwen3-coder-plus', message: { role: 'model', parts: [{ text: answer }] } });
  });
  if (title) push('system', { subtype: 'custom_title', systemPayload: { customTitle: title, titleSource: 'manual' } });
  const file = join(dir, `${sessionId}.jsonl`);
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  utimesSync(file, new Date(end), new Date(end));
  return file;
}

/**
 * What lets qwen load a session offline: an OpenAI-compatible provider picked from the environment
 * (key, model and base URL all set), the URL a closed local port, so nothing can reach a model
 * provider. qwen answers session/load with -32000 "authentication required" without one.
 */
export const QWEN_OFFLINE_LOGIN = { OPENAI_API_KEY: 'sk-offline-interop-test', OPENAI_MODEL: 'qwen3-coder-plus', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };

/**
 * Writes one Gemini CLI session (JSONL: a metadata line, then one line per message; `type`
 * `user` or `gemini`) under ~/.gemini/tmp/<slug>/chats/, and the `.project_root` marker through
 * which gemini's project registry finds that folder for `cwd` (read from gemini-cli 0.61.0's
 * ProjectRegistry and SessionSelector). Returns the file's path.
 */
export function writeGeminiSession(home, { sessionId, cwd, startedAt, updatedAt, turns }) {
  const slug = 'interop-' + createHash('sha256').update(cwd).digest('hex').slice(0, 8);
  const base = join(home, '.gemini', 'tmp', slug);
  mkdirSync(join(base, 'chats'), { recursive: true });
  writeFileSync(join(base, '.project_root'), cwd);
  let clock = Date.parse(startedAt);
  const at = () => new Date((clock += 1000)).toISOString();
  const lines = [{ sessionId, projectHash: createHash('sha256').update(cwd).digest('hex'), startTime: startedAt, lastUpdated: updatedAt ?? startedAt, kind: 'main' }];
  turns.forEach(([question, answer, thought], index) => {
    lines.push({ id: `u${index}`, timestamp: at(), type: 'user', content: [{ text: question }] });
    lines.push({
      id: `g${index}`, timestamp: at(), type: 'gemini', content: [{ text: answer }], model: 'gemini-2.5-pro',
      ...(thought ? { thoughts: [{ subject: thought[0], description: thought[1], timestamp: at() }] } : {}),
    });
  });
  const file = join(base, 'chats', `session-${startedAt.slice(0, 16).replace(/:/g, '-')}-${sessionId.slice(0, 8)}.jsonl`);
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

/**
 * What lets gemini load a session offline: the API-key login chosen in its user settings (it
 * answers session/load with -32000 "authentication required" without one), a made-up key, the
 * API's base URL a closed local port, and no usage statistics, so nothing leaves the machine.
 * Returns the environment to start it with.
 */
export function writeGeminiOfflineLogin(home) {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
  }));
  return { GEMINI_API_KEY: 'offline-interop-test', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' };
}

/**
 * One session as OpenCode 1.18.33 exports it (`opencode export`) and `opencode import` reads it:
 * `{ info, messages: [{ info, parts }] }`, in the shapes of its message store (read from its
 * export of a session made by its ACP server, and from its `import` command). Each turn is a
 * user message (its prompt, and `context` as a `synthetic` text part: OpenCode's injected
 * context) and an assistant message (a step, `thought` as a reasoning part, each tool as a tool
 * part, completed or failed, then the answer). `compactedAfter` puts a compaction there as
 * OpenCode records one: a user message whose only part is `compaction`, answered by an assistant
 * message marked `summary: true` that carries `summary`. `parentID` makes it a subagent's session.
 */
export function openCodeExport({ sessionId, cwd, title, createdAt, updatedAt, parentID, turns, compactedAfter, summary }) {
  let clock = Date.parse(createdAt);
  let serial = 0;
  // Ascending ids as OpenCode's: a time-ordered hex prefix, then a fixed-length tail.
  const id = (prefix, at) => `${prefix}_${at.toString(16).padStart(12, '0')}${String(serial++).padStart(4, '0')}interopTest`;
  const messages = [];
  const tokens = { input: 1200, output: 80, reasoning: 0, cache: { read: 0, write: 0 } };
  const model = { providerID: 'opencode', modelID: 'big-pickle' };
  const user = (parts) => {
    const at = (clock += 60_000);
    const messageID = id('msg', at);
    messages.push({
      info: { id: messageID, sessionID: sessionId, role: 'user', time: { created: at }, agent: 'build', model },
      parts: parts.map((part) => ({ id: id('prt', at), sessionID: sessionId, messageID, ...part })),
    });
    return messageID;
  };
  const assistant = (parentID, parts, extra = {}) => {
    const at = (clock += 60_000);
    const messageID = id('msg', at);
    messages.push({
      info: {
        id: messageID, sessionID: sessionId, role: 'assistant', time: { created: at, completed: at + 5_000 }, parentID,
        modelID: model.modelID, providerID: model.providerID, mode: 'build', agent: 'build', path: { cwd, root: cwd }, cost: 0, tokens, finish: 'stop', ...extra,
      },
      parts: parts.map((part) => ({ id: id('prt', at), sessionID: sessionId, messageID, ...part })),
    });
  };
  turns.forEach((turn, index) => {
    if (index === compactedAfter) {
      const asked = user([{ type: 'compaction', auto: false }]);
      assistant(asked, [{ type: 'text', text: summary, time: { start: clock, end: clock + 1_000 } }], { summary: true, mode: 'compaction', agent: 'compaction' });
    }
    const asked = user([{ type: 'text', text: turn.user }, ...(turn.context ? [{ type: 'text', text: turn.context, synthetic: true }] : [])]);
    const parts = [{ type: 'step-start' }];
    if (turn.thought) parts.push({ type: 'reasoning', text: turn.thought, time: { start: clock, end: clock + 1_000 } });
    (turn.tools ?? []).forEach((tool, n) => {
      const time = { start: clock + n * 100, end: clock + n * 100 + 50 };
      const callID = `call_${sessionId.slice(-6)}_${index}_${n}`;
      parts.push(tool.error === undefined
        ? { type: 'tool', callID, tool: tool.name, state: { status: 'completed', input: tool.input, output: tool.output ?? '', title: tool.title ?? tool.name, metadata: {}, time } }
        : { type: 'tool', callID, tool: tool.name, state: { status: 'error', input: tool.input, error: tool.error, time } });
    });
    parts.push({ type: 'text', text: turn.answer, time: { start: clock, end: clock + 2_000 } });
    parts.push({ type: 'step-finish', reason: 'stop', cost: 0, tokens });
    assistant(asked, parts);
  });
  const info = {
    id: sessionId, slug: 'interop-session', projectID: 'global', directory: cwd, title, version: '1.18.33',
    ...(parentID ? { parentID } : {}),
    time: { created: Date.parse(createdAt), updated: Date.parse(updatedAt) },
  };
  return { info, messages };
}

/**
 * Imports `exported` (see openCodeExport) with OpenCode's own `opencode import`, run in `cwd`
 * (the folder the session then belongs to). `opencode` is its binary, `env` what the tests start
 * it with (HOME and the XDG folders of a temporary home). The first import of a session keeps
 * its `time.updated`; importing it again makes it now.
 */
export function importOpenCodeSession(opencode, env, cwd, exported) {
  const dir = mkdtempSync(join(env.HOME, '.import-'));
  try {
    const file = join(dir, `${exported.info.id}.json`);
    writeFileSync(file, JSON.stringify(exported));
    const out = execFileSync(opencode, ['import', file], { cwd, env, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
    if (!out.includes(`Imported session: ${exported.info.id}`)) throw new Error(`opencode import ${file} printed ${JSON.stringify(out)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs one SQL statement on OpenCode's store with its own `opencode db` (tab-separated rows, a header first). */
export function openCodeDb(opencode, env, sql) {
  return execFileSync(opencode, ['--pure', 'db', sql], { cwd: env.HOME, env, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Writes one Auggie session as Auggie 0.36.0 keeps it, `~/.augment/sessions/<uuid>.json` (read
 * from its session store and its ACP server's list and load): `chatHistory` of exchanges, each a
 * request (`request_nodes`: text, tool results, the IDE state naming the workspace folder, which
 * Auggie lists the session under) and a response (`response_nodes`: text, thinking, tool uses). A
 * turn with tools is two exchanges, as Auggie records them: the tool uses, then an exchange
 * without a prompt that carries their results and the answer. The file's mtime is `updatedAt`.
 * Returns the file's path.
 */
export function writeAuggieSession(home, { sessionId, cwd, title, createdAt, updatedAt, turns, parentConversationId }) {
  const dir = join(home, '.augment', 'sessions');
  mkdirSync(dir, { recursive: true });
  const ide = { type: 4, ide_state_node: { workspace_folders: [{ folder_root: cwd, repository_root: cwd }] } };
  const chatHistory = [];
  let sequence = 0;
  const exchange = (request_message, request_nodes, response_nodes) => chatHistory.push({
    exchange: {
      request_message, request_id: `req-${sessionId.slice(0, 8)}-${++sequence}`, request_nodes: [...request_nodes, ide],
      response_text: response_nodes.filter((n) => n.type === 0).map((n) => n.content).join(''), response_nodes,
    },
    completed: true, sequenceId: sequence,
  });
  turns.forEach((turn, index) => {
    const prompt = { id: 0, type: 0, text_node: { content: turn.user } };
    const thinking = turn.thought ? [{ id: 2, type: 8, thinking: { summary: turn.thought } }] : [];
    const tools = turn.tools ?? [];
    if (tools.length === 0) {
      exchange(turn.user, [prompt], [{ id: 1, type: 0, content: turn.answer }, ...thinking]);
      return;
    }
    const uses = tools.map((tool, n) => ({ id: 3 + n, type: 5, tool_use: { tool_name: tool.name, tool_use_id: `toolu_${sessionId.slice(0, 8)}_${index}_${n}`, input_json: JSON.stringify(tool.input) } }));
    exchange(turn.user, [prompt], [{ id: 1, type: 0, content: turn.before ?? '' }, ...thinking, ...uses].filter((n) => n.type !== 0 || n.content));
    const results = tools.map((tool, n) => ({
      id: n, type: 1,
      tool_result_node: { tool_use_id: uses[n].tool_use.tool_use_id, content: tool.error ?? tool.output ?? '', is_error: tool.error !== undefined },
    }));
    exchange('', results, [{ id: 1, type: 0, content: turn.answer }]);
  });
  const file = join(dir, `${sessionId}.json`);
  writeFileSync(file, JSON.stringify({
    sessionId, created: createdAt, modified: updatedAt, chatHistory,
    agentState: { userGuidelines: '', workspaceGuidelines: '' },
    ...(title ? { customTitle: title } : {}),
    ...(parentConversationId ? { parentConversationId } : {}),
  }, null, 2));
  utimesSync(file, new Date(updatedAt), new Date(updatedAt));
  return file;
}

/**
 * Writes one pi session as pi 0.73.1 keeps it (read from a session its own `pi -p` made offline):
 * `~/.pi/agent/sessions/--<cwd, separators as '-'>--/<timestamp>_<id>.jsonl`, a `session` line
 * naming the id and `cwd`, the model, then one `message` line per prompt and answer (a chain of
 * `id` / `parentId`). Returns the file's path.
 */
export function writePiSession(home, { sessionId, cwd, createdAt, turns }) {
  const dir = join(home, '.pi', 'agent', 'sessions', `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`);
  mkdirSync(dir, { recursive: true });
  let clock = Date.parse(createdAt);
  let parentId = null;
  let serial = 0;
  const lines = [{ type: 'session', version: 3, id: sessionId, timestamp: createdAt, cwd }];
  const push = (record) => {
    const id = (++serial).toString(16).padStart(8, '0');
    lines.push({ ...record, id, parentId, timestamp: new Date((clock += 60_000)).toISOString() });
    parentId = id;
  };
  push({ type: 'model_change', provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  for (const [question, answer] of turns) {
    push({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: question }], timestamp: clock } });
    push({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: answer }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage, stopReason: 'stop', timestamp: clock } });
  }
  const file = join(dir, `${createdAt.replace(/[:.]/g, '-')}_${sessionId}.jsonl`);
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
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
