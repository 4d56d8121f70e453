/**
 * Each record file's parts and their blob ids, kept between syncs so an incremental sync does not
 * cut and hash the whole record again. Kept in `.git/twining/parts.json` (the common git
 * directory, never committed), one row per file, keyed by the file's version stamp
 * (storage/version-stamp.ts: the store's one definition of "changed"):
 *
 *   - same stamp: the file did not change, its parts and ids are taken as they are;
 *   - a JSONL file appended to: every part but the last is kept and only the rest is cut and
 *     hashed; appending entries costs what was appended. "Appended to" is the store's own rule for
 *     reading a log on from where it stopped (storage/files/jsonl.ts): the same file (its identity: every
 *     rewrite of the record replaces the file, storage/json-files.ts writeAtomic), not shorter, and its
 *     bytes unchanged at its start and just before the old end: here its first and its last kept
 *     part, checked whole against their blob ids (or the bytes held), so the cost does not grow
 *     with the file;
 *   - anything else (replaced, shrunk, its first or last part changed, another format): cut and
 *     hashed from scratch.
 *
 * A long-lived engine also holds each JSONL file's bytes as it last read them, with their parts,
 * whoever synced since: an unchanged stamp takes the held bytes without reading the file; a file
 * appended to is checked as above against them and only what follows is read, into the room
 * after them (readGrown).
 *
 * A row is kept only when the file's stamp was the same before and after it was read, so a write
 * that lands while the sync reads cannot pair new bytes with an old stamp. A damaged or foreign
 * cache file is ignored (and rewritten): it is a speed-up, never a source of truth.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { stampOf, VersionStamp } from '../storage/version-stamp';
import { isJsonl, splitParts } from './record-files';
import { blobId, Repo } from './record-tree';

export interface Part {
  id: string;
  bytes: Buffer;
}

interface Row {
  stamp: VersionStamp;
  size: number;
  /** [blob id, byte length] of each part, in order. */
  parts: [string, number][];
}

interface CacheFile {
  format: 2;
  objectFormat: string;
  files: Record<string, Row>;
}

/** What one read of the local record cost: for the tests and the benchmark. */
export interface PartsWork {
  /** Files whose parts were all taken from the cache (not cut, not hashed). */
  reused: number;
  /** Bytes cut into parts and hashed (new or changed content). */
  hashedBytes: number;
}

// Format 2 (no whole-file digest) under a name of its own: a build that still keeps format 1 keeps its own file beside it.
const cacheFile = (repo: Repo) => path.join(repo.gitDir, 'twining', 'parts.json');

async function loadCache(repo: Repo): Promise<Map<string, Row>> {
  try {
    const parsed = JSON.parse(await fs.readFile(cacheFile(repo), 'utf8')) as CacheFile;
    if (parsed?.format !== 2 || parsed.objectFormat !== repo.objectFormat || typeof parsed.files !== 'object') return new Map();
    return new Map(Object.entries(parsed.files));
  } catch {
    return new Map();
  }
}

/** Cuts `bytes[from…]` into parts (as record-files.ts does for a whole file) and names their blobs. */
function partsFrom(rel: string, bytes: Buffer, from: number, repo: Repo): Part[] {
  const rest = bytes.subarray(from);
  const pieces = isJsonl(rel) ? splitParts(rest) : [rest];
  return pieces.map(piece => ({ id: blobId(piece, repo.objectFormat), bytes: piece }));
}

/**
 * A JSONL file's bytes as this process last read them and their parts. Held by a long-lived engine between its
 * syncs: the record's logs are appended to, and this spares reading, cutting and hashing the
 * whole file again on each sync.
 */
const warm = new Map<string, Held>();
interface Held {
  /** The file's stamp when it was read (undefined when it changed while it was read). */
  stamp?: VersionStamp;
  bytes: Buffer;
  /** [blob id, byte length] of each part of `bytes`. */
  parts: [string, number][];
  /** The memory `bytes` is the start of, with room after it for what is appended next. */
  arena: Buffer;
}

/** A file's identity (device and inode) from its version stamp (storage/version-stamp.ts stampOf). */
const identityIn = (stamp: VersionStamp | undefined) => stamp?.split(':', 2).join(':');

/** The byte ranges of the first and the last of `parts` ([id, length] in order): what "appended to" checks. */
function endRanges(parts: readonly [string, number][]): { id: string; from: number; to: number }[] {
  if (parts.length === 0) return [];
  const lastLength = parts[parts.length - 1][1];
  const total = parts.reduce((n, [, len]) => n + len, 0);
  const first = { id: parts[0][0], from: 0, to: parts[0][1] };
  return parts.length === 1 ? [first] : [first, { id: parts[parts.length - 1][0], from: total - lastLength, to: total }];
}

/**
 * A JSONL file appended to since this process last read it (`held`, see the top of this file),
 * read without a copy of its whole: its first and last held parts are read and compared with the
 * held bytes, and only the rest is read, into the room after them (a new arena when there is
 * none). Bytes once handed out are never written again: only the room after the held bytes is
 * written, and the held bytes are always the last handed out. Undefined when the file is another
 * one, those parts differ or the file is shorter than `size` (the caller reads it whole). Held
 * bytes without a stamp (the file changed while they were read) are compared whole.
 */
