/**
 * The decision records this engine has read, in one cache (FolderStore.derived 'decision records'):
 * briefings need each candidate's rationale for its cost (assemble-ops.ts), why and the Context
 * view their text (why-ops.ts, decision-relations.ts). A record is cached by id and stays valid while its decision's index entry is the same:
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

/** The records read so far, by id, each with its index entry then (JSON text; 'none': it had none). */
interface RecordCache {
  records: Map<string, { entry: string; record: DecisionRecord | null }>;
  /** Numbers worked out from a record (a kept record is never changed: a change is a new record), by what they measure. */
  measures: Map<string, WeakMap<DecisionRecord, number>>;
  /** The index's stamp whose records have all been read in the background. */
  warmStamp: string;
  warming: boolean;
}
const BATCH = 64;

/** Each index entry's fields as one string, per entry of the index as last parsed. */
const entryKeys = (ctx: FolderStore) => ctx.derived.fromDecisions('decision entry keys', () => new WeakMap<DecisionIndexEntry, string>());

function entryKeyIn(keys: WeakMap<DecisionIndexEntry, string>, d: DecisionIndexEntry): string {
  let key = keys.get(d);
  if (key === undefined) keys.set(d, (key = JSON.stringify(d)));
  return key;
}

/** An index entry's fields as one string ('none': no entry), cached per entry of the index as last parsed. */
const entryKey = (ctx: FolderStore, d: DecisionIndexEntry | undefined): string => (d ? entryKeyIn(entryKeys(ctx), d) : 'none');

const cacheOf = (ctx: FolderStore): RecordCache =>
  ctx.derived.of('decision records', () => ({ records: new Map(), measures: new Map(), warmStamp: '', warming: false }));

/**
 * `measure` of a decision record, worked out once per record and kept with the records (why-ops.ts:
 * the JSON length of a decision's one-liner and of its entry in full, asked at every `why`).
 */
export function measureOf(ctx: FolderStore, what: string, record: DecisionRecord, measure: (record: DecisionRecord) => number): number {
  const { measures } = cacheOf(ctx);
  let map = measures.get(what);
  if (!map) measures.set(what, (map = new WeakMap()));
  let n = map.get(record);
  if (n === undefined) map.set(record, (n = measure(record)));
  return n;
}

/** The decision index's entries by id, as last read (`decisionIndex.get()` first). */
export function decisionsById(ctx: FolderStore): ReadonlyMap<string, DecisionIndexEntry> {
  return ctx.derived.fromDecisions('decisions by id', items => new Map(items.map(d => [d.id, d] as const)));
}

/**
 * The records kept for `entries` while their index entries are unchanged, in order (null: it could
 * not be read then; undefined: none is kept). Nothing is read; the cache is looked up once for all.
 */
export function keptRecords(ctx: FolderStore, entries: readonly DecisionIndexEntry[]): (DecisionRecord | null | undefined)[] {
  const { records } = cacheOf(ctx);
  const keys = entryKeys(ctx);
  return entries.map(d => {
    const had = records.get(d.id);
    return had && had.entry === entryKeyIn(keys, d) ? had.record : undefined;
  });
}

/**
 * Decision `id`'s record (undefined when it cannot be read), as read before when its index entry
 * (`entry`; undefined: it has none) is the same as then, else read now.
 */
export async function cachedRecordOf(ctx: FolderStore, id: string, entry: DecisionIndexEntry | undefined): Promise<DecisionRecord | undefined> {
  const cache = cacheOf(ctx);
  const key = entryKey(ctx, entry);
  const had = cache.records.get(id);
  if (had && had.entry === key) return had.record ?? undefined;
  const record = (await readDecisionRecord(ctx, id).catch(() => undefined)) ?? null;
  cache.records.set(id, { entry: key, record });
  return record ?? undefined;
}

/**
 * The record of an indexed decision from the cache when it holds one for its index entry as it
 * is, else read now and kept when it was read (a failure is thrown, a missing file is undefined,
 * and neither is kept): for a caller that reports a record it cannot read and reads it again next
 * time (trace-ops.ts), while what it reads serves `why` and briefings too, and theirs it.
 */
export async function readRecordSharing(ctx: FolderStore, d: DecisionIndexEntry): Promise<DecisionRecord | undefined> {
  const cache = cacheOf(ctx);
  const key = entryKey(ctx, d);
  const had = cache.records.get(d.id);
  if (had && had.entry === key && had.record) return had.record;
  const record = await readDecisionRecord(ctx, d.id);
  if (record) cache.records.set(d.id, { entry: key, record });
  return record;
}

/** The record of an indexed decision, as `cachedRecordOf` gives it. */
export const cachedDecisionRecord = (ctx: FolderStore, d: DecisionIndexEntry) => cachedRecordOf(ctx, d.id, d);

/** In a long-lived engine, after a briefing: the other records read in the background (see above). */
export function warmDecisionRecords(ctx: FolderStore, index: readonly DecisionIndexEntry[]): void {
  if (!ctx.keepRecordsWarm) return;
  const cache = cacheOf(ctx);
  const stamp = ctx.decisionIndex.stamp;
  if (cache.warming || cache.warmStamp === stamp) return;
  cache.warming = true;
  const warm = async () => {
    const ids = new Set(index.map(d => d.id));
    for (const id of [...cache.records.keys()]) if (!ids.has(id)) cache.records.delete(id);
    const current = (d: DecisionIndexEntry) => d.status === 'active' || d.status === 'provisional';
    const wanted = [...index.filter(current), ...index.filter(d => !current(d))];
    for (let at = 0; at < wanted.length; at += BATCH) {
      // Another version of the index meanwhile: the next briefing starts over from it.
      if (ctx.decisionIndex.stamp !== stamp) return;
      const batch = wanted.slice(at, at + BATCH).filter(d => cache.records.get(d.id)?.entry !== entryKey(ctx, d));
      await Promise.all(batch.map(d => cachedDecisionRecord(ctx, d)));
      await new Promise(resolve => setImmediate(resolve));
    }
    cache.warmStamp = stamp;
  };
  warm()
    .catch(() => undefined)
    .finally(() => (cache.warming = false));
}
