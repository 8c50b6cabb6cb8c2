// Which sessions Claude Code's own clean-up removes soon, for the tree's tooltips: only for an
// agent that is Claude (by its entry's command or its agentInfo), from Claude's settings.json.
import type { SessionInfo } from '../../acp/types';
import type { AgentRegistry } from '../../sessions/agentRegistry';
import { presetFor } from '../../sessions/agentPresets';
import { ClaudeSettings, removalWithinWarning, WARN_DAYS } from '../../sessions/claudeRetention';
import { updatedAtMs } from '../../sessions/format';

export function claudeRetention(registry: AgentRegistry, now: () => number = Date.now, aheadDays: () => number = () => WARN_DAYS) {
  const settings = new ClaudeSettings();
  return (agent: string, session: SessionInfo): { removal: number; days: number; settings: string } | undefined => {
    const entry = registry.agent(agent);
    if (!entry || presetFor(entry.config, entry.agentInfo?.name)?.id !== 'claude') return undefined;
    // The agent's HOME or CLAUDE_CONFIG_DIR, when its entry sets them, is where its settings are.
    const { days, path } = settings.periodDays({ HOME: process.env.HOME, ...entry.config.env });
    const removal = removalWithinWarning(updatedAtMs(session), days, now(), aheadDays());
    return removal === undefined ? undefined : { removal, days, settings: path };
  };
}
