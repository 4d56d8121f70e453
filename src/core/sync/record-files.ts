/**
 * What `twining sync` carries, and how it lies in the record's git tree.
 *
 * Only the record files travel: in a 1.x (`files`) folder the blackboard, the decision index and
 * records, the handoff index and records, the agent registry, the knowledge graph and the claims
 * log; in a twining-mcp 2.x (`sqlite`) folder its `records/` files (docs/twining-2.md) and the
 * claims log. Never what each clone derives or keeps for itself: `twining.db`, `sessions/`,
 * caches, locks, `archive/` (ignored by git), `config.yml` (committed with the code).
 *
 * In the tree, a JSONL file `X` is the folder `X.parts/` of numbered parts whose concatenation is
 * the file byte for byte. A part ends after a line whose hash is 0 modulo 256 (or at 4,096 lines),
 * so the cut points depend on the lines alone: appending entries changes only the last part, and
 * removing one changes only its part. Unchanged parts keep their blobs, so git sends only what is
 * new. Every other file is one blob under its own path (docs/sync.md §The tree of a record commit).
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { stampOf } from '../storage/version-stamp';

export type SyncLayout = 'files' | 'sqlite';

/** The record's own marker: which format of the tree and which folder layout it carries. */
export const MARKER = 'twining-sync.json';
export const PARTS_SUFFIX = '.parts';

/** A record id as a file name: letters, digits, `_` and `-` (ULIDs and twining-mcp's ids), never a path. */
export const SAFE_ID = /^[0-9A-Za-z][0-9A-Za-z_-]{0,127}$/;
const MONTH = /^\d{4}-\d{2}$/;
const PART_NAME = /^\d{6}$/;

export const JSONL_FILES: Record<SyncLayout, readonly string[]> = {
  files: ['blackboard.jsonl', 'handoffs/index.jsonl', 'claims/claims.jsonl'],
  sqlite: ['claims/claims.jsonl'],
};
const FIXED_JSON: Record<SyncLayout, readonly string[]> = {
  files: ['decisions/index.json', 'agents/registry.json', 'graph/entities.json', 'graph/relations.json'],
  sqlite: [],
};

/** Largest accepted part of a JSONL file, whole JSONL file, and JSON file, from a remote. */
export const LIMITS = { part: 16 * 1024 * 1024, jsonl: 512 * 1024 * 1024, json: 64 * 1024 * 1024, files: 2_000_000 };

/** Whether `rel` (inside `.twining/`, `/`-separated) is a file sync carries in this layout. */
export function isSyncedFile(rel: string, layout: SyncLayout): boolean {
  if (JSONL_FILES[layout].includes(rel) || FIXED_JSON[layout].includes(rel)) return true;
  const parts = rel.split('/');
  const idFile = (name: string) => name.endsWith('.json') && SAFE_ID.test(name.slice(0, -5));
  if (layout === 'files') return parts.length === 2 && (parts[0] === 'decisions' || parts[0] === 'handoffs') && idFile(parts[1]) && parts[1] !== 'index.json';
  if (parts[0] !== 'records') return false;
  if (parts[1] === 'posts') return parts.length === 4 && MONTH.test(parts[2]) && idFile(parts[3]);
  if (parts[1] === 'decisions' || parts[1] === 'handoffs') return parts.length === 3 && idFile(parts[2]);
  if (parts[1] === 'graph') return parts.length === 4 && (parts[2] === 'entities' || parts[2] === 'relations') && idFile(parts[3]);
  return false;
}

export const isJsonl = (rel: string) => rel.endsWith('.jsonl');

/** Where a removal on one side may be taken: a 2.x post or graph item is removed by dismissing it; nothing else is ever removed by sync. */
export function removable(rel: string): boolean {
  return rel.startsWith('records/posts/') || rel.startsWith('records/graph/');
}

/** A line's hash (FNV-1a over its bytes), for the parts' cut points. */
function lineHash(bytes: Buffer, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

/** A JSONL file cut into parts (see above); their concatenation is `content`. An empty file is no part. */
export function splitParts(content: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  let lines = 0;
  for (let at = 0; at < content.length;) {
    const nl = content.indexOf(10, at);
    const end = nl < 0 ? content.length : nl + 1;
    lines++;
    if (nl < 0 || lineHash(content, at, nl) % 256 === 0 || lines >= 4096) {
      parts.push(content.subarray(start, end));
      start = end;
      lines = 0;
    }
    at = end;
  }
  if (start < content.length) parts.push(content.subarray(start));
  return parts;
}

export const partName = (n: number) => String(n).padStart(6, '0');

/** The tree paths and contents of one record file. */
export function treeEntriesOf(rel: string, content: Buffer): [string, Buffer][] {
  if (!isJsonl(rel)) return [[rel, content]];
  return splitParts(content).map((part, i) => [`${rel}${PARTS_SUFFIX}/${partName(i)}`, part]);
}

/** The record file a tree path belongs to, and its part number (undefined for a whole file). */
export function fileOfTreePath(treePath: string): { rel: string; part?: number } {
  const at = treePath.lastIndexOf(`${PARTS_SUFFIX}/`);
  if (at < 0) return { rel: treePath };
  const name = treePath.slice(at + PARTS_SUFFIX.length + 1);
  return { rel: treePath.slice(0, at), part: PART_NAME.test(name) ? Number(name) : -1 };
}

/** Reads every synced file of a `.twining/` folder: relative path → bytes. Regular files only, never through a link. */
export async function readLocalRecords(dir: string, layout: SyncLayout): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  await Promise.all(
    [...(await listLocalRecords(dir, layout))].map(async ([rel, file]) => {
      out.set(rel, await fs.readFile(file));
    }),
  );
  return out;
}

/** The synced files of a `.twining/` folder and their stats (nothing read): relative path → file (their version stamps kept for `stampsOf`). */
export async function listLocalRecords(dir: string, layout: SyncLayout): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const stamps = new Map<string, string>();
  const candidates: string[] = [...JSONL_FILES[layout], ...FIXED_JSON[layout]];
  const list = async (sub: string): Promise<string[]> =>
    (await fs.readdir(path.join(dir, sub), { withFileTypes: true }).catch(() => [])).filter(e => e.isFile()).map(e => `${sub}/${e.name}`);
  const listDirs = async (sub: string): Promise<string[]> =>
    (await fs.readdir(path.join(dir, sub), { withFileTypes: true }).catch(() => [])).filter(e => e.isDirectory()).map(e => `${sub}/${e.name}`);
  if (layout === 'files') candidates.push(...(await list('decisions')), ...(await list('handoffs')));
  else {
    for (const month of await listDirs('records/posts')) candidates.push(...(await list(month)));
    for (const sub of ['records/decisions', 'records/handoffs', 'records/graph/entities', 'records/graph/relations']) candidates.push(...(await list(sub)));
  }
  await Promise.all(
    candidates
      .filter(rel => isSyncedFile(rel, layout))
      .map(async rel => {
        const file = path.join(dir, ...rel.split('/'));
        const st = await fs.lstat(file).catch(() => undefined);
        if (!st?.isFile()) return; // missing, a link, a FIFO or a device: not read, not sent
        found.set(rel, file);
        stamps.set(rel, stampOf(st));
      }),
  );
  lastStamps.set(dir, stamps);
  return found;
}

const lastStamps = new Map<string, Map<string, string>>();
/** Each synced file's size and modification time as the last listing of `dir` found them. */
export function stampsOf(dir: string): Map<string, string> {
  return lastStamps.get(dir) ?? new Map<string, string>();
}
