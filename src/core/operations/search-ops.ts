/**
 * `search`: ranked keyword search over decisions and blackboard entries, from the index the
 * engine keeps (search/search-index.ts), built on the first search and then kept current.
 */
import { availableParallelism } from 'os';
import { join } from 'path';
import type { FolderStore } from '../engine/folder-store';
import { readRecordsInWorker } from '../search/record-reader';
import type { InputOf } from '../schemas/schemas';
import { SearchIndex, type SearchResult } from '../search/search-index';
import { KeywordIndex } from '../search/keyword-index';
import { readDecisionRecord } from './decision-ops';

export async function search(ctx: FolderStore, input: InputOf<'search'>): Promise<SearchResult> {
  const args = ctx.validate('search', input);
  const index = searchIndexOf(ctx);
  await index.sync();
  return index.query(args);
}

/** The context's search index, made on first use. */
export function searchIndexOf(ctx: FolderStore): SearchIndex {
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
      records: ids => recordsOffThread(ctx, ids),
    },
    ctx.textIndex?.() ?? new KeywordIndex(),
  );
  return ctx.searchIndex;
}

/** This many new decisions or more have their records read by a worker thread. */
const WORKER_MIN_RECORDS = 1000;

/**
 * Many records read by a worker thread (search/record-reader.ts), where that pays: enough of them
 * and a second core. Undefined: they are read on this thread.
 */
function recordsOffThread(ctx: FolderStore, ids: string[]): ReturnType<typeof readRecordsInWorker> | undefined {
  const options = ctx.searchWorker;
  // The sqlite backend holds the records in memory already: nothing to read.
  if (options === false || ctx.storage.backend === 'sqlite' || ids.length < (options.minRecords ?? WORKER_MIN_RECORDS) || availableParallelism() < 2)
    return undefined;
  return readRecordsInWorker(
    options.script ?? join(__dirname, 'record-worker.js'),
    ids.map(id => ctx.layout.decision(id)),
  );
}
