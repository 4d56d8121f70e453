/**
 * The config.yml and .gitignore edits of `twining migrate`, as twining-mcp's migration makes them
 * (daveangulo/twining-mcp, src/migrate/config-edit.ts and forward.ts at 75b67af2): set
 * `storage.backend` (and `version` when asked), keep everything else, and back the original up to
 * `config.yml.pre-migrate.bak` first-wins (an existing backup is the true pre-migration original
 * and is never overwritten). twining-mcp rewrites the file through yaml load and dump, which drops
 * comments; here only the two values' lines are changed in the text, and the result is checked by
 * parsing it (the same mapping with the two keys changed), falling back to a dump (and saying so)
 * only when the text cannot be edited line by line (a flow-style `storage: {…}`, say).
 */
import { promises as fs, constants as fsConstants } from 'fs';
import * as path from 'path';
import { isDeepStrictEqual } from 'util';
import * as yaml from 'js-yaml';
import { isRecord, readTextIfExists, writeAtomic } from '../storage/json-files';
import { TwiningError } from '../errors';

export interface ConfigEdit {
  /** The text config.yml gets. */
  text: string;
  /** The values before: for the report ("files → sqlite"). */
  backendBefore?: string;
  versionBefore?: number;
  /** Whether the text had to be dumped whole (comments and layout lost; the backup keeps them). */
  dumped: boolean;
}

/** config.yml's text with `storage.backend` (and `version`, when given) set; throws naming the file when it is not a YAML mapping. */
export function editConfigText(file: string, text: string | undefined, backend: 'files' | 'sqlite', version?: number): ConfigEdit {
  if (text === undefined) return { text: yaml.dump({ version: version ?? 1, storage: { backend } }), dumped: false };
  let loaded: unknown;
  try {
    loaded = yaml.load(text);
  } catch (error) {
    throw new TwiningError('CORRUPT', `${file} is not valid YAML (${(error as Error).message}); nothing was migrated (fix the file first)`);
  }
  if (loaded !== null && loaded !== undefined && !isRecord(loaded)) {
    throw new TwiningError('CORRUPT', `${file} is not a YAML mapping; nothing was migrated (fix or remove it first)`);
  }
  const before: Record<string, unknown> = loaded ?? {};
  const storageBefore = isRecord(before.storage) ? before.storage : undefined;
  const expected: Record<string, unknown> = { ...before, storage: { ...(storageBefore ?? {}), backend } };
  if (version !== undefined) expected.version = version;
  const result: ConfigEdit = {
    text,
    backendBefore: typeof storageBefore?.backend === 'string' ? storageBefore.backend : undefined,
    versionBefore: typeof before.version === 'number' ? before.version : undefined,
    dumped: false,
  };
  const edited = editLines(text, backend, version);
  let check: unknown;
  try {
    check = edited === undefined ? undefined : yaml.load(edited);
  } catch {
    check = undefined;
  }
  if (edited !== undefined && isDeepStrictEqual(check, expected)) result.text = edited;
  else {
    result.text = yaml.dump(expected);
    result.dumped = true;
  }
  return result;
}

/** The text with the two values changed line by line, or undefined when its layout is not the plain block style. */
function editLines(text: string, backend: string, version?: number): string | undefined {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  if (version !== undefined) {
    const at = lines.findIndex(l => /^version\s*:/.test(l));
    if (at >= 0) lines[at] = lines[at].replace(/^(version\s*:\s*)[^#]*?(\s*(#.*)?)$/, `$1${version}$2`);
    else lines.unshift(`version: ${version}`);
  }
  const storage = lines.findIndex(l => /^storage\s*:\s*(#.*)?$/.test(l));
  if (storage < 0) {
    if (lines.some(l => /^storage\s*:/.test(l))) return undefined; // a flow or scalar value
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    lines.push('storage:', `  backend: ${backend}`, '');
    return lines.join(eol);
  }
  let end = storage + 1;
  while (end < lines.length && (/^\s+\S/.test(lines[end]) || lines[end].trim() === '')) end++;
  const children = lines.slice(storage + 1, end);
  const indent = /^(\s+)\S/.exec(children.find(l => l.trim() !== '' && !l.trim().startsWith('#')) ?? '')?.[1] ?? '  ';
  const at = children.findIndex(l => new RegExp(`^${indent}backend\\s*:`).test(l));
  if (at >= 0) lines[storage + 1 + at] = lines[storage + 1 + at].replace(/^(\s+backend\s*:\s*)[^#]*?(\s*(#.*)?)$/, `$1${backend}$2`);
  else lines.splice(storage + 1, 0, `${indent}backend: ${backend}`);
  return lines.join(eol);
}

/** `config.yml.pre-migrate.bak` beside config.yml. */
export const configBackupFile = (configFile: string) => `${configFile}.pre-migrate.bak`;

/** Copies config.yml to its backup unless a backup exists (first wins). Returns the backup's path, or undefined when there is no config.yml. */
export async function backUpConfig(configFile: string): Promise<string | undefined> {
  const text = await readTextIfExists(configFile);
  if (text === undefined) return undefined;
  const backup = configBackupFile(configFile);
  await fs.copyFile(configFile, backup, fsConstants.COPYFILE_EXCL).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return backup;
}

/** Writes config.yml's new text in one step (temporary file, then rename). */
export async function writeConfig(configFile: string, edit: ConfigEdit): Promise<void> {
  await writeAtomic(configFile, edit.text);
}

/** The lines twining-mcp's forward migration adds to `.twining/.gitignore` (its database is a local cache). */
export const DB_IGNORES = ['twining.db', 'twining.db-wal', 'twining.db-shm'];

/** The lines of DB_IGNORES that `.twining/.gitignore` lacks. */
export async function missingIgnores(dir: string): Promise<string[]> {
  const text = (await readTextIfExists(path.join(dir, '.gitignore'))) ?? '';
  const present = new Set(text.split('\n').map(l => l.trim()));
  return DB_IGNORES.filter(l => !present.has(l));
}

/** Appends the missing lines to `.twining/.gitignore` (created when missing). */
export async function addIgnores(dir: string, lines: readonly string[]): Promise<void> {
  if (!lines.length) return;
  const file = path.join(dir, '.gitignore');
  const text = (await readTextIfExists(file)) ?? '';
  const base = text.length > 0 && !text.endsWith('\n') ? text + '\n' : text;
  await writeAtomic(file, base + lines.join('\n') + '\n');
}
