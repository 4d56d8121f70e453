/**
 * Locking that interoperates with twining-mcp (docs/format.md §Locking): proper-lockfile with the same
 * stale, refresh and retry settings on the same target files, so our writes and its writes
 * exclude each other. The target is created first if missing, since a lock needs a real path.
 */
import { promises as fs, statSync } from 'fs';
import * as path from 'path';
import * as lockfile from 'proper-lockfile';
import { createExclusive, ioError, sweepTemporaryFiles } from './json-files';
import { TwiningError } from '../errors';
import { FUTURE_SKEW_MS, describeOwner, forgetOwner, forgetOwnerLater, recordOwner } from './lock-owner';

const OPTIONS = {
  stale: 10_000,
  update: 5_000,
  // twining-mcp locks the real path (proper-lockfile's default); we resolve it ourselves, once
  // per file, and pass it resolved: the lock directory is the same, with two fewer calls a lock.
  realpath: false,
} as const;

/**
 * twining-mcp's retry schedule (docs/format.md §Locking, rule 5: round(50 × 1.5ⁿ) capped at 1 000 ms, no
 * jitter): 11 attempts in about 4.5 s. We run the attempts ourselves rather than through
 * proper-lockfile's `retries`, to record ourselves beside the lock before each attempt and to look
 * at the recorded holder between attempts: a lock whose holder is a dead process of this machine
 * is taken over at once (lock-owner.ts) instead of after 10 s.
 */
const RETRY_DELAYS = [50, 75, 113, 169, 253, 380, 570, 854, 1000, 1000];
/**
 * The schedule starts again whenever the lock changed hands while we waited: LOCKED means one
 * holder kept it for a whole retry period, not that we kept missing it among busy writers (four
 * processes writing at once starved one of them that way). Up to this long in all.
 */
const MAX_WAIT_MS = 30_000;
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** How long ago `target`'s lock directory was last made or refreshed (-Infinity: there is none). */
function lockAge(target: string): number {
  try {
    const st = statSync(`${target}.lock`, { throwIfNoEntry: false });
    return st ? Date.now() - st.mtimeMs : -Infinity;
  } catch {
    return -Infinity;
  }
}

/** The lock directory of `target` when its time is ahead of this machine's clock by more than the skew. */
async function futureLock(target: string): Promise<{ mtime: Date; aheadMs: number } | undefined> {
  const st = await fs.stat(`${target}.lock`).catch(() => undefined);
  const aheadMs = st ? st.mtimeMs - Date.now() : 0;
  return st && aheadMs > FUTURE_SKEW_MS ? { mtime: st.mtime, aheadMs } : undefined;
}

/** Why a lock in the future blocks, and what to do: for the LOCKED message. */
function futureLockText(target: string, future: { mtime: Date; aheadMs: number }): string {
  const ahead = future.aheadMs >= 120_000 ? `${Math.round(future.aheadMs / 60_000)} min` : `${Math.round(future.aheadMs / 1000)} s`;
  return (
    `. Its lock directory ${target}.lock has its time set in the future (${future.mtime.toISOString()}, ${ahead} ahead of this machine's clock), ` +
    `so it does not go stale (10 s after its time) until then: a clock that jumped back, or a folder copied with its lock. ` +
    `If no Twining or twining-mcp process is writing to this project, remove that directory (rmdir "${target}.lock").`
  );
}

/** Real paths of lock targets that exist (or existed: a write re-creates them). */
const resolved = new Map<string, string>();

/** The real path of `file`, created with `emptyContent` first when missing. */
async function realTarget(file: string, emptyContent: string): Promise<string> {
  const known = resolved.get(file);
  if (known) return known;
  await createExclusive(file, emptyContent);
  const real = await fs.realpath(file);
  resolved.set(file, real);
  return real;
}

/** Per lock target, the end of this process's queue for it: true when that caller was locked out. */
const queues = new Map<string, Promise<boolean>>();

const lockedOut = (file: string, detail = '', details?: unknown, why = '') =>
  new TwiningError('LOCKED', `${file} stayed locked by another writer${detail} for the whole retry period (about 4.5 s); nothing was written${why}`, details);

