/**
 * Conflicting decisions (docs/format.md §Decisions): an active decision in the same domain, with an
 * overlapping scope and a different summary, makes a new decision provisional, and a warning
 * entry names the decisions it may conflict with. Pure: the caller holds the index lock.
 */
import type { DecisionIndexEntry } from '../records';
import { overlaps } from '../scope';

export interface DecisionKey {
  domain: string;
  scope: string;
  summary: string;
}

/** The active decisions of `index` (items of any shape) that a new decision `next` conflicts with. */
export function conflictingDecisions(index: readonly unknown[], next: DecisionKey): { id: string; summary: string }[] {
  return index
    .filter((d): d is DecisionIndexEntry => d !== null && typeof d === 'object' && !Array.isArray(d))
    .filter(
      d => d.domain === next.domain && typeof d.scope === 'string' && overlaps(d.scope, next.scope) && d.status === 'active' && d.summary !== next.summary,
    )
    .map(d => ({ id: d.id, summary: d.summary }));
}

/** The status a new decision gets: provisional while it conflicts with an active one. */
export function statusOfNewDecision(conflicts: readonly unknown[]): 'active' | 'provisional' {
  return conflicts.length ? 'provisional' : 'active';
}

/** The summary and detail of the warning entry posted for a conflicting decision (twining-mcp's wording). */
export function conflictWarning(summary: string, conflicts: readonly { id: string; summary: string }[]): { summary: string; detail: string } {
  return {
    summary: `Potential conflict: new decision may conflict with ${conflicts.length} existing decision(s)`,
    detail: [`New decision "${summary}" conflicts with:`, ...conflicts.map(c => `- ${c.id}: "${c.summary}"`)].join('\n'),
  };
}
