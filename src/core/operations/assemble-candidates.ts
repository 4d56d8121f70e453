/**
 * The blackboard's side of a briefing's candidates (assemble-ops.ts): the open warnings, needs,
 * questions and findings in a scope, scored, as flat pools (rules/budget-select.ts) that become
 * items only when their turn may come. What does not change between briefings is cached per folder
 * and extended as lines are appended: each entry's parsed time and token costs, the resolved ids,
 * and the questions by scope. A project-wide briefing at 100,000 entries so costs a loop of
 * arithmetic, not 100,000 objects, date parses and string joins.
 */
import type { FolderStore } from '../engine/folder-store';
import type { BlackboardEntry, DecisionIndexEntry } from '../records';
import { overlaps } from '../scope';
import { type Candidate, type Costed, type Weights, entryScorer, estimateTokens, scoreOf, scopeProximity } from '../rules/assembly';
import { PoolArrays } from '../rules/budget-select';
import { isResolved } from '../rules/resolution';
import { entryReason } from './assemble-result';

export type Scored = Costed & { score: number; timestamp: string; reason: string; entry?: BlackboardEntry; decision?: DecisionIndexEntry };

/** An entry's kind as the pools need it (0: not a candidate: another type, or no id or scope). */
const KIND_CODE = new Map<unknown, number>([
  ['warning', 1],
  ['need', 2],
  ['finding', 3],
  ['question', 4],
]);
const KIND_NAME = ['', 'warning', 'need', 'finding', 'question'] as const;
const FINDING = 3;

/**
 * Per entry of the blackboard (by position): its kind, time, tokens whole and by summary, its relevance project-wide,
 * and whether it is resolved; cached by the store (FolderStore.derived 'entry facts') and extended as
 * lines are appended (a rewritten blackboard starts them again).
 */
interface Facts {
  length: number;
  kind: Uint8Array<ArrayBuffer>;
  resolvedFlag: Uint8Array<ArrayBuffer>;
  at: Float64Array<ArrayBuffer>;
  cost: Float64Array<ArrayBuffer>;
  summaryCost: Float64Array<ArrayBuffer>;
  /** The relevance to a project-wide briefing (scoreOf's 0.5 times the scope proximity to "project"). */
  projectRelevance: Float64Array<ArrayBuffer>;
  /** Ids resolved: marked so (2.x) or named in an entry's relates_to (rules/resolution.ts's resolvedIdsOf, kept as lines arrive). */
  resolved: Set<string>;
  /** Positions by id (an id written twice has two). */
  positions: Map<string, number | number[]>;
}

function grow(a: Float64Array<ArrayBuffer>, n: number): Float64Array<ArrayBuffer> {
  if (a.length >= n) return a;
  const b = new Float64Array(Math.max(n, a.length * 2, 1024));
  b.set(a);
  return b;
}
function growBytes(a: Uint8Array<ArrayBuffer>, n: number): Uint8Array<ArrayBuffer> {
  if (a.length >= n) return a;
  const b = new Uint8Array(Math.max(n, a.length * 2, 1024));
  b.set(a);
  return b;
}

function flag(f: Facts, id: string): void {
  const at = f.positions.get(id);
  if (at === undefined) return;
  if (typeof at === 'number') f.resolvedFlag[at] = 1;
  else for (const i of at) f.resolvedFlag[i] = 1;
}

function factsOf(ctx: FolderStore): Facts {
  const entries = ctx.blackboard.entries;
  const none = new Float64Array(0);
  const f = ctx.derived.of('entry facts', (): Facts => ({
    length: 0,
    kind: new Uint8Array(0),
    resolvedFlag: new Uint8Array(0),
    at: none,
    cost: none,
    summaryCost: none,
    projectRelevance: none,
    resolved: new Set(),
    positions: new Map(),
  }));
  if (f.length === entries.length) return f;
  const n = entries.length;
  f.kind = growBytes(f.kind, n);
  f.resolvedFlag = growBytes(f.resolvedFlag, n);
  f.at = grow(f.at, n);
  f.cost = grow(f.cost, n);
  f.summaryCost = grow(f.summaryCost, n);
  f.projectRelevance = grow(f.projectRelevance, n);
  for (let i = f.length; i < n; i++) {
    const e = entries[i];
    const id = typeof e.id === 'string' ? e.id : undefined;
    f.kind[i] = id !== undefined && typeof e.scope === 'string' ? (KIND_CODE.get(e.entry_type) ?? 0) : 0;
    const scope = typeof e.scope === 'string' ? e.scope : '';
    f.at[i] = Date.parse(e.timestamp);
    f.cost[i] = estimateTokens(`${e.summary} ${e.detail ?? ''}`);
    f.summaryCost[i] = estimateTokens(e.summary);
    f.projectRelevance[i] = 0.5 * scopeProximity('project', scope);
    if (id !== undefined) {
      const had = f.positions.get(id);
      f.positions.set(id, had === undefined ? i : typeof had === 'number' ? [had, i] : [...had, i]);
      if (f.resolved.has(id)) f.resolvedFlag[i] = 1;
    }
    if (isResolved(e) && id !== undefined) {
      f.resolved.add(id);
      flag(f, id);
    }
    if (Array.isArray(e.relates_to))
      for (const r of e.relates_to)
        if (typeof r === 'string') {
          f.resolved.add(r);
          flag(f, r);
        }
  }
  f.length = n;
  return f;
}

/** The ids resolved anywhere in the blackboard (a non-finding with one of them is no candidate). */
export const resolvedIds = (ctx: FolderStore): ReadonlySet<string> => factsOf(ctx).resolved;

