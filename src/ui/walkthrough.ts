// The "Get Started with ACP Sessions" walkthrough (package.json `walkthroughs`): each step is
// marked done by VS Code when its completion event fires; these are the context keys the steps
// wait for, set when the user has done the step. Opened by itself once, on the first activation
// after a user installed the extension.
import * as vscode from 'vscode';

export const WALKTHROUGH_ID = 'acp-sessions.acp-sessions#gettingStarted';
const SHOWN_KEY = 'acpSessions.walkthrough.shown';

type Step = 'openedTranscript' | 'foundArchived' | 'readCompaction';

class WalkthroughProgress {
  private readonly done = new Set<Step>();
  /** Set once the user archived a session; finding one in Archived after that completes the step. */
  private archivedOne = false;

  private complete(step: Step): void {
    if (this.done.has(step)) return;
    this.done.add(step);
    void vscode.commands.executeCommand('setContext', `acpSessions.walkthrough.${step}`, true);
  }

  openedTranscript(): void {
    this.complete('openedTranscript');
  }

  archived(): void {
    this.archivedOne = true;
  }

  /** An archived session was shown to the user: the Archived section expanded, or one picked in Find Session. */
  archivedShown(): void {
    if (this.archivedOne) this.complete('foundArchived');
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
