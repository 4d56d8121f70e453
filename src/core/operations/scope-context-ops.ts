/**
 * The context of a file, folder or the whole project, as an editor shows it beside the code: the
 * decisions behind it (matched as `why` matches them), the warnings and findings whose scope
 * overlaps it, the open delegations and the unacknowledged handoffs about it. Everything comes from
 * the engine's loaded state (the blackboard and handoff index read incrementally, the decision index
 * re-parsed only when it changed, records read once per index version), so asking again after an
 * editor switch costs no re-read.
 */
import type { FolderStore } from '../engine/folder-store';
import { decisionAffects, newestFirst } from '../rules/why';
import { delegationOf, isExpired } from '../rules/delegation-detail';
import { overlaps } from '../scope';
import type { BlackboardEntry, DecisionIndexEntry, DecisionRecord, HandoffIndexLine } from '../records';
import type { Urgency } from '../schemas/schemas';
import { DecisionRelations } from './decision-relations';

export interface ContextDecision {
  id: string;
  summary: string;
  domain: string;
  scope: string;
  status: string;
  confidence: string;
  timestamp: string;
  /** Who recorded it (from its record; undefined when the record cannot be read). */
  agent_id?: string;
  rationale?: string;
  /** For a superseded decision: the one that replaced it. */
  replaced_by?: { id: string; summary: string; status: string };
  overridden_by?: string;
  override_reason?: string;
}

export interface ContextDelegation {
  entry_id: string;
  summary: string;
  scope: string;
  agent_id: string;
  timestamp: string;
  urgency: Urgency;
  expires_at: string;
  required_capabilities: string[];
}

export interface ScopeContext {
  /** The scope asked about; undefined for the whole project. */
  scope?: string;
  /** Active and provisional decisions first, then superseded and overridden ones; newest first within each. */
  decisions: ContextDecision[];
  active_count: number;
  provisional_count: number;
  /** Newest first. */
  warnings: BlackboardEntry[];
  findings: BlackboardEntry[];
  /** Needs, warnings and questions resolved (twining-mcp 2.x), newest first: shown folded, with who resolved them and why. */
  resolved: BlackboardEntry[];
  delegations: ContextDelegation[];
  handoffs: HandoffIndexLine[];
  /** How many there are in all, when a list was cut at `limit` (the whole project). */
  totals: { decisions: number; warnings: number; findings: number; delegations: number; handoffs: number; resolved: number };
}

/** What this engine knows from decision records (supersessions, snapshots naming a decision). */
export function relationsOf(ctx: FolderStore): DecisionRelations {
  return ctx.derived.of('decision relations', () => new DecisionRelations(ctx));
}

const isCurrent = (status: unknown) => status === 'active' || status === 'provisional';

/**
 * The context of `scope` (a workspace-relative file or folder, or a symbol; undefined for the
 * whole project), each list cut at `limit` (default: unlimited for a scope, 200 for the project).
 */
