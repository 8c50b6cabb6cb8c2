// The agent's figures for a session's context window (`usage_update`): kept here, below the
// transcript layer, because the tree (sessions) shows them too and may not import transcript/.

/** How much of the context window is in use, and what the session cost, as the agent said last. */
export interface Usage {
  used: number;
  size: number;
  cost?: { amount: number; currency: string };
}
