/**
 * Which folders are twining-mcp 2.x SQLite folders, decided when an engine is made (synchronously,
 * so its stores know where to read).
 */
import { readdirSync, statSync } from 'fs';
import * as path from 'path';
import { readFormatKeys } from '../folder-format';
import { databaseFile, hasDatabaseHeader } from './sqlite-db';
import { recordsDir } from './records-dir';
import { readTextSync } from '../read-file';

/**
 * Whether `.twining/` (`dir`) is in twining-mcp 2.x's SQLite layout, looked at synchronously: a
 * format 3 folder is not (folder-format.ts refuses it); otherwise config.yml's `storage.backend`
 * decides when it says `files` or `sqlite`, else (`auto`) a database or a record file makes it one.
 */
export function isSqliteFolder(dir: string): boolean {
  const exists = (p: string) => {
    try {
      return statSync(p, { throwIfNoEntry: false }) !== undefined;
    } catch {
      return false; // `.twining` a file, a part not a folder: not a 2.x folder (the engine reports it)
    }
  };
  const frozen = exists(path.join(dir, 'events')) || exists(path.join(recordsDir(dir), 'RECORDS-FROZEN.md'));
  if (frozen) return false; // format 3: refused (folder-format.ts), never misread
  const state = hasDatabaseHeader(databaseFile(dir)) || hasAnyFileSync(recordsDir(dir));
  let text: string | undefined;
  try {
    // Bounded (read-file.ts): a config.yml that is a device, a FIFO or huge is not read here; the
    // engine's configuration read then names it.
    text = readTextSync(path.join(dir, 'config.yml'), 'config');
  } catch {
    text = undefined;
  }
  // Only a backend that would overturn `state` matters, and YAML can spell a value only with its
  // letters or with a backslash escape: a config.yml with neither needs no parsing (a hook on a
  // 1.x folder then never loads the YAML parser).
  const word = state ? 'files' : 'sqlite';
  if (text === undefined || (!text.includes(word) && !text.includes('\\'))) return state;
  const { backend } = readFormatKeys(text);
  return backend === 'files' ? false : backend === 'sqlite' ? true : state;
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
