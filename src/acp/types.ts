// Protocol types come from the SDK's schema (type-only: no run-time cost), plus the few
// fields the RFDs have that the 2.4.0 schema does not carry yet.
import type * as schema from '@agentclientprotocol/sdk/unstable';

export type {
  AgentCapabilities,
  ContentBlock,
  Implementation,
  InitializeResponse,
  ListSessionsResponse,
  SessionId,
} from '@agentclientprotocol/sdk/unstable';

/** `session/list`'s archive filter (archive RFD). */
export type ArchivedFilter = 'exclude' | 'include' | 'only';

/** A listed session; `archived` is a boolean on every session when `archive` is advertised. */
export type SessionInfo = schema.SessionInfo;

/**
 * One `session/update` payload. Known kinds are the schema's union; `session_info_update`
 * also carries `archived` (archive RFD); anything else is passed on unchanged as an
 * {@link UnknownSessionUpdate}, never dropped.
 */
export type SessionUpdate =
  | Exclude<schema.SessionUpdate, { sessionUpdate: 'session_info_update' }>
  | SessionInfoUpdate
  | UnknownSessionUpdate;

export type SessionInfoUpdate = Extract<schema.SessionUpdate, { sessionUpdate: 'session_info_update' }> & {
  /** Omitted or null: unchanged (archive RFD). */
  archived?: boolean | null;
};

export interface UnknownSessionUpdate {
  sessionUpdate: string;
  [key: string]: unknown;
}

/** The agent's configured launch, as in the `acpSessions.agents` setting. */
export interface AgentConfig {
  name: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Opt into the v2 draft; falls back to v1 when the agent answers 1. */
  protocol?: 1 | 2;
}
