/**
 * assemble: the briefing an agent gets before it works on a task in a scope, within a token budget,
 * as twining-mcp's `twining_assemble` answers it (at least its result fields), in priority order:
 * handoffs waiting for this agent (unacknowledged, with their results and drift), the live claims of
 * other agents on the scope (they block the work, so they come before the budget's ranking), active warnings,
 * the active decisions that constrain the scope (with their rationale), open needs and questions,
 * findings, and what changed in the scope since the agent's previous briefing. Ranking and budget
 * are twining-mcp's (rules/assembly.ts); each item says why it is there (`reason`).
 *
 * The assembly is recorded (`.twining/sessions/assembly-<agent>.json`, storage/session-files.ts) so a
 * later decision by the same agent is honestly `assembled_before` (twining-mcp keeps the same mark in
 * its server's memory and writes it into the decision).
 */
import type { FolderStore } from '../engine/folder-store';
import type { InputOf } from '../schemas/schemas';
import type { BlackboardEntry, DecisionIndexEntry, DecisionRecord, VerifyResult } from '../records';
import type { AssembledClaim, AssembledContext, AssembledDecision, AssembledHandoff } from './briefing-types';
import { overlaps } from '../scope';
import { byScore, estimateTokens } from '../rules/assembly';
import { fillBudgetRanked } from '../rules/budget-select';
import { type Scored, candidatePools, resolvedIds } from './assemble-candidates';
import { cachedDecisionRecord, warmDecisionRecords } from './decision-record-cache';
import { chooseDecisions, decisionScores, decisionsInScope } from './assemble-decisions';
import { briefingOf, changedDecisions, changedSince, placeChosen, placedEntry } from './assemble-result';
import type { BriefingParts, ShownDecision } from '../storage/derived/briefing-basis';
import { handoffs as listHandoffs } from './handoff-ops';
import { verify } from './verify-ops';
import { graphContextFrom } from './assemble-graph-ops';
import { readGraph } from './graph-ops';
import { readAssembly, writeAssembly } from '../storage/session-files';
import { claimClock, claimItems } from './claim-ops';
import { claimConflicts, describeHolder, isClaim, viewOf } from '../rules/claims';

export type { AssembledClaim, AssembledContext, AssembledDecision, AssembledEntry, AssembledHandoff, ChangedItem } from './briefing-types';

const WAITING_HANDOFFS = 5;

export interface AssembleOptions {
  /**
   * Given the write of the briefing's mark (.twining/sessions/assembly-<agent>.json) instead of
   * waiting for it: a running engine answering a hook writes it after the answer. This engine
   * counts the briefing at once either way (`ctx.assembledAt`).
   */
  recordAfter?: (write: () => Promise<void>) => void;
  /**
   * Given what the briefing was made from, for the SessionStart hook's basis
   * (storage/derived/briefing-basis.ts): a function, since a running engine answering a hook
   * keeps the basis after the answer, and the candidates' list (every entry of a project-wide
   * briefing) is not made before it.
   */
  basis?: (parts: () => BriefingParts) => void;
}

/** A decision's record as a briefing shows it. */
function shownDecision(r: DecisionRecord): ShownDecision & { cost?: number } {
  return {
    id: r.id,
    summary: r.summary,
    rationale: r.rationale,
    confidence: String(r.confidence ?? 'medium'),
    scope: r.scope,
    affected_files: r.affected_files ?? [],
    ...(r.constraints?.length ? { constraints: r.constraints } : {}),
    ...(r.alternatives?.length ? { rejected_alternatives: r.alternatives.map(a => (a.reason_rejected ? `${a.option}: ${a.reason_rejected}` : a.option)) } : {}),
  } as ShownDecision;
}

/** The latest of the decisions' times, compared as the "changed since" loop compares them; undefined when one is not a string. */
function newestTimestamp(index: readonly DecisionIndexEntry[]): string | undefined {
  let newest = '';
  for (const d of index) {
    if (typeof d.timestamp !== 'string') return undefined;
    if (d.timestamp > newest) newest = d.timestamp;
  }
  return newest;
}

