/**
 * `.twining/records/`, the committed truth of a twining-mcp 2.x folder (daveangulo/twining-mcp,
 * src/storage/sync/record-export.ts at 0b79c990): one JSON file per record, in `recordText`'s bytes,
 * written whole (temporary file, then rename) after each store write, removed when a post is
 * dismissed or a graph entity removed. Agents and embeddings are not exported.
 *
 *   records/posts/<yyyy-mm>/<id>.json       blackboard entries (<yyyy-mm>: timestamp.slice(0, 7))
 *   records/decisions/<id>.json
 *   records/graph/entities/<id>.json
 *   records/graph/relations/<id>.json
 *   records/handoffs/<id>.json
 */
import { promises as fs, Stats } from 'fs';
import * as path from 'path';
import { statSync } from 'fs';
import { readTextSync } from '../read-file';
import { mapChunked } from '../parallel-io';
import { isRecord, readJson, writeAtomic } from '../json-files';
import { recordText } from './record-text';
import { stampOf } from '../version-stamp';

export type RecordKind = 'posts' | 'decisions' | 'entities' | 'relations' | 'handoffs';
export const RECORD_KINDS: readonly RecordKind[] = ['posts', 'decisions', 'entities', 'relations', 'handoffs'];

/** A record as stored: its id and whole value. */
export type StoredRecord = Record<string, unknown> & { id: string };

const SUBDIR: Record<RecordKind, string[]> = {
  posts: ['posts'],
  decisions: ['decisions'],
  entities: ['graph', 'entities'],
  relations: ['graph', 'relations'],
  handoffs: ['handoffs'],
};

export function recordsDir(dir: string): string {
  return path.join(dir, 'records');
}

/** The folder of one kind's files (posts: the folder of the month folders). */
export function kindDir(dir: string, kind: RecordKind): string {
  return path.join(recordsDir(dir), ...SUBDIR[kind]);
}

/** Where twining-mcp writes this record (a post needs its timestamp: the month folder). */
export function recordFile(dir: string, kind: RecordKind, record: { id: string; timestamp?: unknown }): string {
  if (kind !== 'posts') return path.join(kindDir(dir, kind), `${record.id}.json`);
  const month = typeof record.timestamp === 'string' ? record.timestamp.slice(0, 7) : '';
  return path.join(kindDir(dir, kind), month, `${record.id}.json`);
}

/** The kind and id of a path under records/ (absolute or `.twining/`-relative, either separator), or undefined. */
export function recordOfPath(p: string): { kind: RecordKind; id: string } | undefined {
  const parts = p.split(/[\\/]/);
  const at = parts.lastIndexOf('records');
  if (at < 0) return undefined;
  const rest = parts.slice(at + 1);
  const name = rest[rest.length - 1] ?? '';
  if (!name.endsWith('.json') || name.startsWith('.')) return undefined;
  const id = name.slice(0, -5);
  if (rest[0] === 'posts' && rest.length === 3) return { kind: 'posts', id };
  if (rest[0] === 'decisions' && rest.length === 2) return { kind: 'decisions', id };
  if (rest[0] === 'handoffs' && rest.length === 2) return { kind: 'handoffs', id };
  if (rest[0] === 'graph' && rest.length === 3 && (rest[1] === 'entities' || rest[1] === 'relations')) return { kind: rest[1], id };
  return undefined;
}

/** Writes a record's file in twining-mcp's bytes (its folder made when missing). */
export async function writeRecordFile(file: string, record: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeAtomic(file, recordText(record));
}

export async function removeRecordFile(file: string): Promise<void> {
  await fs.rm(file, { force: true });
}

/** A record file's value: undefined when missing; an error naming the file when it is not a record object with its id. */
export async function readRecordFile(file: string, id: string): Promise<StoredRecord | undefined> {
  const value = await readJson(file, `Record ${id}`);
  if (value === undefined) return undefined;
  if (!isRecord(value) || value.id !== id) throw new Error(`${file} is not a record with id ${id}; it is not read`);
  return value as StoredRecord;
}

export const statOrUndefined = (file: string): Stats | undefined => {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
};

/**
 * A record file's value read synchronously (a regular file just listed: one open, stat, read and
 * close), or undefined when that did not give a record object with its id: `readRecordFile` then
 * says why, retrying a file caught half-written.
 */
export function readRecordFileSync(file: string, id: string): StoredRecord | undefined {
  try {
    const value: unknown = JSON.parse(readTextSync(file, 'record') ?? '');
    return isRecord(value) && value.id === id ? (value as StoredRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** What is known of one record file: where it is and its stat when read. */
export interface FileSeen {
  file: string;
  key: string;
}

/**
 * Every record file of one kind, by id, with its stat key: one listing per folder (posts: per month
 * folder) and one stat per file. `dirKeys` receives each folder's own stat key (a file added,
 * replaced or removed changes it), so a later look can skip the folders that did not change.
 */
export async function listKind(dir: string, kind: RecordKind, dirKeys?: Map<string, string>): Promise<Map<string, FileSeen>> {
  const found = new Map<string, FileSeen>();
  const base = kindDir(dir, kind);
  const folders = kind === 'posts' ? (await fs.readdir(base).catch(() => [] as string[])).sort().map(m => path.join(base, m)) : [base];
  for (const folder of folders) await listFolder(folder, found, dirKeys);
  return found;
}

export async function listFolder(folder: string, into: Map<string, FileSeen>, dirKeys?: Map<string, string>): Promise<void> {
  const st = await fs.stat(folder).catch(() => undefined);
  if (!st?.isDirectory()) return;
  dirKeys?.set(folder, stampOf(st));
  const names = (await fs.readdir(folder).catch(() => [] as string[])).sort().filter(name => name.endsWith('.json') && !name.startsWith('.'));
  // The files stated a chunk at a time (synchronous stats are several times faster), in the listing's order.
  const files = names.map(name => folder + path.sep + name);
  const stats = await mapChunked(files, statOrUndefined);
  names.forEach((name, i) => {
    if (stats[i]?.isFile()) into.set(name.slice(0, -5), { file: files[i], key: stampOf(stats[i]) });
  });
}
