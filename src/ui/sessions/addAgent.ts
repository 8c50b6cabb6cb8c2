// "Add Agent…": a quick pick of ready-made agent entries (and a custom command) that appends a
// normal entry to the user's `acpSessions.agents`. Nothing is installed for the user: a missing
// command gets the install command to copy or to type into a terminal.
import * as vscode from 'vscode';
import { findExecutable } from '../../acp/command';
import { AGENT_PRESETS, type AgentPreset, splitArgs, uniqueAgentName } from '../../sessions/agentPresets';
import { presetText } from '../common/l10n';
import { notificationText } from '../common/plainText';

/** The raw entry as written into settings.json. */
export interface AgentEntry {
  name: string;
  command: string;
  args: string[];
  resume?: string[];
}

const CUSTOM = 'custom';

/**
 * `acpSessions.addAgent [presetId]`: with a preset id ('claude', 'codex', 'gemini', 'qwen', 'opencode', 'auggie') it
 * skips the pick. Resolves with the entry written, or undefined when the user cancelled.
 */
export function registerAddAgent(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('acpSessions.addAgent', (presetId?: unknown) =>
      addAgent(typeof presetId === 'string' ? presetId : undefined),
    ),
  );
}

export async function addAgent(presetId?: string): Promise<AgentEntry | undefined> {
  const steps = new QuickInputChain();
  let preset: AgentPreset | undefined;
  let entry: AgentEntry | undefined;
  try {
    const choice = presetId ?? (await pickPreset(steps));
    if (!choice) return undefined;
    preset = AGENT_PRESETS.find((p) => p.id === choice);
    if (!preset && choice !== CUSTOM) {
      // The id may come from another extension running the command: plain text only.
      void vscode.window.showErrorMessage(notificationText(vscode.l10n.t('ACP Sessions: there is no ready-made agent "{0}". Known: {1}.', choice, AGENT_PRESETS.map((p) => p.id).join(', '))));
      return undefined;
    }
    entry = preset ? { ...preset.entry, args: [...preset.entry.args], ...(preset.entry.resume ? { resume: [...preset.entry.resume] } : {}) } : await askCustomEntry(steps);
    if (!entry) return undefined;
  } finally {
    steps.close();
  }

  const existing = userEntries();
  const same = existing.find((e) => e.command === entry.command && sameArgs(e.args, entry.args));
  if (same) {
    void offerSettings(vscode.l10n.t('ACP Sessions: "{0}" already starts `{1}`.', same.name, commandLine(entry)));
    return undefined;
  }
  if (!findExecutable(entry.command)) {
    const proceed = await explainMissing(entry, preset);
    if (!proceed) return undefined;
  }
  entry.name = uniqueAgentName(entry.name, existing.map((e) => e.name));
  await vscode.workspace
    .getConfiguration('acpSessions')
    .update('agents', [...rawUserValue(), entry], vscode.ConfigurationTarget.Global);
  void offerSettings(vscode.l10n.t('ACP Sessions: added "{0}" (`{1}`) to your user settings.', entry.name, commandLine(entry)));
  return entry;
}

