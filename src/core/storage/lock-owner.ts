/**
 * Who holds a lock, recorded beside the lock directory, so that a lock left by a killed writer is
 * taken over at once instead of after proper-lockfile's 10 s staleness.
 *
 * `X.lock/` stays an empty directory, exactly as proper-lockfile and twining-mcp make it, so
 * twining-mcp can still `rmdir` a stale lock of ours. Beside it, `X.lock.owner` names the writer
 * (`{host, pidns, pid, at}`: machine, pid namespace, process). Our writers create it *before* they
 * make the directory (created exclusively, so only one writer can, and filled by a single small
 * write), and remove it only after removing the directory. So whenever a writer of ours holds
 * `X.lock/`, or was killed holding it, the record is there, with no gap between the two. No
 * temporary file is involved: a writer killed at any moment leaves nothing but the record, and a
 * record still empty after `WINDOW_MS` is one whose writer was killed between creating and filling
 * it (before it made any lock directory): it is removed.
 *
 * A writer that finds the record of a process of this machine and pid namespace that no longer
 * exists claims the record (renaming it to a name of its own, which only one rename can do) and
 * removes `X.lock/` when that directory was made just after the record (within `WINDOW_MS`): the
 * dead writer's own. A directory made at another time (twining-mcp broke the dead lock after 10 s
 * and holds its own) is left alone, unless it is dated in the future (see `FUTURE_SKEW_MS`). Anything else (no record: twining-mcp's lock; another machine;
 * a live process) falls back to the 10 s rule.
 */
