// `npm run demo` as a newcomer meets it: the demo runs as a user starts it (its own process, its
// own build, VSIX and server), the newcomer opens the address it prints, and the Get Started
// walkthrough opens by itself, with "Add an agent" done (the demo configures the reference agent).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { HANG_GUARD_MS, repoRoot } from './harness';

const WALKTHROUGH_TITLE = 'Get Started with ACP Sessions';

interface HostModule {
  freePort(): Promise<number>;
  openBrowser(options: { headless?: boolean }): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }>;
}

describe('the demo, opened by a newcomer', () => {
  let demo: ChildProcess;
  let output = '';
  let url: string;
  let browser: Awaited<ReturnType<HostModule['openBrowser']>>;
  let page: Page;

  before(async () => {
    const host = (await import(pathToFileURL(join(repoRoot(), 'test', 'host', 'server.mjs')).href)) as HostModule;
    const port = await host.freePort();
    // Its own process group: `after` ends the demo with its server and extension hosts.
    demo = spawn(process.execPath, [join(repoRoot(), 'scripts', 'demo.mjs'), '--port', String(port)], {
      cwd: repoRoot(), detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    });
    demo.stdout!.on('data', (chunk) => { output += chunk; });
    demo.stderr!.on('data', (chunk) => { output += chunk; });
    // The demo serves once it prints the address to open.
    url = await new Promise<string>((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error(`the demo printed no address within ${HANG_GUARD_MS} ms:\n${output}`)), HANG_GUARD_MS);
      const look = () => {
        const found = /demo: open (http:\/\/\S+)/.exec(output);
        if (found) { clearTimeout(guard); demo.stdout!.off('data', look); resolve(found[1]); }
      };
      demo.stdout!.on('data', look);
      demo.once('exit', (code) => { clearTimeout(guard); reject(new Error(`the demo exited (${code}) before serving:\n${output}`)); });
    });
    browser = await host.openBrowser({ headless: true });
    page = browser.page;
  });

  after(async () => {
    await browser?.close();
    if (demo?.pid && demo.exitCode === null) {
      const exited = new Promise((r) => demo.once('exit', r));
      try { process.kill(-demo.pid, 'SIGTERM'); } catch { /* already gone */ }
      // The demo stops its server and removes its folders on SIGTERM; the group goes after.
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
      try { process.kill(-demo.pid, 'SIGKILL'); } catch { /* already gone */ }
    }
  });

  test('sees the Get Started walkthrough open by itself, with "Add an agent" done', async () => {
    await page.goto(url);
    // The walkthrough's own page (its steps), not the Welcome page that lists it among others.
    const walkthrough = page.locator('.gettingStartedContainer', { hasText: WALKTHROUGH_TITLE });
    const addAgent = walkthrough.locator('button.getting-started-step[data-step-id$="#addAgent"]');
    await addAgent.waitFor({ timeout: HANG_GUARD_MS }).catch(async (e: Error) => {
      await page.screenshot({ path: join(repoRoot(), 'test-results', 'screenshots', 'demo-walkthrough-failed.png') });
      throw new Error(`the walkthrough did not open by itself: ${e.message}\ndemo output:\n${output}`);
    });
    // Checked once the extension (activated by its walkthrough) has counted the configured agent.
    await page.waitForFunction(
      () => document.querySelector('.gettingStartedContainer button.getting-started-step[data-step-id$="#addAgent"]')?.getAttribute('aria-checked') === 'true',
      undefined, { timeout: HANG_GUARD_MS },
    ).catch((e: Error) => { throw new Error(`"Add an agent" is not shown done: ${e.message}`); });
    await page.screenshot({ path: join(repoRoot(), 'test-results', 'screenshots', 'demo-walkthrough.png') });
  });
});
