/**
 * One round of a sync's merge (sync-run.ts steps 2 to 4, before the push): the local record merged
 * with one state of the remote's record, the tree to push, its commit (made by fast-import, no
 * local ref moved: record-commit.ts) and the counts of what comes in and goes out. It reads and
 * computes only; nothing of the clone's changes until the caller pushes and applies it, so a
 * round made on a guess of the remote's state (while the fetch runs) is dropped at no cost when
 * the fetch finds the remote moved.
 */
import { mergeTwiningTexts } from '../merge/merge-file';
import type { SyncHost } from './sync-host';
import { MARKER, SyncLayout, removable } from './record-files';
import type { Part, PartsWork } from './parts-cache';
import { Repo, blobId } from './record-tree';
import { PendingCommit, SpareImport, syncIdentity } from './record-commit';
import { BlobSource, Listing, listTreeOnce, partsCache, partsOf, sameIds, treePathOf } from './sync-reads';
import { SESSIONS_TREE, ownSnapshot, snapshotBytes } from './clone-sessions';
import { checkIncoming, filesOfRemoteTree, refused } from './remote-checks';
import { settleClaims } from './claim-settle';
import { BASE_REF } from './sync-state';
import { countChanges, SyncCounts, emptyCounts, IncomingEntry } from './sync-counts';

export interface LostClaim {
  id: string;
  target: string;
  agent_id: string;
  holder: string;
}

/** The local record as read for a sync (parts-cache.ts). */
export interface LocalRead {
  contents: Map<string, Buffer>;
  parts: Map<string, Part[]>;
  work: PartsWork;
  /** Blobs the local record no longer has but its last sync did (the last part an append replaced), by id. */
  replaced?: Map<string, Buffer>;
}

/** What a round is made on: the remote's record (its tip, if it has one) and this clone's last synced state. */
export interface RoundInput {
  host: SyncHost;
  repo: Repo;
  remote: string;
  /** The record on the remote, for messages. */
  where: string;
  layout: SyncLayout;
  clone: { id: string; label: string };
  reason?: string;
  read: LocalRead;
  remoteTip?: string;
  base?: string;
  spare: SpareImport;
}

export interface Round {
  remoteTip?: string;
  base?: string;
  remoteListing?: Listing;
  local: Map<string, Buffer>;
  merged: Map<string, Buffer>;
  notes: string[];
  lost: LostClaim[];
  source: BlobSource;
  treeFiles: Map<string, string>;
  sizes: Map<string, number>;
  newBlobs: Map<string, Buffer>;
  /** The commit to push, made and readable; undefined when the merged tree is the remote's (nothing to push). */
  made?: PendingCommit;
  /** Counts what came in and goes out (for the report); started by the caller once its push is on its way. */
  count(): Promise<RoundCounts>;
}

export interface RoundCounts {
  incoming: SyncCounts;
  outgoing: SyncCounts;
  incomingEntries: IncomingEntry[];
  incomingClaims: IncomingEntry[];
}

/** A commit's record files (their part ids), its tree checked first. */
async function filesOfCommit(repo: Repo, commit: string, where: string) {
  return filesOfRemoteTree(await listTreeOnce(repo, commit), where);
}

