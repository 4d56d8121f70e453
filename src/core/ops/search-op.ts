/**
 * `search`: ranked keyword search over decisions and blackboard entries, from the index the
 * engine keeps (search/search-index.ts), built on the first search and then kept current.
 */
import type { EngineContext } from '../engine-context';
import type { InputOf } from '../schemas';
import { SearchIndex, type SearchResult } from '../search/search-index';
import { KeywordIndex } from '../search/keyword-index';
import { readDecisionRecord } from './decision-ops';

export async function search(ctx: EngineContext, input: InputOf<'search'>): Promise<SearchResult> {
  const args = ctx.validate('search', input);
  const index = searchIndexOf(ctx);
  await index.sync();
  return index.query(args);
}

/** The context's search index, made on first use. */
export function searchIndexOf(ctx: EngineContext): SearchIndex {
  ctx.searchIndex ??= new SearchIndex(
    {
      entries: async () => {
        await ctx.blackboard.refresh();
        return ctx.blackboard.entries;
      },
      decisionIndex: () => ctx.decisionIndex.get(),
      record: async id => {
        const record = await readDecisionRecord(ctx, id).catch((error: Error) => {
          ctx.warn(`search: decision ${id} is indexed by its index entry only: ${error.message}`);
          return undefined;
        });
        return record;
      },
    },
    ctx.textIndex?.() ?? new KeywordIndex(),
  );
  return ctx.searchIndex;
}