export async function scopeContext(ctx: FolderStore, scope: string | undefined, options: { limit?: number } = {}): Promise<ScopeContext> {
  const limit = options.limit ?? (scope ? Infinity : 200);
  const now = ctx.now();
  await Promise.all([ctx.blackboard.refresh(), ctx.handoffIndex.refresh()]);
  await ctx.decisionIndex.get();

  // Decisions: current ones first, newest first within each group.
  // Kept with the index until it changes: switching back to a file filters nothing again.
  const matching = ctx.derived.fromDecisions(
    'decisions affecting scope',
    items => items.filter(d => typeof d.id === 'string' && (!scope || decisionAffects(d, scope))),
    scope ?? '',
  );
  const current = matching.filter(d => isCurrent(d.status)).sort(newestFirst);
  const past = matching.filter(d => !isCurrent(d.status)).sort(newestFirst);
  const listed = [...current.slice(0, limit), ...past.slice(0, limit)];
  const decisions = await describeDecisions(ctx, listed);

  const inScope = ctx.blackboard.inScope(scope);
  const warnings = newestEntries(inScope.warnings, limit);
  const findings = newestEntries(inScope.findings, limit);
  const resolvedInScope = ctx.blackboard.resolved.filter(e => !scope || (typeof e.scope === 'string' && overlaps(e.scope, scope)));
  const resolved = newestEntries(resolvedInScope, limit);

  const delegations: ContextDelegation[] = [];
  let delegationCount = 0;
  const needs = scope ? ctx.blackboard.needsInScope(scope) : ctx.blackboard.needs;
  for (let i = needs.length - 1; i >= 0; i--) {
    const need = needs[i];
    const detail = delegationOf(need);
    if (!detail || isExpired(detail, now)) continue;
    delegationCount++;
    if (delegations.length >= limit) continue;
    delegations.push({
      entry_id: need.id,
      summary: need.summary,
      scope: need.scope,
      agent_id: need.agent_id,
      timestamp: need.timestamp,
      urgency: detail.urgency,
      expires_at: detail.expires_at,
      required_capabilities: detail.required_capabilities,
    });
  }

  // Unacknowledged handoffs about this scope (one without a scope is about the whole project).
  const handoffs: HandoffIndexLine[] = [];
  let handoffCount = 0;
  const lines = ctx.handoffIndex.sorted();
  for (let i = lines.length - 1; i >= 0; i--) {
    const h = lines[i];
    if (h.acknowledged === true) continue;
    if (scope && !(typeof h.scope === 'string' && h.scope !== '' && overlaps(h.scope, scope))) continue;
    handoffCount++;
    if (handoffs.length < limit) handoffs.push(h);
  }

  return {
    ...(scope ? { scope } : {}),
    decisions,
    active_count: current.filter(d => d.status === 'active').length,
    provisional_count: current.filter(d => d.status === 'provisional').length,
    warnings,
    findings,
    resolved,
    delegations,
    handoffs,
    totals: {
      decisions: matching.length,
      warnings: inScope.warnings.length,
      findings: inScope.findings.length,
      delegations: delegationCount,
      handoffs: handoffCount,
      resolved: resolvedInScope.length,
    },
  };
}

function newestEntries(entries: readonly BlackboardEntry[], limit: number): BlackboardEntry[] {
  // File order is append order; entries with equal or out-of-order times keep it reversed.
  const out = entries.slice().reverse();
  out.sort((a, b) => (a.timestamp === b.timestamp ? 0 : String(a.timestamp) < String(b.timestamp) ? 1 : -1));
  return out.slice(0, limit);
}

/** Index entries as listed: who recorded each, and for the past ones what replaced or overrode them. */
async function describeDecisions(ctx: FolderStore, listed: readonly DecisionIndexEntry[]): Promise<ContextDecision[]> {
  const r = relationsOf(ctx);
  const records = await r.recordsOf(listed.map(d => d.id));
  for (const record of records) if (record) r.noteRecord(record);
  const byId = new Map(listed.map(d => [d.id, d] as const));
  const out: ContextDecision[] = [];
  for (let i = 0; i < listed.length; i++) {
    const d = listed[i];
    const record = records[i];
    const item: ContextDecision = {
      id: d.id,
      summary: String(d.summary ?? record?.summary ?? ''),
      domain: String(d.domain ?? record?.domain ?? ''),
      scope: String(d.scope ?? record?.scope ?? ''),
      status: String(d.status ?? record?.status ?? ''),
      confidence: String(d.confidence ?? record?.confidence ?? ''),
      timestamp: String(d.timestamp ?? ''),
    };
    if (record) {
      if (typeof record.agent_id === 'string') item.agent_id = record.agent_id;
      if (typeof record.rationale === 'string') item.rationale = record.rationale;
      if (typeof record.overridden_by === 'string') item.overridden_by = record.overridden_by;
      if (typeof record.override_reason === 'string') item.override_reason = record.override_reason;
    }
    if (d.status === 'superseded') {
      // From the records read so far (a replacement usually covers the same file, so it is among
      // them); reading every record to find one elsewhere is left to the decision's document.
      const by = r.knownReplacementOf(d.id);
      if (by) item.replaced_by = await summaryOf(ctx, r, by, byId);
    }
    out.push(item);
  }
  return out;
}

async function summaryOf(
  ctx: FolderStore,
  r: DecisionRelations,
  id: string,
  known: ReadonlyMap<string, DecisionIndexEntry>,
): Promise<{ id: string; summary: string; status: string }> {
  const entry = known.get(id) ?? (await ctx.decisionIndex.get()).find(d => d.id === id);
  const record: DecisionRecord | undefined = entry ? undefined : await r.record(id);
  return { id, summary: String(entry?.summary ?? record?.summary ?? ''), status: String(entry?.status ?? record?.status ?? 'missing') };
}
