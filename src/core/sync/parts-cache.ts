/**
 * Each record file's parts and their blob ids, kept between syncs so an incremental sync does not
 * cut and hash the whole record again. Kept in `.git/twining/parts-cache.json` (the common git
 * directory, never committed), one row per file, keyed by the file's version stamp
 * (store/version-stamp.ts: the store's one definition of "changed"):
 *
 *   - same stamp: the file did not change, its parts and ids are taken as they are;
 *   - a JSONL file that grew: if its first `size` bytes still hash to the kept digest (one native
 *     SHA-1 over them, much cheaper than cutting lines and hashing every part), every part but the
 *     last is kept and only the rest is cut and hashed; appending entries costs what was appended;
 *   - anything else (rewritten, shrunk, another format): cut and hashed from scratch.
 *
 * A long-lived engine also holds each JSONL file's bytes as it last read them, with their parts
 * and the SHA-1's running state, whoever synced since: an unchanged stamp takes the held bytes
 * without reading the file; a file that grew is compared with them slice by slice and only what
 * follows is read, cut and hashed (readGrown).
 *
 * A row is kept only when the file's stamp was the same before and after it was read, so a write
 * that lands while the sync reads cannot pair new bytes with an old stamp. A damaged or foreign
 * cache file is ignored (and rewritten): it is a speed-up, never a source of truth.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { Hash, createHash, randomBytes } from 'crypto';
import { stampOf, VersionStamp } from '../store/version-stamp';
import { isJsonl, splitParts } from './record-files';
import { blobId, Repo } from './record-tree';

export interface Part {
  id: string;
  bytes: Buffer;
}

interface Row {
  stamp: VersionStamp;
  size: number;
  /** SHA-1 of the whole file (hex). */
  digest: string;
  /** [blob id, byte length] of each part, in order. */
  parts: [string, number][];
}

