// Context use along a transcript: the agent's own `usage_update` figures where they came, and
// where each compaction happened with what it freed. Pure data for the header's sparkline; no
// figure is estimated or interpolated, a long series keeps a subset of the agent's own points.
import type { CompactionEntity, UsagePoint } from './model';
import { keyPosition } from './rows';

/** A compaction on the chart: the last figure before its row and the first after it. */
export interface CompactionMark {
  /** The compaction row's key, to scroll to. */
  key: string;
  compactionId: string;
  status: string;
  /** Position along the transcript (entities created before the row). */
  at: number;
  /** The row's index in the transcript's rows now (set by the host): a webview that holds only some rows scrolls there. */
  index?: number;
  before?: UsagePoint;
  after?: UsagePoint;
}

export interface UsageSeries {
  /** Positions run from 0 to `total` (entities created so far). */
  total: number;
  points: UsagePoint[];
  marks: CompactionMark[];
}

/** Most points the header draws: a sparkline a few hundred pixels wide shows no more. */
export const MAX_SERIES_POINTS = 240;

/**
 * The series the header draws, or undefined when the agent sent no usage. Above `maxPoints`
 * figures, each stretch keeps its lowest and highest figure, so every fill and every drop shows.
 */
export function usageSeries(
  history: readonly UsagePoint[],
  compactions: Iterable<CompactionEntity>,
  total: number,
  maxPoints = MAX_SERIES_POINTS,
): UsageSeries | undefined {
  if (history.length === 0) return undefined;
  const marks: CompactionMark[] = [];
  for (const compaction of compactions) {
    marks.push({ key: compaction.key, compactionId: compaction.compactionId, status: compaction.status, at: keyPosition(compaction.key) });
  }
  marks.sort((a, b) => a.at - b.at);
  // One pass: history and marks are both in position order.
  let i = 0;
  for (let m = 0; m < marks.length; m++) {
    const mark = marks[m];
    while (i < history.length && history[i].at <= mark.at) i++;
    if (i > 0) mark.before = history[i - 1];
    const next = history[i];
    const nextMark = marks[m + 1];
    if (next && (!nextMark || next.at <= nextMark.at)) mark.after = next;
  }
  return { total: Math.max(total, history[history.length - 1].at), points: thin(history, maxPoints), marks };
}

function thin(history: readonly UsagePoint[], maxPoints: number): UsagePoint[] {
  if (history.length <= maxPoints) return history.slice();
  const buckets = Math.max(1, Math.floor((maxPoints - 1) / 2));
  const points: UsagePoint[] = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * history.length) / buckets);
    const to = Math.floor(((b + 1) * history.length) / buckets);
    let low = from;
    let high = from;
    for (let j = from + 1; j < to; j++) {
      if (share(history[j]) < share(history[low])) low = j;
      if (share(history[j]) > share(history[high])) high = j;
    }
    points.push(history[Math.min(low, high)]);
    if (low !== high) points.push(history[Math.max(low, high)]);
  }
  // The last figure is the one the header shows in words: the line ends on it.
  const last = history[history.length - 1];
  if (points[points.length - 1] !== last) points.push(last);
  return points;
}

/** The share of the context window in use (0 for a zero-sized window). */
export function share(point: UsagePoint): number {
  return point.size > 0 ? Math.min(1, point.used / point.size) : 0;
}
