/**
 * File primitives: exact serialisation (FORMAT.md §2.3), atomic whole-file rewrites, exclusive
 * creation, and tolerant reads of `.json` files that another program may be rewriting in place.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { TwiningError } from '../errors';

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
    throw error;
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

export async function readTextIfExists(target: string): Promise<string | undefined> {
  try {
    return await fs.readFile(target, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
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
      return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
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
  return value;
}

export const isRecord = (item: unknown): item is Record<string, unknown> => item !== null && typeof item === 'object' && !Array.isArray(item);

/** Appends one complete line in a single write, first ending a torn last line (a writer killed mid-append) so the new line stays whole. */
export async function appendLineSafely(target: string, line: string): Promise<void> {
  const handle = await fs.open(target, 'a+');
  try {
    const { size } = await handle.stat();
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    await handle.appendFile(prefix + line, 'utf8');
  } finally {
    await handle.close();
  }
}

const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes temporary files that `writeAtomic` left behind when its process was killed between
 * writing and renaming. The writer's pid is in the name; only files of processes that no longer
 * exist are removed. Returns how many were removed.
 */
export async function sweepTemporaryFiles(dir: string): Promise<number> {
  let removed = 0;
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const m = TEMP_NAME.exec(name);
    if (!m || Number(m[1]) === process.pid || processIsAlive(Number(m[1]))) continue;
    await fs.rm(path.join(dir, name), { force: true });
    removed++;
  }
  return removed;
}