export async function assemble(ctx: FolderStore, input: InputOf<'assemble'>, options: AssembleOptions = {}): Promise<AssembledContext> {
  const args = ctx.validate('assemble', input);
  const agentId = args.agent_id ?? 'main';
  const scope = args.scope;
  const now = ctx.now();
  const nowMs = now.getTime();
  const assembledAt = now.toISOString();
  // What the briefing reads, at once: each is a stat when nothing changed, and one after another
  // they would wait on the disk in turn.
  const [config, , index, previous, handoffList, claimList, clock, graphFiles] = await Promise.all([
    ctx.config(),
    ctx.blackboard.refresh(),
    ctx.decisionIndex.get(),
    readAssembly(ctx.layout.dir, agentId),
    listHandoffs(ctx, { acknowledged: false, limit: 100000 }),
    claimItems(ctx),
    claimClock(ctx),
    readGraph(ctx).catch((error: Error) => error),
  ]);
  const budget = args.max_tokens ?? config.context_assembly.default_max_tokens;
  const weights = config.context_assembly.priority_weights;

  // 1. Handoffs waiting for this agent: unacknowledged, addressed to it, or to anyone in this scope.
  const waiting = handoffList.handoffs
    .filter(
      h => h.target_agent === agentId || (h.target_agent === undefined && (scope === 'project' || typeof h.scope !== 'string' || overlaps(h.scope, scope))),
    )
    .filter(h => h.source_agent !== agentId)
    .slice(0, WAITING_HANDOFFS);
  // Each one's results and drift, read at once.
  const details = await Promise.all(
    waiting.map(h =>
      Promise.all([
        ctx.handoffRecords.get(h.id).catch(() => undefined),
        verify(ctx, { handoff_id: h.id }).catch(() => undefined) as Promise<VerifyResult | undefined>,
      ]),
    ),
  );
  let tokens = 0;
  const recent_handoffs: AssembledHandoff[] = [];
  for (const [i, h] of waiting.entries()) {
    const [record, check] = details[i];
    const item: AssembledHandoff = {
      id: h.id,
      source_agent: h.source_agent,
      target_agent: h.target_agent ?? '',
      scope: typeof h.scope === 'string' ? h.scope : 'project',
      summary: h.summary,
      result_status: h.result_status,
      acknowledged: false,
      created_at: h.created_at,
      results: record?.results ?? [],
      ...(check ? { drifted: check.drifted, drift: check.drift } : {}),
      reason:
        h.target_agent === agentId
          ? `handed over to ${agentId}, not yet acknowledged`
          : `handed over to any agent in ${h.scope ?? 'the project'}, not yet acknowledged`,
    };
    tokens += estimateTokens(`${item.summary} ${item.results.map(r => `${r.status} ${r.description} ${r.notes ?? ''}`).join(' ')}`);
    recent_handoffs.push(item);
  }

  // 1b. Live claims of other agents on the scope: they block the work, so they rank right after the
  // handoffs and take the budget before the ranked items (as many as fit).
  const active_claims: AssembledClaim[] = [];
  const held =
    scope === 'project'
      ? claimList
          .filter(isClaim)
          .map(c => viewOf(c, clock))
          .filter(c => c.state === 'live' && c.agent_id !== agentId)
          .sort((a, b) => (a.claimed_at < b.claimed_at ? -1 : a.claimed_at > b.claimed_at ? 1 : 0))
      : claimConflicts(claimList, scope, agentId, clock);
  for (const c of held) {
    const cost = estimateTokens(describeHolder(c));
    if (tokens + cost > budget) break;
    tokens += cost;
    active_claims.push({
      id: c.id,
      agent_id: c.agent_id,
      target: c.target,
      claim_reason: c.reason,
      claimed_at: c.claimed_at,
      expires_at: c.expires_at,
      reason: scope === 'project' ? `claimed by ${c.agent_id}, live` : `claimed by ${c.agent_id}: ${c.target} overlaps ${scope}`,
    });
  }

  // 2. Candidates: active and provisional decisions bearing on the scope (assemble-decisions.ts), open entries in it.
  const inScope = decisionsInScope(ctx, scope);
  // The knowledge graph's reach (twining-mcp's graph_reachability weight, relevance_path) and the entities around the scope.
  const graph = graphContextFrom(graphFiles, scope, inScope.list, ctx.warn);
  const graphOn = [...graph.reach.values()].some(v => v > 0);
  const scores = decisionScores(inScope, nowMs, weights, graphOn ? graph.reach : undefined);
  // Each decision's cost from its record (its rationale), best first, as many as could fit (assemble-decisions.ts).
  const records = new Map<string, DecisionRecord>();
  const takeable = (await chooseDecisions(inScope, scores, budget, async batch => {
    const read = await Promise.all(batch.map(item => cachedDecisionRecord(ctx, item.decision!)));
    return read.map((record, i) => {
      if (!record) return undefined;
      records.set(batch[i].id, record);
      return estimateTokens(`${record.summary} ${record.rationale} ${record.confidence} ${(record.affected_files ?? []).join(', ')}`);
    });
  }))!;
  // The entries become items only when their turn may come (rules/budget-select.ts).
  const pools = candidatePools(ctx, scope, nowMs, weights, graphOn, takeable);
  const fill = fillBudgetRanked(pools.warnings, pools.others, budget, tokens);

  const result = briefingOf({ assembled_at: assembledAt, task: args.task, scope, agent_id: agentId, max_tokens: budget }, fill, {
    related_entities: graph.related,
    recent_handoffs,
    active_claims,
  });
  const decisionOf = (item: Scored): AssembledDecision => {
    const r = records.get(item.id)!;
    return {
      ...shownDecision(r),
      status: String(item.decision!.status),
      ...(graph.paths.has(r.id) ? { relevance_path: graph.paths.get(r.id) } : {}),
      reason: item.reason,
    };
  };
  placeChosen(result, fill.chosen.sort(byScore), fill.summaryOnly, decisionOf);

  // 3. What others wrote in the scope since this agent's previous briefing, newest first, as room allows.
  if (previous && typeof previous.assembled_at === 'string') {
    const shown = new Set<string>([...fill.selected, ...recent_handoffs.map(h => h.id), ...active_claims.map(c => c.id)]);
    // No decision newer than the previous briefing (the index's newest time, kept with its version): no need to look at each.
    const newest = ctx.derived.fromDecisions('newest decision time', newestTimestamp);
    const changed = newest === undefined || newest > previous.assembled_at ? changedDecisions(index, previous.assembled_at, scope) : [];
    const bb = ctx.blackboard.entries;
    const newer: BlackboardEntry[] = [];
    for (let i = bb.length - 1; i >= 0 && bb[i].timestamp > previous.assembled_at; i--) newer.push(bb[i]);
    result.changed_since = changedSince(result, changed, newer, previous.assembled_at, scope, agentId, shown, budget);
  }

  if (options.basis) {
    // What the briefing read, taken now; the lists made from it, when asked. A basis is kept only of
    // the blackboard as this briefing read it (keepBasis checks its size against the offset), so
    // lines the engine reads in between never reach one.
    const entries = ctx.blackboard.entries;
    const resolved = resolvedIds(ctx);
    const newestDecision = ctx.derived.fromDecisions('newest decision time', newestTimestamp);
    const simple = !recent_handoffs.length && !claimList.some(isClaim) && !graphOn && !graph.related.length;
    const chosen = fill.chosen.filter(c => c.entry);
    options.basis(() => ({
      scope,
      budget,
      weights,
      startTokens: tokens,
      simple,
      entries,
      candidates: [...pools.warnings.positions(), ...pools.others.positions()],
      resolved,
      decisions: inScope,
      records: new Map(takeable.map(t => [t.id, { ...shownDecision(records.get(t.id)!), cost: t.cost }])),
      newestDecision,
      shown: chosen.map(c => placedEntry(c.entry!)),
    }));
  }

  warmDecisionRecords(ctx, index);
  if (!ctx.readOnly) {
    ctx.assembledAt.set(agentId, assembledAt);
    const write = () =>
      writeAssembly(ctx.layout.dir, { agent_id: agentId, assembled_at: assembledAt, task: args.task, scope }).catch(error =>
        ctx.warn(`the briefing was not recorded in .twining/sessions/ (${(error as Error).message}); a decision after it will not count as assembled_before`),
      );
    if (options.recordAfter) options.recordAfter(write);
    else await write();
  }
  return result;
}
