/**
 * Many small file reads or writes at once: a few dozen in flight keep the disk and libuv's threads
 * busy, where one after another leaves the process waiting on each (thousands of record files).
 */

/** How many file operations run at once: enough to fill libuv's pool, few enough to bound open files. */
export const IO_PARALLEL = 32;

/** Runs `work` on every item with at most `limit` in flight; results in the items' order. The first failure is thrown once all have settled. */
export async function mapParallel<T, R>(items: readonly T[], work: (item: T, index: number) => Promise<R>, limit = IO_PARALLEL): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = await work(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
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
