/**
 * `agents/registry.json`: union by `agent_id`. An agent changed on both sides is merged as if the
 * later registration (by `last_active`) had been applied after the earlier one (docs/format.md §Registration):
 * capabilities = normalise(earlier's, then later's), the later `last_active`, the first
 * `registered_at`, and `role` / `description` from the later registration where both changed them.
 */
import { Family } from './record-collection';
import { mergeObject } from './object-merge';
import { normaliseTags } from '../scope';
import { Json, JsonObject, compareStrings, firstOf } from './json-values';

const strings = (v: Json | undefined) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: Json | undefined) => (typeof v === 'string' ? v : '');

export function mergeAgent(base: JsonObject | undefined, a: JsonObject, b: JsonObject, notes: string[]): JsonObject {
  const order = compareStrings(text(a.last_active), text(b.last_active));
  const later = order > 0 ? a : order < 0 ? b : firstOf(a, b);
  const earlier = later === a ? b : a;
  return mergeObject(base, later, earlier, {
    label: `agent ${JSON.stringify(a.agent_id)}`,
    notes,
    resolvers: {
      // Resolvers get (base, later, earlier): the later registration is applied last.
      capabilities: (_b, l, e) => normaliseTags([...strings(e), ...strings(l)]),
      last_active: (_b, l, e) => (compareStrings(text(l), text(e)) >= 0 ? l : e),
      registered_at: (_b, l, e) => (compareStrings(text(l), text(e)) <= 0 ? l : e),
    },
  });
}

export const registryAgents: Family = {
  noun: 'agent',
  keyOf: v => (typeof v.agent_id === 'string' ? v.agent_id : undefined),
  timeOf: v => (typeof v.registered_at === 'string' ? v.registered_at : undefined),
  combine: (base, a, b, notes) => mergeAgent(base, a, b, notes),
};
