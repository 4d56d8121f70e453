/**
 * Which folders are twining-mcp 2.x SQLite folders, decided when an engine is made (synchronously,
 * so its stores know where to read), and the private folders their records are laid out in
 * (two-x-mirror.ts), one per engine, removed when the process exits.
 */
import { readFileSync, readdirSync, statSync, mkdtempSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readFormatKeys } from './folder-format';
import { databaseFile } from './sqlite-db';
import { recordsDir } from './records-dir';

/** Mirror folders of this process, removed when it exits. */
const mirrors = new Set<string>();
let cleanupHooked = false;

/** Whether `.twining/` (`dir`) is in twining-mcp 2.x's SQLite layout, looked at synchronously (config.yml, then twining.db and records/). */
export function isTwoXFolder(dir: string): boolean {
  let text: string | undefined;
  try {
    text = readFileSync(path.join(dir, 'config.yml'), 'utf8');
  } catch {
    text = undefined;
  }
  const { backend } = readFormatKeys(text);
  if (backend === 'files') return false;
  const exists = (p: string) => {
    try {
      return statSync(p, { throwIfNoEntry: false }) !== undefined;
    } catch {
      return false; // `.twining` a file, a part not a folder: not a 2.x folder (the engine reports it)
    }
  };
  const frozen = exists(path.join(dir, 'events')) || exists(path.join(recordsDir(dir), 'RECORDS-FROZEN.md'));
  if (frozen) return false; // format 3: refused (folder-format.ts), never misread
  if (backend === 'sqlite') return true;
  return hasDatabaseHeader(databaseFile(dir)) || hasAnyFileSync(recordsDir(dir));
}

export function hasDatabaseHeader(file: string): boolean {
  try {
    const st = statSync(file);
    if (!st.isFile() || st.size < 16) return false;
    return readFileSync(file).subarray(0, 16).toString('latin1') === 'SQLite format 3\0';
  } catch {
    return false;
  }
}

function hasAnyFileSync(dir: string): boolean {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.some(e => e.isFile()) || entries.some(e => e.isDirectory() && hasAnyFileSync(path.join(dir, e.name)));
}

/** A new, empty mirror folder for this process (`<tmp>/twining-2x-XXXX/.twining`), removed at exit. */
export function newMirrorDir(): string {
  const base = mkdtempSync(path.join(os.tmpdir(), 'twining-2x-'));
  mirrors.add(base);
  if (!cleanupHooked) {
    cleanupHooked = true;
    process.once('exit', () => {
      for (const m of mirrors) rmSync(m, { recursive: true, force: true });
    });
  }
  return path.join(base, '.twining');
}
