/**
 * Value helpers of the record merge: JSON values compared regardless of key order, and the
 * deterministic tie-break that makes a merge give the same result in both directions.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** JSON text with object keys sorted at every level: equal for values that differ only in key order. */
export function canonical(value: unknown): string {
  if (value === undefined) return '';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map(k => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Same JSON value (key order ignored); `undefined` means absent and equals only itself. */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return canonical(a) === canonical(b);
}

/** Symmetric choice between two different values: the one whose canonical text sorts first. */
export function firstOf<T>(a: T, b: T): T {
  return canonical(a) <= canonical(b) ? a : b;
}

/** Compares strings as twining-mcp does (plain code-unit order), for sorts. */
export const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A value as a message shows it: a string as it is, anything else as JSON (never "[object Object]"). */
export const shown = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined'));

/** Short description of a value for a message. */
export function brief(value: unknown): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
