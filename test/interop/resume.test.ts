// Which installed CLIs resume a session by its id, read from their own `--help`, and that Add
// Agent's entries carry exactly that (`resume` in src/sessions/agentPresets.ts). Run offline, with
// a temporary HOME; nothing is resumed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { AGENT_PRESETS } from '../../src/sessions/agentPresets';
import { installed, node24, tempHome } from './support';

const modules = join(installed.dir, 'node_modules');

/** Each CLI as installed: the program and the arguments that print the help of its resume. */
const CLIS = {
  // Claude Code's own CLI, the native binary the claude-agent-acp adapter ships with.
  claude: { argv: [join(modules, '@anthropic-ai', `claude-agent-sdk-${process.platform}-${process.arch}`, 'claude'), '--help'] },
  codex: { argv: [process.execPath, join(modules, '@openai', 'codex', 'bin', 'codex.js'), 'resume', '--help'] },
  gemini: { argv: [process.execPath, join(modules, '@google', 'gemini-cli', 'bundle', 'gemini.js'), '--help'] },
  qwen: { argv: [node24, join(modules, '@qwen-code', 'qwen-code', 'cli-entry.js'), '--help'] },
  // OpenCode's native binary prints its help to stderr.
  opencode: { argv: [installed.agents.opencode.script, '--help'] },
  auggie: { argv: [process.execPath, installed.agents.auggie.script, '--help'] },
} as const;

/** What each help says about resuming by id, and the resume array that follows from it (undefined: none by id). */
const READ: Record<keyof typeof CLIS, { says: RegExp; resume: string[] | undefined }> = {
  claude: { says: /-r, --resume \[value\]\s+Resume a conversation by session ID/, resume: ['claude', '--resume', '${sessionId}'] },
  codex: { says: /Usage: codex resume \[OPTIONS\] \[SESSION_ID\]/, resume: ['codex', 'resume', '${sessionId}'] },
  // gemini-cli 0.61.0: "--resume  Resume a previous session. Use "latest" for most recent or index number".
  gemini: { says: /--resume\s+Resume a previous session\. Use "latest" for most recent or index number/, resume: undefined },
  qwen: { says: /-r, --resume\s+Resume a specific session by its ID/, resume: ['qwen', '--resume', '${sessionId}'] },
  // opencode 1.18.33: "-s, --session  session id to continue".
  opencode: { says: /-s, --session\s+session id to continue/, resume: ['opencode', '--session', '${sessionId}'] },
  // auggie 0.36.0: "-r, --resume [sessionId]  Resume a specific session by ID or prefix".
  auggie: { says: /-r, --resume \[sessionId\]\s+Resume a specific session by ID or prefix/, resume: ['auggie', '--resume', '${sessionId}'] },
};

describe('resume by id, from the installed CLIs\' --help', () => {
  const { home, cleanup } = tempHome();
  after(cleanup);
  const found: Record<string, string> = {};
  after(() => console.log(`resume by id: ${JSON.stringify(found)}`));

  for (const id of Object.keys(CLIS) as (keyof typeof CLIS)[]) {
    test(`${id}: its --help ${READ[id].resume ? 'resumes by session id' : 'takes no session id'}, and Add Agent's entry carries ${READ[id].resume ? JSON.stringify(READ[id].resume) : 'no resume'}`, () => {
      const [program, ...args] = CLIS[id].argv;
      assert.ok(existsSync(program), `${program} is installed`);
      const run = spawnSync(program, args, {
        env: {
          HOME: home, PATH: `${join(modules, '.bin')}:/usr/bin:/bin`, CODEX_HOME: join(home, '.codex'), NO_COLOR: '1', DISABLE_TELEMETRY: '1',
          XDG_DATA_HOME: join(home, '.local', 'share'), XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), XDG_STATE_HOME: join(home, '.local', 'state'),
          OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', AUGMENT_DISABLE_AUTO_UPDATE: '1',
        },
        encoding: 'utf8',
        timeout: 60_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      assert.equal(run.status, 0, `${program} --help exited ${run.status}: ${run.error?.message ?? run.stderr}`);
      const help = run.stdout + run.stderr;
      assert.match(help, READ[id].says);
      found[id] = READ[id].resume ? READ[id].resume!.join(' ') : 'no';
      assert.deepEqual(AGENT_PRESETS.find((p) => p.id === id)!.entry.resume, READ[id].resume);
    });
  }
});
