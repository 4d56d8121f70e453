/**
 * `twining sync`: the team's record exchanged through the repository's own remote, on a branch of
 * its own (`twining/record`, an orphan history never checked out), with git's plumbing only. The
 * user's branches, index, HEAD and work tree are never touched, and no other ref is pushed.
 *
 *   1. fetch `+refs/heads/twining/record` into the private ref `refs/twining/remote-record`
 *   2. merge each record file three ways, by record (src/core/merge/, the merge driver's rules),
 *      with the state this clone last synced (`refs/twining/synced`) as the base
 *   3. settle claims made on both sides: the one the remote already had wins (claim-settle.ts)
 *   4. commit the merged tree on top of the remote's and push it as a plain fast-forward; a
 *      rejection means another clone synced meanwhile: fetch, merge and try again
 *   5. write what changed into `.twining/` under the same locks the operations take, merging in
 *      anything written here while the sync ran
 *
 * The folder is the one the engine was opened on (`ctx.layout.dir`); nothing here works out a
 * path of its own.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { FolderStore } from '../engine/folder-store';
import { TwiningError } from '../errors';
import { mergeTwiningTexts } from '../merge/merge-file';
import { withLock } from '../store/lock';
import { claimClock } from '../operations/claim-ops';
import { gitText, runGit } from './sync-git';
import { syncEnded } from './git-launcher';
import { applyLocally } from './sync-apply';
import { chooseRemote, fetchRecord, networkFailure } from './sync-remote';
import { MARKER, SyncLayout, listLocalRecords, removable } from './record-files';
import { PartsWork, readWithParts } from './parts-cache';
import { Repo, blobId, buildTree } from './record-tree';
import { SpareImport, identityEnv, syncIdentity } from './record-commit';
import { BlobSource, listTreeOnce, partsCache, partsOf, readRefs, remember, sameIds, seedListing, treePathOf } from './sync-reads';
import { SESSIONS_TREE, ownSnapshot, receiveSessions, snapshotBytes } from './clone-sessions';
import { attributeIncoming } from './origins';
import { claimsInLogText } from '../store/claim-log';
import { pushUrlOf, setLocal } from './sync-config';
import { checkIncoming, filesOfRemoteTree, refused } from './remote-checks';
import { settleClaims } from './claim-settle';
import { BASE_REF, BEFORE_REF, BRANCH, REMOTE_REF, cloneIdentity, readState, repoOf, signatureOf, writeState } from './sync-state';
import { countChanges, SyncCounts, emptyCounts, IncomingEntry } from './sync-counts';

export interface SyncOptions {
  /** The remote to sync with (default: remembered, else the branch's upstream remote, else `origin`). */
  remote?: string;
  /** Time limit of each network step (fetch, push), default 30 s. */
  networkTimeoutMs?: number;
  /** Why this sync runs, for the record's commit message: "manual", "background", "claim". */
  reason?: string;
}

export interface SyncReport {
  remote: string;
  ref: string;
  /** The record's commit after the sync. */
  commit?: string;
  /** Whether this sync pushed a new commit. */
  pushed: boolean;
  /** What came in from the remote and went out to it. */
  incoming: SyncCounts;
  outgoing: SyncCounts;
  /** The blackboard entries that came in (up to 50), for a notice. */
  incoming_entries: IncomingEntry[];
  /** Claims made here that another clone had first, now released. */
  claims_lost: { id: string; target: string; agent_id: string; holder: string }[];
  /** How many fetch-merge-push rounds it took (a rejected push means one more). */
  attempts: number;
  at: string;
  clone: string;
  /** Blobs this sync added to the repository (what git had to send, at most). */
  new_blobs: number;
  /** What reading the local record cost: files taken whole from the parts cache, bytes cut and hashed. */
  parts_work: PartsWork;
  notes: string[];
}

const MAX_ATTEMPTS = 8;

export function layoutOf(ctx: FolderStore): SyncLayout {
  return ctx.twoX ? 'sqlite' : 'files';
}

/** The repository of the engine's folder, or an error saying sync needs one. */
export async function repoOfStore(ctx: FolderStore): Promise<Repo> {
  const repo = await repoOf(ctx.layout.dir);
  if (!repo)
    throw new TwiningError(
      'NOT_FOUND',
      `${ctx.layout.dir} is not inside a git repository; sync exchanges the record through the repository's remote (run git init and add a remote, or copy the folder by hand)`,
    );
  return repo;
}

