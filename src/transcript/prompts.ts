// Walking a transcript by the user's own prompts: which rows they are, their first line, and when
// each was sent where that is known. ACP's replay carries no times, so a time is the agent's own
// (`_meta.timestamp` or `_meta.createdAt` on the update, when it sends one) or, for a prompt that
// arrived live after the replay, when it arrived. Nothing is estimated. Pure, no `vscode`.
import { keyOfRow, kindOfRow, type EntityRows } from './rows';
import { partsText } from './model';

export interface PromptEntry {
  /** The row's key and its index in the timeline. */
  key: string;
  index: number;
  /** The prompt's text as one line (untrusted: the caller escapes it for its surface). */
  text: string;
  /** Milliseconds since the epoch, when known. */
  at?: number;
}

/** The user's prompts in timeline order. */
export function promptsOf(entities: EntityRows, times: ReadonlyMap<string, number> = new Map()): PromptEntry[] {
  const prompts: PromptEntry[] = [];
  for (let index = 0; index < entities.length; index++) {
    if (kindOfRow(entities, index) !== 'user_message') continue;
    const entity = entities.at(index);
    if (entity?.kind !== 'user_message') continue;
    const text = partsText(entity.parts).replace(/\s+/g, ' ').trim();
    const entry: PromptEntry = { key: entity.key, index, text };
    const at = times.get(entity.key);
    if (at !== undefined) entry.at = at;
    prompts.push(entry);
  }
  return prompts;
}

/**
 * The prompt to go to from the row at `from` (the row at the top of the view): the first prompt
 * below it (`step` 1), or the last one above it (`step` -1); undefined at either end.
 */
export function stepPrompt(prompts: readonly Pick<PromptEntry, 'index'>[], from: number, step: 1 | -1): number | undefined {
  if (step === 1) return prompts.find((p) => p.index > from)?.index;
  for (let i = prompts.length - 1; i >= 0; i--) if (prompts[i].index < from) return prompts[i].index;
  return undefined;
}

/** Where in `prompts` (in transcript order) the prompt at or above row `row` is, the one being read there: the last such; 0 when none is. */
export function promptAt(prompts: readonly Pick<PromptEntry, 'index'>[], row: number): number {
  let at = 0;
  for (let i = 0; i < prompts.length && prompts[i].index <= row; i++) at = i;
  return at;
}

/** The time an update says it was made, from its `_meta` (ISO text or epoch milliseconds), if any. */
export function updateTime(update: unknown): number | undefined {
  const meta = (update as { _meta?: unknown } | undefined)?._meta;
  if (!meta || typeof meta !== 'object') return undefined;
  for (const name of ['timestamp', 'createdAt']) {
    const value = (meta as Record<string, unknown>)[name];
    const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
    // Plausible dates only (1990 to 2200): a wrong type or unit is no time at all.
    if (Number.isFinite(ms) && ms > 631_152_000_000 && ms < 7_258_118_400_000) return ms;
  }
  return undefined;
}

/**
 * Remembers when each prompt row was sent, fed with every update after the timeline applied it:
 * the first time seen for a row wins.
 */
export class PromptTimes {
  readonly times = new Map<string, number>();

  /** `live`: the update arrived after the replay, so its arrival is its time. */
  note(update: { sessionUpdate?: string }, entities: EntityRows, live: boolean, now: number): void {
    if (update.sessionUpdate !== 'user_message_chunk') return;
    // The chunk went into the last user message (the timeline appends in receive order).
    let key: string | undefined;
    for (let i = entities.length - 1; i >= 0; i--) {
      if (kindOfRow(entities, i) === 'user_message') {
        key = keyOfRow(entities, i);
        break;
      }
    }
    if (key === undefined || this.times.has(key)) return;
    const at = updateTime(update) ?? (live ? now : undefined);
    if (at !== undefined) this.times.set(key, at);
  }

  clear(): void {
    this.times.clear();
  }
}
