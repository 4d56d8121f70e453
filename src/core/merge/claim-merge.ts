/**
 * `claims/claims.json`: a claim is a record with an expiry. Union by id; a claim changed on both
 * sides keeps the newest renewal (later `renewed_at`: its reason and expiry), and a claim released
 * on either side stays released (the earlier release, with what released it). A claim pruned on
 * one side (ended a week ago) and untouched on the other stays pruned (record-collection.ts).
 */
import { Family } from './record-collection';
import { JsonObject, compareStrings, firstOf } from './json-values';

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
