// Composition root: wires the layers together on activation and disposes them on deactivate.
import * as vscode from 'vscode';
import { registerAddAgent } from './ui/addAgent';
import { readAgentConfigs } from './ui/settings';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('ACP Sessions', { log: true });
  context.subscriptions.push(log);

  const updateAgentCount = () =>
    void vscode.commands.executeCommand('setContext', 'acpSessions.agentCount', readAgentConfigs().length);
  updateAgentCount();

  context.subscriptions.push(
    vscode.commands.registerCommand('acpSessions.showLog', () => log.show()),
    vscode.commands.registerCommand('acpSessions.openSettings', () =>
      vscode.commands.executeCommand('workbench.action.openSettings', 'acpSessions.agents'),
    ),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('acpSessions.agents')) updateAgentCount();
    }),
  );

  registerAddAgent(context);
}

export function deactivate(): void {}
