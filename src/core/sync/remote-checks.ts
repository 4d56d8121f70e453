/**
 * A fetched record is input from elsewhere: it is checked before any of it is read or merged. Its
 * tree may hold only regular files (mode 100644) at the paths sync writes (record ids as file
 * names, never a path), within size limits; every record that comes in must parse, and every id
 * in it must be a plain id. Anything else refuses the whole sync, naming the remote, the ref and
 * the file, before anything local is written.
 */
import { TwiningError } from '../errors';
import { JSONL_FILES, LIMITS, MARKER, SAFE_ID, SyncLayout, fileOfTreePath, isJsonl, isSyncedFile } from './record-files';
import type { TreeEntry } from './record-tree';
import { SESSIONS_TREE, SNAPSHOT_LIMIT } from './clone-sessions';

export interface RemoteFile {
  /** Blob ids of its parts in order (one for a whole file). */
  ids: string[];
  size: number;
}

const MODES: Record<string, string> = { '120000': 'a symbolic link', '160000': 'a submodule (gitlink)', '100755': 'an executable file', '040000': 'a folder' };

export function refused(where: string, problem: string): TwiningError {
  return new TwiningError(
    'CORRUPT',
    `${where}: ${problem}. The sync was refused and nothing was written to this clone's .twining/ (its record is unchanged); fix or remove the remote record, or sync with another remote`,
  );
}

/** The record files of a fetched tree, with the layout it says it carries; throws on anything unexpected. */
export function filesOfRemoteTree(entries: readonly TreeEntry[], where: string): { layout?: SyncLayout; marker?: string; files: Map<string, RemoteFile> } {
  if (entries.length > LIMITS.files) throw refused(where, `the tree holds ${entries.length} files, more than the ${LIMITS.files} a record may have`);
  const markerEntry = entries.find(e => e.path === MARKER);
  const files = new Map<string, RemoteFile & { parts: Map<number, TreeEntry> }>();
  const seen = new Set<SyncLayout>();
  for (const e of entries) {
    if (e.type !== 'blob' || e.mode !== '100644')
      throw refused(where, `${e.path} is ${MODES[e.mode] ?? `of mode ${e.mode}`}; a record holds regular files only`);
    if (e.path === MARKER) {
      if (e.size > 4096) throw refused(where, `${MARKER} is ${e.size} bytes`);
      continue;
    }
    if (e.path.startsWith(`${SESSIONS_TREE}/`)) {
      if (!/^sessions\/[0-9a-f]{1,64}\.json$/.test(e.path) || e.size > SNAPSHOT_LIMIT) throw refused(where, `${e.path} is not a clone's sessions snapshot`);
      continue;
    }
    if (e.path.startsWith('clones/')) {
      if (!/^clones\/[0-9a-f]{1,64}\.json$/.test(e.path) || e.size > 4096) throw refused(where, `${e.path} is not a clone's card`);
      continue;
    }
    const { rel, part } = fileOfTreePath(e.path);
    const known = isSyncedFile(rel, 'files') || isSyncedFile(rel, 'sqlite');
    if (!known || part === -1 || isJsonl(rel) !== (part !== undefined))
      throw refused(where, `${JSON.stringify(e.path)} is not a record file sync writes (ids must be plain names, without path separators)`);
    if (part !== undefined ? e.size > LIMITS.part : e.size > LIMITS.json)
      throw refused(where, `${e.path} is ${e.size} bytes, over the limit for a record file`);
    let f = files.get(rel);
    if (!f) files.set(rel, (f = { ids: [], size: 0, parts: new Map() }));
    f.parts.set(part ?? 0, e);
    f.size += e.size;
    if (f.size > LIMITS.jsonl) throw refused(where, `${rel} is over ${LIMITS.jsonl} bytes`);
    if (rel.startsWith('records/')) seen.add('sqlite');
    else if (!JSONL_FILES.sqlite.includes(rel)) seen.add('files');
  }
  const out = new Map<string, RemoteFile>();
  for (const [rel, f] of files) {
    const order = [...f.parts.keys()].sort((a, b) => a - b);
    if (order.some((n, i) => n !== i)) throw refused(where, `${rel}'s parts are not numbered 0 to ${order.length - 1}`);
    out.set(rel, { ids: order.map(n => f.parts.get(n)!.id), size: f.size });
  }
  if (seen.size > 1) throw refused(where, 'it holds records of both layouts (1.x files and 2.x records/)');
  const layout = seen.values().next().value;
  return { layout, marker: markerEntry?.id, files: out };
}

const PLAIN = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 256 && !/[\\/\0]/.test(v) && v !== '.' && v !== '..';

function idFieldOf(rel: string): 'id' | 'agent_id' {
  return rel === 'agents/registry.json' ? 'agent_id' : 'id';
}

/** Checks an incoming record file's content: it parses, and its records' ids are plain ids (the file name's id for a record file). */
export function checkIncoming(rel: string, content: Buffer, where: string): void {
  const text = content.toString('utf8');
  const field = idFieldOf(rel);
  const checkItem = (item: unknown, at: string) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw refused(where, `${at} is not a JSON object`);
    const id = (item as Record<string, unknown>)[field];
    if (!PLAIN(id)) throw refused(where, `${at} has the ${field} ${JSON.stringify(id)}, which is not a plain id (no path separators)`);
  };
  if (isJsonl(rel)) {
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw refused(where, `${rel} line ${i + 1} is not valid JSON: ${JSON.stringify(line.slice(0, 60))}`);
      }
      checkItem(value, `${rel} line ${i + 1}`);
    });
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw refused(where, `${rel} is not valid JSON (${(error as Error).message})`);
  }
  if (Array.isArray(value)) {
    if (!/(index|registry|entities|relations)\.json$/.test(rel)) throw refused(where, `${rel} holds an array, not a record`);
    value.forEach((item, i) => checkItem(item, `${rel} item ${i + 1}`));
    return;
  }
  checkItem(value, rel);
  const fileId = rel.slice(rel.lastIndexOf('/') + 1, -'.json'.length);
  if ((value as { id?: unknown }).id !== fileId)
    throw refused(where, `${rel} holds the record ${JSON.stringify((value as { id?: unknown }).id)}, not ${fileId}`);
}

export { SAFE_ID };
