/**
 * Decision records kept for briefings (assemble-ops.ts needs each candidate's rationale for its
 * cost). A record is kept by id and stays valid while its decision's index entry is the same:
 * every change twining-mcp or this engine makes to a record changes the copy of its fields in the
 * index too (status, superseded_by, commit_hashes: docs/format.md §Timestamps), so a decision written or
 * changed since is read again, and the others are not read again whatever else changed.
 *
 * A long-lived engine (the extension's, `twining mcp`'s: `keepRecordsWarm`) also reads, after a
 * briefing, the records of the other decisions in the background (active and provisional first,
 * then the retired ones `why` lists), 64 at a time, once per version of the index: the next
 * briefing or `why` of any scope then reads no record file.
 * One-shot processes (the CLI, hooks) do not, so they exit as soon as they have answered.
 */
import type { FolderStore } from '../engine/folder-store';
import type { DecisionIndexEntry, DecisionRecord } from '../records';
import { readDecisionRecord } from './decision-ops';

interface Kept {
  key: string;
  record: DecisionRecord | null;
}
interface Cache {
  records: Map<string, Kept>;
  warmVersion: number;
  warming: boolean;
}
const caches = new WeakMap<FolderStore, Cache>();
const BATCH = 64;

/** An index entry's fields as one string, kept with the entry (entries are new objects when the index is read again). */
const keys = new WeakMap<DecisionIndexEntry, string>();
function keyOf(d: DecisionIndexEntry): string {
  let key = keys.get(d);
  if (key === undefined) keys.set(d, (key = JSON.stringify(d)));
  return key;
}

function cacheOf(ctx: FolderStore): Cache {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = { records: new Map(), warmVersion: -1, warming: false }));
  return cache;
}

/** `Date.parse` of each decision's time, kept with its index entry (entries are new objects when the index is read again). */
const times = new WeakMap<DecisionIndexEntry, number>();
export function timeOf(d: DecisionIndexEntry): number {
  let at = times.get(d);
  if (at === undefined) times.set(d, (at = Date.parse(d.timestamp)));
  return at;
}

/** A decision's record (undefined when it cannot be read), from what is kept when its index entry is unchanged. */
export async function keptDecisionRecord(ctx: FolderStore, d: DecisionIndexEntry): Promise<DecisionRecord | undefined> {
  const cache = cacheOf(ctx);
  const key = keyOf(d);
  const kept = cache.records.get(d.id);
  if (kept && kept.key === key) return kept.record ?? undefined;
  const record = (await readDecisionRecord(ctx, d.id).catch(() => undefined)) ?? null;
  cache.records.set(d.id, { key, record });
  return record ?? undefined;
}

/** In a long-lived engine, after a briefing: the other records read in the background (see above). */
export function warmDecisionRecords(ctx: FolderStore, index: readonly DecisionIndexEntry[]): void {
  if (!ctx.keepRecordsWarm) return;
  const cache = cacheOf(ctx);
  const version = ctx.decisionIndex.version;
  if (cache.warming || cache.warmVersion === version) return;
  cache.warming = true;
  const warm = async () => {
    const ids = new Set(index.map(d => d.id));
    for (const id of [...cache.records.keys()]) if (!ids.has(id)) cache.records.delete(id);
    const current = (d: DecisionIndexEntry) => d.status === 'active' || d.status === 'provisional';
    const wanted = [...index.filter(current), ...index.filter(d => !current(d))];
    for (let at = 0; at < wanted.length; at += BATCH) {
      // Another version of the index meanwhile: the next briefing starts over from it.
      if (ctx.decisionIndex.version !== version) return;
      const batch = wanted.slice(at, at + BATCH).filter(d => cache.records.get(d.id)?.key !== keyOf(d));
      await Promise.all(batch.map(d => keptDecisionRecord(ctx, d)));
      await new Promise(resolve => setImmediate(resolve));
    }
    cache.warmVersion = version;
  };
  warm()
    .catch(() => undefined)
    .finally(() => (cache.warming = false));
}
