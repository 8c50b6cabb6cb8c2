// The "Add Agent…" presets against the real packages: each entry, exactly as written into
// settings, starts its agent once the package is installed (its bin on PATH), and a missing
// command is reported as missing.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { findExecutable } from '../../src/acp/command';
import { AGENT_PRESETS, presetFor, splitArgs, uniqueAgentName } from '../../src/sessions/agentPresets';
import { agentConfig, installed, node24, startClient, stopAgent, tempHome } from './support';

const bin = join(installed.dir, 'node_modules', '.bin');
// As after `npm install -g`: the agents' bins and a Node on the PATH.
const PATH = [bin, dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter);

describe('Add Agent presets with the agents installed', () => {
  const { home, cleanup } = tempHome();
  after(cleanup);

  for (const id of ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'auggie'] as const) {
    test(`the ${id} entry starts ${installed.agents[id].pkg} from the PATH and is recognised by its agentInfo`, async () => {
      const preset = AGENT_PRESETS.find((p) => p.id === id)!;
      assert.equal(findExecutable(preset.entry.command, { PATH }), join(bin, preset.entry.command));
      const { env } = agentConfig(id, home);
      // qwen's bin runs `env node`, and it needs Node 22 or later: a user's PATH then has one first.
      const path = id === 'qwen' ? [dirname(node24), PATH].join(delimiter) : PATH;
      const client = await startClient({ ...preset.entry, cwd: home, env: { ...env, PATH: path } });
      try {
        assert.equal(presetFor(preset.entry, client.agentInfo?.name), preset);
        assert.ok(client.agentInfo && preset.agentInfoNames.includes(client.agentInfo.name), `agentInfo ${JSON.stringify(client.agentInfo)}`);
      } finally {
        await stopAgent(client);
      }
    });
  }
});

describe('findExecutable', () => {
  const { home, cleanup } = tempHome();
  after(cleanup);
  const dir = join(home, 'bin');
  mkdirSync(dir);
  writeFileSync(join(dir, 'my-agent'), '#!/bin/sh\n');
  chmodSync(join(dir, 'my-agent'), 0o755);
  writeFileSync(join(dir, 'not-executable'), 'text');

  test('finds a command in a PATH directory', () => {
    assert.equal(findExecutable('my-agent', { PATH: ['/nonexistent', dir].join(delimiter) }), join(dir, 'my-agent'));
  });

  test('reports a command that is on no PATH directory as missing', () => {
    assert.equal(findExecutable('claude-agent-acp', { PATH: dir }), undefined);
  });

  test('does not count a file without the execute bit', () => {
    assert.equal(findExecutable('not-executable', { PATH: dir }), undefined);
  });

  test('checks an absolute path as given', () => {
    assert.equal(findExecutable(join(dir, 'my-agent'), { PATH: '' }), join(dir, 'my-agent'));
    assert.equal(findExecutable(join(dir, 'nope'), { PATH: dir }), undefined);
  });

  test('tries PATHEXT extensions on Windows', () => {
    writeFileSync(join(dir, 'winagent.CMD'), '@echo off');
    assert.equal(findExecutable('winagent', { Path: dir, PATHEXT: '.EXE;.CMD' }, home, 'win32'), join(dir, 'winagent.CMD'));
  });
});

describe('preset helpers', () => {
  test('presetFor recognises an entry by its command, also as a path or a Windows shim', () => {
    assert.equal(presetFor({ command: '/usr/local/bin/codex-acp' })?.id, 'codex');
    assert.equal(presetFor({ command: 'C:\\npm\\claude-agent-acp.cmd' })?.id, 'claude');
    assert.equal(presetFor({ command: 'node' }), undefined);
    assert.equal(presetFor({ command: 'node' }, 'gemini-cli')?.id, 'gemini');
  });

  test('a second entry of the same name gets a number', () => {
    assert.equal(uniqueAgentName('Claude', []), 'Claude');
    assert.equal(uniqueAgentName('Claude', ['Claude', 'Claude (2)']), 'Claude (3)');
  });

  test('custom arguments split on spaces and keep quoted spaces', () => {
    assert.deepEqual(splitArgs('--acp  --model "gpt 5" \'a b\' c\\ d ""'), ['--acp', '--model', 'gpt 5', 'a b', 'c d', '']);
    assert.deepEqual(splitArgs('   '), []);
    assert.throws(() => splitArgs('--name "open'), /unclosed " quote/);
  });

  test('every preset says how to install it (the package the interop tests install) and how to log in', () => {
    for (const preset of AGENT_PRESETS) {
      assert.equal(preset.install, `npm install -g ${installed.agents[preset.id].pkg}`);
      assert.ok(preset.login.length > 0);
    }
  });
});