/**
 * Runs `fn` when this process's earlier callers for `target` are done. Callers in one process
 * (an MCP server answering parallel calls, the extension and its tools) wait their turn in memory,
 * and only one of them at a time competes with other processes for the lock: left to
 * proper-lockfile's retries, a burst of them outlasted the retry period and failed with LOCKED.
 * A caller whose predecessor could not get the lock for a whole retry period fails at once with
 * LOCKED: another process held it all the while it waited.
 */
async function inTurn<T>(file: string, target: string, fn: () => Promise<Held<T>>): Promise<T> {
  const previous = queues.get(target) ?? Promise.resolve(false);
  let settle!: (lockedOut: boolean) => void;
  const tail = previous.then(() => new Promise<boolean>(resolve => (settle = resolve)));
  queues.set(target, tail);
  let wasLockedOut = await previous;
  // The next caller's turn comes when the lock is released, which may be after this caller has its answer.
  let released: Promise<void> = Promise.resolve();
  try {
    if (wasLockedOut) throw lockedOut(file, ' (all the while this call waited its turn)');
    const held = await fn();
    released = held.released;
    return held.value;
  } catch (error) {
    if ((error as TwiningError).details === target) wasLockedOut = true;
    throw error;
  } finally {
    const next = () => {
      settle(wasLockedOut);
      if (queues.get(target) === tail) queues.delete(target);
    };
    released.then(next, next);
  }
}

/** What the work under a lock gave, and when the lock is released (resolved already unless `later` took the release). */
interface Held<T> {
  value: T;
  released: Promise<void>;
}

/**
 * Takes the release of a lock that the caller does not wait for (`twining mcp`: its answer goes out
 * as soon as the work is done, and the lock directory and owner record are removed after it, off
 * the call's path: on a busy disk a directory's removal can take milliseconds). The same process's
 * next caller for that lock waits for the release; the owner must wait for every release before it
 * exits (engine.settled()).
 */
export type LaterRelease = (released: Promise<void>) => void;

export type CompromisedHandler = (file: string, error: Error) => void;

/**
 * Runs `work` while holding the lock on `file`. `emptyContent` is what the file is created with
 * when missing (`[]` for JSON arrays, "" for JSONL). A lock that another process breaks while we
 * hold it is reported to `onCompromised` instead of crashing the process (docs/format.md §Compromised locks).
 */
export async function withLock<T>(
  file: string,
  emptyContent: string,
  work: () => Promise<T>,
  onCompromised: CompromisedHandler = () => undefined,
  later?: LaterRelease,
): Promise<T> {
  // A target removed since it was resolved needs nothing: the work creates it again. Its folder
  // removed makes the lock fail (ENOENT), and the path is resolved afresh next time.
  const target = await realTarget(file, emptyContent).catch(error => {
    throw ioError(folderGone(file, error), file, 'it could not be created for its lock, so nothing was written');
  });
  // A live holder refreshes its lock every `update` ms, so a lock older than that when we come was
  // most likely left by a killed writer, and we can only get it once it is stale and taken over.
  // Once we hold it, that writer's temporary files in the folder are cleared too (the sweep only
  // removes files of processes that no longer exist, so a wrong guess costs one readdir).
  return inTurn(file, target, () => lockAndWork(file, target, work, onCompromised, later));
}