/** Merges the local record with the remote's at `remoteTip` (base: `base`), makes the commit to push and counts the changes. */
export async function mergeRound(input: RoundInput): Promise<Round> {
  const { host, repo, remote, where, layout, clone, read, remoteTip, base, spare } = input;
  const notes: string[] = [];
  // The remote's tree is checked before anything of it is read.
  const remoteListing = remoteTip ? await listTreeOnce(repo, remoteTip) : undefined;
  const remoteTree = remoteListing ? filesOfRemoteTree(remoteListing, where) : { layout: undefined, files: new Map<string, { ids: string[] }>() };
  if (remoteTree.layout && remoteTree.layout !== layout)
    throw refused(
      where,
      remoteTree.layout === 'sqlite'
        ? `it is in twining-mcp 2.x's layout (records/), and this clone's ${host.dir} is in the 1.x files layout. Run \`twining migrate\` in this clone (or \`twining migrate --reverse\` in the others, then sync there first) so both sides use one layout, then sync again`
        : `it is in the 1.x files layout, and this clone's ${host.dir} is in twining-mcp 2.x's layout (records/). Run \`twining migrate --reverse\` in this clone (or \`twining migrate\` in the others, then sync there first) so both sides use one layout, then sync again`,
    );
  const baseTree = base ? await filesOfCommit(repo, base, `this clone's last synced record (${BASE_REF})`) : { files: new Map<string, { ids: string[] }>() };
  const local = read.contents;
  for (const [rel, parts] of read.parts) partsCache.set(local.get(rel)!, parts);
  const localIds = new Map<string, string[]>();
  const source = new BlobSource(repo);
  for (const [id, bytes] of read.replaced ?? []) source.hold(id, bytes);
  for (const [rel, content] of local) {
    const parts = partsOf(rel, content, repo);
    const ids = parts.map(p => p.id);
    localIds.set(rel, ids);
    for (const p of parts) source.hold(p.id, p.bytes);
  }
  // Which files changed on which side since the base.
  const rels = new Set<string>([...local.keys(), ...remoteTree.files.keys()]);
  const remoteChanged = [...rels].filter(rel => !sameIds(remoteTree.files.get(rel)?.ids, baseTree.files.get(rel)?.ids));
  // Everything of the remote's this sync may read (what changed there, what it replaces here, its claims), in one `cat-file --batch`.
  // With nothing changed there (the usual round, pushed before any fetch), the merge needs none of it but the claims when
  // this clone's differ: what the local files replace is read for the report's counts, while the push runs.
  const localChanged = [...rels].filter(rel => !sameIds(remoteTree.files.get(rel)?.ids, localIds.get(rel)));
  const wanted = remoteChanged.length ? [...remoteChanged, ...localChanged, 'claims/claims.jsonl'] : localChanged.filter(rel => rel === 'claims/claims.jsonl');
  await source.fetch([...new Set(wanted)].flatMap(rel => remoteTree.files.get(rel)?.ids ?? []));
  const remoteBytes = await source.files(remoteTree.files, remoteChanged);
  for (const [rel, bytes] of remoteBytes) checkIncoming(rel, bytes, where);
  const merged = new Map<string, Buffer>(local);
  const bothChanged: string[] = [];
  for (const rel of remoteChanged) {
    const l = localIds.get(rel);
    const b = baseTree.files.get(rel)?.ids;
    const r = remoteBytes.get(rel);
    if (sameIds(l, b)) {
      // Changed there only: take theirs (a removal only where 2.x removes records).
      if (r) merged.set(rel, r);
      else if (removable(rel)) merged.delete(rel);
    } else if (r && !sameIds(l, remoteTree.files.get(rel)?.ids)) bothChanged.push(rel);
  }
  if (bothChanged.length) {
    const baseBytes = await source.files(baseTree.files, bothChanged);
    for (const rel of bothChanged) {
      const outcome = mergeTwiningTexts(rel, {
        base: (baseBytes.get(rel) ?? Buffer.alloc(0)).toString('utf8'),
        ours: (local.get(rel) ?? Buffer.alloc(0)).toString('utf8'),
        theirs: remoteBytes.get(rel)!.toString('utf8'),
      });
      if (!outcome) continue;
      if (!outcome.clean) throw refused(where, `${rel} cannot be merged by record with this clone's (${outcome.notes.join(' ')})`);
      notes.push(...outcome.notes);
      merged.set(rel, Buffer.from(outcome.text, 'utf8'));
    }
  }
  // Claims made on both sides: the remote's holder wins.
  const claimsRel = 'claims/claims.jsonl';
  let lost: LostClaim[] = [];
  // A log the same as the remote's has no claim the remote lacks, so none to lose: settled without the claims' clock.
  if (
    merged.has(claimsRel) &&
    !sameIds(
      partsOf(claimsRel, merged.get(claimsRel)!, repo).map(p => p.id),
      remoteTree.files.get(claimsRel)?.ids,
    )
  ) {
    const remoteClaims =
      remoteBytes.get(claimsRel) ?? (remoteTree.files.has(claimsRel) ? (await source.files(remoteTree.files, [claimsRel])).get(claimsRel)! : Buffer.alloc(0));
    const settled = settleClaims(merged.get(claimsRel)!.toString('utf8'), remoteClaims.toString('utf8'), await host.claimClock(), host.timestamp(), remote);
    lost = settled.lost;
    if (lost.length) merged.set(claimsRel, Buffer.from(settled.text, 'utf8'));
  }
  // The tree to push: the merged files, the marker, and this clone's card (the other clones' as the remote has them).
  const remotePaths = new Map((remoteListing ?? []).map(e => [e.path, e.id] as const));
  const treeFiles = new Map<string, string>();
  const sizes = new Map<string, number>();
  const newBlobs = new Map<string, Buffer>();
  const put = (treePath: string, id: string, bytes: Buffer) => {
    treeFiles.set(treePath, id);
    sizes.set(treePath, bytes.length);
    if (remotePaths.get(treePath) !== id) newBlobs.set(id, bytes);
  };
  for (const [rel, content] of merged) partsOf(rel, content, repo).forEach((part, i) => put(treePathOf(rel, i), part.id, part.bytes));
  const marker = Buffer.from(`${JSON.stringify({ format: 1, layout })}\n`);
  put(MARKER, blobId(marker, repo.objectFormat), marker);
  for (const e of remoteListing ?? [])
    if (e.path.startsWith('clones/') || e.path.startsWith(`${SESSIONS_TREE}/`)) {
      treeFiles.set(e.path, e.id);
      sizes.set(e.path, e.size);
    }
  // Who is where: this clone's sessions go out as its snapshot; the others' stay as the remote has them (clone-sessions.ts).
  const snapshot = await ownSnapshot(host.dir, clone);
  const mine = `${SESSIONS_TREE}/${clone.id}.json`;
  if (snapshot.sessions.length > 0 || remotePaths.has(mine)) {
    const bytes = snapshotBytes(snapshot);
    put(mine, blobId(bytes, repo.objectFormat), bytes);
  }
  const card = `clones/${clone.id}.json`;
  if (!treeFiles.has(card)) {
    const bytes = Buffer.from(`${JSON.stringify({ clone: clone.id, label: clone.label })}\n`);
    put(card, blobId(bytes, repo.objectFormat), bytes);
  }
  const unchanged = remoteListing !== undefined && treeFiles.size === remotePaths.size && [...treeFiles].every(([p, id]) => remotePaths.get(p) === id);
  let made: PendingCommit | undefined;
  if (!unchanged) {
    // The new blobs, the folders they are in and the commit, in one `git fast-import` kept open while the push runs (record-commit.ts).
    const parent = remoteTip ?? base;
    const changedFiles = new Map([...treeFiles].filter(([p, id]) => remotePaths.get(p) !== id));
    made = await spare.take().commit({
      parent,
      fromScratch: !remoteTip && parent !== undefined, // without the remote's record: the merged files alone, whatever the base held
      files: remoteTip ? changedFiles : treeFiles,
      removed: remoteTip ? [...remotePaths.keys()].filter(p => !treeFiles.has(p)) : [],
      blobs: newBlobs,
      message: `twining sync from ${clone.label} (${input.reason ?? 'manual'})`,
      who: syncIdentity(clone),
    });
  }
  // The counts are for the report only: the caller starts them once its push is on its way (they read and parse the
  // files that differ, which a push need not wait for).
  const count = () => countRound(repo, local, merged, remoteTree.files, source);
  return { remoteTip, base, remoteListing, local, merged, notes, lost, source, treeFiles, sizes, newBlobs, made, count };
}

