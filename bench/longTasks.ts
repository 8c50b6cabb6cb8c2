// What the long tasks of a Chromium trace are made of: for each task over a threshold on a
// renderer main thread, its self time by event kind and its script time by file, so a trace
// says whose work (ours: transcript.js, our rows' layout; VS Code's: workbench.js, its webview
// host) held the thread.
import type { TraceEvent } from './page';

export interface LongTask {
  /** Start, in ms from `origin`. */
  at: number;
  startUs: number;
  ms: number;
  thread: string;
  /** Self time (ms) by event name, largest first. */
  self: [string, number][];
  /** Script time (ms) by file (the outermost FunctionCall / EvaluateScript / v8 compile of each). */
  scripts: [string, number][];
}

type Event = TraceEvent & { args?: { data?: { url?: string; functionName?: string; frame?: string; message?: string } ; name?: string } };

/** The top-level task, by Chromium version. */
const TASK_EVENTS = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);
const SCRIPT_EVENTS = new Set(['FunctionCall', 'EvaluateScript', 'v8.compile', 'v8.evaluateModule', 'TimerFire', 'FireAnimationFrame', 'EventDispatch']);

function fileOf(url: string | undefined): string {
  if (!url) return '';
  const path = url.split('?')[0];
  return path.slice(path.lastIndexOf('/') + 1) || path;
}

/**
 * Long tasks (≥ `thresholdMs`) on every thread named CrRendererMain, from `originUs` (trace
 * clock, µs) on, in time order.
 */
export function longTasks(events: TraceEvent[], originUs: number, thresholdMs = 50): LongTask[] {
  const names = new Map<string, string>();
  for (const e of events as Event[]) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '');
  const byThread = new Map<string, Event[]>();
  for (const e of events as Event[]) {
    if (e.ph !== 'X' || e.dur === undefined || e.ts < originUs) continue;
    const key = `${e.pid}:${e.tid}`;
    if (names.get(key) !== 'CrRendererMain') continue;
    let list = byThread.get(key);
    if (!list) byThread.set(key, (list = []));
    list.push(e);
  }
  const tasks: LongTask[] = [];
  for (const [key, list] of byThread) {
    list.sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
    for (let i = 0; i < list.length; i++) {
      const task = list[i];
      if (!TASK_EVENTS.has(task.name) || task.dur! < thresholdMs * 1000) continue;
      // A task inside one already reported (both names may wrap the same task).
      if (tasks.some((t) => t.thread === key && task.ts >= t.startUs && task.ts < t.startUs + t.ms * 1000)) continue;
      const end = task.ts + task.dur!;
      const self = new Map<string, number>();
      const scripts = new Map<string, number>();
      const stack: Event[] = [];
      /** Depth of the outermost script event open, or -1. */
      let scriptDepth = -1;
      for (let j = i; j < list.length && list[j].ts < end; j++) {
        const e = list[j];
        while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur! <= e.ts) {
          stack.pop();
          if (stack.length <= scriptDepth) scriptDepth = -1;
        }
        const parent = stack[stack.length - 1];
        if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - e.dur!);
        self.set(e.name, (self.get(e.name) ?? 0) + e.dur!);
        if (scriptDepth < 0 && SCRIPT_EVENTS.has(e.name) && e.args?.data?.url !== undefined) {
          const file = fileOf(e.args.data.url) || e.name;
          scripts.set(file, (scripts.get(file) ?? 0) + e.dur!);
          scriptDepth = stack.length;
        }
        stack.push(e);
      }
      const sorted = (m: Map<string, number>) => [...m].map(([k, us]) => [k, us / 1000] as [string, number]).sort((a, b) => b[1] - a[1]);
      tasks.push({ at: (task.ts - originUs) / 1000, startUs: task.ts, ms: task.dur! / 1000, thread: key, self: sorted(self).slice(0, 8), scripts: sorted(scripts).slice(0, 5) });
    }
  }
  return tasks.sort((a, b) => a.at - b.at);
}

/** One line per long task: when, how long, its main kinds of work and its scripts. */
export function describeLongTasks(tasks: LongTask[]): string[] {
  const f = (pairs: [string, number][]) => pairs.filter(([, ms]) => ms >= 1).map(([name, ms]) => `${name} ${ms.toFixed(0)}`).join(', ');
  return tasks.map((t) => `long task at +${t.at.toFixed(0)} ms, ${t.ms.toFixed(0)} ms (${t.thread}): ${f(t.self)}${t.scripts.length ? `; scripts: ${f(t.scripts)}` : ''}`);
}