async function pickPreset(steps: QuickInputChain): Promise<string | undefined> {
  type Item = vscode.QuickPickItem & { id: string };
  const items: Item[] = AGENT_PRESETS.map((preset) => {
    const found = findExecutable(preset.entry.command);
    return {
      id: preset.id,
      label: preset.entry.name,
      description: commandLine(preset.entry),
      detail: found ? vscode.l10n.t('{0}. Installed: {1}', presetText(preset).description, found) : vscode.l10n.t('{0}. Not installed: {1}', presetText(preset).description, preset.install),
    };
  });
  items.push({ id: CUSTOM, label: vscode.l10n.t('Custom Command…'), description: vscode.l10n.t('any program that speaks ACP over stdio'), detail: vscode.l10n.t('Name it, then give its command and arguments.') });
  const picked = await steps.pick(items, {
    title: vscode.l10n.t('Add Agent'),
    placeHolder: vscode.l10n.t('Pick an agent to add to your user settings (you can edit the entry afterwards)'),
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.id;
}

async function askCustomEntry(steps: QuickInputChain): Promise<AgentEntry | undefined> {
  const taken = new Set(userEntries().map((e) => e.name));
  const name = await steps.input({
    title: vscode.l10n.t('Add Agent (1/3): name'),
    prompt: vscode.l10n.t('The name shown in the Sessions view'),
    validateInput: (value) =>
      !value.trim() ? vscode.l10n.t('Give the agent a name.') : taken.has(value.trim()) ? vscode.l10n.t('An agent named "{0}" already exists.', value.trim()) : undefined,
  });
  if (name === undefined) return undefined;
  const command = await steps.input({
    title: vscode.l10n.t('Add Agent (2/3): command'),
    prompt: vscode.l10n.t('The program to start: a name on the PATH or an absolute path (arguments come next)'),
    placeHolder: 'my-agent',
    validateInput: (value) => (!value.trim() ? vscode.l10n.t('Give the program to start.') : undefined),
  });
  if (command === undefined) return undefined;
  const argLine = await steps.input({
    title: vscode.l10n.t('Add Agent (3/3): arguments'),
    prompt: vscode.l10n.t('Arguments, separated by spaces; quote an argument that contains spaces (may be empty)'),
    placeHolder: '--acp',
    validateInput: (value) => {
      try {
        splitArgs(value);
        return undefined;
      } catch (e) {
        return vscode.l10n.t('The arguments have an {0}.', (e as Error).message);
      }
    },
  });
  if (argLine === undefined) return undefined;
  return { name: name.trim(), command: command.trim(), args: splitArgs(argLine) };
}

/**
 * The wizard's quick inputs one after the other, each shown before the previous one goes, so the
 * quick input never closes between steps. A closing quick input gives the focus back to whatever
 * opened it; opened from the walkthrough, that is a step's button, which then takes the Enter
 * that accepted the input as "select this step" and focuses the step 250 ms later, closing the
 * next input the moment it opened.
 */
class QuickInputChain {
  private current: vscode.QuickInput | undefined;

  pick<T extends vscode.QuickPickItem>(items: T[], options: { title: string; placeHolder: string; matchOnDescription: boolean; matchOnDetail: boolean }): Promise<T | undefined> {
    const pick = vscode.window.createQuickPick<T>();
    Object.assign(pick, options, { items });
    return this.ask(pick, (done) => pick.onDidAccept(() => done(pick.selectedItems[0])));
  }

  input(options: { title: string; prompt: string; placeHolder?: string; validateInput: (value: string) => string | undefined }): Promise<string | undefined> {
    const box = vscode.window.createInputBox();
    box.title = options.title;
    box.prompt = options.prompt;
    box.placeholder = options.placeHolder;
    const validate = () => (box.validationMessage = options.validateInput(box.value));
    validate();
    box.onDidChangeValue(validate);
    return this.ask(box, (done) => box.onDidAccept(() => { if (!validate()) done(box.value); }));
  }

  /** Closes the last input (the focus then goes back to what opened the first). */
  close(): void {
    this.current?.dispose();
    this.current = undefined;
  }

  private ask<T>(input: vscode.QuickInput, onAccept: (done: (value: T | undefined) => void) => vscode.Disposable): Promise<T | undefined> {
    const previous = this.current;
    this.current = input;
    return new Promise((resolve) => {
      onAccept(resolve);
      // Hidden by the user (Escape, focus lost): cancelled; a later step replacing it is not.
      input.onDidHide(() => { if (this.current === input) resolve(undefined); });
      input.show();
      previous?.dispose();
    });
  }
}

/** Says the command is missing and how to install it; resolves true to add the entry anyway. */
async function explainMissing(entry: AgentEntry, preset: AgentPreset | undefined): Promise<boolean> {
  const where = vscode.l10n.t('`{0}` was not found on the PATH of VS Code.', entry.command);
  if (!preset) {
    const answer = await vscode.window.showWarningMessage(
      notificationText(vscode.l10n.t('ACP Sessions: {0} Add "{1}" anyway? It will start once the command is there.', where, entry.name)),
      { modal: true },
      vscode.l10n.t('Add Anyway'),
    );
    return answer === vscode.l10n.t('Add Anyway');
  }
  const copy = vscode.l10n.t('Copy Install Command');
  const terminal = vscode.l10n.t('Type It in a Terminal');
  const anyway = vscode.l10n.t('Add Anyway');
  const answer = await vscode.window.showWarningMessage(
    notificationText(vscode.l10n.t('ACP Sessions: {0}', where)),
    {
      modal: true,
      detail: vscode.l10n.t('Install it with:\n\n  {0}\n\nThe entry is added either way; the agent starts once the command is installed (use Retry in the Sessions view).', preset.install),
    },
    copy,
    terminal,
    anyway,
  );
  if (answer === copy) await vscode.env.clipboard.writeText(preset.install);
  if (answer === terminal) {
    // Typed, not run: the user presses Enter (nothing is installed behind their back).
    const t = vscode.window.createTerminal({ name: vscode.l10n.t('Install {0}', preset.entry.name) });
    t.show();
    t.sendText(preset.install, false);
  }
  return answer !== undefined;
}

async function offerSettings(message: string): Promise<void> {
  const open = vscode.l10n.t('Open settings.json');
  if ((await vscode.window.showInformationMessage(notificationText(message), open)) === open) {
    await vscode.commands.executeCommand('workbench.action.openSettingsJson', { revealSetting: { key: 'acpSessions.agents', edit: true } });
  }
}

/** The user-level value exactly as stored, so entries we do not understand are kept as they are. */
function rawUserValue(): unknown[] {
  const value = vscode.workspace.getConfiguration('acpSessions').inspect<unknown>('agents')?.globalValue;
  return Array.isArray(value) ? value : [];
}

function userEntries(): AgentEntry[] {
  const entries: AgentEntry[] = [];
  for (const raw of rawUserValue()) {
    if (!raw || typeof raw !== 'object') continue;
    const e = raw as Record<string, unknown>;
    if (typeof e.name !== 'string' || typeof e.command !== 'string') continue;
    entries.push({ name: e.name, command: e.command, args: Array.isArray(e.args) ? e.args.filter((a): a is string => typeof a === 'string') : [] });
  }
  return entries;
}

function sameArgs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function commandLine(entry: { command: string; args: readonly string[] }): string {
  return [entry.command, ...entry.args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a))].join(' ');
}
