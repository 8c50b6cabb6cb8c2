// A transcript's rows as its readers see them (the feed, find, export, prompts): read by index,
// whether they are an array or a timeline's store that keeps most of them in a file. No Node
// modules here: the webview's bundle imports this layer too.
import type { Entity, EntityKind } from './model';

/**
 * A transcript's rows, read by index: an array of entities is one. A store also reads a row
 * without caching it (`peek`, for scans) and tells a row's kind and key without reading it.
 */
export interface EntityRows {
  readonly length: number;
  at(index: number): Entity | undefined;
  peek?(index: number): Entity | undefined;
  kindAt?(index: number): EntityKind;
  keyAt?(index: number): string;
}

/** Row `index` for a scan: read without displacing the cache. */
export function peekRow(rows: EntityRows, index: number): Entity | undefined {
  return rows.peek ? rows.peek(index) : rows.at(index);
}

export function kindOfRow(rows: EntityRows, index: number): EntityKind | undefined {
  return rows.kindAt ? (index >= 0 && index < rows.length ? rows.kindAt(index) : undefined) : rows.at(index)?.kind;
}

export function keyOfRow(rows: EntityRows, index: number): string | undefined {
  return rows.keyAt ? (index >= 0 && index < rows.length ? rows.keyAt(index) : undefined) : rows.at(index)?.key;
}

/** An entity's position along the transcript: the `n` of its key `e<n>` (see Timeline.key). */
export function keyPosition(key: string): number {
  return Number(key.slice(1));
}
