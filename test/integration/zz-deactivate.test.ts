// Last of the suites (by name: it ends every agent): deactivate, as VS Code calls it on
// shutdown, resolves only once every agent process, and what each started, has ended.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type * as extensionModule from '../../src/extension';
import { EXTENSION_ID, activateExtension, config, removeTempDirs, tempDir, until } from './support';

/** An agent that answers initialize, starts a child in its process group, and writes both pids. */
function agentScript(pidFile: string): string {
  return `
    const { spawn } = require('node:child_process');
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, process.pid + ' ' + grandchild.pid);
    process.stdin.setEncoding('utf8');
    let buffered = '';
    process.stdin.on('data', (text) => {
      buffered += text;
      let i;
      while ((i = buffered.indexOf('\\n')) !== -1) {
        const m = JSON.parse(buffered.slice(0, i));
        buffered = buffered.slice(i + 1);
        if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: {} } }) + '\\n');
      }
    });
  `;
}

/** True while the process exists and is not a zombie (an orphan nobody reaps runs nothing). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

suite('Deactivate', () => {
  suiteTeardown(async () => {
    await config().update('agents', undefined, vscode.ConfigurationTarget.Global);
    removeTempDirs();
  });

  test('deactivate awaits the end of every agent and of the processes it started', async () => {
    const api = await activateExtension();
    const dir = tempDir('acp-deactivate-');
    const pidFiles = [join(dir, 'one'), join(dir, 'two')];
    await config().update(
      'agents',
      pidFiles.map((file, i) => ({ name: `Lifetime ${i}`, command: process.execPath, args: ['-e', agentScript(file)] })),
      vscode.ConfigurationTarget.Global,
    );
    await until('both agents are configured', () => api.agents.agents.length === 2);
    await Promise.all(api.agents.agents.map((a) => api.agents.getClient(a.name)));
    const pids = await until('both agents wrote their pids', () =>
      pidFiles.every((f) => existsSync(f) && readFileSync(f, 'utf8').includes(' '))
        ? pidFiles.flatMap((f) => readFileSync(f, 'utf8').split(' ').map(Number))
        : undefined,
    );
    assert.equal(pids.filter(isRunning).length, 4, 'two agents and their two children run');

    // The module VS Code loaded (same file, so the same instance from the require cache).
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    const main = require(join(extension.extensionPath, 'dist', 'extension.js')) as typeof extensionModule;
    const ending = main.deactivate();
    assert.ok(ending instanceof Promise, 'deactivate returns a promise for VS Code to await');
    await ending;
    assert.deepEqual(pids.filter(isRunning), [], 'no agent process and no child of one is left');
  });
});
