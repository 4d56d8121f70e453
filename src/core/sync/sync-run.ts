/**
 * `twining sync`: the team's record exchanged through the repository's own remote, on a branch of
 * its own (`twining/record`, an orphan history never checked out), with git's plumbing only. The
 * user's branches, index, HEAD and work tree are never touched, and no other ref is pushed.
 *
 *   1. fetch `+refs/heads/twining/record` into the private ref `refs/twining/remote-record`
 *   2. merge each record file three ways, by record (src/core/merge/, the merge driver's rules),
 *      with the state this clone last synced (`refs/twining/synced`) as the base
 *   3. settle claims made on both sides: the one the remote already had wins (claim-settle.ts)
 *   4. commit the merged tree on top of the remote's and push it, a fast-forward that the remote
 *      takes only if its record is still the one merged (leaseOn); a rejection means another
 *      clone synced meanwhile: fetch, merge and try again
 *   5. write what changed into `.twining/` under the same locks the operations take, merging in
 *      anything written here while the sync ran
 *
 * Push first: step 1 is skipped in the usual case. When this clone's last sync is the remote's
 * record as it last fetched it, steps 2 to 4 are first made on that record (guessRound). With
 * something written here, that commit is pushed at once, before any fetch: the remote accepts it
 * only if its record is exactly the one last fetched, which proves nothing came in; otherwise the
 * sync goes on from step 1. With nothing written here, the fetch runs while the guess is made,
 * and the guess is pushed if the fetch finds the record unchanged.
 *
 * The folder is the one the engine was opened on (sync-folder.ts), or the one the engine would
 * open (sync-quick.ts): `host.dir`; nothing here works out a path of its own.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { TwiningError } from '../errors';
import { withLock } from '../storage/lock';
import { gitText, runGit } from './sync-git';
import { syncEnded } from './git-launcher';
import { EngineNeeded, SyncHost } from './sync-host';
import { chooseRemote, fetchRecord, networkFailure } from './sync-remote';
import { listLocalRecords, stampsOf } from './record-files';
import { PartsWork, readWithParts } from './parts-cache';
import { Repo, buildTree } from './record-tree';
import { SpareImport, identityEnv } from './record-commit';
import { listTreeOnce, partsOf, readRefs, remember, seedListing, treePathOf } from './sync-reads';
import { receiveSessions } from './clone-sessions';
import { attributeIncoming } from './origins';
import { claimsInLogText } from '../storage/claim-log';
import { pushUrlOf, setLocal } from './sync-config';
import { refused } from './remote-checks';
import { BASE_REF, BEFORE_REF, BRANCH, REMOTE_REF, SyncState, cloneIdentity, readState, repoOf, signatureOf, writeState } from './sync-state';
import { SyncCounts, IncomingEntry } from './sync-counts';
import { LocalRead, LostClaim, Round, RoundCounts, RoundInput, mergeRound } from './sync-merge';

export interface SyncOptions {
  /** The remote to sync with (default: remembered, else the branch's upstream remote, else `origin`). */
  remote?: string;
  /** Time limit of each network step (fetch, push), default 30 s. */
  networkTimeoutMs?: number;
  /** Why this sync runs, for the record's commit message: "manual", "background", "claim". */
  reason?: string;
  /**
   * Fetch before any push: the caller knows the remote's record moved since this clone last fetched
   * it (the quick sync's push was refused), so a push made first would be refused again.
   */
  fetchFirst?: boolean;
}

