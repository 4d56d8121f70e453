/**
 * Resolved blackboard entries (twining-mcp 2.x, D2): a need, warning or question closed with
 * `twining_resolve` keeps its line and carries `status: "resolved"`, `resolved_at`, and when given
 * `resolved_by` and `resolution_note` (twining-mcp src/utils/types.ts and
 * src/storage/blackboard-store.ts `resolve`, commits 017a87802232ba85184c4e6aef9ff78060e73873 and
 * 0b79c990a41b2359874184538547d3ca6e27c56d). Absent `status` means open. The first resolve wins:
 * its stamp is never overwritten. Pure.
 */
import type { BlackboardEntry } from '../records';

/** The entry types that are open until resolved (or dismissed): what `resolve` is for. */
export const RESOLVABLE_TYPES: readonly string[] = ['need', 'warning', 'question'];

/** Whether the entry itself says it is resolved (its `status`; twining-mcp's persisted state). */
export function isResolved(entry: { status?: unknown }): boolean {
  return entry.status === 'resolved';
}

/** Who resolved an entry, when, and why, as far as its record says. */
export interface Resolution {
  resolved_at?: string;
  resolved_by?: string;
  resolution_note?: string;
}

/** The resolution stamp of a resolved entry (undefined for an open one); fields of the wrong type are left out. */
export function resolutionOf(entry: BlackboardEntry): Resolution | undefined {
  if (!isResolved(entry)) return undefined;
  const out: Resolution = {};
  if (typeof entry.resolved_at === 'string') out.resolved_at = entry.resolved_at;
  if (typeof entry.resolved_by === 'string') out.resolved_by = entry.resolved_by;
  if (typeof entry.resolution_note === 'string') out.resolution_note = entry.resolution_note;
  return out;
}

/**
 * The entry as twining-mcp's files backend writes it when resolved: the parsed line with `status`,
 * `resolved_at` and, when given, `resolved_by` and `resolution_note` set. Keys already in the line
 * keep their place (a `status: "open"` stays where it was), new ones come last, in that order;
 * every other field, known or not, is kept. An entry already resolved is returned as it is.
 */
export function resolvedEntry<T extends Record<string, unknown>>(entry: T, stamp: { at: string; by?: string; note?: string }): T {
  if (isResolved(entry)) return entry;
  const out: Record<string, unknown> = { ...entry };
  out.status = 'resolved';
  out.resolved_at = stamp.at;
  if (stamp.by) out.resolved_by = stamp.by;
  if (stamp.note) out.resolution_note = stamp.note;
  return out as T;
}

/**
 * twining-mcp's resolution predicate (src/engine/resolution.ts `computeResolvedIds`, commit
 * 0b79c990a41b2359874184538547d3ca6e27c56d): every id an entry's `status` marks resolved, and every
 * id any entry names in `relates_to`. Briefings and triage use it; the views and counts use
 * `isResolved` alone, which says who resolved the entry and why.
 */
export function resolvedIdsOf(entries: Iterable<Pick<BlackboardEntry, 'id' | 'relates_to'> & { status?: unknown }>): Set<string> {
  const ids = new Set<string>();
  for (const e of entries) {
    if (isResolved(e) && typeof e.id === 'string') ids.add(e.id);
    if (Array.isArray(e.relates_to)) for (const r of e.relates_to) if (typeof r === 'string') ids.add(r);
  }
  return ids;
}