/** Warnings, needs and findings in scope from the blackboard's per-scope lists, and the questions in scope. */
function scopedEntries(ctx: FolderStore, scope: string): BlackboardEntry[] {
  const { warnings, findings } = ctx.blackboard.inScope(scope);
  const out = [...warnings, ...findings, ...ctx.blackboard.needsInScope(scope)];
  for (const [s, list] of questionsByScope(ctx)) if (overlaps(s, scope)) out.push(...list);
  return out;
}

/** Questions by scope (the blackboard keeps warnings, findings and needs so, not questions), extended as lines are appended. */
function questionsByScope(ctx: FolderStore): Map<string, BlackboardEntry[]> {
  const entries = ctx.blackboard.entries;
  const cached = ctx.derived.of('questions by scope', () => ({ length: 0, byScope: new Map<string, BlackboardEntry[]>() }));
  for (let i = cached.length; i < entries.length; i++) {
    const e = entries[i];
    if (e.entry_type !== 'question' || typeof e.scope !== 'string') continue;
    const list = cached.byScope.get(e.scope);
    if (list) list.push(e);
    else cached.byScope.set(e.scope, [e]);
  }
  cached.length = entries.length;
  return cached.byScope;
}

/**
 * A pool being filled: parallel arrays, and where each candidate comes from: a position in the
 * entries the pool was made over, or (negative, -1 - k) the k-th decision given, already an item.
 * Positions, not references: 100,000 candidates leave nothing for the garbage collector to trace.
 */
class PoolBuilder extends PoolArrays<Scored> {
  private readonly made = new Map<number, Scored>();

  constructor(
    private readonly scope: string,
    private readonly entries: readonly BlackboardEntry[],
    private readonly decisions: readonly Scored[],
    capacity = 64,
  ) {
    super(capacity);
  }

  /** The entries among the candidates: their positions and costs (the decisions given are left out). */
  positions(): { position: number; cost: number; summaryCost: number }[] {
    const out: { position: number; cost: number; summaryCost: number }[] = [];
    for (let i = 0; i < this.size; i++) if (this.from[i] >= 0) out.push({ position: this.from[i], cost: this.cost[i], summaryCost: this.summaryCost[i] });
    return out;
  }

  item(i: number): Scored {
    const from = this.from[i];
    if (from < 0) return this.decisions[-1 - from];
    let it = this.made.get(i);
    if (!it) this.made.set(i, (it = entryItem(this.entries[from], this.scope, this.score[i], this.cost[i], this.summaryCost[i])));
    return it;
  }
}

function entryItem(e: BlackboardEntry, scope: string, score: number, cost: number, summaryCost: number): Scored {
  return {
    id: e.id,
    kind: e.entry_type as Scored['kind'],
    cost,
    summaryCost,
    score,
    timestamp: e.timestamp,
    reason: entryReason(e, scope),
    entry: e,
  };
}

/**
 * The candidates of a briefing: the warnings apart (they fill first), and the others with the
 * decisions given (scored, their costs known: a decision whose record was not read cannot be taken) first.
 */
export function candidatePools(
  ctx: FolderStore,
  scope: string,
  nowMs: number,
  weights: Weights,
  graphOn: boolean,
  decisions: readonly Scored[],
): { warnings: PoolBuilder; others: PoolBuilder } {
  const f = factsOf(ctx);
  const entries = scope === 'project' ? ctx.blackboard.entries : scopedEntries(ctx, scope);
  const warnings = new PoolBuilder(scope, entries, decisions);
  // A project-wide briefing: most entries and every decision are candidates.
  const others = new PoolBuilder(scope, entries, decisions, scope === 'project' ? entries.length + decisions.length : 64);
  for (let k = 0; k < decisions.length; k++) {
    const d = decisions[k];
    others.add(d.score, d.cost, d.summaryCost, false, -1 - k);
  }
  // One candidate object, reused: scoring the entries in scope makes no garbage.
  const c: Candidate = { kind: 'finding', id: '', scope: '', timestamp: '', at: 0, reachability: graphOn ? 0 : undefined };
  if (scope === 'project') {
    // Every entry, from the cached facts by position: no entry object is looked into.
    const scorers = KIND_NAME.map(kind => (kind ? entryScorer(kind, nowMs, weights, graphOn) : undefined));
    for (let i = 0; i < entries.length; i++) {
      const k = f.kind[i];
      if (k === 0 || (k !== FINDING && f.resolvedFlag[i] === 1)) continue;
      (k === 1 ? warnings : others).add(scorers[k]!(f.at[i], f.projectRelevance[i]), f.cost[i], f.summaryCost[i], k === 2, i);
    }
    return { warnings, others };
  }
  // The few in scope (the blackboard's per-scope lists): their facts computed here.
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const k = typeof e.id === 'string' && typeof e.scope === 'string' ? (KIND_CODE.get(e.entry_type) ?? 0) : 0;
    if (k === 0 || (k !== FINDING && f.resolved.has(e.id)) || !overlaps(e.scope, scope)) continue;
    c.kind = KIND_NAME[k] as Candidate['kind'];
    c.scope = e.scope;
    c.at = Date.parse(e.timestamp);
    const cost = estimateTokens(`${e.summary} ${e.detail ?? ''}`);
    (k === 1 ? warnings : others).add(scoreOf(c, scope, nowMs, weights), cost, estimateTokens(e.summary), k === 2, i);
  }
  return { warnings, others };
}
