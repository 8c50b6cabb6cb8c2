// How an agent's command is started: as given on Linux and macOS, and on Windows through
// cmd.exe when PATH and PATHEXT lead to a batch file (npm's shims), with a command line that
// cmd.exe and the program's argument parser read back as exactly the arguments configured.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { AcpClient } from '../../src/acp/client';
import { findExecutable, quoteArgument, spawnCommand } from '../../src/acp/command';
import { AgentStartError } from '../../src/acp/errors';
import { CLIENT_INFO, CapturingLog, rejection } from './acp-helpers';

// Windows matches PATHEXT's upper-case extensions to any case; this file system does not.
const bin = mkdtempSync(join(tmpdir(), 'acp-command-'));
writeFileSync(join(bin, 'claude-agent-acp.CMD'), '@node "%~dp0\\agent.js" %*\r\n');
// npm installs an extensionless shell script next to the .cmd: Windows cannot run it.
writeFileSync(join(bin, 'claude-agent-acp'), '#!/bin/sh\nexec node "$basedir/agent.js" "$@"\n', { mode: 0o755 });
// A workspace (an agent's cwd) with programs planted under the names of agents.
const workspace = mkdtempSync(join(tmpdir(), 'acp-workspace-'));
writeFileSync(join(workspace, 'gemini.EXE'), '');
writeFileSync(join(workspace, 'gemini.CMD'), '');
writeFileSync(join(workspace, 'gemini'), '#!/bin/sh\n', { mode: 0o755 });
after(() => rmSync(workspace, { recursive: true, force: true }));
writeFileSync(join(bin, 'native-agent.EXE'), '');
after(() => rmSync(bin, { recursive: true, force: true }));
const windowsEnv = { Path: bin, PATHEXT: '.COM;.EXE;.BAT;.CMD', ComSpec: 'C:\\Windows\\system32\\cmd.exe' };

/** What cmd.exe does with `^` outside quotes (our lines never open a quote for cmd): drops it, keeps the next character. */
function cmdUnescape(text: string): string {
  return text.replace(/\^(.)/g, '$1');
}

/** A Windows program's argument parser (the rules of CommandLineToArgvW and the C runtime). */
function parseWindowsArgs(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let inQuotes = false;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') {
      let n = 0;
      while (line[i + n] === '\\') n++;
      if (line[i + n] === '"') {
        current += '\\'.repeat(Math.floor(n / 2));
        if (n % 2 === 1) current += '"';
        else inQuotes = !inQuotes;
        i += n;
      } else {
        current += '\\'.repeat(n);
        i += n - 1;
      }
      started = true;
    } else if (c === '"') {
      inQuotes = !inQuotes;
      started = true;
    } else if ((c === ' ' || c === '\t') && !inQuotes) {
      if (started) args.push(current);
      current = '';
      started = false;
    } else {
      current += c;
      started = true;
    }
  }
  if (started) args.push(current);
  return args;
}

describe('starting an agent command', () => {
  test('outside Windows the command found on PATH is started by its full path, with its arguments as they are', () => {
    assert.deepEqual(spawnCommand('claude-agent-acp', ['--flag', 'a b'], { PATH: bin }, workspace, 'linux'), {
      file: join(bin, 'claude-agent-acp'),
      args: ['--flag', 'a b'],
    });
  });

  test("on Windows PATHEXT's extensions come before the bare name: npm's .cmd wins over its extensionless shell shim", () => {
    assert.equal(findExecutable('claude-agent-acp', windowsEnv, workspace, 'win32'), join(bin, 'claude-agent-acp.CMD'));
    assert.equal(spawnCommand('claude-agent-acp', [], windowsEnv, workspace, 'win32')?.file, windowsEnv.ComSpec);
    // A name that already has one of PATHEXT's extensions is taken as it is.
    assert.equal(findExecutable('claude-agent-acp.CMD', windowsEnv, workspace, 'win32'), join(bin, 'claude-agent-acp.CMD'));
  });

  test('a command not on PATH is never looked for in the working directory (the workspace), on any platform', () => {
    for (const platform of ['win32', 'linux'] as const) {
      const env = platform === 'win32' ? windowsEnv : { PATH: bin };
      assert.equal(spawnCommand('gemini', ['--acp'], env, workspace, platform), undefined, platform);
      // Nor through an empty or relative PATH entry, which the system resolves from the child's cwd.
      const relative = platform === 'win32' ? { ...windowsEnv, Path: `;.;${bin}` } : { PATH: `:.:${bin}` };
      assert.equal(findExecutable('gemini', relative, workspace, platform), undefined, `${platform}, relative PATH entries`);
    }
  });

  test('a real start of a command not on PATH fails with "was not found" and runs nothing from the workspace, even with an empty PATH entry', async () => {
    const marker = join(workspace, 'planted-ran');
    const planted = join(workspace, 'planted-agent');
    writeFileSync(planted, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    const error = await rejection(
      AcpClient.start(
        { name: 'planted', command: 'planted-agent', env: { PATH: `/usr/bin::/bin` }, cwd: workspace },
        { clientInfo: CLIENT_INFO, log: new CapturingLog() },
      ),
    );
    assert.ok(error instanceof AgentStartError, String(error));
    assert.match(error.message, /the command "planted-agent" was not found/);
    assert.equal(existsSync(marker), false, 'the program planted in the workspace did not run');
  });

  test('on Windows a program found on PATH is started directly', () => {
    assert.deepEqual(spawnCommand('native-agent', ['--acp'], windowsEnv, bin, 'win32'), { file: join(bin, 'native-agent.EXE'), args: ['--acp'] });
  });

  test('on Windows a command that is not found gives undefined, for the client to report as not found', () => {
    assert.equal(spawnCommand('gemini', ['--acp'], windowsEnv, bin, 'win32'), undefined);
  });

  test("on Windows npm's .cmd shim runs through cmd.exe, and its arguments arrive unchanged", () => {
    const args = ['--acp', 'two words', 'say "hi"', 'C:\\path with space\\', 'a&b|c<d>e', '100%', '^caret!', '(x)', ''];
    const started = spawnCommand('claude-agent-acp', args, windowsEnv, bin, 'win32')!;
    assert.equal(started.file, windowsEnv.ComSpec);
    assert.equal(started.windowsVerbatimArguments, true);
    assert.deepEqual(started.args.slice(0, 3), ['/d', '/s', '/c']);
    const outer = started.args[3];
    assert.ok(outer.startsWith('"') && outer.endsWith('"'), 'the line is in the quotes /s strips');
    // cmd.exe reads the line once to run the shim (the path is escaped once); the shim's %*
    // hands the rest to cmd.exe a second time, then to the program's parser.
    const line = outer.slice(1, -1);
    const shimEnd = line.indexOf('^" ') + 2;
    assert.deepEqual(parseWindowsArgs(cmdUnescape(line.slice(0, shimEnd))), [join(bin, 'claude-agent-acp.CMD')]);
    assert.deepEqual(parseWindowsArgs(cmdUnescape(cmdUnescape(line.slice(shimEnd + 1)))), args);
  });

  test('an argument is quoted so that quotes and trailing backslashes survive', () => {
    for (const arg of ['plain', 'a b', 'a"b', 'ends\\', 'two\\\\"quoted', '', '\\\\server\\share']) {
      assert.deepEqual(parseWindowsArgs(quoteArgument(arg)), [arg], `round trip of ${JSON.stringify(arg)}`);
    }
  });
});
