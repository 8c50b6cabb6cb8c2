// The "Get Started with ACP Sessions" walkthrough (package.json `walkthroughs`): each step is
// marked done when the user has done it. Opened by itself once, on the first activation after a
// user installed the extension.
import * as vscode from 'vscode';

export const WALKTHROUGH_ID = 'acp-sessions.acp-sessions#gettingStarted';
const SHOWN_KEY = 'acpSessions.walkthrough.shown';

/** The walkthrough's steps and the context key each one's `onContext` completion event waits for. */
const STEP_KEYS = {
  addAgent: 'acpSessions.agentCount', // set by extension.ts; the step waits for "> 0"
  openSession: 'acpSessions.walkthrough.openedTranscript',
  search: 'acpSessions.walkthrough.searched',
  archive: 'acpSessions.walkthrough.foundArchived',
  readCompaction: 'acpSessions.walkthrough.readCompaction',
} as const;
type Step = keyof typeof STEP_KEYS;

class WalkthroughProgress {
  private readonly done = new Set<Step>();
  /** Set once the user archived a session; finding one in Archived after that completes the step. */
  private archivedOne = false;

  private complete(step: Step): void {
    if (this.done.has(step)) return;
    this.done.add(step);
    if (step !== 'addAgent') void vscode.commands.executeCommand('setContext', STEP_KEYS[step], true);
    // VS Code completes a step on `onContext` only when the key turns true after the step was
    // registered, and it registers steps lazily (when the Welcome editor first opens): a key that
    // is already true then counts as seen and never completes the step. So the step is also
    // marked done through VS Code's own command, which stores it even before the registration
    // (and then throws: nothing to do, the context key is the fallback where the command is missing).
    void vscode.commands.executeCommand('welcome.markStepComplete', `${WALKTHROUGH_ID}#${step}`).then(undefined, () => undefined);
  }

  /** The configured agents, at activation and on each change: one or more completes the first step. */
  agentsConfigured(count: number): void {
    if (count > 0) this.complete('addAgent');
  }

  openedTranscript(): void {
    this.complete('openSession');
  }

  /** A search showed what it found (src/ui/search/register.ts watches the Search view). */
  searched(): void {
    this.complete('search');
  }

  archived(): void {
    this.archivedOne = true;
  }

  /** An archived session was shown to the user: the Archived section expanded, or one picked in Find Session. */
  archivedShown(): void {
    if (this.archivedOne) this.complete('archive');
  }

  readCompaction(): void {
    this.complete('readCompaction');
  }
}

export const walkthrough = new WalkthroughProgress();

export function registerWalkthrough(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('acpSessions.openWalkthrough', () =>
      vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false),
    ),
  );
  // Installed by a user (not run from a development folder or by tests): show it once.
  if (context.extensionMode === vscode.ExtensionMode.Production && !context.globalState.get<boolean>(SHOWN_KEY)) {
    void context.globalState.update(SHOWN_KEY, true);
    void vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false);
  }
}