/** What came in and what goes out, counted on the parts that differ only: an append to a large file reads one part, not the file. */
async function countRound(
  repo: Repo,
  local: Map<string, Buffer>,
  merged: Map<string, Buffer>,
  remoteFiles: Map<string, { ids: string[] }>,
  source: BlobSource,
): Promise<RoundCounts> {
  const claimsRel = 'claims/claims.jsonl';
  const incoming = emptyCounts();
  const outgoing = emptyCounts();
  const incomingEntries: IncomingEntry[] = [];
  const incomingClaims: IncomingEntry[] = [];
  const remoteOnly = new Map<string, string[]>();
  for (const [rel, after] of merged) {
    const afterIds = new Set(partsOf(rel, after, repo).map(p => p.id));
    const theirs = remoteFiles.get(rel)?.ids ?? [];
    if (!sameIds(theirs, [...afterIds]))
      remoteOnly.set(
        rel,
        theirs.filter(id => !afterIds.has(id)),
      );
  }
  const remoteParts = await source.blobs([...remoteOnly.values()].flat());
  for (const [rel, after] of merged) {
    const afterParts = partsOf(rel, after, repo);
    const localPartIds = new Set(local.has(rel) ? partsOf(rel, local.get(rel)!, repo).map(p => p.id) : []);
    const afterPartIds = new Set(afterParts.map(p => p.id));
    const localOnly = local.has(rel) ? partsOf(rel, local.get(rel)!, repo).filter(p => !afterPartIds.has(p.id)) : [];
    countChanges(
      rel,
      Buffer.concat(localOnly.map(p => p.bytes)),
      Buffer.concat(afterParts.filter(p => !localPartIds.has(p.id)).map(p => p.bytes)),
      incoming,
      rel === 'blackboard.jsonl' || rel.startsWith('records/posts/') ? incomingEntries : rel === claimsRel ? incomingClaims : undefined,
    );
    const gone = remoteOnly.get(rel);
    if (gone === undefined) continue;
    const theirIds = new Set(remoteFiles.get(rel)?.ids ?? []);
    countChanges(
      rel,
      Buffer.concat(gone.map(id => remoteParts.get(id)!)),
      Buffer.concat(afterParts.filter(p => !theirIds.has(p.id)).map(p => p.bytes)),
      outgoing,
    );
  }
  return { incoming, outgoing, incomingEntries, incomingClaims };
}
