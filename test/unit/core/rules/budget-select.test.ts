/**
 * fillBudgetRanked (rules/budget-select.ts) takes exactly what fillBudget (rules/assembly.ts) takes
 * from the same candidates sorted best first: the same items, the same summary-only warnings, the
 * same tokens and the same count of omitted warnings, over random pools on both sides of its
 * "best 256 first" cut, with tied scores, items that can never fit, and budgets from tiny to ample;
 * and entryScorer, which scores a project-wide briefing's entries, gives scoreAt's numbers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { byScore, entryScorer, fillBudget, scoreAt, type Costed, type Weights } from '../../../../src/core/rules/assembly';
import { fillBudgetRanked, kthBest, type Pool } from '../../../../src/core/rules/budget-select';
import { prng } from '../../../support/prng';

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

test('the budget rule: warnings whole or by summary from the whole budget, others within 90%, then needs that fit', () => {
  const c = (id: string, kind: Costed['kind'], cost: number, summaryCost = cost): Costed => ({ id, kind, cost, summaryCost });
  // Budget 100: the others may take 90 at most.
  const warnings = [c('w1', 'warning', 30, 5), c('w2', 'warning', 80, 20), c('w3', 'warning', 90, 70)];
  const others = [c('f1', 'finding', 50), c('n1', 'need', 30), c('f2', 'finding', 5), c('n2', 'need', 10)];
  const r = fillBudget(warnings, others, 100);
  // w1 whole (30); w2 only as its summary (30 + 80 > 100, 30 + 20 fits); w3 neither (50 + 70 > 100).
  assert.deepEqual([...r.summaryOnly], ['w2']);
  assert.equal(r.warningsOmitted, 1);
  // Others: f1 (50) makes 100 tokens, which fits; then nothing else does (n2 neither, in the needs' pass).
  assert.deepEqual([...r.selected], ['w1', 'w2', 'f1']);
  assert.equal(r.tokens, 100);
  // The others' share: with no warnings, 90 of 100; a need left out of it gets the last 10 in the needs' pass.
  const share = fillBudget([], [c('f1', 'finding', 50), c('f2', 'finding', 45), c('f3', 'finding', 40), c('n1', 'need', 10)], 100);
  assert.deepEqual([...share.selected], ['f1', 'f3', 'n1']);
  assert.equal(share.tokens, 100);
  // `start` tokens count against the whole budget, not against the others' share.
  assert.deepEqual([...fillBudget([], [c('f1', 'finding', 90)], 100, 10).selected], ['f1']);
  assert.deepEqual([...fillBudget([], [c('f1', 'finding', 91)], 100, 0).selected], []);
});

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

test("entryScorer gives scoreAt's numbers, bit for bit, for every kind of entry, with and without the graph", () => {
  const rnd = prng(18);
  const weightSets: Weights[] = [
    { recency: 0.3, relevance: 0.3, decision_confidence: 0.2, warning_boost: 0.1, graph_reachability: 0.1 },
    { recency: 0.25, relevance: 0.2, decision_confidence: 0.15, warning_boost: 0.1, graph_reachability: 0 },
    { recency: rnd(), relevance: rnd(), decision_confidence: rnd(), warning_boost: rnd(), graph_reachability: 1 },
  ];
  const nowMs = Date.parse('2026-11-26T07:00:00.000Z');
  let compared = 0;
  for (const weights of weightSets)
    for (const kind of ['warning', 'need', 'finding', 'question'] as const)
      for (const graphOn of [false, true]) {
        const scorer = entryScorer(kind, nowMs, weights, graphOn);
        for (let i = 0; i < 500; i++) {
          const at = i === 0 ? Number.NaN : nowMs - Math.floor(rnd() * 400 * 86_400_000) + (i % 7 === 0 ? 86_400_000 : 0);
          const relevance = [0.5, 0.35, 0.2][i % 3];
          const expected = scoreAt({ kind, id: 'x', timestamp: '', at, reachability: graphOn ? 0 : undefined }, relevance, nowMs, weights);
          assert.ok(Object.is(scorer(at, relevance), expected), `${kind} ${graphOn} at ${at}: ${scorer(at, relevance)} vs ${expected}`);
          compared++;
        }
      }
  assert.equal(compared, 3 * 4 * 2 * 500);
});
