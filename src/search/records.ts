// The searchable text of a transcript's timeline: one record per entity that says something,
// named after where it was said. Plain Node (no `vscode`).
import { searchText } from '../transcript/find';
import type { Entity } from '../transcript/model';
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
    const text = entity.kind === 'compaction' ? searchText(entity).replace(/^[^\n]*\n[^\n]*\n/, '') : searchText(entity);
    if (text.trim()) records.push({ where, index, text });
  }
  return records;
}

