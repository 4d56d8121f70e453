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
 *
 * Input is the set of distinct texts of the three sides, each knowing on which sides it occurs
 * (`seen`): a text found on all three sides is kept without further work, which is what makes a
 * merge of a large blackboard cost little more than reading it.
 */
import { JsonObject, canonical, compareStrings, isObject } from './json-values';

/** The three versions of a file that git hands the merge driver. */
export type Side = 'base' | 'ours' | 'theirs';
export const SIDES: readonly Side[] = ['base', 'ours', 'theirs'];
const ALL = 7;

/** One distinct text of the three sides (a JSONL line, or a JSON array item's compact text). */
export interface Entry {
  raw: string;
  /** Bit i set: occurs on SIDES[i]. */
  seen: number;
  /** The parsed record; null when not a JSON object; absent until needed (see `quick`). */
  value?: JsonObject | null;
  /** Id and time read off the text without parsing it. */
  quick?: { id: string; time: string };
  key?: string;
  id?: string;
  time?: string;
  /** For an entry without a time: the (time, id) of the timed entry before it in its file. */
  anchor?: [string, string];
  /** How many times the text occurs on the side that has it most often, beyond the first. */
  repeats?: number;
}

export interface Sides {
  /** Each distinct text once. */
  entries: Entry[];
  /** Each side's texts in file order. */
  lists: Record<Side, Entry[]>;
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
  addedByOurs: number;
  addedByTheirs: number;
  removed: number;
  combined: number;
  result: number;
}

/** The record of an entry, parsed on first need. */
export function valueOf(e: Entry): JsonObject | null {
  if (e.value === undefined) {
    let v: unknown;
    try {
      v = JSON.parse(e.raw.endsWith('\r') ? e.raw.slice(0, -1) : e.raw);
    } catch {
      v = undefined;
    }
    e.value = isObject(v) ? v : null;
  }
  return e.value;
}

function identify(e: Entry, family: Family): void {
  const value = e.quick ? undefined : valueOf(e);
  const id = e.quick ? e.quick.id : value ? family.keyOf(value) : undefined;
  if (id !== undefined) {
    e.key = id;
    e.id = id;
    e.time = (e.quick ? e.quick.time : family.timeOf(value!)) ?? '';
  } else {
    e.key = `\0${e.raw}`;
    e.id = '';
    e.time = '';
  }
}

function sameEntry(a: Entry, b: Entry): boolean {
  if (a === b || a.raw === b.raw) return true;
  const [x, y] = [valueOf(a), valueOf(b)];
  return x !== null && y !== null && canonical(x) === canonical(y);
}

function made(value: JsonObject, seen: number, family: Family): Entry {
  const e: Entry = { raw: JSON.stringify(value), seen, value };
  identify(e, family);
  return e;
}

export function mergeEntries(sides: Sides, family: Family, notes: string[]): { items: Entry[]; stats: CollectionStats } {
  const stats: CollectionStats = { addedByOurs: 0, addedByTheirs: 0, removed: 0, combined: 0, result: 0 };
  for (const e of sides.entries) identify(e, family);
  // Texts that occur once per key (nearly all) are settled by where they occur.
  const first = new Map<string, Entry>();
  const more = new Map<string, Entry[]>();
  for (const e of sides.entries) {
    const seen = first.get(e.key!);
    if (!seen) first.set(e.key!, e);
    else more.set(e.key!, [...(more.get(e.key!) ?? [seen]), e]);
  }
  const out: Entry[] = [];
  for (const e of sides.entries) {
    if (e.repeats && e.id) notes.push(`a side holds ${family.noun} ${e.id} twice; kept once`);
  }
  for (const [key, e] of first) {
    if (more.has(key)) continue;
    if (e.seen === ALL || !(e.seen & 1)) {
      out.push(e);
      if (e.seen === 2) stats.addedByOurs++;
      if (e.seen === 4) stats.addedByTheirs++;
    } else stats.removed++; // in the base, missing on a side, unchanged on the other (or gone on both)
  }
  for (const [key, list] of more) {
    const kept = settle(key, list, family, notes, stats);
    if (kept) out.push(kept);
  }
  anchorUntimed(out, sides);
  out.sort(order);
  // A line that is not a record and occurs several times (the `=======` of two old conflicts) stays as often.
  const items = out.some(e => e.repeats && !e.id) ? out.flatMap(e => (e.repeats && !e.id ? Array<Entry>(e.repeats + 1).fill(e) : [e])) : out;
  stats.result = items.length;
  return { items, stats };
}

