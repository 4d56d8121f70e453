/**
 * Forgiving input for agents: twining-mcp's tools ignore an argument they do not have (the MCP
 * SDK's zod objects strip unknown keys, docs/format.md §Tools), so a prompt written for it may pass, say,
 * `agent_id` to `twining_why`. Refusing that costs the agent a retry; dropping it silently hides a
 * real mistake. So a field the tool does not have is left out and named in the result's
 * `ignored_fields`, unless it looks like a misspelling of one it has (`decison_id`, `entryType`):
 * that is still refused, with the field it probably meant. The library's own methods stay strict.
 */
import { z } from 'zod';
import { TwiningError } from '../errors';

export interface SplitInput {
  /** The input without the fields the tool does not have. */
  input: Record<string, unknown>;
  /** The fields left out, in the order given. */
  ignored: string[];
}

/** The field names of an object schema (an empty list for anything else). */
export function fieldsOf(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape && typeof shape === 'object' ? Object.keys(shape) : [];
}

/** Splits `args` into what `schema` knows and what it would ignore; INVALID_INPUT for a likely misspelling. */
export function forgivingInput(tool: string, schema: z.ZodType, args: unknown): SplitInput {
  if (args === undefined || args === null || typeof args !== 'object' || Array.isArray(args))
    return { input: (args ?? {}) as Record<string, unknown>, ignored: [] };
  const known = fieldsOf(schema);
  if (!known.length) return { input: args as Record<string, unknown>, ignored: [] };
  const input: Record<string, unknown> = {};
  const ignored: string[] = [];
  const misspelt: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (known.includes(key)) {
      input[key] = value;
      continue;
    }
    const meant = likelyMeant(key, known);
    if (meant) misspelt.push(`"${key}" (did you mean "${meant}"?)`);
    else ignored.push(key);
  }
  if (misspelt.length)
    throw new TwiningError('INVALID_INPUT', `${tool}: unknown field${misspelt.length > 1 ? 's' : ''} ${misspelt.join(', ')}; nothing was done`);
  return { input, ignored };
}

/** The known field `key` most likely misspells, if any: the same up to case and separators, or a typo or two away. */
export function likelyMeant(key: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  let best: { field: string; distance: number } | undefined;
  for (const field of known) {
    if (norm(field) === norm(key)) return field;
    const distance = editDistance(norm(key), norm(field));
    // One edit for short names, two from 7 letters on: "scop" and "decison_id", not "agent_id" for "scope".
    const allowed = Math.min(field.length, key.length) >= 7 ? 2 : 1;
    if (distance <= allowed && (!best || distance < best.distance)) best = { field, distance };
  }
  return best?.field;
}

/** Optimal string alignment distance (insertions, deletions, substitutions, adjacent swaps). */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/** The result with `ignored_fields` added when some were left out (a result that is not an object is returned as it is). */
export function withIgnoredFields(result: unknown, ignored: readonly string[]): unknown {
  if (!ignored.length || result === null || typeof result !== 'object' || Array.isArray(result)) return result;
  return { ...result, ignored_fields: [...ignored] };
}
