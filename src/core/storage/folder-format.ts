/**
 * Which of twining-mcp's layouts a `.twining/` folder uses, by twining-mcp 2.x's own rules
 * (daveangulo/twining-mcp, src/storage/backend-resolve.ts at 541c770e, read 2026-11-25):
 *
 *  - `storage.backend` in config.yml: `files` (the 1.x layout (docs/format.md), 1.9 and 2.x alike), `sqlite`
 *    (`twining.db` + `records/`), or `auto`, the 2.x default when the key is missing, resolved as:
 *    1. a real `twining.db` (at least 16 bytes starting with the SQLite header; an empty or garbage
 *       file left by a crash is not state) or any file anywhere under `records/` → sqlite;
 *    2. otherwise any 1.x content → files: a non-blank `blackboard.jsonl`, a non-empty
 *       `decisions/index.json` or any other `decisions/*.json`, a non-empty `graph/entities.json`
 *       or `graph/relations.json`; an unreadable or malformed one counts as content;
 *    3. otherwise (a fresh folder) → sqlite.
 *  - `version` above 2 makes twining-mcp 2.x read-only; the work toward a format 3 freezes
 *    `records/` (`records/RECORDS-FROZEN.md`) and moves the truth to `events/`. We refuse to write
 *    either rather than misread it (the format 3 markers are from the 2.x notes; the migration's
 *    source, src/migrate/v3-forward.ts, was not readable here).
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { isRecord, openRegular, readTextIfExists, writeAtomic } from './json-files';
import { stampOfFileSync } from './version-stamp';
import { hasDatabaseHeader } from './sqlite/sqlite-db';

export type Backend = 'files' | 'sqlite';

/**
 * js-yaml, loaded the first time a config.yml is parsed: most of the hook bundle's code, evaluated
 * on load, which a hook on a 1.x folder never needs (sqlite-detect.ts decides most folders without
 * parsing config.yml).
 */
const yaml = () => require('js-yaml') as typeof import('js-yaml');

export interface FolderFormat {
  /** The layout the folder's records are in. */
  backend: Backend;
  /** `configured`: config.yml names it; otherwise which rule of `auto` chose it. */
  reason: 'configured' | 'sqlite-state' | 'legacy-content' | 'fresh';
  /** `storage.backend` as config.yml writes it (undefined: missing, which means `auto`). */
  configured?: string;
  /** config.yml's `version` when it is a number. */
  version?: number;
  /** Why nothing may be written to this folder (a newer format than we know), or undefined. */
  refusal?: string;
}

async function hasAnyFile(dir: string): Promise<boolean> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) if (entry.isFile()) return true;
  for (const entry of entries) if (entry.isDirectory() && (await hasAnyFile(path.join(dir, entry.name)))) return true;
  return false;
}

/** The file's text; `null` when it exists but cannot be read (or is not a regular file); undefined when it is missing. */
async function textOf(file: string): Promise<string | null | undefined> {
  return readTextIfExists(file).catch(() => null);
}

/** Whether the file holds anything but white space (read until the first such character; unreadable: true). */
async function hasNonBlankText(file: string): Promise<boolean> {
  const handle = await openRegular(file).catch(() => null);
  if (handle === undefined) return false;
  if (handle === null) return true;
  try {
    const buffer = Buffer.alloc(64 * 1024);
    for (let at = 0; ;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
      if (bytesRead === 0) return false;
      if (buffer.toString('utf8', 0, bytesRead).trim().length > 0) return true;
      at += bytesRead;
    }
  } catch {
    return true;
  } finally {
    await handle.close();
  }
}

/** A JSON array file holding something (or unreadable, or not valid JSON: content by the ambiguity rule). */
async function arrayHasContent(file: string): Promise<boolean> {
  const text = await textOf(file);
  if (text === undefined) return false;
  if (text === null) return true;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) && parsed.length > 0;
  } catch {
    return true;
  }
}

/** 1.x content by backend-resolve's `hasLegacyContent`. */
export async function hasLegacyContent(dir: string): Promise<boolean> {
  if (await hasNonBlankText(path.join(dir, 'blackboard.jsonl'))) return true;
  const decisions = path.join(dir, 'decisions');
  let names: string[] = [];
  try {
    names = await fs.readdir(decisions);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return true;
  }
  for (const name of names) {
    if (name === 'index.json') {
      if (await arrayHasContent(path.join(decisions, name))) return true;
    } else if (name.endsWith('.json')) return true;
  }
  for (const file of [path.join('graph', 'entities.json'), path.join('graph', 'relations.json')]) {
    if (await arrayHasContent(path.join(dir, file))) return true;
  }
  return false;
}

