/**
 * The briefing's budget filled exactly as `fillBudget` (rules/assembly.ts) fills it from lists
 * sorted best first, without sorting every candidate: a project-wide briefing at 100,000 entries
 * has that many candidates, and a budget of a few thousand tokens takes a few dozen of them.
 *
 * Candidates come as flat arrays (score, cost, summary cost, whether a need) and are made into
 * items (`item(i)`, for the byScore order's tie-break and the caller) only when their turn may come:
 *  1. the best `TOP` by score (all whose score reaches the TOP-th best, ties included), sorted by
 *     byScore, go through fillBudget's rule;
 *  2. then only the rest that could still fit go, sorted the same way: the room left only shrinks,
 *     so a candidate dearer than the room now can never be taken later, and skipping it changes
 *     nothing fillBudget would do.
 * Warnings, the others (up to 90% of the budget) and the needs' last pass each go this way. Pure.
 */
import { BudgetFill, BudgetResult, byScore } from './assembly';

export interface Ranked {
  id: string;
  score: number;
  timestamp: string;
}

/** Candidates as parallel arrays; `item(i)` makes the i-th into the caller's item. */
export interface Pool<T extends Ranked> {
  readonly size: number;
  readonly score: Float64Array;
  /** Tokens of the whole item (Infinity: can never be taken) and of its summary alone. */
  readonly cost: Float64Array;
  readonly summaryCost: Float64Array;
  readonly need: Uint8Array;
  item(i: number): T;
}

const TOP = 256;

const grown = <A extends Float64Array<ArrayBuffer> | Uint8Array<ArrayBuffer> | Int32Array<ArrayBuffer>>(a: A, make: (n: number) => A, n: number): A => {
  const b = make(n);
  b.set(a);
  return b;
};

/**
 * A pool being filled: the parallel arrays, grown as candidates are added, and where each
 * candidate comes from (`from`, a number the subclass makes an item of: positions, not references,
 * so 100,000 candidates leave nothing for the garbage collector to trace).
 */
export abstract class PoolArrays<T extends Ranked> implements Pool<T> {
  size = 0;
  score: Float64Array<ArrayBuffer>;
  cost: Float64Array<ArrayBuffer>;
  summaryCost: Float64Array<ArrayBuffer>;
  need: Uint8Array<ArrayBuffer>;
  protected from: Int32Array<ArrayBuffer>;

  constructor(capacity: number) {
    this.score = new Float64Array(capacity);
    this.cost = new Float64Array(capacity);
    this.summaryCost = new Float64Array(capacity);
    this.need = new Uint8Array(capacity);
    this.from = new Int32Array(capacity);
  }

  /** Adds the candidate that comes from `from`. */
  add(score: number, cost: number, summaryCost: number, need: boolean, from: number): void {
    if (this.size === this.score.length) {
      const n = Math.max(this.size * 2, 64);
      this.score = grown(this.score, k => new Float64Array(k), n);
      this.cost = grown(this.cost, k => new Float64Array(k), n);
      this.summaryCost = grown(this.summaryCost, k => new Float64Array(k), n);
      this.need = grown(this.need, k => new Uint8Array(k), n);
      this.from = grown(this.from, k => new Int32Array(k), n);
    }
    const i = this.size++;
    this.score[i] = score;
    this.cost[i] = cost;
    this.summaryCost[i] = summaryCost;
    this.need[i] = need ? 1 : 0;
    this.from[i] = from;
  }

  abstract item(i: number): T;
}

/**
 * The score of the `k`-th best of the first `size` scores (-Infinity when there are no more than
 * `k`): a quickselect on a copy, NaN counted as the worst.
 */
export function kthBest(score: Float64Array, size: number, k: number): number {
  if (size <= k) return Number.NEGATIVE_INFINITY;
  const a = score.slice(0, size);
  for (let i = 0; i < size; i++) if (Number.isNaN(a[i])) a[i] = Number.NEGATIVE_INFINITY;
  const n = size - k; // its place in ascending order
  let lo = 0;
  let hi = size - 1;
  while (hi > lo) {
    const x = a[lo];
    const y = a[(lo + hi) >> 1];
    const z = a[hi];
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (n <= j) hi = j;
    else if (n >= i) lo = i;
    else return a[n];
  }
  return a[lo];
}

/** The candidates `accept` takes, as items, in byScore order. */
function inOrder<T extends Ranked>(pool: Pool<T>, accept: (i: number) => boolean): { i: number; item: T }[] {
  const out: { i: number; item: T }[] = [];
  for (let i = 0; i < pool.size; i++) if (accept(i)) out.push({ i, item: pool.item(i) });
  return out.sort((a, b) => byScore(a.item, b.item));
}

/** fillBudget's result, plus every selected item (in no particular order). */
export function fillBudgetRanked<T extends Ranked>(warnings: Pool<T>, others: Pool<T>, budget: number, start = 0): BudgetResult & { chosen: T[] } {
  const fill = new BudgetFill(budget, start);
  const chosen: T[] = [];

  // Warnings: the best TOP, then the rest whose whole or summary cost fits what was left after them.
  const takeWarning = ({ i, item }: { i: number; item: T }) => {
    if (fill.warning({ id: item.id, cost: warnings.cost[i], summaryCost: warnings.summaryCost[i] })) chosen.push(item);
  };
  const wBar = kthBest(warnings.score, warnings.size, TOP);
  const wTop = new Uint8Array(warnings.size);
  for (const w of inOrder(warnings, i => warnings.score[i] >= wBar && (wTop[i] = 1) === 1)) takeWarning(w);
  const wRoom = fill.room;
  for (const w of inOrder(warnings, i => !wTop[i] && Math.min(warnings.cost[i], warnings.summaryCost[i]) <= wRoom)) takeWarning(w);

  // The others the same way, then the needs among them not yet taken that fit.
  const oTaken = new Uint8Array(others.size);
  const takeOther = ({ i, item }: { i: number; item: T }) => {
    if (!fill.other({ id: item.id, cost: others.cost[i] })) return;
    oTaken[i] = 1;
    chosen.push(item);
  };
  const oBar = kthBest(others.score, others.size, TOP);
  const oTop = new Uint8Array(others.size);
  for (const o of inOrder(others, i => others.score[i] >= oBar && (oTop[i] = 1) === 1)) takeOther(o);
  const oRoom = fill.otherRoom;
  for (const o of inOrder(others, i => !oTop[i] && others.cost[i] <= oRoom)) takeOther(o);
  const nRoom = fill.room;
  for (const { i, item } of inOrder(others, i => others.need[i] === 1 && !oTaken[i] && others.cost[i] <= nRoom))
    if (fill.need({ id: item.id, cost: others.cost[i] })) chosen.push(item);
  return { ...fill.result(warnings.size), chosen };
}
