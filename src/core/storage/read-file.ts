/**
 * Every read of a file of the record goes through here, so that no file can make a reader wait
 * or grow without end: a file is opened without blocking (a FIFO nobody writes to cannot hang the
 * open), looked at before a byte is read (a FIFO, a device such as `/dev/zero` or a directory is
 * refused), read only up to a limit of its kind (a file larger than any real one is refused
 * before it is read), and a symbolic link that leads out of `.twining/` is refused (the folder's
 * own links, and `.twining` itself as a link, are followed). Each refusal is a CORRUPT error that
 * names the file, the problem, and that nothing was written.
 *
 * Synchronous and asynchronous forms: the folder's layout is decided synchronously when an engine
 * is made, and a hook reads a handful of small files from a new process.
 */
import {
  Stats,
  closeSync,
  constants as fsConstants,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
  close as closeCb,
  fstat as fstatCb,
  open as openCb,
  read as readCb,
} from 'fs';
import { constants as bufferConstants } from 'buffer';
import * as path from 'path';
import { promisify } from 'util';
import { TwiningError } from '../errors';

/** What a file holds, which sets how large it may be. */
export type ReadKind = 'config' | 'record' | 'index' | 'log' | 'session' | 'header';

const MiB = 1024 * 1024;
/** The largest buffer this runtime makes (and the longest string is shorter still). */
const MAX_BUFFER = bufferConstants.MAX_LENGTH;

/**
 * How large a file of each kind may be: far above any real one (config.yml is a few hundred bytes;
 * a decision record a few kilobytes; the decision index at 10,000 decisions about 5 MB; the
 * blackboard at 100,000 entries about 60 MB), far below what would exhaust a process.
 */
export const READ_LIMITS: Record<ReadKind, number> = {
  config: 1 * MiB,
  record: 16 * MiB,
  index: 512 * MiB,
  log: Math.min(MAX_BUFFER, 1024 * MiB),
  session: 16 * MiB,
  header: 1 * MiB,
};

const kindOf = (st: Stats) =>
  st.isFIFO()
    ? 'a FIFO (named pipe)'
    : st.isCharacterDevice() || st.isBlockDevice()
      ? 'a device'
      : st.isDirectory()
        ? 'a directory'
        : st.isSocket()
          ? 'a socket'
          : 'not a file';

export function notRegularError(file: string, st: Stats, outcome = ''): TwiningError {
  return new TwiningError(
    'CORRUPT',
    `${file} is ${kindOf(st)}, not a regular file; Twining neither reads nor writes it, so nothing was written (replace it with a regular file)${outcome}`,
  );
}

export function tooLargeError(file: string, size: number, limit: number): TwiningError {
  return new TwiningError(
    'CORRUPT',
    `${file} is too large to read (${size} bytes; the limit for this file is ${limit}); it was left untouched and nothing was written`,
  );
}

function outsideError(file: string, real: string, root: string): TwiningError {
  return new TwiningError(
    'CORRUPT',
    `${file} is a symbolic link to ${real}, outside ${root}; Twining does not read through it, so nothing was written (replace the link with the real file, or link .twining itself)`,
  );
}

/** The `.twining` folder a path lies in (its last `.twining` component), or undefined. */
function folderOf(file: string): string | undefined {
  const parts = path.resolve(file).split(path.sep);
  const i = parts.lastIndexOf('.twining');
  return i < 0 ? undefined : parts.slice(0, i + 1).join(path.sep) || path.sep;
}

const within = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

/** Refuses a link at `file` whose target lies outside its `.twining` folder (judged by real paths). */
export function assertLinkInside(file: string): void {
  const folder = folderOf(file);
  if (!folder) return;
  let real: string;
  let root: string;
  try {
    real = realpathSync(file);
    root = realpathSync(folder);
  } catch {
    return; // a dangling link: the open reports it as missing
  }
  if (!within(root, real)) throw outsideError(file, real, folder);
}

/** What a file of `.twining/` holds, by its name: the limit its reads get. */
export function readKindOfPath(file: string): ReadKind {
  const name = path.basename(file);
  if (name === 'config.yml') return 'config';
  const parts = file.split(/[\\/]/);
  if (parts[parts.lastIndexOf('.twining') + 1] === 'sessions') return 'session';
  if (name.endsWith('.jsonl')) return 'log';
  if (name === 'index.json' || name === 'registry.json' || name === 'entities.json' || name === 'relations.json') return 'index';
  return 'record';
}

const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);
const NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;

/**
 * Opens for reading; `linked` when the final component is a link (an open that does not follow
 * links failed), which `checkOpened` then holds to the folder.
 */
