/**
 * The local socket through which a hook process asks an engine that is already running on the same
 * project (the extension's, or `twining mcp`'s) instead of loading the engine and reading the
 * history itself (issue 18: a SessionStart after a write, at 100,000 entries, in 1.5x of a bare
 * Node start). One request per connection: a line of JSON in, a line of JSON out.
 *
 * Where: a Unix socket in a folder only this user may enter (`$XDG_RUNTIME_DIR/twining`, else
 * `<tmp>/twining-<uid>`, mode 0700; both sides refuse a folder another user owns or others may
 * write), named by a hash of the project's real path; on Windows a named pipe named by the same
 * hash and the user's name. Nobody serving (no socket, a stale one, a refusal, no answer in time)
 * is never an error: the caller does the work itself. Imports nothing heavy: the hook loads it on
 * every call, so the name's hash is a plain one (loading `crypto` would cost it about 7 ms), and a
 * request names its project, which the server checks (two projects whose names hash alike are
 * told apart).
 */
import { mkdirSync, realpathSync, statSync } from 'fs';
import type * as net from 'net';
import * as os from 'os';
import * as path from 'path';

/** Requests larger than this are refused (a briefing request is a few hundred bytes). */
export const MAX_REQUEST_BYTES = 64 * 1024;

/** 64 bits of a text (two 32-bit FNV-1a lanes with different starts), as 16 hex digits: a name, not a secret. */
function plainHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x2f6b3a91;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** The project's real path, as both sides name it (case folded on Windows). */
export function projectIdentity(root: string): string {
  let real = path.resolve(root);
  try {
    real = realpathSync.native(real);
  } catch {
    // A project being removed: its resolved path names it as well as anything.
  }
  return process.platform === 'win32' ? real.toLowerCase() : real;
}

/** The user's private folder for sockets, made when missing; undefined when it is not private. */
function privateDir(): string | undefined {
  const uid = process.getuid?.() ?? -1;
  const runtime = process.env.XDG_RUNTIME_DIR;
  const dir = runtime && path.isAbsolute(runtime) ? path.join(runtime, 'twining') : path.join(os.tmpdir(), `twining-${uid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    // Another user's folder, or one others may write into, could hold their socket under our name.
    if (!st.isDirectory() || (uid >= 0 && st.uid !== uid) || (st.mode & 0o077) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/** Where the running engine of a project listens; undefined when there is no safe place. */
export function localSocketPath(root: string): string | undefined {
  return socketPathOf(projectIdentity(root));
}

/** localSocketPath of a project's identity (projectIdentity's, already resolved). */
export function socketPathOf(identity: string): string | undefined {
  const key = plainHash(identity);
  if (process.platform === 'win32') {
    const user = plainHash(os.userInfo().username).slice(0, 8);
    return `\\\\.\\pipe\\twining-${user}-${key}`;
  }
  const dir = privateDir();
  return dir && path.join(dir, `${key}.sock`);
}

function isSocket(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isSocket() ?? false;
  } catch {
    return false;
  }
}

/**
 * Sends one request to the project's running engine and returns its answer, or undefined when
 * nobody answered within `timeoutMs` (or at all): the caller then does the work itself. The
 * request goes with the project's identity (`project`), which the server checks is its own.
 */
export function askRunningEngine(
  root: string,
  request: Record<string, unknown>,
  timeoutMs: number,
  /** Given up on by the caller (it answered otherwise): the connection is closed, the answer undefined. */
  signal?: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const project = projectIdentity(root);
  const where = socketPathOf(project);
  if (!where || signal?.aborted) return Promise.resolve(undefined);
  // No socket there: nobody serves, and `net` (about 4 ms of a hook process to load) is not loaded.
  // A named pipe has no file to look at.
  if (process.platform !== 'win32' && !isSocket(where)) return Promise.resolve(undefined);
  const { createConnection } = require('net') as typeof net;
  return new Promise(resolve => {
    const socket = createConnection(where);
    let text = '';
    let settled = false;
    const done = (value: Record<string, unknown> | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      socket.destroy();
      resolve(value);
    };
    const abort = () => done(undefined);
    signal?.addEventListener('abort', abort);
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(JSON.stringify({ ...request, project }) + '\n'));
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end < 0) return;
      try {
        const answer = JSON.parse(text.slice(0, end)) as unknown;
        done(answer && typeof answer === 'object' && !Array.isArray(answer) ? (answer as Record<string, unknown>) : undefined);
      } catch {
        done(undefined);
      }
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
  });
}