/** One key with several texts: a record changed on a side, or held twice by one side (sorted-merge.ts asks it too). */
export function settle(key: string, list: Entry[], family: Family, notes: string[], stats: CollectionStats): Entry | undefined {
  const version = (bit: number, side: Side): Entry | undefined => {
    const own = list.filter(e => e.seen & bit);
    if (own.length <= 1) return own[0];
    // An earlier hand merge left this id twice on one side: one record, combined.
    notes.push(`${side} holds ${family.noun} ${list[0].id} twice with different content; the two were combined into one`);
    return own.reduce((a, b) => {
      const [x, y] = [valueOf(a), valueOf(b)];
      return x && y ? made(family.combine(undefined, x, y, notes), a.seen | b.seen, family) : a;
    });
  };
  const [b, o, t] = [version(1, 'base'), version(2, 'ours'), version(4, 'theirs')];
  const name = (e: Entry) => (e.id ? `${family.noun} ${e.id}` : `unparseable line ${JSON.stringify(e.raw.slice(0, 60))}`);
  if (o && t) {
    if (sameEntry(o, t)) return o.raw <= t.raw ? o : t;
    if (b && sameEntry(o, b)) return t;
    if (b && sameEntry(t, b)) return o;
    const [vo, vt] = [valueOf(o), valueOf(t)];
    if (!vo || !vt) return o; // same key, so the same text: cannot differ
    stats.combined++;
    const value = family.combine(b ? (valueOf(b) ?? undefined) : undefined, vo, vt, notes);
    return [o, t].find(e => canonical(valueOf(e)) === canonical(value)) ?? made(value, 6, family);
  }
  const present = (o ?? t)!;
  if (!present) {
    stats.removed++;
    return undefined;
  }
  if (!b) {
    if (o) stats.addedByOurs++;
    else stats.addedByTheirs++;
    return present;
  }
  if (sameEntry(present, b)) {
    stats.removed++;
    return undefined;
  }
  notes.push(`${name(present)} was removed on one side and changed on the other (${o ? 'ours' : 'theirs'}); the changed one is kept`);
  void key;
  return present;
}

/** An entry without a time goes right after the earliest timed entry it followed on any side. */
function anchorUntimed(kept: Entry[], sides: Sides): void {
  if (!kept.some(e => e.time === '')) return;
  for (const side of SIDES) {
    let last: [string, string] = ['', ''];
    for (const e of sides.lists[side]) {
      if (e.time) last = [e.time, e.id!];
      else if (!e.anchor || compareStrings(last[0], e.anchor[0]) < 0 || (last[0] === e.anchor[0] && compareStrings(last[1], e.anchor[1]) < 0)) e.anchor = last;
    }
  }
}

function order(a: Entry, b: Entry): number {
  const ta = a.time || (a.anchor ? a.anchor[0] : '');
  const tb = b.time || (b.anchor ? b.anchor[0] : '');
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ia = a.time ? a.id! : a.anchor ? a.anchor[1] : '';
  const ib = b.time ? b.id! : b.anchor ? b.anchor[1] : '';
  if (ia !== ib) return ia < ib ? -1 : 1;
  return (a.time ? 0 : 1) - (b.time ? 0 : 1) || compareStrings(a.raw, b.raw);
}
