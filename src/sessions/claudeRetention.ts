// Claude Code deletes transcripts older than its `cleanupPeriodDays` setting (30 by default) when
// it starts. Read from Claude's own settings only to warn: a session that will be removed within a
// week says when in its tooltip. Plain Node only.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_CLEANUP_PERIOD_DAYS = 30;
/** How far ahead a removal is announced. */
export const WARN_DAYS = 7;
const DAY = 86_400_000;

/** `cleanupPeriodDays` from a settings.json text: a positive number, else the default. */
export function cleanupPeriodDays(settingsText: string | undefined): number {
  if (settingsText === undefined) return DEFAULT_CLEANUP_PERIOD_DAYS;
  try {
    const value = (JSON.parse(settingsText) as { cleanupPeriodDays?: unknown } | null)?.cleanupPeriodDays;
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : DEFAULT_CLEANUP_PERIOD_DAYS;
  } catch {
    return DEFAULT_CLEANUP_PERIOD_DAYS;
  }
}

/** When Claude may remove a session last updated at `updatedMs`, if that is within `aheadDays` of `now` (or past). */
export function removalWithinWarning(updatedMs: number | undefined, days: number, now: number, aheadDays: number = WARN_DAYS): number | undefined {
  if (updatedMs === undefined) return undefined;
  const removal = updatedMs + days * DAY;
  return removal - now <= aheadDays * DAY ? removal : undefined;
}

/** Reads `<config dir>/settings.json` (CLAUDE_CONFIG_DIR, else ~/.claude), again only when it changed. */
export class ClaudeSettings {
  private cached: { path: string; mtimeMs: number; days: number } | undefined;

  periodDays(env: Record<string, string | undefined> = {}): { days: number; path: string } {
    const dir = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
    const path = join(dir, 'settings.json');
    let mtimeMs = -1;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      // No settings file: Claude's default.
    }
    if (this.cached?.path === path && this.cached.mtimeMs === mtimeMs) return { days: this.cached.days, path };
    let text: string | undefined;
    if (mtimeMs >= 0) {
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        text = undefined;
      }
    }
    const days = cleanupPeriodDays(text);
    this.cached = { path, mtimeMs, days };
    return { days, path };
  }
}