import { closeSync, promises as fs, openSync, readlinkSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import { randomBytes } from 'crypto';
import { processIsAlive } from './json-files';

interface OwnerRecord {
  host: string;
  pidns: string;
  pid: number;
  at: string;
}

/** This process's pid namespace: pids of another namespace (a container) cannot be checked from here. */
const PID_NAMESPACE = (() => {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
})();

/** A lock directory made this long after its owner record (or less) is that owner's. */
const WINDOW_MS = 2_000;
/**
 * How far ahead of this machine's clock a lock directory's time may be and still be a live
 * holder's: twining-mcp sets its first lock's time to the next whole second plus 5 ms
 * (docs/format.md §Locking, rule 3), and a holder refreshes it to its own now every 5 s.
 */
export const FUTURE_SKEW_MS = 2_000;
/** A record older than proper-lockfile's staleness no longer keeps our writers out by itself. */
const STALE_MS = 10_000;

const ownerFile = (target: string) => `${target}.lock.owner`;
const unique = () => `${process.pid}.${randomBytes(4).toString('hex')}`;

export type OwnerClaim = 'recorded' | 'busy' | 'retry' | 'unrecorded';

/**
 * Records this process as the writer about to take the lock on `target`: 'recorded'. When another
 * writer of ours is recorded: 'busy' (it is alive), or 'retry' (it was dead and its record, and its
 * lock directory if it had made it, were removed: try again at once). 'unrecorded' when the folder
 * cannot hold the record (full disk, no hard links): the lock still works, with the 10 s rule.
 */
export async function recordOwner(target: string): Promise<OwnerClaim> {
  const record: OwnerRecord = { host: os.hostname(), pidns: PID_NAMESPACE, pid: process.pid, at: new Date().toISOString() };
  const text = JSON.stringify(record);
  // A record that vanishes as we look at it (its writer just finished) is simply tried again.
  for (let tries = 0; tries < 3; tries++) {
    // Created and filled synchronously: three calls of microseconds on every lock, each of which
    // would otherwise wait for the thread pool (version-stamp.ts currentStamp says why that costs).
    let fd: number;
    try {
      fd = openSync(ownerFile(target), 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return 'unrecorded';
      const found = await removeIfDead(target);
      if (found === 'alive') return 'busy';
      if (found === 'removed') return 'retry';
      continue;
    }
    let written = true;
    try {
      writeFileSync(fd, text, 'utf8');
    } catch {
      written = false;
    }
    try {
      closeSync(fd);
    } catch {
      // closed or not, the record is what it is
    }
    if (written) return 'recorded';
    // Full disk: the empty record is ours, and goes; the lock works without it (the 10 s rule).
    forgetOwner(target);
    return 'unrecorded';
  }
  return 'busy';
}

/** Removes our record, after the lock directory is gone (synchronously, as it was made). */
export function forgetOwner(target: string): void {
  // Ours while we held the lock (only a record older than the staleness is ever claimed by another
  // writer); removed without reading it, as this runs on every release.
  try {
    rmSync(ownerFile(target), { force: true });
  } catch {
    // left for the next writer, which removes a dead writer's record
  }
}

/** `forgetOwner` through the thread pool, for a release that follows the answer (lock.ts LaterRelease). */
export function forgetOwnerLater(target: string): Promise<void> {
  return fs.rm(ownerFile(target), { force: true }).catch(() => undefined);
}

async function readRecord(file: string): Promise<OwnerRecord | undefined> {
  try {
    const value = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<Record<keyof OwnerRecord, unknown>> | null;
    if (
      value &&
      typeof value.host === 'string' &&
      typeof value.pidns === 'string' &&
      typeof value.pid === 'number' &&
      Number.isInteger(value.pid) &&
      value.pid > 0
    )
      return value as OwnerRecord;
  } catch {
    // missing or not ours: no owner known
  }
  return undefined;
}

/** Whether `record` names a process of this machine and pid namespace that no longer exists. */
function ownerIsDead(record: OwnerRecord): boolean {
  return record.host === os.hostname() && record.pidns === PID_NAMESPACE && PID_NAMESPACE !== '' && record.pid !== process.pid && !processIsAlive(record.pid);
}

/**
 * When the recorded owner of `target`'s lock is dead (or the record is older than the staleness, or
 * still empty after `WINDOW_MS`), removes the record and, for a dead owner, the lock directory it
 * made: 'removed'. 'alive' when the owner lives (or is filling its record in); 'gone' when the record
 * went away meanwhile (its writer finished, or another claimed it).
 */
async function removeIfDead(target: string): Promise<'alive' | 'removed' | 'gone'> {
  const file = ownerFile(target);
  const seen = await readRecord(file);
  const seenStat = await fs.stat(file).catch(() => undefined);
  if (!seenStat) return 'gone'; // its writer finished meanwhile
  const age = Date.now() - seenStat.mtimeMs;
  const abandoned = seen ? ownerIsDead(seen) : age > WINDOW_MS;
  if (age <= STALE_MS && !abandoned) return 'alive';
  const claimed = `${file}.${unique()}.claim`;
  try {
    await fs.rename(file, claimed);
  } catch {
    return 'gone'; // another writer claimed it first
  }
  try {
    const record = await readRecord(claimed);
    const recorded = await fs.stat(claimed);
    const recordAge = Date.now() - recorded.mtimeMs;
    if (record ? !ownerIsDead(record) && recordAge <= STALE_MS : recordAge <= WINDOW_MS) {
      // Renamed from under a live writer (it changed between our two reads): put it back unless a
      // newer record took its place.
      await fs.link(claimed, file).catch(() => undefined);
      return 'alive';
    }
    if (record && ownerIsDead(record)) {
      const dir = await fs.stat(`${target}.lock`).catch(() => undefined);
      const madeAfter = dir && dir.birthtimeMs > 0 ? dir.birthtimeMs - recorded.mtimeMs : NaN;
      // Only the dead writer's own directory: made just after its record (clock granularity aside),
      // or dated ahead of this machine's clock (a clock that jumped back, a copied folder): no live
      // holder's, which would refresh its time to now, and it would not go stale until that time.
      const inFuture = dir !== undefined && dir.mtimeMs - Date.now() > FUTURE_SKEW_MS;
      if ((madeAfter >= -10 && madeAfter <= WINDOW_MS) || inFuture) await fs.rmdir(`${target}.lock`).catch(() => undefined);
    }
    return 'removed';
  } finally {
    await fs.rm(claimed, { force: true }).catch(() => undefined);
  }
}

/** "process 123 on host-a, since …" for a LOCKED message, when one of our writers is recorded. */
export async function describeOwner(target: string): Promise<string | undefined> {
  const record = await readRecord(ownerFile(target));
  return record ? `process ${record.pid} on ${record.host}, since ${record.at}` : undefined;
}
