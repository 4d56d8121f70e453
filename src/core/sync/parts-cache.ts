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
 * A JSONL file's bytes as this process last read them, their SHA-1 and the hash's running state
 * (to carry on over what is appended). Held by a long-lived engine between its syncs: the record's
 * logs are appended to, and this spares hashing the whole file again on each sync.
 */
const warm = new Map<string, { digest: string; bytes: Buffer; hash: Hash }>();

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
      const before = stampOf(await fs.lstat(file).catch(() => undefined));
      const bytes = await fs.readFile(file);
      const after = stampOf(await fs.lstat(file).catch(() => undefined));
      contents.set(rel, bytes);
      const row = cache.get(rel);
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
        let kept: Part[] = [];
        const held = warm.get(file);
        if (row && isJsonl(rel) && row.size < bytes.length && row.parts.length > 0 && fits(row, row.size)) {
          // In a long-lived engine the bytes of the last read are held: comparing them (one memcmp)
          // proves the prefix unchanged without hashing it again; the hash carries on from their state.
          const same =
            held && held.digest === row.digest && held.bytes.length === row.size && bytes.subarray(0, row.size).equals(held.bytes)
              ? ((hash = held.hash.copy()), true)
              : (hash.update(bytes.subarray(0, row.size)), hash.copy().digest('hex') === row.digest);
          if (same) {
            // Appended to: every part but the last stands; the last is cut again with what follows.
            let at = 0;
            kept = row.parts.slice(0, -1).map(([id, len]) => ({ id, bytes: bytes.subarray(at, (at += len)) }));
            keep = at;
            hash.update(bytes.subarray(row.size));
          } else hash.update(bytes.subarray(row.size));
        } else hash.update(bytes);
        list = [...kept, ...partsFrom(rel, bytes, keep, repo)];
        if (isJsonl(rel)) warm.set(file, { digest: hash.copy().digest('hex'), bytes, hash: hash.copy() });
        digest = hash.digest('hex');
        work.hashedBytes += bytes.length - keep;
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
