// The rows the webview holds: how many rows the session has, and the entities of one window of
// them, [start, end), as the host sent them (a snapshot, a `rows` reply, then patches). It also
// decides which range to ask the host for. No DOM: the virtual list, which builds some of these
// rows, hears of every change through `HeldRowsView`; tested against the host's feed.ts.
import { bodyOf, type Entity } from '../transcript/model';
import type { Patch } from '../transcript/protocol';

/** A `range` request: rows [start, end), or with `tail` the last `end - start` rows, following new ones. */
export interface RangeRequest {
  start: number;
  end: number;
  tail: boolean;
}

/** What builds held rows: told before held rows change, so it can keep what it built. */
export interface HeldRowsView {
  /**
   * Rows [start, start + entities.length) are about to replace the held ones: keep the built rows
   * whose key stays (putting their entity object into `entities`, one object for both), drop the others.
   */
  beforeHold(start: number, entities: Entity[]): void;
  /** Text appended to held row `index`: true when the view takes it (a built row), else it goes into the entity. */
  appendTo(index: number, text: string): boolean;
  /** Held row `index` was replaced in place by `entity`. */
  replaced(index: number, entity: Entity): void;
  /** The session's row count changed (not by a snapshot, which starts everything over). */
  countChanged(count: number): void;
}

const NO_VIEW: HeldRowsView = { beforeHold() {}, appendTo: () => false, replaced() {}, countChanged() {} };

export class HeldRows {
  /** Rows in the whole session. */
  count = 0;
  /** The first held row's index. */
  start = 0;
  /** Entities [start, start + entities.length). */
  entities: Entity[] = [];
  private readonly indexByKey = new Map<string, number>();
  /** Holding the last rows, which the host keeps sending as new rows arrive. */
  tail = false;
  private tailSize = 0;
  /** The range asked of the host and not answered yet. */
  private requested: RangeRequest | undefined;

  constructor(private readonly view: HeldRowsView = NO_VIEW) {}

  get end(): number {
    return this.start + this.entities.length;
  }

  /** The held row of `key`'s index, if held. */
  indexOf(key: string): number | undefined {
    return this.indexByKey.get(key);
  }

  /** Held row `index`'s entity, if held. */
  at(index: number): Entity | undefined {
    return index >= this.start ? this.entities[index - this.start] : undefined;
  }

  /** A snapshot: the session has `count` rows and these are [start, ...); `tail`: the last ones. */
  snapshot(count: number, start: number, entities: Entity[], tail: boolean): void {
    this.requested = undefined;
    this.count = count;
    this.tail = tail;
    this.hold(start, entities);
    if (tail) this.tailSize = entities.length;
  }

  /** The answer to a `range`: it replaces what was held. */
  rows(count: number, start: number, entities: Entity[]): void {
    this.requested = undefined;
    this.setCount(count);
    this.hold(start, entities);
    // Following the end, the host keeps as many rows as it sent: so does the webview.
    if (this.tail) this.tailSize = entities.length;
  }

  /** The session has `next` rows; true when that changed. Following the end, rows that left the tail are dropped. */
  setCount(next: number): boolean {
    if (next === this.count) return false;
    this.count = next;
    this.view.countChanged(next);
    if (this.tail && this.end > 0) this.trim(Math.max(0, next - this.tailSize));
    return true;
  }

  /** Holds rows [start, start + entities.length) instead of those held. */
  hold(start: number, entities: Entity[]): void {
    this.view.beforeHold(start, entities);
    this.start = start;
    this.entities = entities;
    this.indexByKey.clear();
    entities.forEach((e, i) => this.indexByKey.set(e.key, start + i));
  }

  /** Drops held rows before `start` (following the end: the host keeps the last rows only). */
  private trim(start: number): void {
    if (start <= this.start) return;
    const drop = Math.min(this.entities.length, start - this.start);
    for (const e of this.entities.slice(0, drop)) this.indexByKey.delete(e.key);
    this.entities = this.entities.slice(drop);
    this.start += drop;
  }

  /** Applies one patch of an `update` to the held rows (patches to rows not held change nothing). */
  apply(patch: Patch): void {
    if (patch.op === 'append') {
      const index = this.indexByKey.get(patch.key);
      if (index === undefined) return;
      if (!this.view.appendTo(index, patch.text)) appendToEntity(this.entities[index - this.start], patch.text);
    } else if (patch.op === 'upsert') {
      const { entity, index } = patch;
      const end = this.end;
      if (this.indexByKey.get(entity.key) === index) {
        this.entities[index - this.start] = entity;
        this.view.replaced(index, entity);
      } else if (index === end) {
        this.entities.push(entity);
        this.indexByKey.set(entity.key, index);
      } else if (this.tail && index > end) {
        // More new rows than the tail holds arrived at once: hold from here.
        this.hold(index, [entity]);
      }
    }
  }

  /**
   * The range to ask the host for so that rows [a, b) are held, or undefined when they are (or
   * were asked for already). `following`: the view keeps the last line in view, so a range that
   * reaches the end asks for the tail.
   */
  ask(a: number, b: number, following: boolean): RangeRequest | undefined {
    if (!this.count || a >= b) return undefined;
    if (following && b >= this.count) {
      if ((this.tail && this.start <= a) || this.requested?.tail) return undefined;
      this.tail = true;
      return (this.requested = { start: a, end: this.count, tail: true });
    }
    if (a >= this.start && b <= this.end) return undefined;
    const asked = this.requested;
    if (asked && !asked.tail && a >= asked.start && b <= asked.end) return undefined;
    this.tail = false;
    // The rows to build; the host adds a margin (a screen, bounded in characters).
    return (this.requested = { start: a, end: b, tail: false });
  }
}

/** Text appended to a held row that is not built: into the model, shown when it is built. */
export function appendToEntity(entity: Entity, text: string): void {
  const parts = bodyOf(entity);
  const last = parts?.[parts.length - 1];
  if (last?.type === 'text') last.text += text;
}