interface CacheFile {
  format: 1;
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

const cacheFile = (repo: Repo) => path.join(repo.gitDir, 'twining', 'parts-cache.json');

async function loadCache(repo: Repo): Promise<Map<string, Row>> {
  try {
    const parsed = JSON.parse(await fs.readFile(cacheFile(repo), 'utf8')) as CacheFile;
    if (parsed?.format !== 1 || parsed.objectFormat !== repo.objectFormat || typeof parsed.files !== 'object') return new Map();
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
 * A JSONL file's bytes as this process last read them, their parts, their SHA-1 and the hash's
 * running state (to carry on over what is appended). Held by a long-lived engine between its
 * syncs: the record's logs are appended to, and this spares reading, cutting and hashing the
 * whole file again on each sync.
 */
const warm = new Map<string, Held>();
interface Held {
  /** The file's stamp when it was read (undefined when it changed while it was read). */
  stamp?: VersionStamp;
  digest: string;
  bytes: Buffer;
  /** The SHA-1 of `bytes`, not finished: it carries on over what is appended. */
  hash: Hash;
  /** [blob id, byte length] of each part of `bytes`. */
  parts: [string, number][];
  /** The memory `bytes` is the start of, with room after it for what is appended next. */
  arena: Buffer;
}

/**
 * A JSONL file that grew since this process last read it (`held`), read without a copy of its
 * whole: its first `held.bytes.length` bytes are read in slices and compared with the held bytes,
 * and only the rest is read, into the room after them (a new arena when there is none). Every
 * byte is still read from the file and compared, as a whole read would; what is saved is a new
 * 40 MB buffer on every sync (its allocation, and the first touch of each of its pages). Bytes
 * once handed out are never written again: only the room after the held bytes is written, and
 * the held bytes are always the last handed out. Undefined when the start differs or the file is
 * shorter than `size` (the caller reads it whole).
 */
async function readGrown(file: string, held: Held, size: number): Promise<Buffer | undefined> {
  const handle = await fs.open(file, 'r');
  try {
    const known = held.bytes.length;
    const slice = Buffer.allocUnsafe(Math.min(known, 1 << 20));
    for (let at = 0; at < known;) {
      const { bytesRead } = await handle.read(slice, 0, Math.min(slice.length, known - at), at);
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
): Promise<{ contents: Map<string, Buffer>; parts: Map<string, Part[]>; work: PartsWork }> {
  const cache = await loadCache(repo);
  const next = new Map<string, Row>();
  const contents = new Map<string, Buffer>();
  const parts = new Map<string, Part[]>();
  const work: PartsWork = { reused: 0, hashedBytes: 0 };
  await Promise.all(
    [...files].map(async ([rel, file]) => {
      const stat = await fs.lstat(file).catch(() => undefined);
      const before = stampOf(stat);
      const row = cache.get(rel);
      const held = isJsonl(rel) ? warm.get(file) : undefined;
      // As this process last read it (same stamp: nothing was written since), the held bytes are the file.
      const same = held && held.stamp === before ? held.bytes : undefined;
      // Grown since this process read it: the held start is compared with the file, the rest read after it.
      const grown = !same && held && stat && stat.size > held.bytes.length ? await readGrown(file, held, stat.size) : undefined;
      const bytes = same ?? grown ?? (await fs.readFile(file));
      const after = same ? before : stampOf(await fs.lstat(file).catch(() => undefined));
      contents.set(rel, bytes);
      let list: Part[];
      let digest: string;
      if (row && row.stamp === after && row.size === bytes.length && fits(row, bytes.length)) {
        // Unchanged since the last sync: the parts are slices of what was read, ids as kept.
        let at = 0;
        list = row.parts.map(([id, len]) => ({ id, bytes: bytes.subarray(at, (at += len)) }));
        digest = row.digest;
        work.reused++;
      } else {
        let hash = createHash('sha1');
        let keep = 0;
        let known: [string, number][] = [];
        if (grown && held) {
          // Appended to since this process read it: its parts as held but the last stand, the hash carries on from the held state.
          hash = held.hash.copy();
          known = held.parts;
          hash.update(bytes.subarray(held.bytes.length));
        } else if (row && isJsonl(rel) && row.size < bytes.length && row.parts.length > 0 && fits(row, row.size)) {
          // Grown since the last sync (of another process, or before this one held it): the kept start is checked by one SHA-1.
          hash.update(bytes.subarray(0, row.size));
          if (hash.copy().digest('hex') === row.digest) known = row.parts;
          hash.update(bytes.subarray(row.size));
        } else hash.update(bytes);
        // Every part but the last stands; the last is cut again with what follows.
        const kept = known.slice(0, -1).map(([id, len]) => ({ id, bytes: bytes.subarray(keep, (keep += len)) }));
        list = [...kept, ...partsFrom(rel, bytes, keep, repo)];
        digest = hash.copy().digest('hex');
        work.hashedBytes += bytes.length - keep;
        if (isJsonl(rel))
          warm.set(file, {
            stamp: before === after ? after : undefined,
            digest,
            bytes,
            hash,
            parts: list.map(p => [p.id, p.bytes.length]),
            arena: grown && held ? held.arena : bytes,
          });
      }
      parts.set(rel, list);
      if (before === after) next.set(rel, { stamp: after, size: bytes.length, digest, parts: list.map(p => [p.id, p.bytes.length] as [string, number]) });
    }),
  );
  await saveCache(repo, next);
  return { contents, parts, work };
}

async function saveCache(repo: Repo, rows: Map<string, Row>): Promise<void> {
  const target = cacheFile(repo);
  const temp = `${target}.${process.pid}-${randomBytes(4).toString('hex')}`;
  const body: CacheFile = { format: 1, objectFormat: repo.objectFormat, files: Object.fromEntries(rows) };
  try {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(temp, JSON.stringify(body));
    await fs.rename(temp, target);
  } catch {
    // Only a speed-up: a cache that cannot be written means the next sync hashes again.
    await fs.rm(temp, { force: true }).catch(() => undefined);
  }
}
