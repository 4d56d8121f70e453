/**
 * The decisions' side of a briefing's candidates (assemble-ops.ts): the active and provisional
 * decisions bearing on a scope, scored, as flat arrays that become items only when their turn may
 * come. A project-wide briefing at 10,000 decisions has every one of them as a candidate; what does
 * not change between briefings (which decisions are in the scope and why, their times, their scope
 * proximity) is cached with the index's version stamp (FolderStore.derived), so a briefing costs a loop
 * of arithmetic over them, not 10,000 objects and strings made again.
 */
import type { FolderStore } from '../engine/folder-store';
import type { DecisionIndexEntry } from '../records';
import { byScore, decisionInScope, scopeProximity, scoreAt, type Weights } from '../rules/assembly';
import { kthBest } from '../rules/budget-select';
import type { Scored } from './assemble-candidates';
import { type DecisionPaths, decisionPaths, decisionsTouching } from '../rules/decision-paths';

/** The decisions in one scope, by the index's version. */
export interface DecisionsInScope {
  list: readonly DecisionIndexEntry[];
  /** Each one's `reason` in the briefing. */
  reasons: readonly string[];
  at: Float64Array;
  /** The relevance part of its score (0.5 times its scope's proximity to the briefing's). */
  relevance: Float64Array;
}

/** The paths the decisions of the index as last read name (cached until the index's version stamp moves). */
export function decisionPathsOf(ctx: FolderStore): DecisionPaths {
  return ctx.derived.fromDecisions('decision paths', decisionPaths);
}

export function decisionsInScope(ctx: FolderStore, scope: string): DecisionsInScope {
  return ctx.derived.fromDecisions(
    'decisions in scope',
    index => {
      const list: DecisionIndexEntry[] = [];
      const reasons: string[] = [];
      // Project-wide every decision is in scope; elsewhere only those naming a path that overlaps it can be.
      const candidates = scope === 'project' ? index : decisionsTouching(decisionPathsOf(ctx), scope).map(at => index[at]);
      for (const d of candidates) {
        if (d.status !== 'active' && d.status !== 'provisional') continue;
        const reason = decisionInScope(d, scope);
        if (!reason) continue;
        list.push(d);
        reasons.push(`${d.status} decision: ${reason}`);
      }
      const at = Float64Array.from(list, d => Date.parse(d.timestamp));
      const relevance = Float64Array.from(list, d => 0.5 * scopeProximity(scope, d.scope));
      return { list, reasons, at, relevance };
    },
    scope,
  );
}

/** The scores of the decisions in scope now (scoreOf's, with the graph's reach when it reaches any). */
export function decisionScores(inScope: DecisionsInScope, nowMs: number, weights: Weights, reach: ReadonlyMap<string, number> | undefined): Float64Array {
  const n = inScope.list.length;
  const score = new Float64Array(n);
  const c: Parameters<typeof scoreAt>[0] = { kind: 'decision', id: '', timestamp: '', at: 0, confidence: undefined, reachability: undefined };
  for (let i = 0; i < n; i++) {
    const d = inScope.list[i];
    c.at = inScope.at[i];
    c.confidence = d.confidence;
    c.reachability = reach ? (reach.get(d.id) ?? 0) : undefined;
    score[i] = scoreAt(c, inScope.relevance[i], nowMs, weights);
  }
  return score;
}

/** The i-th decision in scope as a candidate item (its cost unknown until its record is read). */
export function decisionItem(inScope: DecisionsInScope, score: Float64Array, i: number): Scored {
  const d = inScope.list[i];
  return {
    id: d.id,
    kind: 'decision',
    cost: Number.POSITIVE_INFINITY,
    summaryCost: 0,
    score: score[i],
    timestamp: d.timestamp,
    reason: inScope.reasons[i],
    decision: d,
  };
}

/** The decisions in scope whose score reaches `bar` (the best), or the others, as items in byScore order. */
export function decisionItems(inScope: DecisionsInScope, score: Float64Array, bar: number, best: boolean): Scored[] {
  const out: Scored[] = [];
  for (let i = 0; i < score.length; i++) if (score[i] >= bar === best) out.push(decisionItem(inScope, score, i));
  return out.sort(byScore);
}

/** Decision records read at once while filling the budget. */
const RECORD_BATCH = 64;
/** Decisions put in order before the first records are read (the rest only when the budget has room after them). */
const RECORD_TOP = 256;

/**
 * The decisions that can be taken (their cost known), best first: a decision's rationale is needed
 * for its cost, and a decision whose turn does not come can never be taken, so they are costed best
 * first, only as many as could still fit (never more than the budget allows at one token each), in
 * batches (`costs` reads a batch's records at once: each one's cost, undefined when it cannot be
 * read, null when the caller cannot tell, which gives up: the result is then undefined). Only the
 * best are made items and put in order first; the rest only if the budget still has room after them.
 */
export async function chooseDecisions(
  inScope: DecisionsInScope,
  scores: Float64Array,
  budget: number,
  costs: (batch: readonly Scored[]) => Promise<readonly (number | undefined | null)[]>,
): Promise<Scored[] | undefined> {
  const bar = kthBest(scores, scores.length, RECORD_TOP);
  let ordered = decisionItems(inScope, scores, bar, true);
  let extended = ordered.length === scores.length;
  let room = budget;
  for (let at = 0; room > 0; at += RECORD_BATCH) {
    if (!extended && at + RECORD_BATCH > ordered.length) {
      ordered = ordered.concat(decisionItems(inScope, scores, bar, false));
      extended = true;
    }
    const batch = ordered.slice(at, at + RECORD_BATCH);
    if (!batch.length) break;
    const cost = await costs(batch);
    for (const [i, item] of batch.entries()) {
      if (room <= 0) break;
      const c = cost[i];
      if (c === null) return undefined;
      if (c === undefined) continue;
      item.cost = c;
      room -= c;
    }
  }
  // Only the decisions whose cost is known can be taken: the others (never read) are left out of
  // the pools, which changes nothing the budget takes (fillBudget skips what cannot fit).
  return ordered.filter(d => d.cost !== Number.POSITIVE_INFINITY);
}
