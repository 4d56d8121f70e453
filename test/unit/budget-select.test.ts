/**
 * fillBudgetRanked (rules/budget-select.ts) takes exactly what fillBudget (rules/assembly.ts) takes
 * from the same candidates sorted best first: the same items, the same summary-only warnings, the
 * same tokens and the same count of omitted warnings, over random pools on both sides of its
 * "best 256 first" cut, with tied scores, items that can never fit, and budgets from tiny to ample.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { byScore, fillBudget, type Costed } from '../../src/core/rules/assembly';
import { fillBudgetRanked, kthBest, type Pool } from '../../src/core/rules/budget-select';
import { prng } from './prng';

type Item = Costed & { score: number; timestamp: string };

function items(rnd: () => number, n: number, kinds: Item['kind'][], prefix: string): Item[] {
  return Array.from({ length: n }, (_, i) => {
    const summaryCost = Math.floor(rnd() * 12);
    const cost = rnd() < 0.05 ? Number.POSITIVE_INFINITY : summaryCost + Math.floor(rnd() * 60);
    return {
      id: `${prefix}${String(i).padStart(5, '0')}`,
      kind: kinds[Math.floor(rnd() * kinds.length)],
      // Few distinct scores and timestamps: ties at the cut and in the order.
      score: Math.floor(rnd() * 40) / 8,
      timestamp: `2026-01-${String(1 + Math.floor(rnd() * 9)).padStart(2, '0')}`,
      cost,
      summaryCost,
    };
  });
}

function pool(list: Item[]): Pool<Item> {
  return {
    size: list.length,
    score: Float64Array.from(list.map(x => x.score)),
    cost: Float64Array.from(list.map(x => x.cost)),
    summaryCost: Float64Array.from(list.map(x => x.summaryCost)),
    need: Uint8Array.from(list.map(x => (x.kind === 'need' ? 1 : 0))),
    item: i => list[i],
  };
}

test('fillBudgetRanked takes what fillBudget takes from the sorted lists', () => {
  for (let seed = 1; seed <= 120; seed++) {
    const rnd = prng(seed);
    const sizes = [0, 3, 255, 256, 257, 900, 2500];
    const warnings = items(rnd, sizes[Math.floor(rnd() * sizes.length)], ['warning'], 'w');
    const others = items(rnd, sizes[Math.floor(rnd() * sizes.length)], ['need', 'finding', 'question', 'decision'], 'o');
    const budget = [0, 5, 40, 400, 4000, 40000][Math.floor(rnd() * 6)];
    const start = Math.floor(rnd() * 30);
    const expected = fillBudget([...warnings].sort(byScore), [...others].sort(byScore), budget, start);
    const actual = fillBudgetRanked(pool(warnings), pool(others), budget, start);
    const what = `seed ${seed}: ${warnings.length} warnings, ${others.length} others, budget ${budget}, start ${start}`;
    assert.deepEqual([...actual.selected].sort(), [...expected.selected].sort(), what);
    assert.deepEqual([...actual.summaryOnly].sort(), [...expected.summaryOnly].sort(), what);
    assert.equal(actual.tokens, expected.tokens, what);
    assert.equal(actual.warningsOmitted, expected.warningsOmitted, what);
    assert.deepEqual(actual.chosen.map(x => x.id).sort(), [...expected.selected].sort(), what);
  }
});

test('kthBest is the k-th best score, as a full sort gives it (ties, NaN as the worst, k beyond the size)', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const rnd = prng(seed);
    const size = Math.floor(rnd() * 700);
    const scores = Float64Array.from({ length: size }, () => (rnd() < 0.02 ? Number.NaN : Math.floor(rnd() * 30) / 4));
    const k = 1 + Math.floor(rnd() * 300);
    const sorted = Array.from(scores, x => (Number.isNaN(x) ? Number.NEGATIVE_INFINITY : x)).sort((a, b) => b - a);
    const expected = size <= k ? Number.NEGATIVE_INFINITY : sorted[k - 1];
    assert.equal(kthBest(scores, size, k), expected, `seed ${seed}: size ${size}, k ${k}`);
  }
});
