/**
 * How a briefing (`assemble`) ranks and budgets what it shows: the rules of twining-mcp's context
 * assembler (src/engine/context-assembler.ts, read at commit 017a87802232ba85184c4e6aef9ff78060e73873),
 * without its semantic search and graph (this project has neither), so that a briefing here and
 * one there put the same items first:
 *  - score = recency·w.recency + relevance·w.relevance + confidence·w.decision_confidence
 *    + warning·w.warning_boost, where recency decays as exp(-age hours / 168),
 *    relevance is 0.5 (a scope match) times the scope proximity, confidence is high 1, medium 0.6,
 *    low 0.3 (0.5 for entries); with no graph, its weight is spread over the others (÷ (1 − w.graph));
 *  - tokens are estimated at 4 characters each;
 *  - warnings fill first from the whole budget (a warning that does not fit whole keeps its summary);
 *    everything else fills what is left, but at most 90% of the budget; needs that still fit come last.
 * Pure: no file, no clock (the caller passes `now`). Ties are broken by id, so the result is deterministic.
 */

import { overlaps } from '../scope';

export const RECENCY_HALF_LIFE_HOURS = 168;

/** The fields of a decision index entry that say where it applies. */
export interface Placed {
  scope?: unknown;
  affected_files?: unknown;
  affected_symbols?: unknown;
}

/** Why a decision bears on `scope` (as twining-mcp's getByScope decides it: scope or an affected file a prefix either way, or the symbol itself), or undefined. */
export function decisionInScope(d: Placed, scope: string): string | undefined {
  if (scope === 'project') return `decision in ${typeof d.scope === 'string' ? d.scope : 'the project'}`;
  if (typeof d.scope === 'string' && overlaps(d.scope, scope)) return `decision scope ${d.scope} overlaps ${scope}`;
  const file = (Array.isArray(d.affected_files) ? (d.affected_files as unknown[]) : []).find((f): f is string => typeof f === 'string' && overlaps(f, scope));
  if (file) return `affects ${file}`;
  if (Array.isArray(d.affected_symbols) && d.affected_symbols.includes(scope)) return `affects symbol ${scope}`;
  return undefined;
}

/** config.yml's context_assembly.priority_weights. */
export interface Weights {
  recency: number;
  relevance: number;
  decision_confidence: number;
  warning_boost: number;
  graph_reachability: number;
}

export const estimateTokens = (text: string): number => tokensForLength(text.length);
/** The same estimate for a text of `length` characters (an answer measured in parts). */
export const tokensForLength = (length: number): number => Math.ceil(length / 4);

export function recencyScore(timestamp: string, nowMs: number): number {
  return recencyAt(Date.parse(timestamp), nowMs);
}

/** recencyScore of a time already parsed (NaN: an unreadable timestamp, 0). */
export function recencyAt(ms: number, nowMs: number): number {
  if (Number.isNaN(ms)) return 0;
  return Math.exp(-(nowMs - ms) / 3_600_000 / RECENCY_HALF_LIFE_HOURS);
}

export function confidenceScore(confidence: unknown): number {
  return confidence === 'high' ? 1 : confidence === 'medium' ? 0.6 : confidence === 'low' ? 0.3 : 0.5;
}

/** How close an item's scope is to the task's: inside it (or equal) 1, its parent 0.7, further up or elsewhere 0.4. */
export function scopeProximity(taskScope: string, itemScope: string): number {
  if (itemScope.startsWith(taskScope)) return 1;
  if (taskScope.startsWith(itemScope)) {
    const depth = taskScope.slice(itemScope.length).split('/').filter(Boolean).length;
    return depth <= 1 ? 0.7 : 0.4;
  }
  return 0.4;
}

export interface Candidate {
  kind: 'decision' | 'warning' | 'need' | 'finding' | 'question';
  id: string;
  scope: string;
  timestamp: string;
  /** `Date.parse(timestamp)` when the caller has it already. */
  at?: number;
  confidence?: unknown;
  /**
   * How well the knowledge graph reaches it, 0 to 1, when the graph reaches any candidate (then 0
   * for the others); absent when it reaches none, and the graph's weight goes to the other signals
   * (twining-mcp's adaptive weights).
   */
  reachability?: number;
}

export function scoreOf(c: Candidate, taskScope: string, nowMs: number, weights: Weights): number {
  return scoreAt(c, 0.5 * scopeProximity(taskScope, c.scope), nowMs, weights);
}

/** scoreOf with the relevance (0.5 times the scope proximity) already known: a caller scoring many items of one scope keeps it. */
export function scoreAt(c: Omit<Candidate, 'scope'>, relevance: number, nowMs: number, weights: Weights): number {
  const graph = c.reachability !== undefined;
  const scale = !graph && weights.graph_reachability > 0 && weights.graph_reachability < 1 ? 1 / (1 - weights.graph_reachability) : 1;
  const confidence = c.kind === 'decision' ? confidenceScore(c.confidence) : 0.5;
  const warning = c.kind === 'warning' ? 1 : 0;
  return (
    ((c.at === undefined ? recencyScore(c.timestamp, nowMs) : recencyAt(c.at, nowMs)) * weights.recency +
      relevance * weights.relevance +
      confidence * weights.decision_confidence +
      warning * weights.warning_boost) *
      scale +
    (c.reachability ?? 0) * weights.graph_reachability
  );
}