async function readGrown(file: string, held: Held, size: number, now: VersionStamp): Promise<Buffer | undefined> {
  const sameFile = held.stamp !== undefined && identityIn(held.stamp) === identityIn(now);
  const handle = await fs.open(file, 'r');
  try {
    const known = held.bytes.length;
    const ranges = sameFile ? endRanges(held.parts) : [{ from: 0, to: known }];
    const slice = Buffer.allocUnsafe(Math.min(known, 1 << 20));
    for (const range of ranges)
      for (let at = range.from; at < range.to;) {
        const { bytesRead } = await handle.read(slice, 0, Math.min(slice.length, range.to - at), at);
        if (bytesRead === 0 || slice.compare(held.bytes, at, at + bytesRead, 0, bytesRead) !== 0) return undefined;
        at += bytesRead;
      }
    const room = held.arena.buffer === held.bytes.buffer && held.arena.byteOffset === held.bytes.byteOffset && held.arena.length >= size;
    const arena = room ? held.arena : Buffer.allocUnsafe(size + (size >> 2));
    if (!room) held.bytes.copy(arena, 0);
    for (let at = known; at < size;) {
      const { bytesRead } = await handle.read(arena, at, size - at, at);
      if (bytesRead === 0) return undefined;
      at += bytesRead;
    }
    held.arena = arena;
    return arena.subarray(0, size);
  } finally {
    await handle.close();
  }
}

/**
 * A file's bytes up to its end, as `fs.readFile` gives them, in as few reads as its size allows:
 * `fs.promises.readFile` reads a large file in 512 KiB pieces, one thread-pool round trip each
 * (a record of 40 MB took a new process's sync longer to read than its fetch).
 */
async function readWhole(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    let buffer = Buffer.allocUnsafe((await handle.stat()).size + 1); // one byte more: the end is seen in the same read
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2); // it grew while being read: on to its end
        buffer.copy(bigger, 0, 0, filled);
        buffer = bigger;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) return buffer.subarray(0, filled);
      filled += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** Whether a cached row is a sound description of `bytes` (sizes add up). */
const fits = (row: Row, length: number) => row.parts.reduce((n, [, len]) => n + len, 0) === length;

/**
 * Reads every synced file of the folder (regular files only, as `files` lists them) and gives each
 * its parts with their blob ids, reusing the cache where the stamps say nothing changed. Saves the
 * cache for the next sync.
 */
export async function readWithParts(
  repo: Repo,
  files: Map<string, string>,
): Promise<{ contents: Map<string, Buffer>; parts: Map<string, Part[]>; work: PartsWork; replaced: Map<string, Buffer> }> {
  const cache = await loadCache(repo);
  const next = new Map<string, Row>();
  const contents = new Map<string, Buffer>();
  const parts = new Map<string, Part[]>();
  const work: PartsWork = { reused: 0, hashedBytes: 0 };
  // The last kept part of each file appended to, by blob id: the part the sync replaces, its bytes checked (so not read from git again).
  const replaced = new Map<string, Buffer>();
  await Promise.all(
    [...files].map(async ([rel, file]) => {
      const stat = await fs.lstat(file).catch(() => undefined);
      const before = stampOf(stat);
      const row = cache.get(rel);
      const held = isJsonl(rel) ? warm.get(file) : undefined;
      // As this process last read it (same stamp: nothing was written since), the held bytes are the file.
      const same = held && held.stamp === before ? held.bytes : undefined;
      // Grown since this process read it: the held start is compared with the file, the rest read after it.
      const grown = !same && held && stat && stat.size > held.bytes.length ? await readGrown(file, held, stat.size, before) : undefined;
      const bytes = same ?? grown ?? (await readWhole(file));
      const after = same ? before : stampOf(await fs.lstat(file).catch(() => undefined));
      contents.set(rel, bytes);
      let list: Part[];
      if (row && row.stamp === after && row.size === bytes.length && fits(row, bytes.length)) {
        // Unchanged since the last sync: the parts are slices of what was read, ids as kept.
        let at = 0;
        list = row.parts.map(([id, len]) => ({ id, bytes: bytes.subarray(at, (at += len)) }));
        work.reused++;
      } else {
        let keep = 0;
        let known: [string, number][] = [];
        if (grown && held)
          known = held.parts; // appended to since this process read it (checked by readGrown)
        else if (
          row &&
          isJsonl(rel) &&
          row.size < bytes.length &&
          fits(row, row.size) &&
          identityIn(row.stamp) === identityIn(after) &&
          endRanges(row.parts).every(r => blobId(bytes.subarray(r.from, r.to), repo.objectFormat) === r.id)
        )
          known = row.parts; // appended to since the last sync (of another process, or before this one held it)
        // Every part but the last stands; the last is cut again with what follows.
        const kept = known.slice(0, -1).map(([id, len]) => ({ id, bytes: bytes.subarray(keep, (keep += len)) }));
        if (known.length > 0) replaced.set(known[known.length - 1][0], bytes.subarray(keep, keep + known[known.length - 1][1]));
        list = [...kept, ...partsFrom(rel, bytes, keep, repo)];
        work.hashedBytes += bytes.length - keep;
        if (isJsonl(rel))
          warm.set(file, {
            stamp: before === after ? after : undefined,
            bytes,
            parts: list.map(p => [p.id, p.bytes.length]),
            arena: grown && held ? held.arena : bytes,
          });
      }
      parts.set(rel, list);
      if (before === after) next.set(rel, { stamp: after, size: bytes.length, parts: list.map(p => [p.id, p.bytes.length] as [string, number]) });
    }),
  );
  await saveCache(repo, next);
  return { contents, parts, work, replaced };
}

async function saveCache(repo: Repo, rows: Map<string, Row>): Promise<void> {
  const target = cacheFile(repo);
  const temp = `${target}.${process.pid}-${randomBytes(4).toString('hex')}`;
  const body: CacheFile = { format: 2, objectFormat: repo.objectFormat, files: Object.fromEntries(rows) };
  try {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(temp, JSON.stringify(body));
    await fs.rename(temp, target);
  } catch {
    // Only a speed-up: a cache that cannot be written means the next sync hashes again.
    await fs.rm(temp, { force: true }).catch(() => undefined);
  }
}
