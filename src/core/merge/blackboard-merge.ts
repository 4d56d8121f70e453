/**
 * `blackboard.jsonl` and `archive/*.jsonl`: the union of both sides' entries by id, minus what one
 * side removed (dismiss, archive) while the other left it unchanged, ordered by timestamp then id
 * so that "the last N" are still the newest. Entries never change once written; should one id carry
 * two different entries, the choice is deterministic and reported.
 */
import { Family } from './record-collection';
import { brief, firstOf, shown } from './json-values';

export const blackboardEntries: Family = {
  noun: 'entry',
  keyOf: v => (typeof v.id === 'string' ? v.id : undefined),
  timeOf: v => (typeof v.timestamp === 'string' ? v.timestamp : undefined),
  combine(_base, a, b, notes) {
    const kept = firstOf(a, b);
    notes.push(`entry ${shown(a.id)} differs between the sides; kept ${brief(kept.summary)}, dropped the variant ${brief((kept === a ? b : a).summary)}`);
    return kept;
  },
};
