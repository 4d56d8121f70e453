/**
 * `fs` as the hook bundle (dist/hook.js) sees it: Node's, with `promises` answered by synchronous
 * calls (esbuild.js points the bundle's `fs` imports here). A hook process does one thing at a
 * time on a handful of small files, and an asynchronous call crosses to libuv's thread pool and
 * back for each step (a `readFile` is four trips: open, stat, read, close; a `writeFile` three):
 * on a busy machine a SessionStart spent 10 to 20 ms of its 1.5x budget waiting on them. A
 * synchronous call costs its system call. The shared modules the hook uses (storage/session-files,
 * storage/derived/briefing-cache, storage/derived/hook-index) keep their asynchronous code, which the extension and the
 * MCP server run with Node's own `fs`.
 *
 * Only the calls those modules make are here, each giving what its asynchronous twin gives (a
 * failure is a rejected promise); another is not a function, so a new use fails the hook's tests
 * rather than giving a wrong answer. The same for the callback forms storage/read-file.ts reads
 * every file of the record with (`open`, `fstat`, `read`, `close`, through `util.promisify`): the
 * hook index's buckets, the session state and the decision records were each four thread-pool
 * round trips, and starting the pool, in every PreToolUse.
 */
import * as nodeFs from 'node:fs';
import { promisify } from 'node:util';

// The synchronous calls the hook's modules make, by name: copying every export of Node's `fs`
// (`export *`) cost each hook process about a millisecond at load. A name missing here fails the
// build (an import by name) or esbuild warns that it is always undefined (a property of `* as fs`).
export {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
export type { Stats } from 'node:fs';

function later<A extends unknown[], R>(call: (...args: A) => R): (...args: A) => Promise<R> {
  return (...args) => {
    try {
      return Promise.resolve(call(...args));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
}

/** A file handle with what the hook's modules use of one: read at a position, stat, close. */
function openHandle(file: string, flags: string) {
  const fd = nodeFs.openSync(file, flags);
  return {
    fd,
    read: later((buffer: Buffer, offset: number, length: number, position: number | null) => ({
      bytesRead: nodeFs.readSync(fd, buffer, offset, length, position),
      buffer,
    })),
    stat: later(() => nodeFs.fstatSync(fd)),
    close: later(() => nodeFs.closeSync(fd)),
  };
}

export const promises = {
  readFile: later(nodeFs.readFileSync),
  writeFile: later(nodeFs.writeFileSync),
  stat: later(nodeFs.statSync),
  mkdir: later(nodeFs.mkdirSync),
  rename: later(nodeFs.renameSync),
  rm: later(nodeFs.rmSync),
  open: later(openHandle),
};

type Callback = (error: NodeJS.ErrnoException | null, ...results: unknown[]) => void;

/** A callback form answered at once: the callback is called before the call returns. */
function answered(call: (...args: never[]) => unknown[]): (...args: unknown[]) => void {
  return (...args) => {
    const callback = args.pop() as Callback;
    let results: unknown[];
    try {
      results = call(...(args as never[]));
    } catch (error) {
      callback(error as NodeJS.ErrnoException);
      return;
    }
    callback(null, ...results);
  };
}

export const open = answered((file: nodeFs.PathLike, flags: nodeFs.OpenMode, mode?: nodeFs.Mode) => [nodeFs.openSync(file, flags, mode)]);
export const fstat = answered((fd: number) => [nodeFs.fstatSync(fd)]);
export const close = answered((fd: number) => (nodeFs.closeSync(fd), []));
/** `read` calls back with (bytesRead, buffer), and its promisified form gives `{ bytesRead, buffer }`, as Node's does. */
export const read = Object.assign(
  answered((fd: number, buffer: Buffer, offset: number, length: number, position: number | null) => [
    nodeFs.readSync(fd, buffer, offset, length, position),
    buffer,
  ]),
  {
    [promisify.custom]: later((fd: number, buffer: Buffer, offset: number, length: number, position: number | null) => ({
      bytesRead: nodeFs.readSync(fd, buffer, offset, length, position),
      buffer,
    })),
  },
);
