/**
 * assemble: the briefing an agent gets before it works on a task in a scope, within a token budget,
 * as twining-mcp's `twining_assemble` answers it (at least its result fields), in priority order:
 * handoffs waiting for this agent (unacknowledged, with their results and drift), the live claims of
 * other agents on the scope (they block the work, so they come before the budget's ranking), active warnings,
 * the active decisions that constrain the scope (with their rationale), open needs and questions,
 * findings, and what changed in the scope since the agent's previous briefing. Ranking and budget
 * are twining-mcp's (rules/assembly.ts); each item says why it is there (`reason`).
 *
 * The assembly is recorded (`.twining/sessions/assembly-<agent>.json`, store/session-files.ts) so a
 * later decision by the same agent is honestly `assembled_before` (twining-mcp keeps the same mark in
 * its server's memory and writes it into the decision).
 */
import type { FolderStore } from '../engine/folder-store';
import type { InputOf } from '../schemas/schemas';
import type { DecisionIndexEntry, DecisionRecord, HandoffResult, VerifyResult } from '../records';
import { overlaps } from '../scope';
import { byScore, decisionInScope, estimateTokens } from '../rules/assembly';
import { fillBudgetRanked, kthBest } from '../rules/budget-select';
import { candidatePools } from './assemble-candidates';
import { cachedDecisionRecord, warmDecisionRecords } from './decision-record-cache';
import { decisionItems, decisionScores, decisionsInScope } from './assemble-decisions';
import { handoffs as listHandoffs } from './handoff-ops';
import { verify } from './verify-ops';
import { graphContextFrom } from './assemble-graph-ops';
import { readGraph } from './graph-ops';
import { readAssembly, writeAssembly } from '../store/session-files';
import { claimClock, claimItems } from './claim-ops';
import { claimConflicts, describeHolder, isClaim, viewOf } from '../rules/claims';

type Why = { reason: string };
export interface AssembledDecision extends Why {
  id: string;
  summary: string;
  rationale: string;
  confidence: string;
  status: string;
  scope: string;
  affected_files: string[];
  constraints?: string[];
  rejected_alternatives?: string[];
  /** How the knowledge graph reaches it from the scope (twining-mcp's relevance_path), when it does. */
  relevance_path?: string;
}
export interface AssembledEntry extends Why {
  id: string;
  summary: string;
  detail?: string;
  scope: string;
  timestamp: string;
  agent_id?: string;
}
export interface AssembledHandoff extends Why {
  id: string;
  source_agent: string;
  target_agent: string;
  scope: string;
  summary: string;
  result_status?: string;
  acknowledged: boolean;
  created_at: string;
  results: HandoffResult[];
  drifted?: boolean;
  drift?: VerifyResult['drift'];
}
/** A live claim of another agent on the scope: editing it would collide with its holder. */
export interface AssembledClaim extends Why {
  id: string;
  agent_id: string;
  target: string;
  claim_reason: string;
  claimed_at: string;
  expires_at: string;
}
export interface ChangedItem {
  id: string;
  kind: string;
  summary: string;
  scope: string;
  agent_id?: string;
  timestamp: string;
}
export interface AssembledContext {
  assembled_at: string;
  task: string;
  scope: string;
  agent_id: string;
  token_estimate: number;
  max_tokens: number;
  warnings_omitted?: number;
  active_decisions: AssembledDecision[];
  open_needs: AssembledEntry[];
  recent_findings: AssembledEntry[];
  active_warnings: AssembledEntry[];
  recent_questions: AssembledEntry[];
  related_entities: { name: string; type: string; relations: string[] }[];
  /** Handoffs waiting for this agent (twining-mcp: recent handoffs in the scope). */
  recent_handoffs: AssembledHandoff[];
  /** Live claims of other agents that overlap the scope (every one for "project"), oldest first. */
  active_claims: AssembledClaim[];
  /** What others wrote in the scope since this agent's previous briefing (absent on its first). */
  changed_since?: { since: string; total: number; items: ChangedItem[] };
}

const WAITING_HANDOFFS = 5;
const CHANGED_ITEMS = 10;
/** Decision records read at once while filling the budget. */
const RECORD_BATCH = 64;
/** Decisions put in order before the first records are read (the rest only when the budget has room after them). */
const RECORD_TOP = 256;