/**
 * scoreAt for the blackboard entries of one kind, with what is the same for all of them worked out
 * once: the same arithmetic in the same order, so the same numbers (a briefing project-wide scores
 * 100,000 entries).
 */
export function entryScorer(
  kind: Exclude<Candidate['kind'], 'decision'>,
  nowMs: number,
  weights: Weights,
  graphOn: boolean,
): (at: number, relevance: number) => number {
  const scale = !graphOn && weights.graph_reachability > 0 && weights.graph_reachability < 1 ? 1 / (1 - weights.graph_reachability) : 1;
  const confidence = 0.5 * weights.decision_confidence;
  const warning = (kind === 'warning' ? 1 : 0) * weights.warning_boost;
  const reach = 0 * weights.graph_reachability;
  const { recency, relevance: perRelevance } = weights;
  return (at, relevance) => (recencyAt(at, nowMs) * recency + relevance * perRelevance + confidence + warning) * scale + reach;
}

/** Best first; equal scores newest first, then by id (deterministic). */
export function byScore<T extends { score: number; id: string; timestamp: string }>(a: T, b: T): number {
  return b.score - a.score || (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

export interface Costed {
  id: string;
  kind: Candidate['kind'];
  /** Tokens of the whole item, and of its summary alone (what a warning degrades to). */
  cost: number;
  summaryCost: number;
}

export interface BudgetResult {
  selected: Set<string>;
  summaryOnly: Set<string>;
  tokens: number;
  warningsOmitted: number;
}

/**
 * The budget rule, one item at a time, for every order the candidates are walked in (fillBudget's
 * sorted lists; rules/budget-select.ts's pools; storage/derived/briefing-rank.ts's ranked groups):
 *  1. warnings, from the whole budget: whole if they fit, else by their summary alone;
 *  2. the others, while they fit and the others together stay within 90% of the budget;
 *  3. needs not taken in 2 that still fit the whole budget.
 * Callers offer each phase's items best first. `room` and `otherRoom` are what the next item of a
 * phase may cost, so a caller can stop when nothing left can fit. An item's costs are read only
 * when the rule needs them (a decision's is worked out from its rationale). Pure.
 */
export class BudgetFill {
  readonly selected = new Set<string>();
  readonly summaryOnly = new Set<string>();
  tokens: number;
  private warningsTaken = 0;
  private othersTokens = 0;
  private readonly cap: number;

  constructor(
    private readonly budget: number,
    start = 0,
  ) {
    this.tokens = start;
    this.cap = budget - Math.floor(budget * 0.1);
  }

  /** What a warning (whole or by its summary) or a need may still cost. */
  get room(): number {
    return this.budget - this.tokens;
  }

  /** What one of the others may still cost. */
  get otherRoom(): number {
    return Math.min(this.budget - this.tokens, this.cap - this.othersTokens);
  }

  /** Phase 1: whether the warning was taken (whole, or by its summary: then in `summaryOnly`). */
  warning(item: { readonly id: string; readonly cost: number; readonly summaryCost: number }): boolean {
    if (this.tokens + item.cost <= this.budget) this.tokens += item.cost;
    else if (this.tokens + item.summaryCost <= this.budget) {
      this.summaryOnly.add(item.id);
      this.tokens += item.summaryCost;
    } else return false;
    this.selected.add(item.id);
    this.warningsTaken++;
    return true;
  }

  /** Phase 2: whether the item was taken. */
  other(item: { readonly id: string; readonly cost: number }): boolean {
    const cost = item.cost;
    if (this.tokens + cost > this.budget || this.othersTokens + cost > this.cap) return false;
    this.selected.add(item.id);
    this.tokens += cost;
    this.othersTokens += cost;
    return true;
  }

  /** Phase 3: whether the need was taken now (not when phase 2 took it). */
  need(item: { readonly id: string; readonly cost: number }): boolean {
    if (this.selected.has(item.id) || this.tokens + item.cost > this.budget) return false;
    this.selected.add(item.id);
    this.tokens += item.cost;
    return true;
  }

  /** The result, given how many warnings there were in all (those never offered could not fit). */
  result(warnings: number): BudgetResult {
    return { selected: this.selected, summaryOnly: this.summaryOnly, tokens: this.tokens, warningsOmitted: warnings - this.warningsTaken };
  }
}

/**
 * Fills `budget` with items in the order given (each list sorted best first) by BudgetFill's rule,
 * offering every item: the statement of the rule that the faster fills are held equal to.
 */
export function fillBudget(warnings: readonly Costed[], others: readonly Costed[], budget: number, start = 0): BudgetResult {
  const fill = new BudgetFill(budget, start);
  for (const w of warnings) fill.warning(w);
  for (const item of others) fill.other(item);
  for (const item of others) if (item.kind === 'need') fill.need(item);
  return fill.result(warnings.length);
}
