/**
 * The commit a sync pushes, made by one `git fast-import` process (issue 28 part 7: an
 * incremental sync's cost is mostly git processes run one after another). fast-import is git's own
 * writer of blobs, trees and commits: given the parent (`from`), it rewrites only the folders a
 * changed file is in and keeps every other folder's tree as the parent has it, so one process
 * does what `hash-object`, `mktree` and `commit-tree` did in three.
 *
 * The process stays open while the caller pushes: `checkpoint` makes the objects readable by
 * `git push`, and only once the remote accepted the commit does the caller ask it to move the
 * local refs (`reset … from :mark`, written when the stream ends with `done`). A rejected or
 * failed push ends the stream without them, so the refs this clone keeps ("last synced", "the
 * remote's record") move only when the push was accepted. Should this process die first, the
 * stream ends without `done` and fast-import (run with `--done`) updates nothing more.
 *
 * The commit is kept on a private scratch ref, `refs/twining/outgoing` (fast-import writes every
 * commit onto a ref): the last commit this clone made to push, never a branch of the user's.
 */
import { GitProcess, launchGit } from './git-launcher';
import { noPromptEnv } from './sync-git';
import type { Repo } from './record-tree';

/** Where fast-import keeps the commit made to push (overwritten by each sync: `--force`). */
export const OUTGOING_REF = 'refs/twining/outgoing';

export interface RecordChange {
  /** The commit the new one follows, if any. */
  parent?: string;
  /** Whether the new tree starts empty (`deleteall`) rather than from the parent's. */
  fromScratch: boolean;
  /** Files to write (tree path → blob id), every one mode 100644. */
  files: Map<string, string>;
  /** Files of the parent's tree to remove. */
  removed: string[];
  /** The bytes of every blob id in `files`. */
  blobs: Map<string, Buffer>;
  message: string;
  /** Author and committer. */
  who: { name: string; email: string };
}

export interface PendingCommit {
  commit: string;
  /** Ends the stream: the refs named are set to the commit (only after an accepted push), or none. */
  finish(refs: readonly string[]): Promise<void>;
}

/** Who a sync's commits are by: the clone, by its label and id (never the user's own identity). */
export function syncIdentity(clone: { id: string; label: string }): { name: string; email: string } {
  return { name: `Twining sync (${clone.label})`, email: `twining-sync@${clone.id}.invalid` };
}