function openSyncChecked(file: string): { fd: number; linked: boolean } {
  try {
    return { fd: openSync(file, OPEN_FLAGS | NOFOLLOW), linked: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOOP' || !NOFOLLOW) throw error;
  }
  return { fd: openSync(file, OPEN_FLAGS), linked: true };
}

/**
 * The open file's size after checking it is a regular file (what it is comes first: a link to
 * /dev/zero is "a device"), within `limit`, and, reached through a link, inside its folder.
 */
function checkOpened(file: string, st: Stats, limit: number, linked: boolean): number {
  if (!st.isFile()) throw notRegularError(file, st);
  if (linked) assertLinkInside(file);
  if (st.size > limit) throw tooLargeError(file, st.size, limit);
  return st.size;
}

/**
 * Up to `limit` bytes of an open descriptor, read to its end (a file rewritten in place may have
 * grown since its size was seen; a /proc file says size 0 and holds more); more than the limit
 * is refused.
 */
function readAllSync(file: string, fd: number, size: number, limit: number): Buffer {
  let buffer = Buffer.allocUnsafe(Math.min(size + 1, limit + 1));
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      if (filled > limit) throw tooLargeError(file, filled, limit);
      const bigger = Buffer.allocUnsafe(Math.min(filled * 2, limit + 1));
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  if (filled > limit) throw tooLargeError(file, filled, limit);
  return buffer.subarray(0, filled);
}

const BOM = 0xfeff;
const text = (bytes: Buffer) => {
  const s = bytes.toString('utf8');
  return s.charCodeAt(0) === BOM ? s.slice(1) : s;
};

/** The bytes of a regular file of the record (see above); undefined when it does not exist. */
export function readBytesSync(file: string, kind: ReadKind, limit = READ_LIMITS[kind]): Buffer | undefined {
  let fd: number;
  let linked: boolean;
  try {
    ({ fd, linked } = openSyncChecked(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    const size = checkOpened(file, fstatSync(fd), READ_LIMITS[kind], linked);
    return readAllSync(file, fd, size, limit);
  } finally {
    closeSync(fd);
  }
}

/** The text of a regular file of the record without its byte-order mark; undefined when missing. */
export function readTextSync(file: string, kind: ReadKind): string | undefined {
  const bytes = readBytesSync(file, kind);
  return bytes === undefined ? undefined : text(bytes);
}

/** The first `n` bytes of a regular file (fewer when it is shorter); undefined when it is missing or not a regular file. */
export function readHeadSync(file: string, n: number): Buffer | undefined {
  let fd: number;
  let linked: boolean;
  try {
    ({ fd, linked } = openSyncChecked(file));
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    if (linked) assertLinkInside(file);
    const buffer = Buffer.alloc(n);
    let filled = 0;
    for (;;) {
      const got = readSync(fd, buffer, filled, n - filled, filled);
      if (got === 0 || (filled += got) === n) break;
    }
    return buffer.subarray(0, filled);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

const openFd = promisify(openCb);
const fstatFd = promisify(fstatCb);
const readFd = promisify(readCb);
const closeFd = promisify(closeCb);

async function openChecked(file: string): Promise<{ fd: number; linked: boolean }> {
  try {
    return { fd: await openFd(file, OPEN_FLAGS | NOFOLLOW), linked: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOOP' || !NOFOLLOW) throw error;
  }
  return { fd: await openFd(file, OPEN_FLAGS), linked: true };
}

/**
 * The bytes [from, to) of a regular file of the record (an appended range of a log), or from
 * `from` to its end when `to` is undefined; undefined when it does not exist.
 */
export async function readBytes(file: string, kind: ReadKind, from = 0, to?: number): Promise<Buffer | undefined> {
  let fd: number;
  let linked: boolean;
  try {
    ({ fd, linked } = await openChecked(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    const limit = READ_LIMITS[kind];
    const size = checkOpened(file, await fstatFd(fd), limit, linked);
    const end = to ?? size;
    let buffer = Buffer.allocUnsafe(Math.max(0, Math.min(end - from + (to === undefined ? 1 : 0), limit + 1)));
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (to !== undefined) break;
        if (filled > limit) throw tooLargeError(file, filled, limit);
        const bigger = Buffer.allocUnsafe(Math.min(Math.max(filled * 2, 64), limit + 1));
        buffer.copy(bigger, 0, 0, filled);
        buffer = bigger;
      }
      const { bytesRead } = await readFd(fd, buffer, filled, buffer.length - filled, from + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > limit) throw tooLargeError(file, filled, limit);
    return buffer.subarray(0, filled);
  } finally {
    await closeFd(fd);
  }
}

/**
 * The text of a regular file of the record without its byte-order mark; undefined when missing.
 * A record (a decision, a handoff: a few kilobytes) is read with synchronous calls: each costs its
 * system call, where the thread pool costs five round trips (open, stat, two reads, close), each
 * waiting for a pool thread and the event loop on a busy machine; a `why` or a briefing reads a
 * scope's records one after another, and the warm-up of a long-lived engine reads them all.
 * config.yml too (1 MiB at most, so the thread is held for well under a millisecond): the first
 * call of every new engine reads it, then the format check reads it again, one after the other.
 */
export async function readText(file: string, kind: ReadKind): Promise<string | undefined> {
  if (kind === 'record' || kind === 'config') return readTextSync(file, kind);
  const bytes = await readBytes(file, kind);
  return bytes === undefined ? undefined : text(bytes);
}