export interface SyncReport {
  remote: string;
  ref: string;
  /** The record's commit after the sync. */
  commit?: string;
  /** Whether this sync pushed a new commit. */
  pushed: boolean;
  /**
   * Whether this sync fetched. A sync with something to push pushes first, on the remote's record as this
   * clone last fetched it; when the remote accepts that push its record was exactly that one, so nothing came
   * in and no fetch was needed (false).
   */
  fetched: boolean;
  /** What came in from the remote and went out to it. */
  incoming: SyncCounts;
  outgoing: SyncCounts;
  /** The blackboard entries that came in (up to 50), for a notice. */
  incoming_entries: IncomingEntry[];
  /** Claims made here that another clone had first, now released. */
  claims_lost: LostClaim[];
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

/** Rounds before a sync gives up on a remote that keeps moving: eight fetches, after the push made before any. */
const MAX_ATTEMPTS = 9;

/**
 * The compare-and-swap on the remote's ref that every push of the record is: git's
 * `--force-with-lease=<refname>:<expect>` ("will protect the named ref (alone), if it is going to
 * be updated, by requiring its current value to be the same as the specified value <expect> [...]
 * If <expect> is the empty string, then the named ref must not already exist", git-push(1)).
 * git checks the remote's advertised value against it before it sends anything, and the remote
 * checks again under the ref's lock ("validate each reference that is being updated that it
 * hasn't changed while the request was being processed (the obj-id is still the same as the
 * old-id)", gitprotocol-pack(5)). A plain fast-forward push is not enough for a push made before
 * any fetch: a remote record whose history was rewritten back to an ancestor of the one expected
 * would take the commit as a fast-forward. When the remote has a record, the pushed commit's
 * parent is `tip`, so a push the lease lets through is a fast-forward too.
 */
function leaseOn(tip: string | undefined): string {
  return `--force-with-lease=refs/heads/${BRANCH}:${tip ?? ''}`;
}

/** Whether the merged record differs from the folder's as read (a file to write, or one to remove). */
export function recordsToWrite(local: ReadonlyMap<string, Buffer>, merged: ReadonlyMap<string, Buffer>): boolean {
  return [...merged].some(([rel, content]) => !local.get(rel)?.equals(content)) || [...local.keys()].some(rel => !merged.has(rel));
}

/** The repository of the record folder, or an error saying sync needs one. */
export async function repoOfFolder(dir: string): Promise<Repo> {
  const repo = await repoOf(dir);
  if (!repo)
    throw new TwiningError(
      'NOT_FOUND',
      `${dir} is not inside a git repository; sync exchanges the record through the repository's remote (run git init and add a remote, or copy the folder by hand)`,
    );
  return repo;
}

/**
 * Syncs the host's folder with its repository's remote. Throws a TwiningError naming the remote
 * and the record when it cannot (nothing local is lost; the state says why, for the status bar),
 * or EngineNeeded from a quick host (sync-host.ts; no state written then).
 */
export async function syncWith(host: SyncHost, options: SyncOptions = {}): Promise<SyncReport> {
  host.assertWritable('sync');
  await host.prepare();
  const repo = await repoOfFolder(host.dir);
  await fs.mkdir(path.join(repo.gitDir, 'twining'), { recursive: true });
  const lockTarget = path.join(repo.gitDir, 'twining', 'sync.lock-target');
  const state = await readState(repo);
  const attemptAt = host.timestamp();
  let remote = options.remote;
  const spare = new SpareImport(repo);
  try {
    // One sync at a time per clone (the extension, twining mcp and a claim may all want one).
    const report = await withLock(lockTarget, '', async () => {
      // Sync's refs are read while the remote is chosen (a new process lists the config with git): neither needs the other.
      const refs = readRefs(repo);
      refs.catch(() => undefined);
      remote = await chooseRemote(repo, options.remote);
      return runSync(host, repo, remote, options, spare, state.signature, refs).finally(() => spare.close()); // a fast-import started and not used ends here
    });
    await setLocal(repo, 'twining.sync.enabled', 'true');
    await setLocal(repo, 'twining.sync.remote', report.remote);
    await writeState(repo, {
      last_sync_at: report.at,
      last_attempt_at: attemptAt,
      remote: report.remote,
      commit: report.commit,
      signature: await signatureOf(host.dir, host.layout),
    });
    return report;
  } catch (error) {
    if (error instanceof EngineNeeded) throw error; // not a failure: the engine's sync runs next
    const { fix, problem } = ((error as TwiningError).details ?? {}) as { fix?: string; problem?: string };
    await writeState(repo, {
      ...state,
      last_attempt_at: attemptAt,
      remote: remote ?? state.remote,
      last_error: problem ?? (error as Error).message,
      fix,
    }).catch(() => undefined);
    throw error;
  } finally {
    syncEnded();
  }
}

async function runSync(
  host: SyncHost,
  repo: Repo,
  remote: string,
  options: SyncOptions,
  spare: SpareImport,
  lastSignature: SyncState['signature'],
  firstRefs: Promise<Map<string, string>>,
): Promise<SyncReport> {
  const timeoutMs = options.networkTimeoutMs ?? 30_000;
  const layout = host.layout;
  const where = `the record on ${remote} (${BRANCH})`;
  const clone = await cloneIdentity(repo);
  const pushUrl = pushUrlOf(repo, remote); // asked of git (once per config) while the fetch runs
  pushUrl.catch(() => undefined);
  let work: PartsWork = { reused: 0, hashedBytes: 0 };
  let newBlobCount = 0;
  for (let attempt = 1; ; attempt++) {
    // Sync's refs as they were and the local record are read at once: neither needs the other.
    const refsBefore = attempt === 1 ? firstRefs : readRefs(repo);
    const listed = listLocalRecords(host.dir, layout).then(files => {
      // A file's stamp is not the one the last sync left: there is likely a commit to make, so fast-import starts now, while the record is read.
      const stamps = stampsOf(host.dir);
      const changed = !lastSignature || stamps.size !== Object.keys(lastSignature).length || [...stamps].some(([rel, stamp]) => lastSignature[rel] !== stamp);
      if (changed) spare.start();
      return { files, changed };
    });
    const reading = listed.then(l => readWithParts(repo, l.files));
    refsBefore.catch(() => undefined);
    // A local file changed since the parts cache saw it (the state may be older): fast-import starts then at the latest.
    reading.then(r => r.work.hashedBytes > 0 && spare.start()).catch(() => undefined);
    const input = { host, repo, remote, where, layout, clone, reason: options.reason, spare };
    // The round made on the remote's record as this clone last fetched it, when its last sync is that record (the usual case).
    const guess = attempt > 1 ? undefined : guessRound(refsBefore, reading, input);
    // Push first: with something written here, the guessed commit is pushed at once, without a fetch, as a
    // compare-and-swap on the remote's ref (the lease below): accepted, it proves nothing came in since the last
    // fetch; rejected, the next attempt fetches, merges and pushes. With nothing written here, the fetch starts at
    // once and the guess is made beside it: pushed if the fetch finds the record unchanged and it has a commit.
    let first: Round | undefined;
    const changedHere = await listed.then(
      l => l.changed,
      () => false,
    );
    if (guess && changedHere && !options.fetchFirst) {
      first = await guess.catch((error: unknown) => {
        if (error instanceof EngineNeeded) throw error; // the quick host stops here, before any network step
        return undefined; // the fetch's round says what is wrong, if anything
      });
      if (!first?.made) first = undefined;
    }
    const fetching = first ? undefined : fetchRecord(repo, remote, timeoutMs);
    let round: Round | undefined;
    try {
      if (first) round = first;
      else {
        const fetched = await fetching!;
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
        const guessed = fetched === 'same' ? await guess?.catch(() => undefined) : undefined;
        if (guessed && guessed.remoteTip === remoteTip && guessed.base === base) round = guessed;
        else {
          await dropRound(guess); // its fast-import ends before another starts
          round = await mergeRound({ ...input, read: await reading, remoteTip, base });
        }
      }
    } catch (error) {
      await dropRound(guess);
      throw error;
    }
    work = (await reading).work;
    const { remoteTip, base, remoteListing, local, merged, notes, made, newBlobs, source } = round;
    // Something to write into the folder: a quick host leaves the whole sync to the engine, before anything is pushed.
    const toApply = recordsToWrite(local, merged);
    if (host.quick && toApply) {
      await made?.finish([]); // fast-import ends without moving a ref
      throw new EngineNeeded('the remote has changes to write into the folder');
    }
    let commit = remoteTip;
    let pushed = false;
    let fetched = true;
    let refsWritten: Promise<unknown> = Promise.resolve();
    let counting: Promise<RoundCounts> | undefined;
    if (made) {
      commit = made.commit;
      // Pushed to the remote's URL rather than its name, so git does not move the user's remote-tracking refs (refs/remotes/…).
      const push = await pushUrl
        .then(url => {
          const pushing = runGit(repo.cwd, ['push', '--porcelain', '--no-verify', '--quiet', leaseOn(remoteTip), url, `${commit}:refs/heads/${BRANCH}`], {
            // A first sync of a large record sends it all: its time limit grows with what is new (5 s a MB).
            timeoutMs: timeoutMs + [...newBlobs.values()].reduce((n, b) => n + b.length, 0) / 200,
          });
          // git is started: the report's counts are made while it pushes.
          counting = round.count();
          counting.catch(() => undefined);
          return pushing;
        })
        .catch(async (error: unknown) => {
          await made.finish([]).catch(() => undefined); // fast-import ends without moving a ref
          throw error;
        });
      const rejected =
        /\[rejected\]|\[remote rejected\].*(fetch first|non-fast-forward|stale|failed to update ref|cannot lock ref)|non-fast-forward|fetch first|stale info/.test(
          push.stdout.toString('utf8') + push.stderr,
        );
      if (push.code !== 0) await made.finish([]); // not accepted: no local ref moves
      if (push.code !== 0 && first && rejected && host.quick) {
        // The remote moved: what came in is the engine's to write, and its sync fetches first (nothing moved here).
        const moved = new EngineNeeded('the remote moved since the last fetch');
        moved.remoteMoved = true;
        throw moved;
      }
      // A push made before any fetch that is not accepted (the remote moved, or cannot be reached): the next attempt
      // fetches, and says what is wrong with the remote if anything is. Only a push that ran out of time is not tried again.
      if (push.code !== 0 && first && push.code !== -1) continue;
      if (push.code !== 0 && rejected && attempt < MAX_ATTEMPTS) {
        await new Promise(resolve => setTimeout(resolve, 20 + Math.floor(Math.random() * 80 * attempt)));
        continue; // another clone synced meanwhile: fetch, merge, try again
      }
      if (push.code !== 0) {
        // What came in is kept here even so; what is pending goes out with the next sync.
        const failure = networkFailure('push to', remote, push.stderr || push.stdout.toString('utf8'));
        await host.applyLocally(local, merged, notes);
        if (remoteTip) await gitText(repo.cwd, ['update-ref', BASE_REF, remoteTip]);
        throw failure;
      }
      pushed = true;
      fetched = !first;
      newBlobCount = newBlobs.size;
      // The new commit's tree is known: the next sync lists it from here, not from git; its new blobs are held for the next sync's counts.
      const listed = seedListing(repo, commit, round.treeFiles, round.sizes);
      for (const [id, bytes] of newBlobs) remember(id, bytes);
      // Accepted: both refs are written by fast-import as its stream ends (awaited before the report).
      refsWritten = Promise.all([made.finish([REMOTE_REF, BASE_REF]), listed]);
      refsWritten.catch(() => undefined);
    }
    const { lost } = round;
    const { incoming, outgoing, incomingEntries, incomingClaims } = await (counting ?? round.count());
    const claimsRel = 'claims/claims.jsonl';
    // Which clone the records that came in were written on (origins.ts), for the views: known before they are written here.
    const localClaims = new Set(claimsInLogText(local.get(claimsRel)?.toString('utf8') ?? '').map(c => (c as { id?: string }).id));
    const arrived = new Set([...incomingEntries.map(e => e.id), ...incomingClaims.map(c => c.id).filter(id => !localClaims.has(id))]);
    if (remoteTip && arrived.size > 0)
      await attributeIncoming(repo, base, remoteTip, arrived, clone.id).catch(error =>
        notes.push(`could not tell which clone the new records came from: ${(error as Error).message}`),
      );
    // Keep this clone's state before the sync changes it (refs/twining/before-sync), then write what came in.
    if (toApply) {
      const before = await buildTree(
        repo,
        new Map([...local].flatMap(([rel, content]) => partsOf(rel, content, repo).map((part, i) => [treePathOf(rel, i), part] as const))),
      );
      const beforeCommit = (
        await gitText(repo.cwd, ['commit-tree', '--no-gpg-sign', before.tree, '-m', 'twining: this clone before a sync'], { env: identityEnv(clone) })
      ).trim();
      await gitText(repo.cwd, ['update-ref', BEFORE_REF, beforeCommit]);
      await host.applyLocally(local, merged, notes);
    }
    if (commit && !pushed && commit !== base) await gitText(repo.cwd, ['update-ref', BASE_REF, commit]);
    if (remoteListing) await receiveSessions(host.dir, remoteListing, base ? await listTreeOnce(repo, base) : [], clone.id, ids => source.blobs(ids), notes);
    await refsWritten;
    return {
      remote,
      ref: BRANCH,
      commit,
      pushed,
      fetched,
      incoming,
      outgoing,
      incoming_entries: incomingEntries.slice(0, 50),
      claims_lost: lost,
      attempts: attempt,
      at: host.timestamp(),
      clone: clone.label,
      new_blobs: newBlobCount,
      parts_work: work,
      notes,
    };
  }
}

/**
 * The round made on the remote's record as this clone last fetched it (REMOTE_REF), when this
 * clone's last sync is that record; undefined otherwise. Its commit moves no ref that matters
 * (fast-import writes only the scratch ref, record-commit.ts) until the caller pushes it.
 */
function guessRound(refs: Promise<Map<string, string>>, reading: Promise<LocalRead>, input: Omit<RoundInput, 'read'>): Promise<Round | undefined> {
  const guess = refs.then(async r => {
    const tip = r.get(REMOTE_REF);
    return tip && r.get(BASE_REF) === tip ? mergeRound({ ...input, read: await reading, remoteTip: tip, base: tip }) : undefined;
  });
  guess.catch(() => undefined);
  return guess;
}

/** Ends a round that will not be pushed: its fast-import stops without moving a ref. */
async function dropRound(round: Promise<Round | undefined> | undefined): Promise<void> {
  await round?.then(r => r?.made?.finish([])).catch(() => undefined);
}
