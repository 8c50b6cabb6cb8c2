// Runs inside the real extension host as the `--extensionTestsPath` module: activates the
// extension, then reads VS Code's own activation times for it (the ones the Startup
// Performance view shows, measured by the extension host) and writes them to $ACP_BENCH_RESULT.
import { writeFileSync } from 'node:fs';
import * as vscode from 'vscode';

const EXTENSION_ID = 'acp-sessions.acp-sessions';

interface ActivationTimes {
  codeLoadingMs: number;
  activateCallMs: number;
  activateResolvedMs: number;
}

/** The extension's row of "Extension Activation Stats" in the perf:Startup Performance document. */
async function activationTimes(): Promise<ActivationTimes | undefined> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: 'perf', path: 'Startup Performance' }));
  for (const line of doc.getText().split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | Extension | Eager | Load Code | Call Activate | Finish Activate | Event | By |
    if (cells[1]?.toLowerCase() === EXTENSION_ID) {
      return { codeLoadingMs: Number(cells[3]), activateCallMs: Number(cells[4]), activateResolvedMs: Number(cells[5]) };
    }
  }
  return undefined;
}

export async function run(): Promise<void> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  if (!extension) throw new Error(`activateProbe: the extension ${EXTENSION_ID} is not loaded`);
  const wasActive = extension.isActive;
  const t0 = performance.now();
  await extension.activate();
  const roundTripMs = performance.now() - t0;
  // The perf: document provider is registered lazily, by the command that shows it.
  await vscode.commands.executeCommand('perfview.show');
  // The times reach the workbench in a message after activation: ask until they are there.
  let times: ActivationTimes | undefined;
  for (let i = 0; i < 50 && !times; i++) {
    times = await activationTimes();
    if (!times) await new Promise((r) => setTimeout(r, 100));
  }
  if (!times) throw new Error(`activateProbe: no activation times for ${EXTENSION_ID} in the Startup Performance view`);
  const file = process.env.ACP_BENCH_RESULT;
  if (!file) throw new Error('activateProbe: $ACP_BENCH_RESULT is not set');
  writeFileSync(file, JSON.stringify({ ...times, roundTripMs, wasActive }));
}
