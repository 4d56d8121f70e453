/**
 * How twining-mcp 2.x's `decide` treats decisions it overlaps (daveangulo/twining-mcp 2.x,
 * src/engine/decisions.ts, the version that closed its issues #30 to #32), where it differs from
 * 1.9's (rules/conflicts.ts): a decision in the same domain whose scope is the new one's or inside
 * it, active or provisional, with another summary and not the one being superseded, is *related*;
 * the new decision keeps its status (1.9 made it provisional), and one `finding` names the related
 * decisions (1.9 posted a `warning`). From 2.0 no `decision` entry is copied onto the blackboard.
 * Pure: the caller holds the index lock.
 */
import type { DecisionIndexEntry } from '../records';
import type { DecisionKey } from './conflicts';

/** The decisions of `index` (items of any shape) that a new decision `next` relates to, as 2.x finds them. */
export function relatedDecisions(index: readonly unknown[], next: DecisionKey & { supersedes?: string }): { id: string; summary: string }[] {
  return index
    .filter((d): d is DecisionIndexEntry => d !== null && typeof d === 'object' && !Array.isArray(d))
    .filter(
      d =>
        d.domain === next.domain &&
        typeof d.scope === 'string' &&
        d.scope.startsWith(next.scope) &&
        (d.status === 'active' || d.status === 'provisional') &&
        d.summary !== next.summary &&
        d.id !== next.supersedes,
    )
    .map(d => ({ id: d.id, summary: d.summary }));
}

/** The summary and detail of the finding 2.x posts for a decision with related ones (its wording). */
export function relatedFinding(summary: string, related: readonly { id: string; summary: string }[]): { summary: string; detail: string } {
  return {
    summary: `Related decisions in scope: ${related.length} existing decision(s) overlap`,
    detail: [`New decision "${summary}" relates to:`, ...related.map(c => `- ${c.id}: "${c.summary}"`)].join('\n'),
  };
}
