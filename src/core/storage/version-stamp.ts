/**
 * The one definition of "this file changed" for every reader of the record and everything
 * derived from it (cached files, the briefing cache, the hook index, decision and handoff records,
 * config.yml): a file's version stamp is its identity (device and inode: a file replaced by a
 * rename is another file), its size, its modification time and its status-change time (a rewrite
 * in place of the same size within one mtime tick, or a restored mtime, still moves ctime).
 * Two stamps equal: nothing was written in between, as far as the file system can tell.
 */
import { Stats, promises as fs, statSync } from 'fs';

export type VersionStamp = string;

/** The stamp of a missing file. */
export const MISSING: VersionStamp = 'missing';

type StatLike = Pick<Stats, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>;

/**
 * A file's identity alone (device and inode): the same identity and a larger size is the same
 * file appended to, which the incremental readers (jsonl.ts, claim-log.ts, hook-index.ts) read on
 * from where they stopped.
 */
export const identityOf = (st: Pick<Stats, 'dev' | 'ino'>): string => `${st.dev}:${st.ino}`;

export const stampOf = (st: StatLike | undefined): VersionStamp => (st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : MISSING);

/** The stamp of a file now (one stat); MISSING when it is not there or cannot be looked at. */
export async function stampOfFile(file: string): Promise<VersionStamp> {
  return stampOf(await fs.stat(file).catch(() => undefined));
}

/**
 * The stamp of a file now, by a synchronous stat: what the engine asks before each call to see
 * whether anything changed. A stat takes microseconds; through the thread pool (`fs.promises`) it
 * waits for a pool thread and the event loop, which on a busy machine costs far more than the call
 * itself, and each call makes several in a row. Unlike `stampOfFileSync`, only a missing file is
 * MISSING: any other failure (a part of the path that is a file, no permission) is thrown.
 */
export function currentStamp(file: string): VersionStamp {
  return stampOf(statSync(file, { throwIfNoEntry: false }));
}

/** A file's stat now (synchronous, as `currentStamp`), or undefined when it is missing or cannot be looked at. */
export function statNow(file: string): Stats | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export function stampOfFileSync(file: string): VersionStamp {
  try {
    return stampOf(statSync(file, { throwIfNoEntry: false }));
  } catch {
    return MISSING;
  }
}
