// Where Fork from Here ends a fork: the message a row shows, named as claude-agent-acp and
// codex-acp find it (src/acp/jetbrainsAir.ts): its `messageId` and, for an agent message, the
// fingerprint of its text and which message with that text it is, counted from the start.
// Only a user prompt or an agent message the agent gave an id can be a fork point.
import { createHash } from 'node:crypto';
import type { ForkPoint } from '../acp/types';
import type { MessageEntity, Part } from './model';
import { kindOfRow, peekRow, type EntityRows } from './rows';

/** Whether a row can be forked from: a user prompt or an agent message with a `messageId`. */
export function isForkable(entity: { kind: string; messageId?: string } | undefined): entity is MessageEntity & { messageId: string } {
  return (entity?.kind === 'user_message' || entity?.kind === 'agent_message') && typeof entity.messageId === 'string' && entity.messageId.trim() !== '';
}

/** The fork point of row `index`, or undefined when that row cannot be forked from. */
export function forkPointAt(rows: EntityRows, index: number): ForkPoint | undefined {
  const entity = peekRow(rows, index);
  if (!isForkable(entity)) return undefined;
  if (entity.kind === 'user_message') return { messageId: entity.messageId };
  const fingerprint = fingerprintOf(entity.parts);
  let occurrence = 0;
  for (let i = 0; i <= index; i++) {
    if (kindOfRow(rows, i) !== 'agent_message') continue;
    const other = i === index ? entity : peekRow(rows, i);
    if (other?.kind === 'agent_message' && fingerprintOf(other.parts) === fingerprint) occurrence++;
  }
  return { messageId: entity.messageId, messageFingerprint: fingerprint, messageOccurrence: occurrence };
}

/** `sha256:` and the hex digest of a message's text (its text parts, joined), as both agents fingerprint one. */
export function fingerprintOf(parts: readonly Part[]): string {
  const hash = createHash('sha256');
  for (const part of parts) if (part.type === 'text') hash.update(part.text, 'utf8');
  return `sha256:${hash.digest('hex')}`;
}