/** The same as git's environment, for `commit-tree`. */
export function identityEnv(clone: { id: string; label: string }): Record<string, string> {
  const { name, email } = syncIdentity(clone);
  return { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
}

/** A path as fast-import reads it: C-style quoted, so no name can end the line or start a command. */
function quoted(p: string): string {
  let out = '"';
  for (const byte of Buffer.from(p, 'utf8')) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += '\\\\';
    else if (byte < 0x20 || byte === 0x7f) out += `\\${byte.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

/** A name or address as git's ident accepts it: no angle brackets, no line breaks. */
const identPart = (s: string) => s.replace(/[<>\n\r\0]/g, '').trim();

/** A `git fast-import` started ahead of its commit (so its start overlaps the fetch); ended unused by `cancel`. */
export interface Importer {
  commit(change: RecordChange): Promise<PendingCommit>;
  /** Ends the process without a commit (nothing is written). */
  cancel(): void;
}

export function startImport(repo: Repo): Importer {
  const child = launchGit(
    // unpackLimit 0: the objects stay in fast-import's pack (a small import would otherwise run `unpack-objects`, one more process).
    // --depth=0: no deltas in that pack. fast-import deltas each blob against the one it wrote before (another file's),
    // and the push's pack-objects reuses a delta it finds rather than look for a better one: the blackboard's new part
    // went out as a delta against graph/relations.json, several times the bytes of the entries appended. With none to
    // reuse, the push deltas the new part against the remote's copy of it (its thin pack's preferred bases).
    ['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet', '--done', '--force', '--depth=0', '--date-format=now', '--cat-blob-fd=1'],
    repo.cwd,
    noPromptEnv(),
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8');
  child.stdin.on('error', () => undefined);
  let spawnError: Error | undefined;
  child.on('error', error => (spawnError = new Error(`cannot run git (${error.message}); is git installed and on PATH?`)));
  const closed = new Promise<number>(resolve => child.on('close', code => resolve(code ?? -1)));
  let used = false;
  return {
    cancel() {
      if (!used) child.stdin.end('done\n');
      used = true;
    },
    commit(change) {
      if (used) return Promise.reject(new Error('this git fast-import was already used'));
      used = true;
      return commitWith(child, change, closed, () => spawnError ?? stderr);
    },
  };
}

/** A fast-import started ahead (while the fetch runs), taken by the commit, else ended unused when the sync is over. */
export class SpareImport {
  private importer?: Importer;
  private closed = false;
  constructor(private readonly repo: Repo) {}
  start(): void {
    if (!this.closed && !this.importer) this.importer = startImport(this.repo);
  }
  take(): Importer {
    const importer = this.importer ?? startImport(this.repo);
    this.importer = undefined;
    return importer;
  }
  close(): void {
    this.closed = true;
    this.importer?.cancel();
    this.importer = undefined;
  }
}

/**
 * Writes the blobs of `change`, the trees that changed and the commit, in one `git fast-import`;
 * resolves once they are readable by other git processes, with the commit's id. Every blob's id is
 * read back from git and checked against the one this side computed.
 */
export function importCommit(repo: Repo, change: RecordChange): Promise<PendingCommit> {
  return startImport(repo).commit(change);
}

function commitWith(child: GitProcess, change: RecordChange, closed: Promise<number>, problem: () => Error | string): Promise<PendingCommit> {
  let stdout = '';
  const failed = (what: string) => {
    const p = problem();
    return p instanceof Error ? p : new Error(`git fast-import ${what}: ${p.trim() || 'no message'}; the record was not committed and nothing was pushed`);
  };
  const missing = [...change.files.values()].find(id => !change.blobs.has(id));
  if (missing) {
    child.stdin.end();
    return Promise.reject(new Error(`no bytes for blob ${missing}; the record was not committed and nothing was pushed`));
  }
  const ids = [...new Set(change.files.values())];
  const mark = new Map(ids.map((id, i) => [id, i + 1] as const));
  const commitMark = ids.length + 1;
  const chunks: (string | Buffer)[] = ['feature done\n'];
  for (const id of ids) {
    const bytes = change.blobs.get(id)!;
    chunks.push(`blob\nmark :${mark.get(id)}\ndata ${bytes.length}\n`, bytes, `\nget-mark :${mark.get(id)}\n`);
  }
  const message = Buffer.from(`${change.message}\n`, 'utf8');
  const ident = `${identPart(change.who.name)} <${identPart(change.who.email)}> now`;
  chunks.push(`commit ${OUTGOING_REF}\nmark :${commitMark}\nauthor ${ident}\ncommitter ${ident}\ndata ${message.length}\n`, message, '\n');
  if (change.parent) chunks.push(`from ${change.parent}\n`);
  if (change.fromScratch) chunks.push('deleteall\n');
  for (const p of change.removed) chunks.push(`D ${quoted(p)}\n`);
  for (const [p, id] of change.files) chunks.push(`M 100644 :${mark.get(id)} ${quoted(p)}\n`);
  // The commit's id, then a checkpoint (the pack is finished and indexed), then a line that says it is.
  chunks.push(`\nget-mark :${commitMark}\ncheckpoint\nprogress checkpointed\n`);

  return new Promise<PendingCommit>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      child.stdin.end();
      reject(error);
    };
    closed.then(code => fail(failed(`stopped (exit ${code})`))).catch(() => undefined);
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (settled || !stdout.endsWith('progress checkpointed\n')) return;
      const lines = stdout.split('\n').filter(Boolean);
      // One id per blob in order, then the commit's, then the progress line.
      if (lines.length !== ids.length + 2) return fail(failed(`printed ${JSON.stringify(stdout.slice(0, 200))}`));
      for (let i = 0; i < ids.length; i++)
        if (lines[i] !== ids[i]) return fail(new Error(`git stored a blob as ${lines[i]}, expected ${ids[i]}; nothing was pushed`));
      const commit = lines[ids.length];
      if (!/^[0-9a-f]{40,64}$/.test(commit)) return fail(failed(`printed ${JSON.stringify(commit)}, not a commit id`));
      settled = true;
      resolve({
        commit,
        async finish(refs) {
          child.stdin.end(`${refs.map(ref => `reset ${ref}\nfrom :${commitMark}\n\n`).join('')}done\n`);
          const code = await closed;
          if (code !== 0) throw failed(`could not update ${refs.join(', ') || 'its refs'} (exit ${code})`);
        },
      });
    });
    for (const c of chunks) child.stdin.write(c);
  });
}
