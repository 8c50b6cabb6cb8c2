// Collects the timeline's changes into patches for the webview: one upsert per entity that
// changed shape, appended text joined per entity, in first-touch order so new rows keep
// their timeline order. Draining is the caller's choice (per frame, per few milliseconds).
import type { Entity, SessionState } from './model';
import type { TimelineListener } from './timeline';

/** One change to one entity, before the feed picks what the webview holds (see `Patch`). */
export type Change =
  | { op: 'upsert'; entity: Entity }
  | { op: 'append'; key: string; text: string }
  | { op: 'remove'; key: string };

interface Pending {
  entity?: Entity;
  /** The whole entity is sent (new or changed shape); appended text is already in it. */
  full: boolean;
  /** The webview has never seen this key. */
  created: boolean;
  removed: boolean;
  text: string[];
}

export class PatchCollector implements TimelineListener {
  private pending = new Map<string, Pending>();
  private stateDirty = false;
  /** Called when the first change after a drain arrives, so the owner can schedule a flush. */
  onPending: (() => void) | undefined;

  get isEmpty(): boolean {
    return this.pending.size === 0 && !this.stateDirty;
  }

  created(entity: Entity): void {
    this.touch(entity.key).entity = entity;
    const p = this.pending.get(entity.key)!;
    p.full = true;
    p.created = true;
  }

  changed(entity: Entity): void {
    const p = this.touch(entity.key);
    p.entity = entity;
    p.full = true;
    p.text.length = 0;
  }

  appended(entity: Entity, text: string): void {
    const p = this.touch(entity.key);
    p.entity = entity;
    if (!p.full) p.text.push(text);
  }

  removed(key: string): void {
    const p = this.touch(key);
    if (p.created) {
      this.pending.delete(key);
      return;
    }
    p.removed = true;
    p.full = false;
    p.text.length = 0;
  }

  stateChanged(_state: SessionState): void {
    this.markState();
  }

  /** Marks the header as changed (state the timeline does not own, such as loading). */
  markState(): void {
    const wasEmpty = this.isEmpty;
    this.stateDirty = true;
    if (wasEmpty) this.onPending?.();
  }

  /** Returns the patches since the last drain and whether the header changed, and forgets them. */
  drain(): { patches: Change[]; stateChanged: boolean } {
    const patches: Change[] = [];
    for (const [key, p] of this.pending) {
      if (p.removed) patches.push({ op: 'remove', key });
      else if (p.full) patches.push({ op: 'upsert', entity: p.entity! });
      else if (p.text.length) patches.push({ op: 'append', key, text: p.text.length === 1 ? p.text[0] : p.text.join('') });
    }
    const stateChanged = this.stateDirty;
    this.pending = new Map();
    this.stateDirty = false;
    return { patches, stateChanged };
  }

  /** Forgets pending changes (a snapshot is about to carry everything). */
  clear(): void {
    this.pending = new Map();
    this.stateDirty = false;
  }

  private touch(key: string): Pending {
    let p = this.pending.get(key);
    if (!p) {
      const wasEmpty = this.isEmpty;
      p = { full: false, created: false, removed: false, text: [] };
      this.pending.set(key, p);
      if (wasEmpty) this.onPending?.();
    }
    return p;
  }
}
