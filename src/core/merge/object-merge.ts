/**
 * Field-by-field three-way merge of one JSON object (a record changed on both sides): a field
 * changed on one side only takes that change; a field changed on both sides differently goes to
 * the family's resolver for it, or, for nested objects, is merged field by field again, or else
 * takes the primary side's value (reported). Key order is the primary side's, then keys only the
 * other side has, in its order, so the text is the same whichever side is "ours".
 */
import { JsonObject, Json, brief, isObject, same } from './json-values';

export type Resolver = (base: Json | undefined, primary: Json | undefined, other: Json | undefined) => Json | undefined;

export interface ObjectMergeOptions {
  /** Per-field rules, used only when both sides changed the field differently. */
  resolvers?: Record<string, Resolver>;
  /** Names the record in messages, e.g. `agent "tester"`. */
  label: string;
  notes: string[];
}

/** `primary` is the side chosen by the family's rule (later registration, winning status …). */
export function mergeObject(base: JsonObject | undefined, primary: JsonObject, other: JsonObject, options: ObjectMergeOptions): JsonObject {
  const keys = [...Object.keys(primary), ...Object.keys(other).filter(k => !(k in primary))];
  const out: JsonObject = {};
  for (const key of keys) {
    const value = mergeField(key, base?.[key], primary[key], other[key], options);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function mergeField(key: string, b: Json | undefined, p: Json | undefined, o: Json | undefined, options: ObjectMergeOptions): Json | undefined {
  if (same(p, o)) return p;
  if (same(p, b)) return o;
  if (same(o, b)) return p;
  const resolver = options.resolvers?.[key];
  if (resolver) return resolver(b, p, o);
  if (isObject(p) && isObject(o))
    return mergeObject(isObject(b) ? b : undefined, p, o, { ...options, resolvers: undefined, label: `${options.label}, field ${key}` });
  // Changed on both sides, no rule: a present value beats a removal, else the primary side's.
  const kept = p === undefined ? o : p;
  options.notes.push(`${options.label}: "${key}" changed on both sides; kept ${brief(kept)}, the other side had ${brief(kept === p ? o : p)}`);
  return kept;
}

/** Base items in their order, then items new on either side in sorted order (set union). */
export function unionList(b: Json | undefined, p: Json | undefined, o: Json | undefined): Json | undefined {
  const lists = [b, p, o].map(v => (Array.isArray(v) ? v : []));
  const seen = new Set<string>();
  const out: Json[] = [];
  const add = (item: Json) => {
    const k = JSON.stringify(item);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(item);
    }
  };
  lists[0].forEach(add);
  [...lists[1], ...lists[2]]
    .filter(i => !seen.has(JSON.stringify(i)))
    .sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1))
    .forEach(add);
  return out;
}
