/**
 * A claim with sync on is granted only once the remote has accepted it: after the local grant
 * (the claims log's lock, one winner per clone) the clone syncs at once, and the push of the
 * record is the compare-and-swap between clones (claim-settle.ts). If another clone's claim got
 * there first, this one comes back released and the caller is refused, naming the holder.
 *
 * When the remote cannot be reached the claim is granted here with a warning (`sync.confirmed:
 * false`) rather than refused: a claim is how an agent says what it works on, and refusing every
 * claim while a laptop is offline would stop the work it protects; the warning says the claim is
 * only this clone's until the next sync, which settles it (and releases it, with the reason, if
 * another clone claimed the same file meanwhile).
 */
import type { FolderStore } from '../engine/folder-store';
import type { ClaimResult } from '../operations/claim-ops';
import { claimClock, claimItems } from '../operations/claim-ops';
import { claimConflicts, describeHolder, isClaim } from '../rules/claims';
import { repoOf, syncEnabled } from './sync-state';
import { syncFolder } from './sync-folder';

export interface ClaimSync {
  /** Whether the remote accepted the claim (or settled it against another clone's). */
  confirmed: boolean;
  remote?: string;
  warning?: string;
}

export type SyncedClaimResult = ClaimResult & { sync?: ClaimSync };

/** Network time a claim waits for the remote before it is granted locally with a warning. */
const CLAIM_SYNC_TIMEOUT_MS = 15_000;

export async function confirmClaim(ctx: FolderStore, result: ClaimResult, agentId: string): Promise<SyncedClaimResult> {
  if (!result.granted || result.claims.length === 0) return result;
  const repo = await repoOf(ctx.layout.dir);
  if (!repo || !(await syncEnabled(repo))) return result;
  let remote: string | undefined;
  try {
    const report = await syncFolder(ctx, { reason: 'claim', networkTimeoutMs: CLAIM_SYNC_TIMEOUT_MS });
    remote = report.remote;
  } catch (error) {
    const warning = `granted on this clone only: the remote could not confirm it (${(error as Error).message}); the next sync settles it, and if another clone claimed the same target meanwhile, theirs wins and this one is released`;
    ctx.warn(`claim: ${warning}`);
    return { ...result, sync: { confirmed: false, warning } };
  }
  const [items, clock] = await Promise.all([claimItems(ctx), claimClock(ctx)]);
  const mine = new Set(result.claims.map(c => c.id));
  const lost = items.filter(item => isClaim(item) && mine.has(item.id) && item.released_at !== undefined);
  if (lost.length === 0) return { ...result, sync: { confirmed: true, remote } };
  const conflicts = result.claims.map(c => {
    const held_by = claimConflicts(items, c.target, agentId, clock);
    return { target: c.target, held_by, message: `${c.target}: ${held_by.map(describeHolder).join('; ')} (another clone's claim, which ${remote} had first)` };
  });
  return { granted: false, claims: [], conflicts, lapsed: result.lapsed, sync: { confirmed: true, remote } };
}