/** Whether twining-mcp 2.x's sqlite state is there: a real database or any record file. */
export async function hasSqliteState(dir: string): Promise<boolean> {
  return hasDatabaseHeader(path.join(dir, 'twining.db')) || (await hasAnyFile(path.join(dir, 'records')));
}

/** config.yml's `version` and `storage.backend`, read leniently (a broken file means neither). */
export function readFormatKeys(configText: string | undefined): { version?: number; backend?: string } {
  let loaded: unknown;
  try {
    loaded = configText ? yaml().load(configText) : undefined;
  } catch {
    return {};
  }
  if (!isRecord(loaded)) return {};
  const version = typeof loaded.version === 'number' ? loaded.version : undefined;
  const storage = loaded.storage;
  const backend = isRecord(storage) && typeof storage.backend === 'string' ? storage.backend : undefined;
  return { version, backend };
}

/**
 * The version stamps (version-stamp.ts) of what decides the format of a folder whose config.yml
 * names its backend: config.yml itself (`version`, `storage.backend`), and the two format 3
 * markers, `events/` and `records/RECORDS-FROZEN.md`. While they are the same, so is
 * `detectFolderFormat`'s answer for such a folder (engine/folder-store.ts keeps it).
 */
export function formatStamps(dir: string): string {
  return [path.join(dir, 'config.yml'), path.join(dir, 'events'), path.join(dir, 'records', 'RECORDS-FROZEN.md')].map(stampOfFileSync).join('|');
}

/** The format of the folder `dir` (a `.twining/` path), by twining-mcp 2.x's rules. */
export async function detectFolderFormat(dir: string): Promise<FolderFormat> {
  const configText = await textOf(path.join(dir, 'config.yml'));
  const { version, backend: configured } = readFormatKeys(configText ?? undefined);
  let format: FolderFormat;
  if (configured === 'files' || configured === 'sqlite') format = { backend: configured, reason: 'configured' };
  else if (await hasSqliteState(dir)) format = { backend: 'sqlite', reason: 'sqlite-state' };
  else if (await hasLegacyContent(dir)) format = { backend: 'files', reason: 'legacy-content' };
  else format = { backend: 'sqlite', reason: 'fresh' };
  if (configured !== undefined) format.configured = configured;
  if (version !== undefined) format.version = version;
  const [frozen, events] = await Promise.all([
    fs.stat(path.join(dir, 'records', 'RECORDS-FROZEN.md')).then(
      () => true,
      () => false,
    ),
    fs.stat(path.join(dir, 'events')).then(
      st => st.isDirectory(),
      () => false,
    ),
  ]);
  if (frozen || events) {
    const marker = frozen ? 'records/RECORDS-FROZEN.md' : 'an events/ folder';
    format.refusal = `${dir} has ${marker}: it is in twining-mcp's format 3 (records frozen, the truth in events/), which this version of Twining does not read or write; nothing was written (use a twining-mcp that knows format 3, or migrate the folder back)`;
  } else if (version !== undefined && version > 2) {
    format.refusal = `${path.join(dir, 'config.yml')} says version ${version}: a format newer than the 1 and 2 this version of Twining knows (twining-mcp 2.x opens it read-only too); nothing was written (update Twining)`;
  } else if (configured !== undefined && configured !== 'files' && configured !== 'sqlite' && configured !== 'auto') {
    format.refusal = `${path.join(dir, 'config.yml')}: storage.backend is ${JSON.stringify(configured)}, not files, sqlite or auto; nothing was written (set it to files or sqlite)`;
  }
  return format;
}

/**
 * Adds `storage: {backend: files}` to a config.yml that has no `storage` key (init on a folder made
 * before init wrote it), added as text (the whole file replaced by rename) so the user's comments and order stay. Returns whether
 * it wrote. A file that is not a YAML mapping, or already says something, is left alone.
 */
export async function pinFilesBackend(configFile: string): Promise<boolean> {
  const text = await textOf(configFile);
  if (typeof text !== 'string') return false;
  let loaded: unknown;
  try {
    loaded = yaml().load(text);
  } catch {
    return false;
  }
  if (!isRecord(loaded) || 'storage' in loaded) return false;
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  await writeAtomic(configFile, `${text}${separator}storage:\n  backend: files\n`);
  return true;
}
