/**
 * `graph/entities.json` and `graph/relations.json`: union by id. An item changed on both sides is
 * merged field by field (entity `properties` key by key), the later `updated_at` deciding where
 * both changed the same field.
 */
import { Family } from './record-collection';
import { mergeObject } from './object-merge';
import { compareStrings, firstOf, shown } from './json-values';

const updated = (v: { [k: string]: unknown }) => (typeof v.updated_at === 'string' ? v.updated_at : '');

export const graphItems: Family = {
  noun: 'graph item',
  keyOf: v => (typeof v.id === 'string' ? v.id : undefined),
  timeOf: v => (typeof v.created_at === 'string' ? v.created_at : undefined),
  combine(base, a, b, notes) {
    const order = compareStrings(updated(a), updated(b));
    const primary = order > 0 ? a : order < 0 ? b : firstOf(a, b);
    return mergeObject(base, primary, primary === a ? b : a, { label: `graph item ${shown(a.id)}`, notes });
  },
};
