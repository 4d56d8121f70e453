/**
 * The budget filled from the basis's standing order (src/core/storage/derived/briefing-rank.ts)
 * takes exactly what fillBudget (rules/assembly.ts) takes from every candidate scored at the time
 * asked and sorted best first: the same items, summary-only warnings, tokens and omitted warnings,
 * over random candidates scored at times before, at and long after the basis (scores that cross
 * between groups, that tie, and that all tie when recency weighs nothing), with unreadable times,
 * candidates resolved since, appended items and decisions beside them, and budgets tiny to ample.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { byScore, entryScorer, fillBudget, scoreAt, type Costed, type Weights } from '../../../../../src/core/rules/assembly';
import { bestFirst, decisionOrder, fillFromOrder, rankedOrder, type Source } from '../../../../../src/core/storage/derived/briefing-rank';
import { prng } from '../../../../support/prng';

type Item = Costed & { score: number; timestamp: string };
const KINDS = ['', 'warning', 'need', 'finding', 'question'] as const;
const HOUR = 3_600_000;

test('the fill from the standing order takes what fillBudget takes from every candidate sorted', () => {
  for (let seed = 1; seed <= 150; seed++) {
    const rnd = prng(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const weights: Weights = pick([
      { recency: 0.3, relevance: 0.3, decision_confidence: 0.2, warning_boost: 0.1, graph_reachability: 0.1 },
      { recency: 0, relevance: 0.5, decision_confidence: 0.2, warning_boost: 0.3, graph_reachability: 0 },
      { recency: rnd(), relevance: rnd(), decision_confidence: rnd(), warning_boost: rnd(), graph_reachability: 0 },
    ]);
    const base = Date.UTC(2026, 0, 10);
    const n = pick([0, 1, 40, 300, 3000]);
    // Few distinct times (ties), some unreadable, each written two ways (equal times, different strings).
    const times = Array.from({ length: 12 }, () => base - Math.floor(rnd() * 400) * HOUR);
    const kind = new Uint8Array(n);
    const at = new Float64Array(n);
    const relevance = new Float64Array(n);
    const cost = new Float64Array(n);
    const summaryCost = new Float64Array(n);
    const ids: string[] = [];
    const stamps: string[] = [];
    for (let i = 0; i < n; i++) {
      kind[i] = 1 + Math.floor(rnd() * 4);
      const t = rnd() < 0.03 ? Number.NaN : pick(times);
      at[i] = t;
      stamps.push(Number.isNaN(t) ? 'not a time' : rnd() < 0.5 ? new Date(t).toISOString() : new Date(t).toISOString().replace('.000Z', 'Z'));
      relevance[i] = 0.5 * pick([1, 0.7, 0.4]);
      summaryCost[i] = 1 + Math.floor(rnd() * 12);
      cost[i] = summaryCost[i] + Math.floor(rnd() * 60);
      ids.push(`e${String(i).padStart(5, '0')}`);
    }
    const order = rankedOrder({ kind, at, relevance, cost, summaryCost }, 1, 2);
    const nowMs = pick([base, base + 5 * HOUR, base + 24 * 400 * HOUR, base - 50 * HOUR]);
    const scorers = KINDS.map(k => (k ? entryScorer(k, nowMs, weights, false) : undefined));
    const dropped = new Set<number>();
    for (let i = 0; i < n; i++) if (rnd() < 0.05) dropped.add(i);
    const itemOf = (i: number): Item => ({
      id: ids[i],
      kind: KINDS[kind[i]] as Item['kind'],
      timestamp: stamps[i],
      score: scorers[kind[i]]!(at[i], relevance[i]),
      cost: cost[i],
      summaryCost: summaryCost[i],
    });
    const source: Source<Item> = {
      score: i => scorers[kind[i]]!(at[i], relevance[i]),
      cost: i => cost[i],
      summaryCost: i => summaryCost[i],
      need: i => kind[i] === 2,
      skip: i => dropped.has(i),
      item: itemOf,
    };
    // Appended entries and decisions: some scored like a candidate (ties across the two).
    const extraOf = (k: number, j: number): Item => {
      const like = n && rnd() < 0.5 ? itemOf(Math.floor(rnd() * n)) : undefined;
      const s = 1 + Math.floor(rnd() * 12);
      return {
        id: `x${k}-${j}`,
        kind: k === 0 ? 'decision' : (KINDS[k] as Item['kind']),
        timestamp: like?.timestamp ?? new Date(pick(times)).toISOString(),
        score: like && (k === 1) === (like.kind === 'warning') ? like.score : rnd(),
        cost: s + Math.floor(rnd() * 80),
        summaryCost: k === 0 ? 0 : s,
      };
    };
    const extraW = Array.from({ length: pick([0, 2, 9]) }, (_, j) => extraOf(1, j));
    const extraO = Array.from({ length: pick([0, 3, 20]) }, (_, j) => extraOf(pick([0, 2, 3, 4]), j));
    const all = Array.from({ length: n }, (_, i) => i).filter(i => !dropped.has(i));
    const warnings = [...all.filter(i => kind[i] === 1).map(itemOf), ...extraW].sort(byScore);
    const others = [...all.filter(i => kind[i] !== 1).map(itemOf), ...extraO].sort(byScore);
    const budget = pick([0, 5, 40, 400, 2000, 40000]);
    const start = Math.floor(rnd() * 30);
    const expected = fillBudget(warnings, others, budget, start);
    const actual = fillFromOrder(order, source, { warnings: extraW, others: extraO }, x => x.kind === 'need', { warnings: warnings.length }, budget, start);
    const what = `seed ${seed}: ${n} candidates, budget ${budget}, start ${start}`;
    assert.ok(actual, what);
    assert.deepEqual([...actual.selected], [...expected.selected], `${what}: the same items, taken in the same order`);
    assert.deepEqual([...actual.summaryOnly].sort(), [...expected.summaryOnly].sort(), what);
    assert.equal(actual.tokens, expected.tokens, what);
    assert.equal(actual.warningsOmitted, expected.warningsOmitted, what);
    assert.deepEqual(
      actual.chosen.map(x => x.id),
      [...expected.selected],
      what,
    );
  }
});

test('the decisions come best first from their standing order, as sorting them all puts them', () => {
  const CONFIDENCE = ['high', 'medium', 'low', undefined];
  for (let seed = 1; seed <= 80; seed++) {
    const rnd = prng(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const weights: Weights = pick([
      { recency: 0.3, relevance: 0.3, decision_confidence: 0.2, warning_boost: 0.1, graph_reachability: 0.1 },
      { recency: 0, relevance: 0.5, decision_confidence: 0.2, warning_boost: 0.3, graph_reachability: 0 },
      { recency: rnd(), relevance: rnd(), decision_confidence: rnd(), warning_boost: rnd(), graph_reachability: 0 },
    ]);
    const base = Date.UTC(2026, 0, 10);
    const n = pick([0, 1, 50, 2000]);
    const times = Array.from({ length: 10 }, () => base - Math.floor(rnd() * 900) * HOUR);
    const at = Float64Array.from({ length: n }, () => (rnd() < 0.03 ? Number.NaN : pick(times)));
    const relevance = Float64Array.from({ length: n }, () => 0.5 * pick([1, 0.7, 0.4]));
    const confidence = Uint8Array.from({ length: n }, () => Math.floor(rnd() * 4));
    const stamps = Array.from(at, t =>
      Number.isNaN(t) ? 'not a time' : rnd() < 0.5 ? new Date(t).toISOString() : new Date(t).toISOString().replace('.000Z', 'Z'),
    );
    const nowMs = pick([base, base + 24 * 900 * HOUR, base - 50 * HOUR]);
    const score = (i: number) =>
      scoreAt(
        { kind: 'decision', id: '', timestamp: '', at: at[i], confidence: CONFIDENCE[confidence[i]], reachability: undefined },
        relevance[i],
        nowMs,
        weights,
      );
    const item = (i: number): Item => ({
      id: `d${String(i).padStart(5, '0')}`,
      kind: 'decision',
      timestamp: stamps[i],
      score: score(i),
      cost: 0,
      summaryCost: 0,
    });
    const stream = bestFirst(decisionOrder(at, relevance, confidence), {
      score,
      cost: () => 0,
      summaryCost: () => 0,
      need: () => false,
      skip: () => false,
      item,
    });
    const got: string[] = [];
    for (let x = stream.take(); x; x = stream.take()) got.push(x.id);
    const expected = Array.from({ length: n }, (_, i) => item(i))
      .sort(byScore)
      .map(x => x.id);
    assert.deepEqual(got, expected, `seed ${seed}: ${n} decisions`);
  }
});

test('a score that is not a number gives up (the engine ranks), never a wrong order', () => {
  const c = {
    kind: Uint8Array.of(3, 3),
    at: Float64Array.of(1, 2),
    relevance: Float64Array.of(0.5, 0.5),
    cost: Float64Array.of(3, 3),
    summaryCost: Float64Array.of(1, 1),
  };
  const order = rankedOrder(c, 1, 2);
  const source: Source<Item> = {
    score: () => Number.NaN,
    cost: i => c.cost[i],
    summaryCost: i => c.summaryCost[i],
    need: () => false,
    skip: () => false,
    item: i => ({ id: `e${i}`, kind: 'finding', timestamp: '', score: Number.NaN, cost: 3, summaryCost: 1 }),
  };
  assert.equal(
    fillFromOrder(order, source, { warnings: [], others: [] }, () => false, { warnings: 0 }, 100, 0),
    undefined,
  );
});
