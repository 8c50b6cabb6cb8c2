// An OpenCode session in a real browser driving a real VS Code, against the real `opencode acp` on
// a store made with OpenCode's own `opencode import` in a temporary HOME: opened from the Sessions
// tree, its transcript shows the prompt with OpenCode's injected context folded and labelled, the
// thought, the tool calls (one completed, one failed), the answer, and the compaction's summary,
// in order. Saves test-results/screenshots/opencode-transcript.png (`npm run test:interop`).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FrameLocator, Locator } from 'playwright-core';
import { startWorkbench, type Workbench } from '../ui/harness';
import { agentEntry } from './agents.mjs';
import { importOpenCodeSession, openCodeExport } from './stores.mjs';
import { hoursAgo, installed, tempHome } from './support';

const { home, project, cleanup } = tempHome();
let wb: Workbench;
let pane: Locator;
const TITLE = 'Health check endpoint';
const INJECTED = 'Called the Read tool with the following input: {"filePath":"src/router.ts"}';
const SUMMARY = 'Summary so far: GET /healthz exists and its tests pass; the readiness check is next.';

before(async () => {
  const entry = agentEntry(installed.agents.opencode, { name: 'OpenCode', home });
  importOpenCodeSession(installed.agents.opencode.script, { ...entry.env, PATH: '/usr/bin:/bin' }, project, openCodeExport({
    sessionId: 'ses_0a1b2c3d4e5fInteropUiHealth', cwd: project, title: TITLE, createdAt: hoursAgo(30), updatedAt: hoursAgo(1),
    compactedAfter: 1, summary: SUMMARY,
    turns: [
      {
        user: 'Add a health check endpoint', context: INJECTED, thought: 'The router lives in src/router.ts.',
        tools: [
          { name: 'bash', input: { command: 'ls src', description: 'List src' }, title: 'List src', output: 'app.ts\nrouter.ts\n' },
          { name: 'read', input: { filePath: '/work/missing.ts' }, error: 'File not found: /work/missing.ts' },
        ],
        answer: 'Added GET /healthz returning 200.',
      },
      { user: 'Now add a readiness check', answer: 'Added GET /readyz.' },
    ],
  }));
  wb = await startWorkbench({ agents: [entry], folders: [project] });
  pane = await wb.openSessionsView();
});

after(async () => {
  await wb?.close();
  cleanup();
});

/** Each row of the transcript in order: its kind and its text as shown. */
function rows(frame: FrameLocator) {
  return frame.locator('#timeline .row').evaluateAll((els) => els.map((el) => ({ kind: (el as HTMLElement).dataset.kind, text: (el.textContent ?? '').replace(/\s+/g, ' ').trim() })));
}

test('an OpenCode session opened from the tree shows its prompt, folded context, thought, tool calls, answer and compaction summary in order', async () => {
  const row = pane.locator('.monaco-list-row', { hasText: TITLE }).first();
  await wb.until('OpenCode\'s session is listed', async () => (await row.count()) > 0);
  await row.click();
  await wb.transcriptShown(TITLE);
  const frame = wb.webviewFrame();
  // Loaded and drawn as Markdown: the rows' bodies are not drawn again under the clicks below.
  await frame.locator('body[data-loading="false"][data-markdown="done"]').waitFor();
  const shown = await rows(frame);
  assert.deepEqual(shown.map((r) => r.kind), ['user_message', 'thought', 'tool_call', 'tool_call', 'agent_message', 'agent_message', 'user_message', 'agent_message'], JSON.stringify(shown));
  assert.match(shown[0].text, /Add a health check endpoint/);
  assert.match(shown[2].text, /List src/);
  assert.match(shown[3].text, /read/);
  assert.match(shown[4].text, /Added GET \/healthz returning 200\./);
  assert.match(shown[5].text, /Summary so far: GET \/healthz exists/, 'the compaction\'s summary, where the compaction was');
  assert.match(shown[6].text, /Now add a readiness check/);
  // The injected context: in the prompt's row, folded, labelled, not shown as the prompt.
  const context = frame.locator('#timeline .row[data-kind="user_message"] details.model-context').first();
  assert.equal(await context.locator('summary .label').textContent(), 'Context sent to the model');
  assert.equal(await context.getAttribute('open'), null, 'folded');
  assert.equal(await context.locator('.model-context-text').isVisible(), false);
  await context.locator('summary').click();
  await frame.locator('#timeline details.model-context[open]').first().waitFor();
  assert.equal(await context.locator('.model-context-text').textContent(), INJECTED);
  // One tool call completed, one failed: each says so.
  const statuses = await frame.locator('#timeline .row[data-kind="tool_call"]').evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.status));
  assert.deepEqual(statuses, ['completed', 'failed']);
  await wb.page.mouse.move(0, 0);
  await wb.screenshot('opencode-transcript');
});
