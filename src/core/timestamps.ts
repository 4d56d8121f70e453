/**
 * Timestamps at the boundary (docs/format.md §Timestamps). Every stored timestamp has the 24-character form of
 * `toISOString` (`2026-11-22T02:32:12.379Z`) and is compared as a string, so only dates that have
 * that form can come in: years 1970 to 9999 (an extended year such as `+010000-01-01` sorts before
 * every real one; ULIDs cannot encode a time before 1970), real calendar dates (not `2026-02-30`),
 * and never a bare number.
 */

/** `2026-11-22`, or a date and time with `Z` or an offset: `2026-11-22T02:32`, `…:12`, `…:12.379`. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/;

export const TIMESTAMP_RULE =
  'must be an ISO 8601 date between 1970 and 9999, e.g. 2026-11-22T02:32:12.379Z or 2026-11-22 (a time needs Z or an offset such as +01:00)';

const MIN_MS = 0;
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Whether `date` can be written as a 24-character timestamp (a valid Date between 1970 and 9999). */
export function isWritableDate(date: unknown): date is Date {
  return date instanceof Date && !Number.isNaN(date.getTime()) && date.getTime() >= MIN_MS && date.getTime() <= MAX_MS;
}

/** The canonical 24-character form of an ISO 8601 date given as text, or undefined when it is not one (see TIMESTAMP_RULE). */
export function canonicalTimestamp(text: string): string | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  // A real calendar day: Date.UTC rolls 2026-02-30 over to March, which the round trip catches.
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return undefined;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59)) return undefined;
  if (zone !== undefined && zone !== 'Z' && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4)) > 59)) return undefined;
  const ms = h === undefined ? probe.getTime() : Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}.${(fraction ?? '0').slice(0, 3).padEnd(3, '0')}${zone}`);
  const date = new Date(ms);
  return isWritableDate(date) ? date.toISOString() : undefined;
}
