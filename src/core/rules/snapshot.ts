/**
 * The context snapshot of a handoff (docs/format.md §Creating a handoff), its digest, and the aggregate result status
 * of the handoff index (docs/format.md §Handoff index).
 */
import { createHash } from 'crypto';
import type { BlackboardEntry, HandoffSnapshot, DecisionIndexEntry, HandoffResult, ResultStatusAggregate } from '../records';
import { overlaps } from '../scope';

/** The snapshot of a handoff made with `auto_snapshot: false`. */
export function emptySnapshot(): HandoffSnapshot {
  return { decision_ids: [], warning_ids: [], finding_ids: [], summaries: [] };
}

/** What a snapshot for `scope` takes in: active decisions, warnings and findings whose scope overlaps. */
export function snapshotSources(
  decisions: readonly DecisionIndexEntry[],
  warnings: readonly BlackboardEntry[],
  findings: readonly BlackboardEntry[],
  scope: string | undefined,
): { decisions: DecisionIndexEntry[]; warnings: BlackboardEntry[]; findings: BlackboardEntry[] } {
  const inScope = (s: unknown) => !scope || (typeof s === 'string' && overlaps(s, scope));
  return {
    decisions: decisions.filter(d => hasId(d) && d.status === 'active' && inScope(d.scope)),
    warnings: warnings.filter(w => hasId(w) && inScope(w.scope)),
    findings: findings.filter(f => hasId(f) && inScope(f.scope)),
  };
}

/**
 * A record without an id (hand-edited, or written by another program) cannot be referred to: a
 * snapshot would store `null` for it and never verify as intact. Such records are left out.
 */
const hasId = (item: { id?: unknown }) => typeof item.id === 'string' && item.id !== '';

const textOf = (value: unknown) => (typeof value === 'string' ? value : value === undefined || value === null ? '(no summary)' : JSON.stringify(value));

/** Every id goes in; summaries are the first 5 decisions, 3 warnings and 3 findings, oldest first. */
export function buildSnapshot(all: ReturnType<typeof snapshotSources>): HandoffSnapshot {
  const sources = { decisions: all.decisions.filter(hasId), warnings: all.warnings.filter(hasId), findings: all.findings.filter(hasId) };
  return {
    decision_ids: sources.decisions.map(d => d.id),
    warning_ids: sources.warnings.map(w => w.id),
    finding_ids: sources.findings.map(f => f.id),
    summaries: [
      ...sources.decisions.slice(0, 5).map(d => `Decision: ${textOf(d.summary)}`),
      ...sources.warnings.slice(0, 3).map(w => `Warning: ${textOf(w.summary)}`),
      ...sources.findings.slice(0, 3).map(f => `Finding: ${textOf(f.summary)}`),
    ],
  };
}

/**
 * "sha256:" + hex digest of the snapshot's canonical JSON (the four arrays in a fixed order), so
 * that key order or whitespace in the file do not matter but any change to an id or summary does.
 */
export function snapshotDigest(snapshot: HandoffSnapshot): string {
  const canonical = JSON.stringify([snapshot.decision_ids, snapshot.warning_ids, snapshot.finding_ids, snapshot.summaries]);
  return 'sha256:' + createHash('sha256').update(canonical, 'utf8').digest('hex');
}

export function resultStatusOf(results: readonly HandoffResult[]): ResultStatusAggregate {
  if (results.length === 0) return 'completed';
  const first = results[0].status;
  return results.every(r => r.status === first) ? first : 'mixed';
}

/** A stored `context_snapshot` as the four string arrays; anything else in it is ignored. */
export function normaliseSnapshot(value: unknown): HandoffSnapshot {
  const s = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return { decision_ids: strings(s.decision_ids), warning_ids: strings(s.warning_ids), finding_ids: strings(s.finding_ids), summaries: strings(s.summaries) };
}

/** Whether a stored snapshot still hashes to its stored digest (intact when no digest was stored). */
export function snapshotIntegrity(
  snapshot: HandoffSnapshot,
  storedDigest: unknown,
): { intact: boolean; has_digest: boolean; stored_digest?: string; computed_digest: string } {
  const computed = snapshotDigest(snapshot);
  const stored = typeof storedDigest === 'string' ? storedDigest : undefined;
  return {
    intact: stored === undefined || stored === computed,
    has_digest: stored !== undefined,
    ...(stored !== undefined ? { stored_digest: stored } : {}),
    computed_digest: computed,
  };
}
