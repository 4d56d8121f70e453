/**
 * `handoffs/index.jsonl` and `handoffs/{id}.json`: union by id. An acknowledgement made on either
 * side is kept; when both sides acknowledged the same handoff, the earlier acknowledgement
 * (`acknowledged_at`, then `acknowledged_by`) is kept, with both of its fields. The index line's
 * `acknowledged` is true when either side's is, so file and index agree after the merge.
 */
import { Family } from './record-collection';
import { mergeObject } from './object-merge';
import { JsonObject, compareStrings, firstOf, isObject, shown } from './json-values';

const acked = (h: JsonObject) => typeof h.acknowledged_by === 'string';

/** The side whose acknowledgement stands: the only one, or the earlier one. */
function earlierAcknowledgement(a: JsonObject, b: JsonObject): JsonObject | undefined {
  if (acked(a) !== acked(b)) return acked(a) ? a : b;
  if (!acked(a)) return undefined;
  const order =
    compareStrings(shown(a.acknowledged_at ?? ''), shown(b.acknowledged_at ?? '')) || compareStrings(shown(a.acknowledged_by), shown(b.acknowledged_by));
  return order < 0 ? a : order > 0 ? b : firstOf(a, b);
}

export function mergeHandoffRecord(base: JsonObject | undefined, a: JsonObject, b: JsonObject, notes: string[]): JsonObject {
  const winner = earlierAcknowledgement(a, b);
  const primary = winner ?? firstOf(a, b);
  const other = primary === a ? b : a;
  if (winner && acked(other) && (other.acknowledged_at !== winner.acknowledged_at || other.acknowledged_by !== winner.acknowledged_by)) {
    notes.push(
      `handoff ${shown(a.id)} was acknowledged on both sides; kept the earlier acknowledgement (${shown(winner.acknowledged_by)} at ${shown(winner.acknowledged_at)}), not ${shown(other.acknowledged_by)} at ${shown(other.acknowledged_at)}`,
    );
  }
  // The acknowledgement's two fields travel together: give the other side the winner's pair.
  const aligned: JsonObject = { ...other };
  if (winner) for (const k of ['acknowledged_by', 'acknowledged_at']) if (k in winner) aligned[k] = winner[k];
  return mergeObject(base, primary, aligned, { label: `handoff ${shown(a.id)}`, notes });
}

export const handoffIndexLines: Family = {
  noun: 'handoff',
  keyOf: v => (typeof v.id === 'string' ? v.id : undefined),
  timeOf: v => (typeof v.created_at === 'string' ? v.created_at : undefined),
  combine(base, a, b, notes) {
    const primary = a.acknowledged === true && b.acknowledged !== true ? a : b.acknowledged === true && a.acknowledged !== true ? b : firstOf(a, b);
    return mergeObject(isObject(base) ? base : undefined, primary, primary === a ? b : a, {
      label: `handoff ${shown(a.id)} (index line)`,
      notes,
      resolvers: { acknowledged: (_b, p, o) => p === true || o === true },
    });
  },
};