/** A commit's record files (their part ids), its tree checked first. */
async function filesOfCommit(repo: Repo, commit: string, where: string) {
  return filesOfRemoteTree(await listTreeOnce(repo, commit), where);
}

/**
 * Syncs the engine's folder with its repository's remote. Throws a TwiningError naming the remote
 * and the record when it cannot (nothing local is lost; the state says why, for the status bar).
 */
export async function syncFolder(ctx: FolderStore, options: SyncOptions = {}): Promise<SyncReport> {
  ctx.assertWritable('sync');
  // A clone that never had the record (its .twining/ was not committed) gets the folder first.
  if (!(await fs.stat(ctx.layout.dir).catch(() => undefined))?.isDirectory()) await ctx.ready();
  const repo = await repoOfStore(ctx);
  await fs.mkdir(path.join(repo.gitDir, 'twining'), { recursive: true });
  const lockTarget = path.join(repo.gitDir, 'twining', 'sync.lock-target');
  const state = await readState(repo);
  const attemptAt = ctx.timestamp();
  let remote = options.remote;
  const spare = new SpareImport(repo);
  try {
    // One sync at a time per clone (the extension, twining mcp and a claim may all want one).
    const report = await withLock(lockTarget, '', async () => {
      remote = await chooseRemote(repo, options.remote);
      return runSync(ctx, repo, remote, options, spare).finally(() => spare.close()); // a fast-import started and not used ends here
    });
    await setLocal(repo, 'twining.sync.enabled', 'true');
    await setLocal(repo, 'twining.sync.remote', report.remote);
    await writeState(repo, {
      last_sync_at: report.at,
      last_attempt_at: attemptAt,
      remote: report.remote,
      commit: report.commit,
      signature: await signatureOf(ctx.layout.dir, layoutOf(ctx)),
    });
    return report;
  } catch (error) {
    const fix = ((error as TwiningError).details as { fix?: string } | undefined)?.fix;
    await writeState(repo, { ...state, last_attempt_at: attemptAt, remote: remote ?? state.remote, last_error: (error as Error).message, fix }).catch(
      () => undefined,
    );
    throw error;
  } finally {
    syncEnded();
  }
}

