/**
 * Writing what a sync merged into `.twining/`: only the files that differ from what this clone
 * had, each under the lock its operations take (docs/format.md §Which lock for which write), so a write made here while the
 * sync ran is merged in rather than overwritten. Never a file outside the folder (links that lead
 * out are refused by the same check every write makes).
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { FolderStore, LockTarget } from '../engine/folder-store';
import { TwiningError } from '../errors';
import { mergeTwiningTexts } from '../merge/merge-file';
import { assertWritesStayInside } from '../storage/layout';
import { writeAtomic } from '../storage/json-files';
import { claimsFileOf } from '../storage/claims-file';
import { removable } from './record-files';

/** The lock a record file is written under, as the operations take it. */
function lockFor(ctx: FolderStore, rel: string): LockTarget | undefined {
  if (rel === 'claims/claims.jsonl') return [claimsFileOf(ctx.layout.dir), ''];
  if (ctx.sqlite) return undefined; // records/ files are written whole, as a git pull writes them
  if (rel.startsWith('decisions/')) return ctx.locks.decisionIndex;
  if (rel.startsWith('handoffs/')) return ctx.locks.handoffIndex;
  if (rel === 'blackboard.jsonl') return ctx.locks.blackboard;
  if (rel === 'agents/registry.json') return ctx.locks.registry;
  const g = ctx.graph;
  return rel === 'graph/entities.json' ? g.entitiesLock : g.relationsLock;
}

/**
 * Writes the merged files that differ from what this clone had, each under its operation lock. A
 * file written here while the sync ran is merged again (what was read as the base, what is there
 * now, the merged result), so a write made meanwhile is kept.
 */
export async function applyLocally(ctx: FolderStore, read: Map<string, Buffer>, merged: Map<string, Buffer>, notes: string[]): Promise<void> {
  const changed = [...new Set([...read.keys(), ...merged.keys()])].filter(rel => {
    const m = merged.get(rel);
    const r = read.get(rel);
    return m ? !r || !m.equals(r) : false; // a file sync removes is only a 2.x record (below)
  });
  const removed = [...read.keys()].filter(rel => !merged.has(rel) && removable(rel));
  if (changed.length === 0 && removed.length === 0) return;
  const groups = new Map<string, { lock?: LockTarget; rels: string[] }>();
  for (const rel of changed) {
    const lock = lockFor(ctx, rel);
    const key = lock?.[0] ?? '';
    const g = groups.get(key) ?? { lock, rels: [] };
    g.rels.push(rel);
    groups.set(key, g);
  }
  const order = Object.values(ctx.locks).map(l => l[0]);
  const sorted = [...groups.values()].sort((a, b) => rank(order, a.lock) - rank(order, b.lock));
  // A lock's target must have its folder (a clone that never claimed has no claims/).
  for (const rel of changed) await fs.mkdir(path.dirname(path.join(ctx.layout.dir, ...rel.split('/'))), { recursive: true });
  for (const group of sorted) {
    const work = async () => {
      for (const rel of group.rels) await writeOne(ctx, rel, read.get(rel), merged.get(rel)!, notes);
    };
    if (group.lock) await ctx.lock([group.lock], work);
    else await work();
  }
  for (const rel of removed) {
    const file = path.join(ctx.layout.dir, ...rel.split('/'));
    const now = await fs.readFile(file).catch(() => undefined);
    if (now && now.equals(read.get(rel)!)) await fs.rm(file, { force: true });
  }
}

const rank = (order: string[], lock?: LockTarget) => (lock ? (order.indexOf(lock[0]) + 100) % 100 : 99);

async function writeOne(ctx: FolderStore, rel: string, read: Buffer | undefined, merged: Buffer, notes: string[]): Promise<void> {
  const file = path.join(ctx.layout.dir, ...rel.split('/'));
  await fs.mkdir(path.dirname(file), { recursive: true });
  await assertWritesStayInside(ctx.layout.dir, file);
  const st = await fs.lstat(file).catch(() => undefined);
  if (st && !st.isFile()) throw new TwiningError('CORRUPT', `${file} is not a regular file; sync did not write it (the rest of the record was written)`);
  const now = st ? await fs.readFile(file) : undefined;
  let text = merged.toString('utf8');
  if (now && !(read && now.equals(read)) && !now.equals(merged)) {
    // Written here during the sync: merge that write in too.
    const outcome = mergeTwiningTexts(rel, { base: read?.toString('utf8') ?? '', ours: now.toString('utf8'), theirs: text });
    if (!outcome?.clean) {
      notes.push(`${rel} changed here during the sync and could not be merged with what came in; it was left as it is, and the next sync merges it`);
      return;
    }
    text = outcome.text;
  }
  if (now && now.toString('utf8') === text) return;
  await writeAtomic(file, text);
}
