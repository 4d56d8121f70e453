/**
 * Decision records read by a worker thread for the search index. Ten thousand decisions are ten
 * thousand files: read on the engine's thread they cost about as much as indexing the whole
 * blackboard. Read by a worker (record-worker.ts) while the engine's thread reads and indexes the
 * blackboard, the index is built in about the time the reading takes, and the extension host's
 * thread is not held for the reading.
 */
import { existsSync } from 'fs';
import { Worker } from 'worker_threads';
import type { DecisionRecord } from '../records';

/** The fields of a decision record that search uses (search-index.ts: decisionText and the hit's author). */
export const INDEXED_FIELDS = ['agent_id', 'summary', 'context', 'rationale', 'alternatives', 'domain', 'scope'] as const;
export type IndexedFields = Partial<Pick<DecisionRecord, (typeof INDEXED_FIELDS)[number]>>;

/**
 * Starts a worker thread running `script` (the bundled record-worker.js) on `files`; resolves to
 * what it read, file by file (null: read it on this thread), or to undefined when the worker could
 * not start, failed or ended without an answer. The worker keeps the process alive until it has
 * answered and ended (under a second for 10k records): a caller awaiting it must not find the
 * event loop empty.
 */
export function readRecordsInWorker(script: string, files: readonly string[]): Promise<(IndexedFields | null)[] | undefined> {
  if (!existsSync(script)) return Promise.resolve(undefined);
  return new Promise(resolve => {
    let worker: Worker;
    try {
      worker = new Worker(script, { workerData: { files } });
    } catch {
      resolve(undefined);
      return;
    }
    worker.once('message', (found: (IndexedFields | null)[]) => resolve(Array.isArray(found) && found.length === files.length ? found : undefined));
    worker.once('error', () => resolve(undefined));
    worker.once('exit', () => resolve(undefined));
  });
}
