// The display language for what the plain-TS layers word themselves (they cannot import
// `vscode`): session fallbacks and ages, date groups, the agent presets' lines. Every string is
// a literal `vscode.l10n.t` call so that `npm run l10n` extracts it.
import * as vscode from 'vscode';
import type { AgentPreset } from '../../sessions/agentPresets';
import { formatText, type DateGroup } from '../../sessions/format';

/** Points src/sessions/format.ts at the display language; called once on activation. */
export function localizeFormat(): void {
  formatText.untitled = (shortId) => vscode.l10n.t('Untitled session ({0})', shortId);
  formatText.now = vscode.l10n.t('now');
  formatText.minutes = (n) => vscode.l10n.t('{0} min', n);
  formatText.hours = (n) => vscode.l10n.t('{0} h', n);
  formatText.days = (n) => vscode.l10n.t('{0} d', n);
  formatText.weeks = (n) => vscode.l10n.t('{0} w', n);
  formatText.months = (n) => vscode.l10n.t('{0} mo', n);
  formatText.years = (n) => vscode.l10n.t('{0} y', n);
}

export function dateGroupLabel(group: DateGroup): string {
  switch (group) {
    case 'today':
      return vscode.l10n.t('Today');
    case 'yesterday':
      return vscode.l10n.t('Yesterday');
    case 'thisWeek':
      return vscode.l10n.t('This Week');
    case 'older':
      return vscode.l10n.t('Older');
  }
}

/** A preset's quick-pick line and sign-in hint in the display language. */
export function presetText(preset: AgentPreset): { description: string; login: string };
export function presetText(preset: AgentPreset | undefined): { description: string; login: string } | undefined;
export function presetText(preset: AgentPreset | undefined): { description: string; login: string } | undefined {
  switch (preset?.id) {
    case 'claude':
      return {
        description: vscode.l10n.t('Claude Code sessions, through the ACP adapter {0}', '@agentclientprotocol/claude-agent-acp'),
        login: vscode.l10n.t('Run `claude` in a terminal and log in, or set ANTHROPIC_API_KEY in the entry\'s "env".'),
      };
    case 'codex':
      return {
        description: vscode.l10n.t('OpenAI Codex sessions, through the ACP adapter {0}', '@agentclientprotocol/codex-acp'),
        login: vscode.l10n.t('Run `codex login` in a terminal (or `codex login --with-api-key`), then Retry.'),
      };
    case 'gemini':
      return {
        description: vscode.l10n.t('Gemini CLI in ACP mode (it cannot list its sessions yet)'),
        login: vscode.l10n.t('Run `gemini` in a terminal and log in, or set GEMINI_API_KEY in the entry\'s "env".'),
      };
    case 'qwen':
      return {
        description: vscode.l10n.t('Qwen Code in ACP mode'),
        login: vscode.l10n.t('Run `qwen` in a terminal and log in, or set OPENAI_API_KEY in the entry\'s "env".'),
      };
    case 'opencode':
      return {
        description: vscode.l10n.t('OpenCode sessions, through its own ACP server ({0})', 'opencode acp'),
        login: vscode.l10n.t('Run `opencode auth login` in a terminal, then Retry.'),
      };
    case 'auggie':
      return {
        description: vscode.l10n.t('Augment\'s Auggie CLI in ACP mode'),
        login: vscode.l10n.t('Run `auggie login` in a terminal, then Retry.'),
      };
    default:
      return preset && { description: preset.description, login: preset.login };
  }
}