async function runSync(ctx: FolderStore, repo: Repo, remote: string, options: SyncOptions, spare: SpareImport): Promise<SyncReport> {
  const timeoutMs = options.networkTimeoutMs ?? 30_000;
  const layout = layoutOf(ctx);
  const where = `the record on ${remote} (${BRANCH})`;
  const clone = await cloneIdentity(repo);
  const notes: string[] = [];
  let work: PartsWork = { reused: 0, hashedBytes: 0 };
  let newBlobCount = 0;
  for (let attempt = 1; ; attempt++) {
    // The fetch, sync's refs as they were and the local record are read at once: none needs another.
    const fetching = fetchRecord(repo, remote, timeoutMs); // started first: the longest of the three
    const refsBefore = readRefs(repo);
    const reading = listLocalRecords(ctx.layout.dir, layout).then(files => readWithParts(repo, files));
    refsBefore.catch(() => undefined);
    // A local file changed since the parts cache saw it: there is likely a commit to make, so fast-import starts now, while the fetch runs.
    reading.then(r => r.work.hashedBytes > 0 && spare.start()).catch(() => undefined);
    const fetched = await fetching;
    const refs = fetched === 'moved' ? await readRefs(repo) : await refsBefore; // one git says is up to date is as read beside the fetch
    if (fetched === 'missing' && refs.has(REMOTE_REF)) await runGit(repo.cwd, ['update-ref', '-d', REMOTE_REF]); // no record there yet: this sync makes it
    const remoteTip = fetched === 'missing' ? undefined : refs.get(REMOTE_REF);
    if (fetched !== 'missing' && !remoteTip) throw refused(where, `git fetched it but ${REMOTE_REF} is not a commit`);
    const base = refs.get(BASE_REF);
    if (base && remoteTip && base !== remoteTip) {
      const r = await runGit(repo.cwd, ['merge-base', '--is-ancestor', base, remoteTip]);
      if (r.code !== 0)
        throw refused(
          where,
          `its history was rewritten: it no longer contains this clone's last sync (${base.slice(0, 12)}). If that was meant, run \`git update-ref -d ${BASE_REF}\` here and sync again: the two records are then merged as two new versions (removals on either side come back)`,
        );
    }
    // The remote's tree is checked before anything of it is read.
    const remoteListing = remoteTip ? await listTreeOnce(repo, remoteTip) : undefined;
    const remoteTree = remoteListing ? filesOfRemoteTree(remoteListing, where) : { layout: undefined, files: new Map<string, { ids: string[] }>() };
    if (remoteTree.layout && remoteTree.layout !== layout)
      throw refused(
        where,
        remoteTree.layout === 'sqlite'
          ? `it is in twining-mcp 2.x's layout (records/), and this clone's ${ctx.layout.dir} is in the 1.x files layout. Run \`twining migrate\` in this clone (or \`twining migrate --reverse\` in the others, then sync there first) so both sides use one layout, then sync again`
          : `it is in the 1.x files layout, and this clone's ${ctx.layout.dir} is in twining-mcp 2.x's layout (records/). Run \`twining migrate --reverse\` in this clone (or \`twining migrate\` in the others, then sync there first) so both sides use one layout, then sync again`,
      );
    const baseTree = base ? await filesOfCommit(repo, base, `this clone's last synced record (${BASE_REF})`) : { files: new Map<string, { ids: string[] }>() };
    // Read with each file's parts, cut and hashed only where the file changed since the last sync (parts-cache.ts).
    const read = await reading;
    const local = read.contents;
    for (const [rel, parts] of read.parts) partsCache.set(local.get(rel)!, parts);
    work = read.work;
    const localIds = new Map<string, string[]>();
    const source = new BlobSource(repo);
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
    const localChanged = [...rels].filter(rel => !sameIds(remoteTree.files.get(rel)?.ids, localIds.get(rel)));
    await source.fetch([...new Set([...remoteChanged, ...localChanged, 'claims/claims.jsonl'])].flatMap(rel => remoteTree.files.get(rel)?.ids ?? []));
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
    let lost: SyncReport['claims_lost'] = [];
    if (merged.has(claimsRel)) {
      const remoteClaims =
        remoteBytes.get(claimsRel) ?? (remoteTree.files.has(claimsRel) ? (await source.files(remoteTree.files, [claimsRel])).get(claimsRel)! : Buffer.alloc(0));
      const settled = settleClaims(merged.get(claimsRel)!.toString('utf8'), remoteClaims.toString('utf8'), await claimClock(ctx), ctx.timestamp(), remote);
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
    const snapshot = await ownSnapshot(ctx.layout.dir, clone);
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
    let commit = remoteTip;
    let pushed = false;
    let refsWritten: Promise<unknown> = Promise.resolve();
    if (!unchanged) {
      // The new blobs, the folders they are in and the commit, in one `git fast-import` kept open while the push runs (record-commit.ts).
      const parent = remoteTip ?? base;
      const changedFiles = new Map([...treeFiles].filter(([p, id]) => remotePaths.get(p) !== id));
      const pushUrl = pushUrlOf(repo, remote); // read while fast-import runs
      pushUrl.catch(() => undefined);
      const made = await spare.take().commit({
        parent,
        fromScratch: !remoteTip && parent !== undefined, // without the remote's record: the merged files alone, whatever the base held
        files: remoteTip ? changedFiles : treeFiles,
        removed: remoteTip ? [...remotePaths.keys()].filter(p => !treeFiles.has(p)) : [],
        blobs: newBlobs,
        message: `twining sync from ${clone.label} (${options.reason ?? 'manual'})`,
        who: syncIdentity(clone),
      });
      commit = made.commit;
      // Pushed to the remote's URL rather than its name, so git does not move the user's remote-tracking refs (refs/remotes/…).
      const push = await pushUrl
        .then(url =>
          runGit(repo.cwd, ['push', '--porcelain', '--no-verify', '--quiet', url, `${commit}:refs/heads/${BRANCH}`], {
            // A first sync of a large record sends it all: its time limit grows with what is new (5 s a MB).
            timeoutMs: timeoutMs + [...newBlobs.values()].reduce((n, b) => n + b.length, 0) / 200,
          }),
        )
        .catch(async (error: unknown) => {
          await made.finish([]).catch(() => undefined); // fast-import ends without moving a ref
          throw error;
        });
      const rejected =
        /\[rejected\]|\[remote rejected\].*(fetch first|non-fast-forward|stale|failed to update ref|cannot lock ref)|non-fast-forward|fetch first/.test(
          push.stdout.toString('utf8') + push.stderr,
        );
      if (push.code !== 0) await made.finish([]); // not accepted: no local ref moves
      if (push.code !== 0 && rejected && attempt < MAX_ATTEMPTS) {
        await new Promise(resolve => setTimeout(resolve, 20 + Math.floor(Math.random() * 80 * attempt)));
        continue; // another clone synced meanwhile: fetch, merge, try again
      }
      if (push.code !== 0) {
        // What came in is kept here even so; what is pending goes out with the next sync.
        const failure = networkFailure('push to', remote, push.stderr || push.stdout.toString('utf8'));
        await applyLocally(ctx, local, merged, notes);
        if (remoteTip) await gitText(repo.cwd, ['update-ref', BASE_REF, remoteTip]);
        throw failure;
      }
      pushed = true;
      newBlobCount = newBlobs.size;
      // The new commit's tree is known: the next sync lists it from here, not from git; its new blobs are held for the next sync's counts.
      seedListing(repo, commit, treeFiles, sizes);
      for (const [id, bytes] of newBlobs) remember(id, bytes);
      // Accepted: both refs are written by fast-import as its stream ends, while the counts are made (awaited before the report).
      refsWritten = made.finish([REMOTE_REF, BASE_REF]);
      refsWritten.catch(() => undefined);
    }
    const incoming = emptyCounts();
    const outgoing = emptyCounts();
    const incomingEntries: IncomingEntry[] = [];
    const incomingClaims: IncomingEntry[] = [];
    // Counted on the parts that differ only: an append to a large file reads one part, not the file.
    const remoteOnly = new Map<string, string[]>();
    for (const [rel, after] of merged) {
      const afterIds = new Set(partsOf(rel, after, repo).map(p => p.id));
      const theirs = remoteTree.files.get(rel)?.ids ?? [];
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
      const localOnly = local.has(rel) ? partsOf(rel, local.get(rel)!, repo).filter(p => !afterParts.some(a => a.id === p.id)) : [];
      countChanges(
        rel,
        Buffer.concat(localOnly.map(p => p.bytes)),
        Buffer.concat(afterParts.filter(p => !localPartIds.has(p.id)).map(p => p.bytes)),
        incoming,
        rel === 'blackboard.jsonl' || rel.startsWith('records/posts/') ? incomingEntries : rel === claimsRel ? incomingClaims : undefined,
      );
      const gone = remoteOnly.get(rel);
      if (gone === undefined) continue;
      const theirIds = new Set(remoteTree.files.get(rel)?.ids ?? []);
      countChanges(
        rel,
        Buffer.concat(gone.map(id => remoteParts.get(id)!)),
        Buffer.concat(afterParts.filter(p => !theirIds.has(p.id)).map(p => p.bytes)),
        outgoing,
      );
    }
    // Which clone the records that came in were written on (origins.ts), for the views: known before they are written here.
    const localClaims = new Set(claimsInLogText(local.get(claimsRel)?.toString('utf8') ?? '').map(c => (c as { id?: string }).id));
    const arrived = new Set([...incomingEntries.map(e => e.id), ...incomingClaims.map(c => c.id).filter(id => !localClaims.has(id))]);
    if (remoteTip && arrived.size > 0)
      await attributeIncoming(repo, base, remoteTip, arrived, clone.id).catch(error =>
        notes.push(`could not tell which clone the new records came from: ${(error as Error).message}`),
      );
    // Keep this clone's state before the sync changes it (refs/twining/before-sync), then write what came in.
    if ([...merged].some(([rel, content]) => !local.get(rel)?.equals(content)) || [...local.keys()].some(rel => !merged.has(rel))) {
      const before = await buildTree(
        repo,
        new Map([...local].flatMap(([rel, content]) => partsOf(rel, content, repo).map((part, i) => [treePathOf(rel, i), part] as const))),
      );
      const beforeCommit = (
        await gitText(repo.cwd, ['commit-tree', '--no-gpg-sign', before.tree, '-m', 'twining: this clone before a sync'], { env: identityEnv(clone) })
      ).trim();
      await gitText(repo.cwd, ['update-ref', BEFORE_REF, beforeCommit]);
      await applyLocally(ctx, local, merged, notes);
    }
    if (commit && !pushed && commit !== base) await gitText(repo.cwd, ['update-ref', BASE_REF, commit]);
    if (remoteListing)
      await receiveSessions(ctx.layout.dir, remoteListing, base ? await listTreeOnce(repo, base) : [], clone.id, ids => source.blobs(ids), notes);
    await refsWritten;
    return {
      remote,
      ref: BRANCH,
      commit,
      pushed,
      incoming,
      outgoing,
      incoming_entries: incomingEntries.slice(0, 50),
      claims_lost: lost,
      attempts: attempt,
      at: ctx.timestamp(),
      clone: clone.label,
      new_blobs: newBlobCount,
      parts_work: work,
      notes,
    };
  }
}
