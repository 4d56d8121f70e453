/**
 * The last steps of a briefing (assemble-ops.ts), shared with the SessionStart hook's briefing
 * brought up to date from its basis (storage/derived/briefing-basis.ts), so that both put the same items in
 * the same places: the chosen items into their sections, and what others wrote in the scope since
 * the agent's previous briefing. Pure.
 */
import type { AssembledContext, AssembledDecision, ChangedItem } from './briefing-types';
import { decisionInScope, estimateTokens } from '../rules/assembly';
import { overlaps } from '../scope';

const CHANGED_ITEMS = 10;

/** An entry's place in the briefing, as it is chosen (its kind, where it is, why). */
export interface PlacedEntry {
  id: string;
  entry_type: string;
  summary: string;
  detail?: string;
  scope: string;
  timestamp: string;
  agent_id?: string;
}

/** An entry's fields a briefing shows. */
export const placedEntry = (e: PlacedEntry): PlacedEntry => ({
  id: e.id,
  entry_type: e.entry_type,
  summary: e.summary,
  detail: e.detail,
  scope: e.scope,
  timestamp: e.timestamp,
  agent_id: e.agent_id,
});

/** A briefing with its budget filled (`fill`), its sections still empty but for what is given. */
export function briefingOf(
  b: { assembled_at: string; task: string; scope: string; agent_id: string; max_tokens: number },
  fill: { tokens: number; warningsOmitted: number },
  given: Pick<AssembledContext, 'related_entities' | 'recent_handoffs' | 'active_claims'>,
): AssembledContext {
  return {
    assembled_at: b.assembled_at,
    task: b.task,
    scope: b.scope,
    agent_id: b.agent_id,
    token_estimate: fill.tokens,
    max_tokens: b.max_tokens,
    ...(fill.warningsOmitted ? { warnings_omitted: fill.warningsOmitted } : {}),
    active_decisions: [],
    open_needs: [],
    recent_findings: [],
    active_warnings: [],
    recent_questions: [],
    related_entities: given.related_entities,
    recent_handoffs: given.recent_handoffs,
    active_claims: given.active_claims,
  };
}

/** Why an entry is in a briefing of `scope`. */
export function entryReason(e: { entry_type: string; scope: string }, scope: string): string {
  const label =
    e.entry_type === 'warning' ? 'active warning' : e.entry_type === 'need' ? 'open need' : e.entry_type === 'question' ? 'open question' : 'finding';
  return `${label} in ${e.scope}${e.scope === scope ? '' : ` (overlaps ${scope})`}`;
}

/** The chosen items (in byScore order) into the briefing's sections; a decision's item made by `decisionOf`. */
export function placeChosen<T extends { id: string; reason: string; decision?: unknown; entry?: PlacedEntry }>(
  result: AssembledContext,
  chosen: readonly T[],
  summaryOnly: ReadonlySet<string>,
  decisionOf: (item: T) => AssembledDecision,
): void {
  for (const item of chosen) {
    if (item.decision) {
      result.active_decisions.push(decisionOf(item));
      continue;
    }
    const e = item.entry!;
    const base = { id: e.id, summary: e.summary, scope: e.scope, timestamp: e.timestamp, agent_id: e.agent_id, reason: item.reason };
    if (e.entry_type === 'warning') result.active_warnings.push({ ...base, detail: summaryOnly.has(e.id) ? '' : e.detail });
    else if (e.entry_type === 'need') result.open_needs.push(base);
    else if (e.entry_type === 'question') result.recent_questions.push(base);
    else result.recent_findings.push({ ...base, detail: e.detail });
  }
}

/** The decisions in `index` newer than `since` that bear on `scope`, as changed items. */
export function changedDecisions(
  index: Iterable<{ id: string; timestamp: string; status: string; summary: string; scope: string }>,
  since: string,
  scope: string,
): ChangedItem[] {
  const out: ChangedItem[] = [];
  for (const d of index)
    if (d.timestamp > since && decisionInScope(d, scope))
      out.push({ id: d.id, kind: `decision (${d.status})`, summary: d.summary, scope: d.scope, timestamp: d.timestamp });
  return out;
}

/**
 * "Changed since": `changed` (the decisions newer than the previous briefing) and the blackboard
 * entries newer than it (`newest`, newest first, up to the first that is not newer) that others
 * wrote in the scope; the newest first as the budget allows (`result.token_estimate` grows), none
 * already `shown`.
 */
export function changedSince(
  result: AssembledContext,
  changed: ChangedItem[],
  newest: Iterable<{ id: string; entry_type: string; summary: string; scope: string; agent_id?: string; timestamp: string }>,
  since: string,
  scope: string,
  agentId: string,
  shown: ReadonlySet<string>,
  budget: number,
): NonNullable<AssembledContext['changed_since']> {
  for (const e of newest) {
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
  return { since, total: changed.length, items };
}
