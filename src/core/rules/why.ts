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

/** twining-mcp's cap on one-liners in a `why` answer (WHY_MAX_COMPACT). */
export const WHY_MAX_COMPACT = 50;

/** What a `why` answer cut to a budget says is left out, and how to get it. */
export function whyMessage(more: number, omitted: number): string {
  const parts = [
    more ? `${more} more decision(s) in scope returned as one-liners in 'more'` : '',
    omitted ? `${omitted} more only counted (omitted_count)` : '',
  ];
  return `${parts.filter(Boolean).join(', ')} — call twining_why with ids: [...] for full detail on the ones that matter, or a larger max_tokens`;
}

/** What `whyTiers` cuts: the JSON lengths of an answer's parts (characters, as every budget measures). */
export interface WhyParts {
  /** The token budget (4 characters a token, rules/assembly.ts). */
  budget: number;
  /**
   * The answer with no decision, one-liner or named superseded decision, no `omitted_count` or
   * `message`, `truncated: false` and `token_estimate` at the budget (no estimate has more digits).
   */
  frame: number;
  /** How many decisions are ranked. */
  total: number;
  /** Each best-ranked decision in full, in rank order: those that might fit (at least the ones whose items alone fit). */
  full: readonly number[];
  /** The one-liner of the decision of that rank. */
  compact: (rank: number) => number;
  /** Each superseded decision named as left out, in order. */
  excluded: readonly number[];
}

/** How many of the ranked decisions come in full, how many next as one-liners, how many are only counted; how many superseded ones are named. */
export interface WhyTiers {
  full: number;
  compact: number;
  omitted: number;
  excluded: number;
}

/** `,"key":` before a field's value. */
const fieldLength = (key: string) => JSON.stringify(key).length + 2;
const MORE = fieldLength('more') + 2;
const EXCLUDED = fieldLength('superseded_excluded') + 2;
const OMITTED = fieldLength('omitted_count');
const MESSAGE = fieldLength('message');

/**
 * The tiers of a `why` answer kept to its budget, best-ranked first: decisions in full while they
 * fit (the top one always, unless it alone is past the budget: then, as in twining-mcp, it is the
 * first one-liner and its text is there through `ids`), then the next ones as one-liners while they
 * fit (at most WHY_MAX_COMPACT), the rest only counted; superseded decisions left out are named
 * last, while they fit. Each tier is a run of ranks: one that does not fit ends its tier. The whole
 * answer keeps to the budget, its fields that depend on the tiers (`more`, `omitted_count`,
 * `message`, `truncated`) included.
 */
export function whyTiers(parts: WhyParts): WhyTiers {
  const limit = parts.budget * 4;
  const { total } = parts;
  // Each list: its items' lengths added up, and how many.
  let full = 0;
  let fullItems = 0;
  let compact = 0;
  let compactItems = 0;
  let excluded = 0;
  let excludedItems = 0;
  const list = (items: number, count: number) => (count ? items + count - 1 : 0);
  const size = (fullN: number, fullLength: number, compactN: number, compactLength: number, excludedN: number, excludedLength: number) => {
    const omitted = total - fullN - compactN;
    const truncated = compactN > 0 || omitted > 0;
    return (
      parts.frame +
      list(fullLength, fullN) +
      (compactN ? MORE + list(compactLength, compactN) : 0) +
      (excludedN ? EXCLUDED + list(excludedLength, excludedN) : 0) +
      (omitted ? OMITTED + String(omitted).length : 0) +
      // `true` is a character shorter than `false`.
      (truncated ? MESSAGE + JSON.stringify(whyMessage(compactN, omitted)).length - 1 : 0)
    );
  };
  // Every decision in full when they all fit: no message then, so this is checked apart.
  const all = parts.full.length === total ? parts.full.reduce((n, item) => n + item, 0) : -1;
  if (all >= 0 && size(total, all, 0, 0, 0, 0) <= limit) [full, fullItems] = [all, total];
  while (fullItems < parts.full.length && size(fullItems + 1, full + parts.full[fullItems], 0, 0, 0, 0) <= limit) full += parts.full[fullItems++];
  while (compactItems < WHY_MAX_COMPACT && fullItems + compactItems < total) {
    const next = parts.compact(fullItems + compactItems);
    if (size(fullItems, full, compactItems + 1, compact + next, 0, 0) > limit) break;
    compact += next;
    compactItems++;
  }
  while (excludedItems < parts.excluded.length) {
    const next = parts.excluded[excludedItems];
    if (size(fullItems, full, compactItems, compact, excludedItems + 1, excluded + next) > limit) break;
    excluded += next;
    excludedItems++;
  }
  return { full: fullItems, compact: compactItems, omitted: total - fullItems - compactItems, excluded: excludedItems };
}
