/**
 * What changed between the snapshot a user confirmed and the one a handoff would attach now: the
 * decisions, warnings and findings that came into scope or left it, by id and summary. Pure; the
 * handoff operation (operations/handoff-ops.ts) computes both snapshots and refuses to write when they differ.
 */
import type { HandoffSnapshot } from '../records';
import { snapshotDigest } from './snapshot';

export type SnapshotItemKind = 'decision' | 'warning' | 'finding';

export interface SnapshotChange {
  item: SnapshotItemKind;
  id: string;
  summary: string;
}

export interface SnapshotChanges {
  /** The digest the caller confirmed. */
  expected_digest: string;
  /** The digest of the snapshot as it stands now (what would be written). */
  current_digest: string;
  /** The snapshot as it stands now: confirm this one (its digest) to hand it over. */
  current: HandoffSnapshot;
  /** In the current snapshot, not in the confirmed one (empty when only the digest was given). */
  added: SnapshotChange[];
  /** In the confirmed snapshot, not in the current one (empty when only the digest was given). */
  removed: SnapshotChange[];
  /** Whether the confirmed snapshot's ids were known, so that `added` and `removed` are complete. */
  compared_ids: boolean;
}

const KEYS = [
  ['decision', 'decision_ids'],
  ['warning', 'warning_ids'],
  ['finding', 'finding_ids'],
] as const;

/**
 * The changes from `confirmed` (or only its digest) to `current`; undefined when the digests agree.
 * `summaryOf` names an item (the current summary, else the id).
 */
export function snapshotChanges(
  expected: { digest: string; snapshot?: HandoffSnapshot },
  current: HandoffSnapshot,
  summaryOf: (item: SnapshotItemKind, id: string) => string | undefined,
): SnapshotChanges | undefined {
  const currentDigest = snapshotDigest(current);
  if (currentDigest === expected.digest) return undefined;
  const added: SnapshotChange[] = [];
  const removed: SnapshotChange[] = [];
  const confirmed = expected.snapshot;
  if (confirmed) {
    for (const [item, key] of KEYS) {
      const before = new Set(confirmed[key]);
      const now = new Set(current[key]);
      for (const id of current[key]) if (!before.has(id)) added.push({ item, id, summary: summaryOf(item, id) ?? id });
      for (const id of confirmed[key]) if (!now.has(id)) removed.push({ item, id, summary: summaryOf(item, id) ?? id });
    }
  }
  return { expected_digest: expected.digest, current_digest: currentDigest, current, added, removed, compared_ids: confirmed !== undefined };
}

/** One sentence: "1 warning came into scope: "…" (id); 1 decision left it: …", or why else it differs. */
export function describeSnapshotChanges(changes: SnapshotChanges): string {
  const list = (items: SnapshotChange[]) => items.map(c => `${c.item} "${c.summary}" (${c.id})`).join(', ');
  const parts: string[] = [];
  if (changes.added.length) parts.push(`came into scope: ${list(changes.added)}`);
  if (changes.removed.length) parts.push(`left it: ${list(changes.removed)}`);
  if (parts.length) return parts.join('; ');
  return changes.compared_ids
    ? 'the same items, but their summaries changed'
    : `it is now ${changes.current.decision_ids.length} decision(s), ${changes.current.warning_ids.length} warning(s), ${changes.current.finding_ids.length} finding(s) (digest ${changes.current_digest})`;
}
