/**
 * The basis's blackboard candidates in an order that holds at any time (briefing-basis.ts), and the
 * budget filled from it as `fillBudget` (rules/assembly.ts) fills it from every candidate sorted
 * best first, without scoring every candidate again (issue 29).
 *
 * An entry's score (rules/assembly.ts entryScorer) is its recency times a weight plus terms fixed
 * by its kind (a warning's boost, or none) and its relevance; recency only grows with the entry's
 * time, at any moment asked. So the candidates of one group (warning or not, one relevance) sorted
 * newest first are sorted best first whenever they are scored, and the best of all is the best of
 * the groups' heads. Items of equal score, in any group or among the `extra` (the appended lines,
 * the decisions), are taken together and put in byScore order, so ties come out as the engine's.
 * Each group also keeps, from each place on, the least cost still to come: when the room left in
 * the budget is below it, nothing after can be taken and the fill stops. Pure.
 */
import { BudgetFill, byScore } from '../../rules/assembly';

/** One group of the basis's candidates, best first, with the least costs from each place on. */
export interface RankedGroup {
  /** Positions in the basis's candidates. */
  order: Int32Array;
  /** From each place on: the least cost (a warning's: the least of its cost and its summary's). */
  least: Float64Array;
  /** From each place on: the least cost of a need (Infinity: none). */
  leastNeed: Float64Array;
}

export interface RankedOrder {
  warnings: RankedGroup[];
  others: RankedGroup[];
}

/** Positions 0..n-1 by `key`, each group newest first (an unreadable time, which scores no recency, last). */
function byGroup(n: number, key: (i: number) => string, at: Float64Array): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const k = key(i);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(i);
  }
  const time = (i: number) => (Number.isNaN(at[i]) ? Number.NEGATIVE_INFINITY : at[i]);
  for (const positions of groups.values()) positions.sort((a, b) => time(b) - time(a) || a - b);
  return groups;
}

/** The blackboard candidates by group (warning or not, relevance), each with its least costs. */
export function rankedOrder(
  c: { kind: Uint8Array; at: Float64Array; relevance: Float64Array; cost: Float64Array; summaryCost: Float64Array },
  warning: number,
  need: number,
): RankedOrder {
  const out: RankedOrder = { warnings: [], others: [] };
  for (const [key, positions] of byGroup(c.kind.length, i => `${c.kind[i] === warning ? 'w' : 'o'}${c.relevance[i]}`, c.at)) {
    const isWarning = key[0] === 'w';
    const n = positions.length;
    const least = new Float64Array(n);
    const leastNeed = new Float64Array(n);
    let l = Number.POSITIVE_INFINITY;
    let ln = Number.POSITIVE_INFINITY;
    for (let p = n - 1; p >= 0; p--) {
      const i = positions[p];
      l = Math.min(l, isWarning ? Math.min(c.cost[i], c.summaryCost[i]) : c.cost[i]);
      if (c.kind[i] === need) ln = Math.min(ln, c.cost[i]);
      least[p] = l;
      leastNeed[p] = ln;
    }
    (isWarning ? out.warnings : out.others).push({ order: Int32Array.from(positions), least, leastNeed });
  }
  return out;
}

/**
 * The decisions by group (relevance, confidence), each newest first: a decision's score is its
 * recency times a weight plus terms its relevance and confidence fix (rules/assembly.ts scoreAt).
 * Their costs are known only once their records are read, so the groups keep none.
 */
export function decisionOrder(at: Float64Array, relevance: Float64Array, confidence: Uint8Array): RankedGroup[] {
  const none = new Float64Array(0);
  return [...byGroup(at.length, i => `${confidence[i]} ${relevance[i]}`, at).values()].map(positions => ({
    order: Int32Array.from(positions),
    least: none,
    leastNeed: none,
  }));
}

export interface RankedItem {
  id: string;
  score: number;
  timestamp: string;
  cost: number;
  summaryCost: number;
}

/** How the stream sees the basis's candidates. */
export interface Source<T> {
  score(position: number): number;
  cost(position: number): number;
  summaryCost(position: number): number;
  need(position: number): boolean;
  /** Left out (resolved since the basis). */
  skip(position: number): boolean;
  item(position: number): T;
}

/** What a pass over the stream takes: the room it has and whether it would look at one item at all. */
interface Pass {
  room(): number;
  /** The cost an item must fit in the room (a warning's least, an other's cost). */
  costOf(cost: number, summaryCost: number): number;
  least(g: RankedGroup, p: number): number;
  /** Only needs (the last pass). */
  needs: boolean;
}

/** The candidates of some groups and the extra items, best first (byScore), as one pass wants them. */
class Stream<T extends RankedItem> {
  private readonly at: Int32Array;
  /** Each group's head's score, when `known`. */
  private readonly head: Float64Array;
  private readonly known: Uint8Array;
  /** A score that is not a number was met: the order says nothing then. */
  broken = false;
  private batch: T[] = [];
  private next = 0;
  private extraAt = 0;

  constructor(
    private readonly groups: readonly RankedGroup[],
    private readonly source: Source<T>,
    /** Sorted byScore; each one's need is `isNeed`'s. */
    private readonly extra: readonly T[],
    private readonly isNeed: (item: T) => boolean,
    private readonly pass: Pass,
  ) {
    this.at = new Int32Array(groups.length);
    this.head = new Float64Array(groups.length);
    this.known = new Uint8Array(groups.length);
  }