async function lockAndWork<T>(file: string, target: string, work: () => Promise<T>, onCompromised: CompromisedHandler, later?: LaterRelease): Promise<Held<T>> {
  // The uncontended path (every write of a lone agent) makes its calls synchronously: a stat, the
  // owner record, the lock directory (proper-lockfile's `lockSync`: its mkdir and stat) and, after
  // the work, their removal, each microseconds, where a trip through the thread pool costs more on
  // a busy machine (version-stamp.ts currentStamp). Waiting for a busy lock stays asynchronous.
  const leftByKilledWriter = lockAge(target) > OPTIONS.update;
  let release: () => void = () => undefined;
  let recorded = false;
  let takeovers = 0;
  const started = Date.now();
  let holder: string | undefined;
  for (let attempt = 0; ; attempt++) {
    // Our writers record themselves beside the lock first (lock-owner.ts); a dead one's record and
    // lock are removed there, and the next attempt follows at once.
    const claim = await recordOwner(target);
    if (claim === 'retry' && takeovers < 3) {
      takeovers++;
      attempt--;
      continue;
    }
    recorded = claim === 'recorded';
    let locked = false;
    if (claim === 'recorded' || claim === 'unrecorded') {
      try {
        const unlock = lockfile.lockSync(target, { ...OPTIONS, onCompromised: error => onCompromised(file, error) });
        release = () => unlock();
        locked = true;
      } catch (error) {
        if (recorded) forgetOwner(target);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          resolved.delete(file);
          throw folderGone(file, error);
        }
        if (code !== 'ELOCKED') throw ioError(error, file, 'its lock could not be taken, so nothing was written');
      }
    }
    if (locked) break;
    const now = await holderOf(target);
    if (attempt > 0 && now !== holder && Date.now() - started < MAX_WAIT_MS) attempt = 0;
    holder = now;
    if (attempt >= RETRY_DELAYS.length) {
      const holder = await describeOwner(target);
      const future = await futureLock(target);
      // `details` marks the lock itself as the one not had (not a lock taken inside `work`).
      throw lockedOut(file, holder ? ` (${holder})` : '', target, future ? futureLockText(target, future) : '');
    }
    await sleep(RETRY_DELAYS[attempt]);
  }
  const releaseNow = () => {
    try {
      release();
    } catch {
      // already released (compromised): nothing of ours is left to remove
    }
    // The record goes last: a writer killed in between leaves a record without a lock, removed at once.
    if (recorded) forgetOwner(target);
  };
  let value: T;
  try {
    if (leftByKilledWriter || takeovers > 0) await sweepTemporaryFiles(path.dirname(file));
    value = await work();
  } catch (error) {
    releaseNow();
    throw error;
  }
  if (!later) {
    releaseNow();
    return { value, released: Promise.resolve() };
  }
  // Released through the thread pool, after the caller has its answer: proper-lockfile's own
  // `unlock` of the lock `lockSync` took (its rmdir), then the record.
  const released = lockfile
    .unlock(target, { realpath: false })
    .catch(() => undefined)
    .then(() => (recorded ? forgetOwnerLater(target) : undefined));
  later(released);
  return { value, released };
}

/**
 * Who holds the lock on `target` now, to tell one holder from the next: its owner record when one
 * of our writers holds it, else the lock directory's identity (twining-mcp records nothing);
 * undefined when the lock is free.
 */
async function holderOf(target: string): Promise<string | undefined> {
  const owner = await describeOwner(target).catch(() => undefined);
  if (owner) return owner;
  const st = await fs.stat(`${target}.lock`).catch(() => undefined);
  return st ? `lock directory ${st.ino}, made ${st.birthtimeMs}` : undefined;
}

/** ENOENT around a lock: the folder was removed while in use. Other errors pass through. */
function folderGone(file: string, error: unknown): unknown {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return error;
  return new TwiningError(
    'NOT_FOUND',
    `${path.dirname(file)} does not exist (was .twining/ removed while in use? "init" creates it again); nothing was written`,
  );
}

/**
 * Holds several locks at once, taken in the order given (callers use one global order:
 * decisions/index.json, handoffs/index.jsonl, blackboard.jsonl), so that an operation that
 * writes several files either gets every lock and writes, or fails with LOCKED having written
 * nothing. twining-mcp never waits for a lock while holding another, so this cannot deadlock with it.
 */
export async function withLocks<T>(
  targets: readonly (readonly [file: string, emptyContent: string])[],
  work: () => Promise<T>,
  onCompromised?: CompromisedHandler,
  later?: LaterRelease,
): Promise<T> {
  if (targets.length === 0) return work();
  const [[file, empty], ...rest] = targets;
  return withLock(file, empty, () => withLocks(rest, work, onCompromised, later), onCompromised, later);
}
