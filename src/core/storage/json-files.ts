/**
 * File primitives: exact serialisation (docs/format.md §Serialisation), atomic whole-file rewrites, exclusive
 * creation, and tolerant reads of `.json` files that another program may be rewriting in place.
 */
import { closeSync, promises as fs, constants as fsConstants, fstatSync, ftruncateSync, openSync, readSync, Stats, writeFileSync } from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { TwiningError } from '../errors';
import { assertLinkInside, readKindOfPath, notRegularError, readText } from './read-file';

/** `*.json`: two-space indent, no trailing newline. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** One `*.jsonl` line: compact JSON and a single `\n`. */
export function toJsonlLine(value: unknown): string {
  return JSON.stringify(value) + '\n';
}

/**
 * Replaces a file in one step: writes a temporary file in the same folder, then renames it over
 * the target, so a reader sees the old content or the new, never half of either. Callers hold the
 * target's lock.
 */
export async function writeAtomic(target: string, content: string): Promise<void> {
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await fs.writeFile(temp, content, { encoding: 'utf8', flag: 'wx' });
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw ioError(error, target, `${path.basename(target)} is unchanged (nothing was written)`);
  }
}

/** Creates a file with the given content only if it does not exist. Returns whether it created it. */
export async function createExclusive(target: string, content: string): Promise<boolean> {
  try {
    await fs.writeFile(target, content, { encoding: 'utf8', flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The refusal of a path that is not a regular file (`outcome`: what was not done, for a write). */
const notRegular = (target: string, st: Stats, outcome = '') => notRegularError(target, st, outcome);

/**
 * Opens `target` for reading if it is a regular file; undefined when it does not exist. A FIFO, a
 * device or a directory is refused with CORRUPT naming it: opened without blocking, so a FIFO
 * cannot hang the reader, and never read, so `/dev/zero` cannot fill the memory.
 */
export async function openRegular(target: string): Promise<fs.FileHandle | undefined> {
  let handle: fs.FileHandle;
  let linked = false;
  try {
    // A final link is not followed until it is known to stay inside .twining/ (read-file.ts).
    handle = await fs.open(target, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOFOLLOW ?? 0)).catch(async error => {
      if ((error as NodeJS.ErrnoException).code !== 'ELOOP' || !fsConstants.O_NOFOLLOW) throw error;
      linked = true;
      return fs.open(target, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const st = await handle.stat().catch(async error => {
    await handle.close();
    throw error;
  });
  if (!st.isFile()) {
    await handle.close();
    throw notRegular(target, st);
  }
  if (linked)
    try {
      assertLinkInside(target);
    } catch (error) {
      await handle.close();
      throw error;
    }
  return handle;
}

const BOM = 0xfeff;
/** Text without a leading byte-order mark (an editor may add one; docs/format.md §Serialisation writes none). */
export const withoutBom = (text: string) => (text.charCodeAt(0) === BOM ? text.slice(1) : text);

/**
 * The text of a regular file of the record without its BOM; undefined when it does not exist.
 * Read through read-file.ts, with the limit of what the file's name says it holds (`readKindOfPath`).
 */
export async function readTextIfExists(target: string): Promise<string | undefined> {
  return readText(target, readKindOfPath(target));
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/**
 * Reads and parses a `.json` file. twining-mcp rewrites in place, so a read can catch a file
 * empty or cut short: a failed parse is retried for about 200 ms before it is reported as
 * CORRUPT. A missing file gives `undefined`. A failed parse is never taken to mean "empty".
 */
export async function readJson(target: string, what: string): Promise<unknown> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 8; attempt++) {
    const text = await readTextIfExists(target);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch (error) {
      lastError = error;
      await sleep(25);
    }
  }
  throw new TwiningError('CORRUPT', `${what} (${target}) is not valid JSON and was left untouched: ${(lastError as Error).message}`);
}

/**
 * Reads a `.json` file that must hold an array (registry, decision index). Missing ⇒ []. Every
 * item is returned, also those that are not objects: a rewrite keeps what it does not understand.
 */
export async function readJsonArray(target: string, what: string): Promise<unknown[]> {
  const value = await readJson(target, what);
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new TwiningError('CORRUPT', `${what} (${target}) is valid JSON but not an array; it was left untouched`);
  }
  return value as unknown[];
}

export const isRecord = (item: unknown): item is Record<string, unknown> => item !== null && typeof item === 'object' && !Array.isArray(item);

/** What the common file system errors mean, for a message a person can act on. */
const CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  EISDIR: 'it is a directory where a file belongs',
  ENOTDIR: 'a part of its path is a file where a folder belongs',
  EEXIST: 'something already exists there',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the path is too long',
  EMFILE: 'too many open files',
  EIO: 'an input/output error of the device',
};

/**
 * An error of the file system as a TwiningError IO that names the file, the cause and `outcome`
 * (what was or was not written). TwiningErrors and unknown errors pass through unchanged.
 */
export function ioError(error: unknown, file: string, outcome: string): unknown {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (!code || !(code in CAUSES) || (error as Error).name === 'TwiningError') return error;
  const where = (error as NodeJS.ErrnoException).path;
  const about = where && where !== file && !where.includes(`${path.basename(file)}.`) ? `${file} (at ${where})` : file;
  return new TwiningError('IO', `${about}: ${CAUSES[code]} (${code}); ${outcome}`, { errno: code });
}

/**
 * Appends `text` (complete lines) to a JSONL file, all or nothing: first ending a torn last line
 * (a writer killed mid-append) so the new line stays whole; if the write fails part-way (a full
 * disk), the file is cut back to its previous length, so it is exactly as it was. Callers hold the
 * file's lock. A FIFO, a device or a directory is refused before anything is written.
 *
 * Synchronous calls (open, stat, one byte read, write, close): an append is a few of them of
 * microseconds each, made under a lock another writer may be waiting for; through the thread pool
 * each would wait for a pool thread and the event loop (storage/version-stamp.ts currentStamp).
 */
export function appendLineSafely(target: string, text: string): Promise<void> {
  return Promise.resolve().then(() => {
    appendLinesNow(target, text);
  });
}

/**
 * `appendLineSafely`, synchronous. Returns the file's stat before the append and after it, and
 * whether a torn last line was ended first (then more than `text` was written).
 */
export function appendLinesNow(target: string, text: string): { before: Stats; after: Stats; mended: boolean } {
  let fd: number;
  try {
    fd = openSync(target, fsConstants.O_RDWR | fsConstants.O_APPEND | fsConstants.O_CREAT | (fsConstants.O_NONBLOCK ?? 0), 0o666);
  } catch (error) {
    throw ioError(error, target, 'nothing was written');
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(target, st, '; nothing was written');
    const size = st.size;
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    try {
      writeFileSync(fd, prefix + text, 'utf8');
    } catch (error) {
      let restored: string;
      try {
        ftruncateSync(fd, size);
        restored = `the file was cut back to its previous ${size} bytes, so nothing was written`;
      } catch {
        restored = 'and the part written could not be removed: readers skip the incomplete last line, and the next append ends it';
      }
      throw ioError(error, target, restored);
    }
    return { before: st, after: fstatSync(fd), mended: prefix !== '' };
  } finally {
    closeSync(fd);
  }
}

/** `writeAtomic`'s temporary files, and owner records claimed by a writer (lock-owner.ts); the pid is in the name. */
const TEMP_NAME = /^(?:\..+\.(\d+)\.[0-9a-f]{8}\.tmp|.+\.lock\.owner\.(\d+)\.[0-9a-f]{8}\.claim)$/;

/** Whether a process with this pid exists on this machine (EPERM: it exists, owned by another user). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes temporary files that `writeAtomic` left behind when its process was killed between
 * writing and renaming, and owner records a killed writer had claimed but not yet removed. The
 * writer's pid is in the name; only files of processes that no longer exist are removed. Returns how
 * many were removed.
 */
export async function sweepTemporaryFiles(dir: string): Promise<number> {
  let removed = 0;
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const m = TEMP_NAME.exec(name);
    const pid = m ? Number(m[1] ?? m[2]) : 0;
    if (!m || pid === process.pid || processIsAlive(pid)) continue;
    await fs.rm(path.join(dir, name), { force: true });
    removed++;
  }
  return removed;
}
