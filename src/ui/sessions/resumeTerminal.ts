// Resume in Terminal: opens a VS Code terminal in the session's folder, named after the session,
// that runs the agent's CLI directly (the terminal's shellPath and shellArgs: no shell reads the
// line). The command line comes from the entry's `resume` array (src/sessions/resume.ts); an
// archived session is unarchived first, after asking.
import { statSync } from 'node:fs';
import * as vscode from 'vscode';
import { findExecutable } from '../../acp/command';
import type { AgentConfig } from '../../acp/types';
import { messageOf } from '../../acp/errors';
import { sessionLabel } from '../../sessions/format';
import { batchFileProblem, resumeLine } from '../../sessions/resume';
import type { CommandContext } from './commandContext';
import type { Invocation, SessionRef } from './commandTargets';
import { plainLine } from '../common/plainText';
import { readAgentConfigs, resumeTemplate } from '../common/settings';

/** The terminals this command opened, for tests: what each runs. */
export interface ResumedTerminal {
  terminal: vscode.Terminal;
  program: string;
  args: string[];
  cwd: string;
}

/** Whether any configured agent has a resume command (the palette offers the command then). */
export function updateResumeContext(): void {
  void vscode.commands.executeCommand('setContext', 'acpSessions.canResume', readAgentConfigs().some((c) => c.resume !== undefined));
}

/**
 * A terminal's name renders `$(icon)`: the session's title shows as typed instead (a zero-width
 * space after each `$`, put in before the bound so that the name stays within 80 characters).
 */
export function terminalName(session: Parameters<typeof sessionLabel>[0]): string {
  return plainLine(sessionLabel(session).replace(/\$\(/g, '$\u200B('), 80);
}

export function registerResume(deps: CommandContext): vscode.Disposable[] {
  updateResumeContext();
  return [
    vscode.commands.registerCommand('acpSessions.resumeInTerminal', async (...values: unknown[]) => {
      const invocation: Invocation = values.length > 0 ? { via: 'args', args: values } : { via: 'key' };
      const [target] = await deps.targets.resolve(invocation, 'one', vscode.l10n.t('Nothing was resumed'));
      if (target) return resumeInTerminal(deps, target);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('acpSessions.agents')) updateResumeContext();
    }),
  ];
}

export async function resumeInTerminal(deps: CommandContext, target: SessionRef): Promise<ResumedTerminal | undefined> {
  const { messages } = deps;
  const { agent } = target;
  const session = deps.model.find(agent, target.session.sessionId)?.session ?? target.session;
  const label = sessionLabel(session);
  const config = readAgentConfigs().find((c) => c.name === agent);
  const line = resumeLine(config?.resume, session);
  if (!line.ok) {
    switch (line.problem.kind) {
      case 'noCommand': {
        const open = vscode.l10n.t('Open Settings');
        const choice = await messages.show('info', vscode.l10n.t('Agent "{0}" has no resume command. Add "resume" to its entry in acpSessions.agents, such as ["claude", "--resume", "${sessionId}"].', agent), open);
        if (choice === open) void vscode.commands.executeCommand('acpSessions.openSettings');
        return undefined;
      }
      case 'badSessionId':
        // The whole rule of isPlainToken (src/sessions/resume.ts), so the user sees what the id breaks.
        void messages.show('warning', vscode.l10n.t('Not resumed: the session ID of "{0}" is not a plain token, so it is not passed to a program. A plain token has only letters, digits, "_", "-", ".", ":", starts with a letter or digit (never "-", which a program reads as an option), and has at most 200 characters.', label));
        return undefined;
      case 'badCwd':
        void messages.show('warning', vscode.l10n.t('Not resumed: the folder of "{0}" is not an absolute path.', label));
        return undefined;
    }
  }
  if (!isFolder(session.cwd)) {
    void messages.show('warning', vscode.l10n.t('Not resumed: the folder of "{0}" no longer exists: {1}', label, session.cwd));
    return undefined;
  }
  const env = { ...process.env, ...(config?.env ?? {}) };
  const program = findExecutable(line.program, env);
  if (!program) {
    void messages.show('error', vscode.l10n.t('Not resumed: "{0}" was not found on the PATH (the resume command of agent "{1}").', line.program, agent));
    return undefined;
  }
  const unsafe = batchFileProblem(program, config?.resume ?? [], session);
  if (unsafe) {
    void messages.show('warning', vscode.l10n.t('Not resumed: "{0}" is a batch file, which Windows runs through cmd.exe, and the folder of "{1}" holds "{2}", which cmd.exe would act on.', program, label, unsafe.character));
    return undefined;
  }
  if (target.section === 'archived' || session.archived === true) {
    if (!(await unarchiveFirst(deps, agent, session.sessionId, label))) return undefined;
  }
  const terminal = vscode.window.createTerminal({
    name: terminalName(session),
    cwd: session.cwd,
    shellPath: program,
    shellArgs: line.args,
    env: config?.env,
    iconPath: new vscode.ThemeIcon('history'),
  });
  terminal.show();
  return { terminal, program, args: line.args, cwd: session.cwd };
}

/** Asks to unarchive an archived session, and does it through the model (the tree moves it). */
async function unarchiveFirst(deps: CommandContext, agent: string, sessionId: string, label: string): Promise<boolean> {
  const caps = deps.registry.agent(agent)?.capabilities;
  // An agent that cannot unarchive has no Archived section to come from.
  if (caps && !caps.archive) return true;
  const action = vscode.l10n.t('Unarchive and Resume');
  const confirmed = await deps.messages.confirm(
    vscode.l10n.t('Unarchive "{0}" first?', label),
    vscode.l10n.t('The session is archived. Agent "{0}" may not resume an archived session, so it is unarchived first.', agent),
    action,
  );
  if (!confirmed) return false;
  try {
    const [outcome] = await deps.model.unarchive(agent, [sessionId]);
    if (outcome && outcome.status !== 'done') throw outcome.error ?? new Error(vscode.l10n.t('the agent answered "{0}"', outcome.status));
    return true;
  } catch (error) {
    void deps.messages.show('error', vscode.l10n.t('Could not unarchive "{0}": {1}', label, messageOf(error)));
    return false;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
