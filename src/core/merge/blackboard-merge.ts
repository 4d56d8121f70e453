/**
 * `blackboard.jsonl` and `archive/*.jsonl`: the union of both sides' entries by id, minus what one
 * side removed (dismiss, archive) while the other left it unchanged, ordered by timestamp then id
 * so that "the last N" are still the newest. Entries change only when twining-mcp 2.x's resolve
 * marks them (`status: "resolved"`, resolved_at, resolved_by, resolution_note): the resolution is
 * kept, and when both sides resolved an entry the first resolve wins whole, as in `records/`
 * (records-merge.ts). Should one id carry two other different entries, the choice is
 * deterministic and reported.
 */
import { Family } from './record-collection';
import { brief, firstOf, shown } from './json-values';
import { mergePost } from './records-merge';

export const blackboardEntries: Family = {
  noun: 'entry',
  keyOf: v => (typeof v.id === 'string' ? v.id : undefined),
  timeOf: v => (typeof v.timestamp === 'string' ? v.timestamp : undefined),
  combine(base, a, b, notes) {
    if (a.status === 'resolved' || b.status === 'resolved') return mergePost(base, a, b, notes, `entry ${shown(a.id)}`);
    const kept = firstOf(a, b);
    notes.push(`entry ${shown(a.id)} differs between the sides; kept ${brief(kept.summary)}, dropped the variant ${brief((kept === a ? b : a).summary)}`);
    return kept;
  },
};
