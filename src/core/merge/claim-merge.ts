/**
 * `claims/claims.jsonl`: a claim is a record with an expiry. Each side's log is first folded to
 * the last line of each claim (storage/claim-log.ts: a renewal or release appends the whole record
 * again), then merged as a collection: union by id; a claim changed on both sides keeps the newest
 * renewal (later `renewed_at`: its reason and expiry), and a claim released on either side stays
 * released (the earlier release, with what released it). A claim pruned on one side (ended a week
 * ago) and untouched on the other stays pruned (record-collection.ts). The merged log has one
 * line per claim, as a compaction leaves it.
 */
import { Entry, Family, SIDES, Side, Sides } from './record-collection';
import { JsonObject, compareStrings, firstOf, isObject } from './json-values';
import { SideText, isConflictMarker, textOf } from './merge-text';

const text = (v: unknown) => (typeof v === 'string' ? v : '');

export function mergeClaim(_base: JsonObject | undefined, a: JsonObject, b: JsonObject, notes: string[]): JsonObject {
  const order = compareStrings(text(a.renewed_at), text(b.renewed_at));
  const newer = order > 0 ? a : order < 0 ? b : firstOf(a, b);
  const releases = [a, b].filter(c => typeof c.released_at === 'string').sort((x, y) => compareStrings(text(x.released_at), text(y.released_at)));
  if (releases.length === 0) return newer;
  const released = releases[0];
  if (releases.length === 1 && newer !== released)
    notes.push(`claim ${text(a.id)} on ${text(a.target)}: renewed on one side, released on the other; it stays released`);
  const merged: JsonObject = { ...newer, released_at: released.released_at! };
  if (released.released_because !== undefined) merged.released_because = released.released_because;
  else delete merged.released_because;
  return merged;
}

export const claimRecords: Family = {
  noun: 'claim',
  keyOf: v => (typeof v.id === 'string' ? v.id : undefined),
  timeOf: v => (typeof v.claimed_at === 'string' ? v.claimed_at : undefined),
  combine: mergeClaim,
};

function parsed(line: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The three sides of a claims log, each folded to its last line per claim; other lines kept verbatim. */
export function readClaimLogSides(texts: Record<Side, SideText>, file: string, notes: string[]): Sides {
  const known = new Map<string, Entry>();
  const lists = {} as Record<Side, Entry[]>;
  SIDES.forEach((side, bit) => {
    const last = new Map<string, { raw: string; value: JsonObject | null }>();
    textOf(texts[side])
      .split('\n')
      .forEach((raw, i) => {
        const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
        if (line.trim() === '') return;
        const value = parsed(line);
        const id = value && typeof value.id === 'string' ? value.id : undefined;
        if (!value && side !== 'base')
          notes.push(
            `${file}: ${side} line ${i + 1} is ${isConflictMarker(line) ? 'a conflict marker left by an earlier merge' : 'not a JSON object'}; it is kept verbatim: ${JSON.stringify(line.slice(0, 80))}`,
          );
        const key = id ?? `\0${line}`;
        last.delete(key); // a later line of the claim takes the place of the earlier one
        last.set(key, { raw: line, value: value ?? null });
      });
    lists[side] = [...last.values()].map(({ raw, value }) => {
      let e = known.get(raw);
      if (!e) known.set(raw, (e = { raw, seen: 0, value }));
      e.seen |= 1 << bit;
      return e;
    });
  });
  return { entries: [...known.values()], lists };
}