export interface AssembleOptions {
  /**
   * Given the write of the briefing's mark (.twining/sessions/assembly-<agent>.json) instead of
   * waiting for it: a running engine answering a hook writes it after the answer. This engine
   * counts the briefing at once either way (`ctx.assembledAt`).
   */
  recordAfter?: (write: () => Promise<void>) => void;
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
  // Rationale is needed for the cost of the decisions that may be chosen (a decision whose turn
  // does not come can never be taken): read them best first, only as many as could still fit
  // (never more than the budget allows at one token each). They are read in batches at once (the
  // reads wait on the disk, not on this thread). Only the best are made items and put in order
  // first; the rest only if the budget still has room after them.
  const bar = kthBest(scores, scores.length, RECORD_TOP);
  let ordered = decisionItems(inScope, scores, bar, true);
  let extended = ordered.length === scores.length;
  const records = new Map<string, DecisionRecord>();
  let room = budget;
  for (let at = 0; room > 0; at += RECORD_BATCH) {
    if (!extended && at + RECORD_BATCH > ordered.length) {
      ordered = ordered.concat(decisionItems(inScope, scores, bar, false));
      extended = true;
    }
    const batch = ordered.slice(at, at + RECORD_BATCH);
    if (!batch.length) break;
    const read = await Promise.all(batch.map(item => cachedDecisionRecord(ctx, item.decision!)));
    batch.forEach((item, i) => {
      const record = read[i];
      if (!record || room <= 0) return;
      records.set(item.id, record);
      item.cost = estimateTokens(`${record.summary} ${record.rationale} ${record.confidence} ${(record.affected_files ?? []).join(', ')}`);
      room -= item.cost;
    });
  }
  // Only the decisions whose cost is known can be taken: the others (never read) are left out of
  // the pools, which changes nothing the budget takes (fillBudget skips what cannot fit).
  const takeable = ordered.filter(d => d.cost !== Number.POSITIVE_INFINITY);
  // The entries become items only when their turn may come (rules/budget-select.ts).
  const pools = candidatePools(ctx, scope, nowMs, weights, graphOn, takeable);
  const fill = fillBudgetRanked(pools.warnings, pools.others, budget, tokens);

  const result: AssembledContext = {
    assembled_at: assembledAt,
    task: args.task,
    scope,
    agent_id: agentId,
    token_estimate: fill.tokens,
    max_tokens: budget,
    ...(fill.warningsOmitted ? { warnings_omitted: fill.warningsOmitted } : {}),
    active_decisions: [],
    open_needs: [],
    recent_findings: [],
    active_warnings: [],
    recent_questions: [],
    related_entities: graph.related,
    recent_handoffs,
    active_claims,
  };
  for (const item of fill.chosen.sort(byScore)) {
    if (item.decision) {
      const r = records.get(item.id)!;
      result.active_decisions.push({
        id: r.id,
        summary: r.summary,
        rationale: r.rationale,
        confidence: String(r.confidence ?? 'medium'),
        status: String(item.decision.status),
        scope: r.scope,
        affected_files: r.affected_files ?? [],
        ...(r.constraints?.length ? { constraints: r.constraints } : {}),
        ...(r.alternatives?.length
          ? { rejected_alternatives: r.alternatives.map(a => (a.reason_rejected ? `${a.option}: ${a.reason_rejected}` : a.option)) }
          : {}),
        ...(graph.paths.has(r.id) ? { relevance_path: graph.paths.get(r.id) } : {}),
        reason: item.reason,
      });
      continue;
    }
    const e = item.entry!;
    const base = { id: e.id, summary: e.summary, scope: e.scope, timestamp: e.timestamp, agent_id: e.agent_id, reason: item.reason };
    if (e.entry_type === 'warning') result.active_warnings.push({ ...base, detail: fill.summaryOnly.has(e.id) ? '' : e.detail });
    else if (e.entry_type === 'need') result.open_needs.push(base);
    else if (e.entry_type === 'question') result.recent_questions.push(base);
    else result.recent_findings.push({ ...base, detail: e.detail });
  }

  // 3. What others wrote in the scope since this agent's previous briefing, newest first, as room allows.
  if (previous && typeof previous.assembled_at === 'string') {
    const shown = new Set<string>([...fill.selected, ...recent_handoffs.map(h => h.id), ...active_claims.map(c => c.id)]);
    const changed: ChangedItem[] = [];
    // No decision newer than the previous briefing (the index's newest time, kept with its version): no need to look at each.
    const newest = ctx.derived.fromDecisions('newest decision time', newestTimestamp);
    if (newest === undefined || newest > previous.assembled_at)
      for (const d of index) {
        if (d.timestamp > previous.assembled_at && decisionInScope(d, scope))
          changed.push({ id: d.id, kind: `decision (${d.status})`, summary: d.summary, scope: d.scope, timestamp: d.timestamp });
      }
    const bb = ctx.blackboard.entries;
    for (let i = bb.length - 1; i >= 0 && bb[i].timestamp > previous.assembled_at; i--) {
      const e = bb[i];
      if (e.entry_type === 'decision' || e.agent_id === agentId || typeof e.scope !== 'string') continue;
      if (scope !== 'project' && !overlaps(e.scope, scope)) continue;
      changed.push({ id: e.id, kind: e.entry_type, summary: e.summary, scope: e.scope, agent_id: e.agent_id, timestamp: e.timestamp });
    }
    changed.sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : a.id < b.id ? 1 : -1));
    const items: ChangedItem[] = [];
    for (const c of changed) {
      if (items.length >= CHANGED_ITEMS) break;
      if (shown.has(c.id)) continue;
      const cost = estimateTokens(c.summary);
      if (result.token_estimate + cost > budget) break;
      result.token_estimate += cost;
      items.push(c);
    }
    result.changed_since = { since: previous.assembled_at, total: changed.length, items };
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
