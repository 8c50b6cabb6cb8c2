// The entry of dist/search.js (esbuild.mjs), loaded by src/ui/search/register.ts on first use: when
// the Search view shows, a search command runs, a transcript replayed, or a session the index may
// hold was deleted or archived. The index, the indexer, the view's provider, the query box.
import { useFormatText } from '../../sessions/format';
import type { HostParts } from '../transcripts/hostParts';
import { activateSearch, type SearchPart } from './searchWiring';

export function createSearch(host: Pick<HostParts, 'formatText'>, ...args: Parameters<typeof activateSearch>): SearchPart {
  useFormatText(host.formatText);
  return activateSearch(...args);
}
