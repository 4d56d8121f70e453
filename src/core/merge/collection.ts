/**
 * Three-way merge of a collection of records keyed by id (blackboard lines, index lines, registry
 * and graph items). Per key:
 *   - added on one side, or on both (then combined): kept;
 *   - removed on one side and unchanged on the other: stays removed;
 *   - removed on one side and changed on the other: the changed record is kept (reported);
 *   - changed on one side: that change; changed on both: the family's `combine`.
 * Items that did not parse have their text as key, so they are kept, deduplicated and removed
 * like records. The result is sorted by (time, id); an item without a time follows the timed
 * item it followed in its file, so an unparseable line stays where it was.
 */
import { JsonObject, canonical, compareStrings } from './values';

export interface Item {
  /** `id:<id>` for a record, `raw:<text>#<n>` for what did not parse or has no id. */
  key: string;
  value?: JsonObject;
  /** JSONL: the line as stored (without `\n`); JSON arrays: the item's compact JSON. */
  raw: string;
  /** Sort time and id; '' when the record has none. */
  time: string;
  id: string;
  /** The (time, id) of the closest timed item before it in its file, for items without a time. */
  anchor: [string, string];
}

export interface Family {
  /** Names a record in messages: `entry`, `handoff`, `agent` … */
  noun: string;
  keyOf(value: JsonObject): string | undefined;
  timeOf(value: JsonObject): string | undefined;
  /** Both sides changed (or added) this record differently: one record, the same for (a, b) and (b, a). */
  combine(base: JsonObject | undefined, a: JsonObject, b: JsonObject, notes: string[]): JsonObject;
}

export interface CollectionStats {
  ours: number;
  theirs: number;
  addedByOurs: number;
  addedByTheirs: number;
  removed: number;
  combined: number;
  result: number;
}

/** Builds the items of one side from its parsed values (undefined for what did not parse) and raw texts. */
export function itemsOf(entries: { value?: JsonObject; raw: string }[], family: Family, notes: string[], side: string): Item[] {
  const out: Item[] = [];
  const rawCount = new Map<string, number>();
  let anchor: [string, string] = ['', ''];
  for (const { value, raw } of entries) {
    const id = value ? family.keyOf(value) : undefined;
    if (value && id !== undefined) {
      const time = family.timeOf(value);
      const item: Item = { key: `id:${id}`, value, raw, time: time ?? '', id, anchor };
      if (time !== undefined) anchor = [time, id];
      out.push(item);
    } else {
      const n = (rawCount.get(raw) ?? 0) + 1;
      rawCount.set(raw, n);
      out.push({ key: `raw:${raw}#${n}`, value, raw, time: '', id: '', anchor });
    }
  }
  return fold(out, family, notes, side);
}

/** Two lines of one side with the same id (an earlier hand merge): one record, combined. */
function fold(items: Item[], family: Family, notes: string[], side: string): Item[] {
  const byKey = new Map<string, Item>();
  for (const item of items) {
    const seen = byKey.get(item.key);
    if (!seen) byKey.set(item.key, item);
    else if (seen.raw !== item.raw && seen.value && item.value && canonical(seen.value) !== canonical(item.value)) {
      notes.push(`${side} holds ${family.noun} ${item.id} twice with different content; the two were combined into one`);
      byKey.set(item.key, withValue(seen, family.combine(undefined, seen.value, item.value, notes), family));
    } else notes.push(`${side} holds ${family.noun} ${item.id} twice; kept once`);
  }
  return [...byKey.values()];
}

function withValue(item: Item, value: JsonObject, family: Family): Item {
  const time = family.timeOf(value);
  return { ...item, value, raw: JSON.stringify(value), time: time ?? item.time };
}

const sameItem = (a: Item, b: Item) => a.raw === b.raw || (a.value !== undefined && b.value !== undefined && canonical(a.value) === canonical(b.value));

export function mergeCollection(base: Item[], ours: Item[], theirs: Item[], family: Family, notes: string[]): { items: Item[]; stats: CollectionStats } {
  const B = new Map(base.map(i => [i.key, i]));
  const O = new Map(ours.map(i => [i.key, i]));
  const T = new Map(theirs.map(i => [i.key, i]));
  const stats: CollectionStats = { ours: ours.length, theirs: theirs.length, addedByOurs: 0, addedByTheirs: 0, removed: 0, combined: 0, result: 0 };
  const out: Item[] = [];
  const keep = (item: Item, ...present: (Item | undefined)[]) => {
    const anchors = present.filter((p): p is Item => p !== undefined).map(p => p.anchor);
    anchors.sort((x, y) => compareStrings(x[0], y[0]) || compareStrings(x[1], y[1]));
    out.push({ ...item, anchor: anchors[0] ?? item.anchor });
  };
  const name = (i: Item) => (i.value ? `${family.noun} ${i.id}` : `unparseable line ${JSON.stringify(i.raw.slice(0, 60))}`);
  for (const key of new Set([...O.keys(), ...T.keys()])) {
    const b = B.get(key);
    const o = O.get(key);
    const t = T.get(key);
    if (o && t) {
      if (sameItem(o, t)) keep(o.raw <= t.raw ? o : t, b, o, t);
      else if (b && sameItem(o, b)) keep(t, b, o, t);
      else if (b && sameItem(t, b)) keep(o, b, o, t);
      else {
        stats.combined++;
        const value = family.combine(b?.value, o.value!, t.value!, notes);
        const match = [o, t].find(i => canonical(i.value) === canonical(value));
        keep(match ?? withValue(o, value, family), b, o, t);
      }
      continue;
    }
    const present = (o ?? t)!;
    const side = o ? 'ours' : 'theirs';
    if (!b) {
      if (o) stats.addedByOurs++;
      else stats.addedByTheirs++;
      keep(present, present);
    } else if (sameItem(present, b)) stats.removed++;
    else {
      notes.push(`${name(present)} was removed on one side and changed on the other (${side}); the changed one is kept`);
      keep(present, b, present);
    }
  }
  out.sort(order);
  stats.result = out.length;
  return { items: out, stats };
}

/** (time, id) for timed items; an untimed item right after its anchor, by text among its like. */
function order(a: Item, b: Item): number {
  const ka = a.time !== '' ? a.time : a.anchor[0];
  const kb = b.time !== '' ? b.time : b.anchor[0];
  if (ka !== kb) return compareStrings(ka, kb);
  const ia = a.time !== '' ? a.id : a.anchor[1];
  const ib = b.time !== '' ? b.id : b.anchor[1];
  if (ia !== ib) return compareStrings(ia, ib);
  const ua = a.time === '' ? 1 : 0;
  const ub = b.time === '' ? 1 : 0;
  return ua - ub || compareStrings(a.raw, b.raw);
}
