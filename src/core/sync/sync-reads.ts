/**
 * What a sync reads from git, read once: a commit's tree listing (once per process and commit; the
 * commit a sync makes is listed from what it wrote), and blobs by id (the local record's parts,
 * the parts this process pushed lately, else one `cat-file --batch` for all that are missing). A
 * long-lived engine syncs every 30 s; each of these would otherwise be a git process per sync.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { Repo, TreeEntry, blobId, listTree, readBlobs } from './record-tree';
import { PARTS_SUFFIX, isJsonl, partName, treeEntriesOf } from './record-files';
import type { Part } from './parts-cache';
import { gitText } from './sync-git';

/** A commit's tree listing, listed once per process (a commit's tree never changes; the remote's tip and the base are often the same commit). */
export type Listing = TreeEntry[] & { folders?: Map<string, string> };
const listings = new Map<string, Promise<Listing>>();
export function listTreeOnce(repo: Repo, commit: string): Promise<Listing> {
  const key = `${repo.gitDir}\0${commit}`;
  let listing = listings.get(key);
  if (!listing) {
    if (listings.size > 64) listings.clear();
    listings.set(key, (listing = keptListing(repo, commit).then(kept => kept ?? listTree(repo, commit))));
    listing.catch(() => listings.delete(key));
  }
  return listing;
}

/**
 * The listing of the commit this clone pushed last, kept in `.git/twining/listing.json` (never
 * committed): the next sync of a new process (the CLI) starts from that commit in the usual case,
 * and then needs no `ls-tree`. Read only for the very commit it names; anything else is undefined.
 */
const listingFile = (repo: Repo) => path.join(repo.gitDir, 'twining', 'listing.json');
async function keptListing(repo: Repo, commit: string): Promise<Listing | undefined> {
  try {
    const kept = JSON.parse(await fs.readFile(listingFile(repo), 'utf8')) as { commit?: unknown; files?: unknown };
    if (kept.commit !== commit || !Array.isArray(kept.files)) return undefined;
    const entries: Listing = (kept.files as [string, string, number][]).map(([p, id, size]) => ({ path: p, mode: '100644', type: 'blob', id, size }));
    if (!entries.every(e => typeof e.path === 'string' && typeof e.id === 'string' && Number.isSafeInteger(e.size))) return undefined;
    entries.folders = new Map();
    return entries;
  } catch {
    return undefined;
  }
}

/** The listing of a commit this process just made: what `ls-tree` would print for it; kept on disk too (resolves when written, never rejects). */
export function seedListing(
  repo: Repo,
  commit: string,
  files: Map<string, string>,
  sizes: Map<string, number>,
  folders = new Map<string, string>(),
): Promise<void> {
  const entries: Listing = [...files].map(([p, id]) => ({ path: p, mode: '100644', type: 'blob', id, size: sizes.get(p) ?? 0 }));
  entries.folders = new Map([...folders].filter(([f]) => f !== ''));
  if (listings.size > 64) listings.clear();
  listings.set(`${repo.gitDir}\0${commit}`, Promise.resolve(entries));
  const target = listingFile(repo);
  const temp = `${target}.${process.pid}-${randomBytes(4).toString('hex')}`;
  const body = JSON.stringify({ commit, files: entries.map(e => [e.path, e.id, e.size]) });
  // Only a speed-up: when it cannot be written, the next new process lists the commit with git.
  return fs
    .writeFile(temp, body)
    .then(() => fs.rename(temp, target))
    .catch(() => fs.rm(temp, { force: true }).catch(() => undefined));
}

/** Blobs this process wrote lately (the parts it pushed), held for the next sync: the part an append replaces is among them. */
const recent = new Map<string, Buffer>();
let recentBytes = 0;
export function remember(id: string, bytes: Buffer): void {
  if (bytes.length > 4 << 20) return;
  if (recentBytes + bytes.length > 16 << 20) {
    recent.clear();
    recentBytes = 0;
  }
  if (!recent.has(id)) recentBytes += bytes.length;
  recent.set(id, bytes);
}

/** Blobs by id: the local record's parts, the recent ones, else read from git in one `cat-file --batch` per call. */
export class BlobSource {
  private readonly held = new Map<string, Buffer>();
  constructor(private readonly repo: Repo) {}
  hold(id: string, bytes: Buffer): void {
    this.held.set(id, bytes);
  }
  async fetch(ids: Iterable<string>): Promise<void> {
    const missing = [...new Set(ids)].filter(id => !this.held.has(id) && !recent.has(id));
    for (const [id, bytes] of await readBlobs(this.repo, missing)) this.held.set(id, bytes);
  }
  async blobs(ids: readonly string[]): Promise<Map<string, Buffer>> {
    await this.fetch(ids);
    return new Map(ids.map(id => [id, (this.held.get(id) ?? recent.get(id))!]));
  }
  /** Whole files, their parts joined. */
  async files(files: Map<string, { ids: string[] }>, wanted: Iterable<string>): Promise<Map<string, Buffer>> {
    const need = [...wanted].filter(rel => files.has(rel));
    const blobs = await this.blobs(need.flatMap(rel => files.get(rel)!.ids));
    return new Map(need.map(rel => [rel, Buffer.concat(files.get(rel)!.ids.map(id => blobs.get(id)!))]));
  }
}

/** The commits of sync's own refs (refs/twining/…), in one `for-each-ref`. */
export async function readRefs(repo: Repo): Promise<Map<string, string>> {
  const out = await gitText(repo.cwd, ['for-each-ref', '--format=%(refname) %(objectname) %(objecttype)', 'refs/twining/']);
  const refs = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [name, id, type] = line.split(' ');
    if (name && type === 'commit') refs.set(name, id);
  }
  return refs;
}

export const treePathOf = (rel: string, i: number) => (isJsonl(rel) ? `${rel}${PARTS_SUFFIX}/${partName(i)}` : rel);

export const partsCache = new WeakMap<Buffer, Part[]>();
/** A file's parts as they lie in the tree, with their blob ids (kept per buffer). */
export function partsOf(rel: string, content: Buffer, repo: Repo): Part[] {
  let parts = partsCache.get(content);
  if (!parts) partsCache.set(content, (parts = treeEntriesOf(rel, content).map(([, bytes]) => ({ id: blobId(bytes, repo.objectFormat), bytes }))));
  return parts;
}

export const sameIds = (a?: readonly string[], b?: readonly string[]) => a === b || (!!a && !!b && a.length === b.length && a.every((x, i) => x === b[i]));
