/**
 * Many small file reads or writes at once: a few dozen in flight keep the disk and libuv's threads
 * busy, where one after another leaves the process waiting on each (thousands of record files).
 */

import { mapBounded } from './bounded';

/** How many file operations run at once: enough to fill libuv's pool, few enough to bound open files. */
export const IO_PARALLEL = 32;

/** Runs `work` on every item with at most `limit` in flight (bounded.ts's one pool); results in the items' order, the first failure thrown once all have settled. */
export function mapParallel<T, R>(items: readonly T[], work: (item: T, index: number) => Promise<R>, limit = IO_PARALLEL): Promise<R[]> {
  return mapBounded(items, work, limit);
}

/**
 * Runs a synchronous file operation (a stat, a small read) on every item, a chunk at a time with
 * the event loop free between chunks. For thousands of small files this is several times faster
 * than the same operations through promises (each a round trip to libuv's threads), and no chunk
 * holds the loop for long.
 */
export async function mapChunked<T, R>(items: readonly T[], work: (item: T, index: number) => R, chunk = 256): Promise<R[]> {
  const results = new Array<R>(items.length);
  for (let start = 0; start < items.length; start += chunk) {
    if (start > 0) await new Promise<void>(resolve => setImmediate(resolve));
    const end = Math.min(items.length, start + chunk);
    for (let i = start; i < end; i++) results[i] = work(items[i], i);
  }
  return results;
}
