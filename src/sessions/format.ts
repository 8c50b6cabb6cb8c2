// How sessions read in the UI: titles, ages and date groups. Pure functions, tested under Node.
import type { SessionInfo } from '../acp/types';

/** The words these functions use; English here, the display language once the UI sets them (src/ui/l10n.ts). */
export type FormatText = typeof englishText;

const englishText = {
  untitled: (shortId: string) => `Untitled session (${shortId})`,
  now: 'now',
  minutes: (n: number) => `${n} min`,
  hours: (n: number) => `${n} h`,
  days: (n: number) => `${n} d`,
  weeks: (n: number) => `${n} w`,
  months: (n: number) => `${n} mo`,
  years: (n: number) => `${n} y`,
};

export let formatText: FormatText = englishText;

/**
 * Makes these functions use `words` (the very object, not a copy): a bundle loaded on first use
 * (src/ui/common/lazyBundle.ts) has its own copy of this module and adopts the main bundle's words, which
 * the UI set to the display language.
 */
export function useFormatText(words: FormatText): void {
  formatText = words;
}

/** The session's title, or a readable stand-in when the agent gives none. */
export function sessionLabel(session: Pick<SessionInfo, 'sessionId' | 'title'>): string {
  // Checked where it enters (src/acp/validate.ts); a non-string here must still not break the tree.
  const title = typeof session.title === 'string' ? session.title.trim() : undefined;
  if (title) return title.replace(/\s+/g, ' ');
  return formatText.untitled(shortId(session.sessionId));
}

/** The end of a session id: enough to tell sessions apart, short enough to read. */
export function shortId(sessionId: string): string {
  return sessionId.length <= 8 ? sessionId : `…${sessionId.slice(-6)}`;
}

/** The time of `updatedAt` in ms, or undefined when absent or not a date. */
export function updatedAtMs(session: Pick<SessionInfo, 'updatedAt'>): number | undefined {
  if (typeof session.updatedAt !== 'string' || !session.updatedAt) return undefined;
  const ms = Date.parse(session.updatedAt);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A short age such as "now", "5 min", "3 h", "2 d", "3 w", "4 mo", "2 y". */
export function relativeTime(ms: number, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 60) return formatText.now;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return formatText.minutes(minutes);
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return formatText.hours(hours);
  const days = Math.floor(hours / 24);
  if (days < 7) return formatText.days(days);
  if (days < 30) return formatText.weeks(Math.floor(days / 7));
  if (days < 365) return formatText.months(Math.floor(days / 30));
  return formatText.years(Math.floor(days / 365));
}

export type DateGroup = 'today' | 'yesterday' | 'thisWeek' | 'older';

export const dateGroupOrder: readonly DateGroup[] = ['today', 'yesterday', 'thisWeek', 'older'];

/** Calendar grouping in local time: today, yesterday, the 7 days before, or older. */
export function dateGroup(ms: number | undefined, now: number = Date.now()): DateGroup {
  if (ms === undefined) return 'older';
  const startOfToday = new Date(now);
  startOfToday.setHours(0, 0, 0, 0);
  const today = startOfToday.getTime();
  if (ms >= today) return 'today';
  const yesterday = new Date(startOfToday);
  yesterday.setDate(yesterday.getDate() - 1);
  if (ms >= yesterday.getTime()) return 'yesterday';
  const weekAgo = new Date(startOfToday);
  weekAgo.setDate(weekAgo.getDate() - 7);
  if (ms >= weekAgo.getTime()) return 'thisWeek';
  return 'older';
}

/**
 * Newest first by `updatedAt` (or the time `placeTime` gives); sessions without one keep the
 * agent's order, after dated ones.
 */
export function sortNewestFirst(sessions: SessionInfo[], placeTime: (session: SessionInfo) => number | undefined = updatedAtMs): SessionInfo[] {
  return sessions
    .map((session, index) => ({ session, index, ms: placeTime(session) }))
    .sort((a, b) => {
      if (a.ms !== undefined && b.ms !== undefined && a.ms !== b.ms) return b.ms - a.ms;
      if (a.ms === undefined && b.ms !== undefined) return 1;
      if (a.ms !== undefined && b.ms === undefined) return -1;
      return a.index - b.index;
    })
    .map((e) => e.session);
}

/** Items by a key, each group in the items' order (a command acts per agent, in the user's order). */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = map.get(k);
    if (group) group.push(item);
    else map.set(k, [item]);
  }
  return map;
}
