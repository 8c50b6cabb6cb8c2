// The words the Sessions tree's context values are made of, in one list. A node's contextValue
// is its words joined by ':' (`session:active:archivable:deletable`, `pin:gone`), and the menus
// of package.json match those words (`viewItem =~ /^session:.*:deletable/`), so a menu follows a
// node's state without one command per state. test/unit/context-values.test.ts fails on a word a
// menu names that this list does not hold. No `vscode` import: that test reads the list.

/** Every word of a Sessions tree node's contextValue, each spelt once. */
export const ContextWord = {
  // The first word: what the node is.
  /** An agent's row: `agent:<its state>`. */
  agent: 'agent',
  /** The Active or Archived section under an agent: `section:<active|archived>`. */
  section: 'section',
  /** A workspace folder inside a section, when several folders are open. */
  folder: 'folder',
  /** Today, Yesterday, This Week or Older, when sessions are grouped by date. */
  dateGroup: 'dateGroup',
  /** A session's row: `session:<active|archived>`, then what the agent allows on it and its marks. */
  session: 'session',
  /** "Load more" at the end of a list whose agent has more. */
  loadMore: 'loadMore',
  /** "Retry" (or "Restart Agent") under an error. */
  retry: 'retry',
  /** A one-line state in the tree: `message:<its kind>`. */
  message: 'message',
  /** A pinned session shown by its pin, not by its agent's list: `pin:gone`. */
  pin: 'pin',
  /**
   * A kept copy of a session the agent no longer has (Kept Here), `kept`, or one that does not
   * read as whole, `kept:damaged`; as a section's second word, the Kept Here section.
   */
  kept: 'kept',

  // The second word of a section or session: which section it is in.
  /** In Active: the agent lists it as not archived. Pin is offered only here: pins order only Active. */
  active: 'active',
  /** In Archived: the agent lists it as archived. */
  archived: 'archived',

  // A session's operations, in this order, each present when the agent allows it.
  /** The agent can archive and unarchive (the standard's `archive` or a vendor extension). */
  archivable: 'archivable',
  /** The agent can delete (`delete`). */
  deletable: 'deletable',
  /** The agent can replay it as a transcript (`loadSession`). */
  loadable: 'loadable',
  /** The agent can rename (`title`). */
  renamable: 'renamable',
  /**
   * The agent's settings entry has a `resume` template and the session's id is a plain token
   * (src/sessions/resume.ts: Resume in Terminal refuses any other id).
   */
  resumable: 'resumable',
  // A session's marks, after its operations.
  /** The user pinned it. */
  pinned: 'pinned',
  /** Its agent has something newer than the user last saw of it (src/sessions/readState.ts). */
  unread: 'unread',
  /** It has a problem (its folder is missing, or its transcript failed to load): always last. */
  problem: 'problem',

  // An agent's second word: its state (the kinds of AgentState in src/sessions/agentRegistry.ts).
  /** Configured, not started yet (agents start when something first needs them). */
  idle: 'idle',
  /** Starting: its process is being spawned and initialized. */
  starting: 'starting',
  /** Running and initialized: its sections show under it. */
  connected: 'connected',
  /** Could not start, or exited (Restart Agent follows). */
  failed: 'failed',
  /** Runs, but speaks nothing this client can use (an unknown protocol version). */
  unsupported: 'unsupported',
  /** Its requests answer -32000: the user has to sign in first. */
  needsAuthentication: 'needsAuthentication',

  // A message's second word: its kind (MessageKind in messageNode.ts).
  /** Starting the agent, or loading a list. */
  loading: 'loading',
  /** A list with no session to show. */
  empty: 'empty',
  /** Listing or starting failed (a Retry row follows). */
  error: 'error',
  /** Something stands in the way: not supported, a sign-in, workspace trust. */
  warning: 'warning',
  /** An explanation, or an action offered as a row. */
  info: 'info',

  // A pin's second word.
  /** The agent lists the pinned session in neither Active nor Archived. */
  gone: 'gone',

  // A kept copy's second word.
  /** The copy's file does not read as whole (cut short, spoiled): it can only be deleted. */
  damaged: 'damaged',
} as const;

/** One word of a Sessions tree node's contextValue. */
export type ContextWord = (typeof ContextWord)[keyof typeof ContextWord];

/** A node's contextValue: its words joined by ':', first what it is, then its state. */
export function contextValue(...words: readonly ContextWord[]): string {
  return words.join(':');
}
