// The searchable text of a transcript's timeline: one record per entity that says something,
// named after where it was said. Plain Node (no `vscode`).
import { searchText } from '../transcript/find';
import { FOR_MODEL_LABEL, bodyOf, type Entity } from '../transcript/model';
import type { IndexRecord } from './blocks';
import type { Where } from './query';

const WHERE_OF: Partial<Record<Entity['kind'], Where>> = {
  user_message: 'you',
  agent_message: 'agent',
  session_message: 'agent',
  plan: 'agent',
  subagent: 'agent',
  thought: 'thoughts',
  tool_call: 'tools',
  compaction: 'compactions',
};

/** The searchable text of a timeline's entities (what the transcript's find searches). */
export function recordsOf(entities: readonly Entity[], first = 0): IndexRecord[] {
  const records: IndexRecord[] = [];
  for (let i = 0; i < entities.length; i++) {
    const entity = entities[i];
    const index = first + i;
    const where = WHERE_OF[entity.kind];
    if (!where) continue;
    // Only the summary of a compaction (its status is not text anybody said).
    const forModel = modelContext(entity);
    if (forModel) {
      // Nobody's words: the user's (or agent's) own text stays where it was said, the context
      // apart and labelled, as the agent's (where:you does not find what OpenCode injected).
      if (forModel.said.trim()) records.push({ where, index, text: forModel.said });
      if (forModel.context.trim()) records.push({ where: 'agent', index, text: forModel.context });
      continue;
    }
    const text = entity.kind === 'compaction' ? searchText(entity).replace(/^[^\n]*\n[^\n]*\n/, '') : searchText(entity);
    if (text.trim()) records.push({ where, index, text });
  }
  return records;
}


/**
 * A message with content the agent sent the model only (OpenCode's injected context): the rest
 * of its text, and that content labelled as the transcript and the export label it; undefined
 * for any other entity.
 */
function modelContext(entity: Entity): { said: string; context: string } | undefined {
  if (entity.kind === 'compaction') return undefined;
  const parts = bodyOf(entity);
  if (!parts || !parts.some((p) => p.forModel)) return undefined;
  let said = '';
  let context = '';
  for (const part of parts) {
    const text = searchText({ kind: 'agent_message', key: '', parts: [part] });
    if (part.forModel) context += `${FOR_MODEL_LABEL}: ${text}\n`;
    else said += text;
  }
  return { said, context };
}
