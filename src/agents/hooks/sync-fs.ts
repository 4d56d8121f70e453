/**
 * `fs` as the hook bundle (dist/hook.js) sees it: Node's, with `promises` answered by synchronous
 * calls (esbuild.js points the bundle's `fs` imports here). A hook process does one thing at a
 * time on a handful of small files, and an asynchronous call crosses to libuv's thread pool and
 * back for each step (a `readFile` is four trips: open, stat, read, close; a `writeFile` three):
 * on a busy machine a SessionStart spent 10 to 20 ms of its 1.5x budget waiting on them. A
 * synchronous call costs its system call. The shared modules the hook uses (store/session-files,
 * store/briefing-cache, store/hook-index) keep their asynchronous code, which the extension and the
 * MCP server run with Node's own `fs`.
 *
 * Only the calls those modules make are here, each giving what its asynchronous twin gives (a
 * failure is a rejected promise); another is not a function, so a new use fails the hook's tests
 * rather than giving a wrong answer.
 */
import * as nodeFs from 'node:fs';

export * from 'node:fs';

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
function open(file: string, flags: string) {
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
  open: later(open),
};
