/**
 * `decisions/index.json` and `decisions/{id}.json`: union by id. A status change made on one side
 * is kept. When both sides changed a decision's status, the more final status wins:
 * `overridden` > `superseded` > `provisional` > `active` (an override is a person's explicit word;
 * superseding names a replacement; provisional asks for review). The winning side's
 * `overridden_by` / `override_reason` go with it. `commit_hashes` are the union of both sides.
 * The same rules run on the record and on its index entry, so the two agree.
 */
import { Family } from './record-collection';
import { mergeObject, unionList } from './object-merge';
import { JsonObject, firstOf, shown } from './json-values';

export const STATUS_PRECEDENCE = ['active', 'provisional', 'superseded', 'overridden'] as const;

const rank = (status: unknown) => STATUS_PRECEDENCE.indexOf(status as (typeof STATUS_PRECEDENCE)[number]);

export function mergeDecision(base: JsonObject | undefined, a: JsonObject, b: JsonObject, notes: string[], label: string): JsonObject {
  const ra = rank(a.status);
  const rb = rank(b.status);
  const primary = ra > rb ? a : rb > ra ? b : firstOf(a, b);
  const other = primary === a ? b : a;
  const aligned: JsonObject = { ...other };
  if (a.status !== b.status && a.status !== base?.status && b.status !== base?.status) {
    notes.push(`${label}: status changed on both sides (${shown(a.status)} / ${shown(b.status)}); kept ${shown(primary.status)} by precedence`);
    for (const k of ['status', 'overridden_by', 'override_reason']) {
      if (k in primary) aligned[k] = primary[k];
      else delete aligned[k];
    }
  }
  return mergeObject(base, primary, aligned, { label, notes, resolvers: { commit_hashes: unionList } });
}

export const decisionIndexEntries: Family = {
  noun: 'decision',
  keyOf: v => (typeof v.id === 'string' ? v.id : undefined),
  timeOf: v => (typeof v.timestamp === 'string' ? v.timestamp : undefined),
  combine: (base, a, b, notes) => mergeDecision(base, a, b, notes, `decision ${shown(a.id)} (index entry)`),
};
