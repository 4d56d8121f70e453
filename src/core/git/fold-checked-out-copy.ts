/**
 * A linked worktree's own checked-out `.twining/` is never written by Twining (the shared record
 * is the primary's, record-location.ts). Something else may write it: twining-mcp run inside the
 * worktree, or an older version. Those records are found (the copy's files git sees changed
 * against the worktree's HEAD) and folded into the shared record with the merge driver's rules,
 * record by record (merge/merge-file.ts): base = the file at HEAD, ours = the shared record's,
 * theirs = the copy's. A union by id: nothing lost, nothing doubled, and a second fold of the
 * same copy adds nothing. The copy's files once folded are kept in the worktree's own git directory
 * (`twining-folded/`) and are the base of the next fold, so a record later dismissed from the
 * shared record is not brought back by the copy. Runs git (`git status`), so never on a hook's hot path.
 */
import { createHash } from 'crypto';
import { promises as fs } from 'fs';
import * as path from 'path';
import type { FolderStore, LockTarget } from '../engine/folder-store';
import { kindOf, mergeTwiningFile } from '../merge/merge-file';
import { readTextIfExists, writeAtomic } from '../storage/json-files';
import { git } from './git-run';
import { type RecordRoute, routeSummary } from './record-location';

export interface FoldReport {
  /** The checked-out copy looked at. */
  copy: string;
  /** Files of the copy that differ from the worktree's HEAD (relative to `.twining/`). */
  changed: string[];
  /** Files whose records were folded into the shared record (something was added or changed there). */
  folded: string[];
  /** Files that could not be folded, with why (no merge rules, a file that does not parse). */
  skipped: string[];
  /** What happened, in one sentence; undefined when the copy is as its branch has it. */
  message?: string;
}

const FOLDED_DIR = 'twining-folded';

/** The copy's files git sees changed against HEAD (modified or untracked), relative to `.twining/`. */
async function changedFiles(worktree: string): Promise<string[]> {
  const r = await git(worktree, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.twining']);
  if (r.code !== 0) throw new Error(`git status in ${worktree} failed: ${r.stderr.trim()}`);
  const out: string[] = [];
  for (const item of r.stdout.split('\0')) {
    if (item.length < 4) continue;
    const file = item.slice(3).replace(/\\/g, '/');
    if (file.startsWith('.twining/') && item[1] !== 'D' && item[0] !== 'D') out.push(file.slice('.twining/'.length));
  }
  return out.sort();
}

async function headText(worktree: string, rel: string): Promise<string> {
  const r = await git(worktree, ['show', `HEAD:.twining/${rel}`]);
  return r.code === 0 ? r.stdout : '';
}

/** The lock a write of this file takes in the shared record (the engine's own, so its writers wait for the fold). */
function lockOf(ctx: FolderStore, rel: string, target: string): LockTarget {
  if (rel.startsWith('decisions/')) return ctx.locks.decisionIndex;
  if (rel.startsWith('handoffs/')) return ctx.locks.handoffIndex;
  return [target, rel.endsWith('.json') ? '[]' : ''];
}

export async function foldCheckedOutCopy(ctx: FolderStore, route: RecordRoute): Promise<FoldReport | undefined> {
  if (!route.linked || route.mode !== 'shared' || !route.checkedOutCopy || !route.worktree || !route.gitDir) return undefined;
  const copy = route.checkedOutCopy;
  const changed = await changedFiles(route.worktree);
  const report: FoldReport = { copy, changed, folded: [], skipped: [] };
  if (changed.length === 0) return report;
  const texts = await Promise.all(changed.map(rel => readTextIfExists(path.join(copy, rel))));
  const fingerprint = createHash('sha256');
  changed.forEach((rel, i) => fingerprint.update(`${rel}\0${texts[i] ?? ''}\0`));
  const digest = fingerprint.digest('hex');
  const kept = path.join(route.gitDir, FOLDED_DIR);
  const marker = path.join(kept, '.digest');
  if ((await readTextIfExists(marker))?.trim() === digest) return report;
  if (ctx.sqlite) {
    report.skipped = changed;
    report.message = `${copy} (this worktree's own copy of .twining/) has ${changed.length} changed file(s) that the shared twining-mcp 2.x record does not take in by itself: ${changed.join(', ')}`;
    return report;
  }
  for (const [i, rel] of changed.entries()) {
    const theirs = texts[i];
    if (theirs === undefined || !kindOf(rel)) {
      report.skipped.push(rel);
      continue;
    }
    const target = path.join(ctx.layout.dir, rel);
    // The base: the copy as last folded, else as its branch has it.
    const keptCopy = path.join(kept, rel);
    const base = (await readTextIfExists(keptCopy)) ?? (await headText(route.worktree, rel));
    await ctx.lock([lockOf(ctx, rel, target)], async () => {
      const ours = await readTextIfExists(target);
      let next: string | undefined;
      if (ours === undefined) next = theirs;
      else {
        const merged = mergeTwiningFile(`.twining/${rel}`, base, ours, theirs);
        if (!merged?.clean) {
          report.skipped.push(rel);
          return;
        }
        next = merged.text === ours ? undefined : merged.text;
      }
      if (next !== undefined) {
        await fs.mkdir(path.dirname(target), { recursive: true });
        await writeAtomic(target, next);
        report.folded.push(rel);
      }
      await fs.mkdir(path.dirname(keptCopy), { recursive: true });
      await writeAtomic(keptCopy, theirs);
    });
  }
  await fs.mkdir(kept, { recursive: true });
  await fs.writeFile(marker, digest + '\n');
  report.message =
    `${copy} (this worktree's own copy of .twining/, which Twining never writes) was written by something else: ` +
    (report.folded.length
      ? `its records in ${report.folded.join(', ')} were folded into the shared record ${ctx.layout.dir}`
      : 'the shared record already had its records') +
    (report.skipped.length ? `; not folded: ${report.skipped.join(', ')}` : '') +
    `. "git restore --source=HEAD --staged --worktree .twining" in the worktree drops the copy's changes.`;
  return report;
}

/**
 * `status`'s `record`: the route, and for a linked worktree whose own copy something else wrote,
 * what was folded (also added to `warnings`, the status's list of what needs attention).
 */
export async function recordStatus(ctx: FolderStore, route: RecordRoute, warnings: string[]) {
  const fold = await foldCheckedOutCopy(ctx, route).catch((e: Error) => ({ message: `the worktree's own .twining/ could not be looked at: ${e.message}` }));
  if (fold?.message) warnings.push(fold.message);
  return { ...routeSummary(route), ...(fold?.message && { checked_out_copy_changes: fold.message }) };
}
