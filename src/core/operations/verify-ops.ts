/**
 * verify: whether a handoff's snapshot is intact and how its context drifted (rules/drift.ts).
 * Only what came after the handoff is looked at (binary search over lists sorted by time), so the
 * cost does not grow with the history before it.
 */
import type { FolderStore } from '../engine/folder-store';
import { byTime, firstAfter } from '../storage/files/loaded-files';
import { TwiningError } from '../errors';
import { InputOf, isUlid } from '../schemas/schemas';
import { normaliseSnapshot, snapshotIntegrity } from '../rules/snapshot';
import { driftOf, missingEntries } from '../rules/drift';
import { isResolved } from '../rules/resolution';
import type { BlackboardEntry } from '../records';
import type { VerifyResult } from '../records';
import { ScopeVerifyResult, verifyScope } from './scope-verify-ops';
import { decisionsById } from './decision-record-cache';

/** verify by its input's shape: a handoff's snapshot and drift (handoff_id), or twining-mcp's checks of a scope (scope). */
export async function verify(ctx: FolderStore, input: InputOf<'verify'>): Promise<VerifyResult | ScopeVerifyResult> {
  const args = ctx.validate('verify', input);
  if (args.scope !== undefined) return verifyScope(ctx, { ...args, scope: args.scope });
  return verifyHandoff(ctx, args.handoff_id!);
}

async function verifyHandoff(ctx: FolderStore, handoff_id: string): Promise<VerifyResult> {
  const args = { handoff_id };
  const handoff = await ctx.handoffRecords.get(args.handoff_id);
  if (!handoff) throw new TwiningError('NOT_FOUND', `Handoff not found: ${args.handoff_id}`);
  const snapshot = normaliseSnapshot(handoff.context_snapshot);
  await ctx.blackboard.refresh();
  await ctx.decisionIndex.get();
  const missing = missingEntries(snapshot, id => ctx.blackboard.get(id) !== undefined);
  const createdAt = String(handoff.created_at);
  const activeByTime = ctx.derived.fromDecisions('active decisions by time', items => byTime(items.filter(d => d.status === 'active')));
  const { drift, drifted } = driftOf({
    snapshot,
    scope: handoff.scope,
    decisionsById: decisionsById(ctx),
    missing,
    archived: missing.length ? await ctx.archive.find(missing) : new Map(),
    decisionsAfter: activeByTime.slice(firstAfter(activeByTime, createdAt)),
    warningsAfter: ctx.blackboard.warningsAfter(createdAt),
    resolved: resolvedSince(snapshot.warning_ids, id => ctx.blackboard.get(id)),
  });

  const chain = [handoff.id ?? args.handoff_id];
  for (let next = handoff.continues; typeof next === 'string' && chain.length < 1000 && !chain.includes(next);) {
    chain.push(next);
    // A corrupt link ends the chain; the handoff being verified is what must be readable.
    next = isUlid(next) ? (await ctx.handoffRecords.get(next).catch(() => undefined))?.continues : undefined;
  }
  return { handoff_id: args.handoff_id, ...snapshotIntegrity(snapshot, handoff.snapshot_digest), drift, drifted, chain };
}

/** The snapshot's warnings that are on the blackboard but resolved (a snapshot takes open warnings only). */
function resolvedSince(ids: readonly string[], get: (id: string) => BlackboardEntry | undefined): Map<string, { summary?: string }> {
  const out = new Map<string, { summary?: string }>();
  for (const id of ids) {
    const entry = get(id);
    if (entry && isResolved(entry)) out.set(id, { summary: typeof entry.summary === 'string' ? entry.summary : undefined });
  }
  return out;
}
