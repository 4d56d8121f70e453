/**
 * How a handoff's context drifted since it was created (the `drift` of `verify`): decisions of its
 * snapshot no longer active, warnings and findings removed (dismissed, or moved to the archive) or resolved,
 * and decisions and warnings that came later in its scope. Pure: the caller looks the facts up.
 */
import type { BlackboardEntry, HandoffSnapshot, DecisionIndexEntry, DriftItem, VerifyResult } from '../records';
import { overlaps } from '../scope';

export type Drift = VerifyResult['drift'];

export interface DriftFacts {
  snapshot: HandoffSnapshot;
  /** The handoff's scope; empty or undefined: the whole project. */
  scope: string | undefined;
  /** Every decision of the index, by id. */
  decisionsById: ReadonlyMap<string, Pick<DecisionIndexEntry, 'status' | 'summary'>>;
  /** The snapshot's warnings and findings that are no longer on the blackboard (see `missingEntries`). */
  missing: readonly string[];
  /** Those of `missing` found in the archive, with their summaries. */
  archived: ReadonlyMap<string, { summary?: string }>;
  /** Active decisions made after the handoff was created, oldest first. */
  decisionsAfter: readonly DecisionIndexEntry[];
  /** Warnings posted after the handoff was created, oldest first. */
  warningsAfter: readonly BlackboardEntry[];
  /** The snapshot's warnings still on the blackboard but resolved since (twining-mcp 2.x), with their summaries. */
  resolved?: ReadonlyMap<string, { summary?: string }>;
}

/** The snapshot's warning and finding ids for which `onBlackboard` says no. */
export function missingEntries(snapshot: HandoffSnapshot, onBlackboard: (id: string) => boolean): string[] {
  return [...snapshot.warning_ids, ...snapshot.finding_ids].filter(id => !onBlackboard(id));
}

export function driftOf(facts: DriftFacts): { drift: Drift; drifted: boolean } {
  const { snapshot } = facts;
  const decisions_no_longer_active: DriftItem[] = [];
  for (const id of snapshot.decision_ids) {
    const d = facts.decisionsById.get(id);
    if (!d) decisions_no_longer_active.push({ id, now: 'missing' });
    else if (d.status !== 'active') decisions_no_longer_active.push({ id, summary: d.summary, now: d.status });
  }
  const entries_removed: DriftItem[] = facts.missing.map(id => {
    const a = facts.archived.get(id);
    return a ? { id, summary: a.summary, now: 'archived' } : { id, now: 'dismissed' };
  });
  for (const [id, r] of facts.resolved ?? []) entries_removed.push({ id, ...(r.summary !== undefined ? { summary: r.summary } : {}), now: 'resolved' });
  const scope = facts.scope || undefined;
  const inScope = (s: unknown) => !scope || (typeof s === 'string' && overlaps(s, scope));
  const known = new Set([...snapshot.decision_ids, ...snapshot.warning_ids]);
  const isNew = (item: { id: string; scope: unknown }) => !known.has(item.id) && inScope(item.scope);
  const brief = (item: { id: string; summary: string; scope: string; timestamp: string }) => ({
    id: item.id,
    summary: item.summary,
    scope: item.scope,
    timestamp: item.timestamp,
  });
  const new_decisions = facts.decisionsAfter.filter(isNew).map(brief);
  const new_warnings = facts.warningsAfter.filter(isNew).map(brief);
  const drift = { decisions_no_longer_active, entries_removed, new_decisions, new_warnings };
  return { drift, drifted: Object.values(drift).some(list => list.length > 0) };
}