  /** Whether the item at a group's place is one the pass would look at, given the room now. */
  private wanted(position: number, room: number): boolean {
    const s = this.source;
    if (s.skip(position) || (this.pass.needs && !s.need(position))) return false;
    return this.pass.costOf(s.cost(position), s.summaryCost(position)) <= room;
  }

  private extraWanted(item: T, room: number): boolean {
    return (!this.pass.needs || this.isNeed(item)) && this.pass.costOf(item.cost, item.summaryCost) <= room;
  }

  /** The next item the pass may take, undefined when none after can fit the room. */
  take(): T | undefined {
    while (this.next >= this.batch.length) if (this.broken || !this.fill()) return undefined;
    return this.batch[this.next++];
  }

  /** The next batch of items of equal score that may fit; false when there are no more. */
  private fill(): boolean {
    const room = this.pass.room();
    const { groups, at, head, known, source, extra } = this;
    const scoreAt = (g: number) => {
      head[g] = source.score(groups[g].order[at[g]]);
      known[g] = 1;
      if (Number.isNaN(head[g])) this.broken = true;
    };
    let best = Number.NEGATIVE_INFINITY;
    let any = false;
    for (let g = 0; g < groups.length; g++) {
      const { order } = groups[g];
      // Past what the pass would not look at; nothing at all when nothing after fits.
      while (at[g] < order.length && (this.pass.least(groups[g], at[g]) > room || !this.wanted(order[at[g]], room))) {
        if (this.pass.least(groups[g], at[g]) > room) at[g] = order.length;
        else at[g]++;
        known[g] = 0;
      }
      if (at[g] >= order.length) continue;
      if (!known[g]) scoreAt(g);
      if (!any || head[g] > best) best = head[g];
      any = true;
    }
    while (this.extraAt < extra.length && !this.extraWanted(extra[this.extraAt], room)) this.extraAt++;
    if (this.extraAt < extra.length) {
      const s = extra[this.extraAt].score;
      if (!any || s > best) best = s;
      any = true;
    }
    if (!any || this.broken) return false;
    const batch: T[] = [];
    for (let g = 0; g < groups.length; g++) {
      const { order } = groups[g];
      while (at[g] < order.length && head[g] === best) {
        if (this.wanted(order[at[g]], room)) batch.push(source.item(order[at[g]]));
        at[g]++;
        known[g] = 0;
        if (at[g] < order.length) scoreAt(g);
      }
      if (this.broken) return false;
    }
    while (this.extraAt < extra.length && extra[this.extraAt].score === best) {
      if (this.extraWanted(extra[this.extraAt], room)) batch.push(extra[this.extraAt]);
      this.extraAt++;
    }
    this.batch = batch.sort(byScore);
    this.next = 0;
    return true;
  }
}

/** Every item of the groups, best first (byScore): the decisions, costed in this order until the budget is spent. */
export function bestFirst<T extends RankedItem>(groups: readonly RankedGroup[], source: Source<T>): { take(): T | undefined; readonly broken: boolean } {
  return new Stream(groups, source, [], () => false, { room: () => Number.POSITIVE_INFINITY, costOf: () => 0, least: () => 0, needs: false });
}

const minCost = (cost: number, summaryCost: number) => Math.min(cost, summaryCost);
const wholeCost = (cost: number) => cost;

/**
 * fillBudget's result for the basis's candidates (less those `source` skips) and the extra items,
 * with the items chosen; undefined when a score is not a number (the engine ranks those).
 */
export function fillFromOrder<T extends RankedItem>(
  order: RankedOrder,
  source: Source<T>,
  extra: { warnings: readonly T[]; others: readonly T[] },
  isNeed: (item: T) => boolean,
  counts: { warnings: number },
  budget: number,
  start: number,
): { selected: Set<string>; summaryOnly: Set<string>; tokens: number; warningsOmitted: number; chosen: T[] } | undefined {
  for (const list of [extra.warnings, extra.others]) if (list.some(x => Number.isNaN(x.score))) return undefined;
  const fill = new BudgetFill(budget, start);
  const chosen: T[] = [];
  const sortedW = [...extra.warnings].sort(byScore);
  const sortedO = [...extra.others].sort(byScore);

  // Warnings (whole or by their summary); those never reached cannot fit.
  const warnings = new Stream(order.warnings, source, sortedW, isNeed, { room: () => fill.room, costOf: minCost, least: (g, p) => g.least[p], needs: false });
  for (let w = warnings.take(); w; w = warnings.take()) if (fill.warning(w)) chosen.push(w);
  if (warnings.broken) return undefined;

  // The others, within their share of the budget.
  const others = new Stream(order.others, source, sortedO, isNeed, {
    room: () => fill.otherRoom,
    costOf: wholeCost,
    least: (g, p) => g.least[p],
    needs: false,
  });
  for (let o = others.take(); o; o = others.take()) if (fill.other(o)) chosen.push(o);
  if (others.broken) return undefined;

  // Needs not yet taken that still fit.
  const needs = new Stream(order.others, source, sortedO, isNeed, { room: () => fill.room, costOf: wholeCost, least: (g, p) => g.leastNeed[p], needs: true });
  for (let o = needs.take(); o; o = needs.take()) if (fill.need(o)) chosen.push(o);
  if (needs.broken) return undefined;
  return { ...fill.result(counts.warnings), chosen };
}
