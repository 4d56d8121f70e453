/**
 * Which decisions explain a file, folder or symbol (`why`), and the blackboard entries that record
 * a decision's lifecycle: pure functions, exactly as twining-mcp words and matches them
 * (daveangulo/twining-mcp src/storage/decision-store.ts getByScope, src/engine/decisions.ts).
 */
import type { DecisionIndexEntry } from '../records';

/** A field of a record read from disk, as text (a malformed one as JSON, not "[object Object]"). */
const textOf = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/**
 * Whether decision `d` bears on `scope`: its scope and `scope` are prefixes one of the other, or
 * one of its affected files is, or `scope` is exactly one of its affected symbols.
 */
export function decisionAffects(d: Pick<DecisionIndexEntry, 'scope' | 'affected_files' | 'affected_symbols'>, scope: string): boolean {
  const own = typeof d.scope === 'string' ? d.scope : undefined;
  if (own !== undefined && (own.startsWith(scope) || scope.startsWith(own))) return true;
  // Loops rather than filtered copies: this runs for every decision when a file is first looked at.
  const files = d.affected_files;
  if (Array.isArray(files)) for (const f of files) if (typeof f === 'string' && (f.startsWith(scope) || scope.startsWith(f))) return true;
  const symbols = d.affected_symbols;
  if (Array.isArray(symbols)) for (const s of symbols) if (s === scope) return true;
  return false;
}

/** Newest first; equal timestamps by id, the later ULID first. */
export function newestFirst(a: { timestamp: string; id: string }, b: { timestamp: string; id: string }): number {
  return a.timestamp === b.timestamp ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.timestamp < b.timestamp ? 1 : -1;
}

const cut = (text: string) => text.slice(0, 200);

/** The warning a reconsideration posts: the new context, and which decisions depend on this one. */
export function reconsiderationWarning(summary: string, newContext: string, dependents: readonly string[]): { summary: string; detail: string } {
  const note = dependents.length ? `\nNote: ${dependents.length} downstream decisions may be affected: ${dependents.join(', ')}` : '';
  return { summary: cut(`Reconsideration flagged: ${summary}`), detail: newContext + note };
}

/** The `decision` entry an override posts. */
export function overrideEntry(summary: string, overriddenBy: string, reason: string): { summary: string; detail: string } {
  return { summary: cut(`Override: ${summary} -- overridden by ${overriddenBy}`), detail: reason };
}

/** The `status` entry a promotion posts. */
export function promotionEntry(promoted: readonly string[]): { summary: string; detail: string } {
  return { summary: cut(`Promoted ${promoted.length} provisional decision(s) to active`), detail: `Decision IDs: ${promoted.join(', ')}` };
}

/**
 * The `status` entry a dismissal posts (twining-mcp drops the reason; we keep it, with what left):
 * one line per dismissed entry, then the reason.
 */
export function dismissalEntry(
  dismissed: readonly { id: string; entry_type?: unknown; summary?: unknown; scope?: unknown }[],
  reason: string | undefined,
): { summary: string; detail: string; scope: string } {
  const n = dismissed.length;
  const first = dismissed[0];
  const what = n === 1 ? `${textOf(first.entry_type ?? 'entry')} "${textOf(first.summary ?? first.id)}"` : `${n} blackboard entries`;
  const lines = dismissed.map(e => `- ${e.id} (${textOf(e.entry_type ?? 'entry')}): ${textOf(e.summary ?? '')}`);
  const scopes = new Set(dismissed.map(e => (typeof e.scope === 'string' ? e.scope : 'project')));
  return {
    summary: cut(`Dismissed ${what}${reason ? `: ${reason}` : ''}`),
    detail: [`Dismissed:`, ...lines, reason ? `Reason: ${reason}` : 'No reason given.'].join('\n'),
    scope: scopes.size === 1 ? [...scopes][0] : 'project',
  };
}
