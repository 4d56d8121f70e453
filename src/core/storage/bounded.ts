/**
 * Many files read at once, a few at a time. `Promise.all` over ten thousand reads opens ten
 * thousand files before the first is closed: past the process's limit (256 by default on macOS,
 * 1,024 on many Linux systems) the opens fail with EMFILE, and a caller that treats an unreadable
 * record as absent silently answers with some of them missing.
 */

/**
 * Files read at once by `mapBounded`: enough to keep the thread pool busy (fewer made a warm `why`
 * slower: bench/README.md, "Figures behind choices in the code"), well under any usual limit
 * (Node raises its soft limit to the hard one, rarely under 4,096).
 */
export const READS_AT_ONCE = 128;

/** How long a run of `mapBounded` holds the event loop at most before it lets other work in. */
const SLICE_MS = 10;

/**
 * `fn` of each item, in order, with at most `limit` calls running at a time: the one bounded pool
 * of the project (parallel-io.ts's mapParallel is it with fewer at once). The first failure is
 * thrown once every call has settled, so nothing is still running when the caller hears of it.
 */
export async function mapBounded<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>, limit = READS_AT_ONCE): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  // Record files are read synchronously (read-file.ts readText): a run of thousands would hold the
  // event loop for its whole length, so it lets other work in every SLICE_MS.
  let since = performance.now();
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
      if (performance.now() - since > SLICE_MS) {
        await new Promise(resolve => setImmediate(resolve));
        since = performance.now();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}
