// The words the Search view's context values are made of, in one list, as the Sessions tree's
// (src/ui/sessions/treeNodes/contextValues.ts): a row's contextValue is its words joined by ':'
// and the menus of package.json match them (`viewItem == searchMatch`).
// test/unit/context-values.test.ts fails on a word a menu names that this list does not hold.
// No `vscode` import: that test reads the list.

/** Every word of a Search view row's contextValue, each spelt once. */
export const SearchContextWord = {
  /** A session with matches: `searchSession`, or `searchSession:archived`. */
  searchSession: 'searchSession',
  /** After `searchSession`: the session is archived, as the index holds it. */
  archived: 'archived',
  /** One match under its session (Open Match). */
  searchMatch: 'searchMatch',
  /** The row of the filters in force (Clear Filters). */
  searchFilters: 'searchFilters',
  /** An agent's coverage, or a row under it: how many of its sessions are indexed, which not and why. */
  searchCoverage: 'searchCoverage',
  /** Any other row: a state, a hint or an offer. */
  searchInfo: 'searchInfo',
} as const;

/** One word of a Search view row's contextValue. */
export type SearchContextWord = (typeof SearchContextWord)[keyof typeof SearchContextWord];

/** A row's contextValue: its words joined by ':', first what it is. */
export function searchContextValue(...words: readonly SearchContextWord[]): string {
  return words.join(':');
}
