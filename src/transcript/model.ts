// The transcript's entities: what the timeline reducer produces, what the host sends the
// webview and what the export reads. Plain data (structured-clone safe), no `vscode`.

/**
 * One content block as the transcript keeps it; adjacent text is joined into one part (of the
 * same audience). `forModel`: the agent marked the block for the model only (ACP's content
 * `annotations.audience` without "user"), as OpenCode sends the context it injects: shown
 * collapsed and labelled as such, never as anybody's words.
 */
export type Part = (
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; data?: string; uri?: string }
  | { type: 'audio'; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; title?: string }
  | { type: 'resource'; uri: string; mimeType?: string; text?: string }
  /** A block type this version does not know: kept with its JSON so it can be shown. */
  | { type: 'unknown'; blockType: string; json: string }
) & { forModel?: true };

/** The label of content sent to the model only (see {@link Part}), in export and search. */
export const FOR_MODEL_LABEL = 'Context sent to the model';

/** `session_message`: a message between the session and a subagent (unstable subagents schema). */
export type MessageRole = 'user_message' | 'agent_message' | 'thought' | 'session_message';

export interface MessageEntity {
  kind: MessageRole;
  key: string;
  messageId?: string;
  parts: Part[];
  /** A `session_message`'s participants, as the agent sent them. */
  senderSessionId?: string;
  recipientSessionId?: string;
}

export type ToolCallContentItem =
  | { type: 'content'; part: Part }
  | { type: 'diff'; path: string; oldText?: string; newText: string }
  | { type: 'terminal'; terminalId: string }
  | { type: 'unknown'; json: string };

export interface ToolCallLocation {
  path: string;
  line?: number;
}

export interface ToolCallEntity {
  kind: 'tool_call';
  key: string;
  toolCallId: string;
  title: string;
  toolKind?: string;
  status?: string;
  content: ToolCallContentItem[];
  locations: ToolCallLocation[];
  rawInput?: string;
  rawOutput?: string;
}

export interface PlanEntry {
  content: string;
  priority?: string;
  status?: string;
}

export interface PlanEntity {
  kind: 'plan';
  key: string;
  /** Set for `plan_update` plans, which are addressed by id. */
  planId?: string;
  entries: PlanEntry[];
  /** `plan_update` with a Markdown or file plan instead of items. */
  markdown?: string;
  file?: string;
}

/** The statuses the compaction RFD names; any other string is kept verbatim. */
export const KNOWN_COMPACTION_STATUSES = ['in_progress', 'completed', 'failed', 'cancelled'] as const;

export interface CompactionEntity {
  kind: 'compaction';
  key: string;
  compactionId: string;
  /** Verbatim from the agent, unknown and `_`-prefixed values included. */
  status: string;
  summary: Part[];
  error?: string;
  meta?: Record<string, unknown>;
}

/** A `session/update` kind this client does not know, or one too malformed to apply: shown, not dropped. */
export interface UnknownEntity {
  kind: 'unknown';
  key: string;
  sessionUpdate: string;
  /** Why it could not be applied, when it is a known kind with a bad shape. */
  problem?: string;
  json: string;
}

/**
 * A child session the parent announced with `subagent_update` (unstable subagents schema): one
 * row per child `sessionId`, placed where it was first announced; later updates patch it
 * (omitted = unchanged, null = cleared).
 */
export interface SubagentEntity {
  kind: 'subagent';
  key: string;
  /** The child's session id, as the agent sent it (untrusted text). */
  sessionId: string;
  title?: string;
  description?: string;
  /** `state.state` verbatim (`running`, `idle`, `requires_action`, `unknown`, or another). */
  state?: string;
  /** Where the agent placed the child; unset means the parent's. */
  cwd?: string;
}

export type Entity = MessageEntity | ToolCallEntity | PlanEntity | CompactionEntity | SubagentEntity | UnknownEntity;
export type EntityKind = Entity['kind'];

export interface Notice {
  severity: string;
  title: string;
  description?: string;
}

// Defined with the sessions layer, which shows it too; re-exported for the transcript's importers.
import type { Usage } from '../acp/types';
export type { Usage };

/** One `usage_update` where it came: `at` counts the entities created before it (see Timeline). */
export interface UsagePoint {
  at: number;
  used: number;
  size: number;
}

/** Session facts that are state, not conversation: kept beside the timeline. */
export interface SessionState {
  title?: string;
  updatedAt?: string;
  archived?: boolean;
  usage?: Usage;
  /** Every well-formed `usage_update`, in receive order: what the agent said, nothing estimated. */
  usageHistory: UsagePoint[];
  notices: Notice[];
  currentModeId?: string;
  availableCommands?: string[];
}

/** Entities whose text grows by `append` patches keep it in this list of parts. */
export function bodyOf(entity: Entity): Part[] | undefined {
  switch (entity.kind) {
    case 'user_message':
    case 'agent_message':
    case 'thought':
    case 'session_message':
      return entity.parts;
    case 'compaction':
      return entity.summary;
    default:
      return undefined;
  }
}

/** The text of parts as one string (non-text parts become a short bracketed mention; content for the model only is left out). */
export function partsText(parts: readonly Part[]): string {
  let text = '';
  for (const part of parts) if (!part.forModel) text += part.type === 'text' ? part.text : `[${describePart(part)}]`;
  return text;
}

export function describePart(part: Part): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
      return `image ${part.mimeType}${part.uri ? ` ${part.uri}` : ''}`;
    case 'audio':
      return `audio ${part.mimeType}`;
    case 'resource_link':
      return `${part.title || part.name} (${part.uri})`;
    case 'resource':
      return `resource ${part.uri}`;
    case 'unknown':
      return `${part.blockType} content`;
  }
}

/** Roughly how many characters a row carries (its text, and the JSON it keeps), to bound margins. */
export function entityChars(entity: Entity): number {
  let n = 100;
  const parts = (ps: readonly { type: string; text?: string; data?: string; json?: string }[]) => {
    for (const p of ps) n += (p.text?.length ?? 0) + (p.data?.length ?? 0) + (p.json?.length ?? 0);
  };
  switch (entity.kind) {
    case 'user_message':
    case 'agent_message':
    case 'thought':
    case 'session_message':
      parts(entity.parts);
      break;
    case 'compaction':
      parts(entity.summary);
      break;
    case 'tool_call':
      n += (entity.rawInput?.length ?? 0) + (entity.rawOutput?.length ?? 0) + entity.title.length;
      for (const c of entity.content) {
        if (c.type === 'content') parts([c.part]);
        else if (c.type === 'diff') n += (c.oldText?.length ?? 0) + c.newText.length;
        else if (c.type === 'unknown') n += c.json.length;
      }
      break;
    case 'plan':
      for (const e of entity.entries) n += e.content.length;
      n += entity.markdown?.length ?? 0;
      break;
    case 'unknown':
      n += entity.json.length;
      break;
  }
  return n;
}
