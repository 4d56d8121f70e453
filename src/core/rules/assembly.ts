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
 * Fills `budget` with items in the order given (each list sorted best first): warnings from the
 * whole budget, then the others up to 90% of it, then needs that still fit. `cost` may be computed
 * lazily (a decision's rationale is read only when it is its turn).
 */
export function fillBudget(warnings: readonly Costed[], others: readonly Costed[], budget: number, start = 0): BudgetResult {
  const selected = new Set<string>();
  const summaryOnly = new Set<string>();
  let tokens = start;
  let warningsOmitted = 0;
  for (const w of warnings) {
    if (tokens + w.cost <= budget) {
      selected.add(w.id);
      tokens += w.cost;
    } else if (tokens + w.summaryCost <= budget) {
      selected.add(w.id);
      summaryOnly.add(w.id);
      tokens += w.summaryCost;
    } else warningsOmitted++;
  }
  const cap = budget - Math.floor(budget * 0.1);
  let other = 0;
  for (const item of others) {
    if (tokens + item.cost <= budget && other + item.cost <= cap) {
      selected.add(item.id);
      tokens += item.cost;
      other += item.cost;
    }
  }
  for (const item of others) {
    if (item.kind === 'need' && !selected.has(item.id) && tokens + item.cost <= budget) {
      selected.add(item.id);
      tokens += item.cost;
    }
  }
  return { selected, summaryOnly, tokens, warningsOmitted };
}
