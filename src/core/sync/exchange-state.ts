import { syncStatus } from './sync-state';

/**
 * The state of `twining sync` for one clone: the one place `twining_exchange_status`
 * (operations/store-status-ops.ts) learns it from. `twining sync` fills
 * this from its own state; until a clone has been set up for sync, the answer is plainly that it
 * has not. Reads, never writes.
 */

/** A problem sync knows it has (twining-mcp's `gaps` of exchange_status: kind, what it means, the ids involved). */
export interface SyncGap {
  kind: string;
  detail: string;
  ids: string[];
}

/** What sync reports for a clone that is set up; every count comes from what sync keeps on disk. */
export interface SyncReport {
  set_up: true;
  /** Where this clone exchanges with, as sync names it (a git remote and branch, a folder). */
  transport: string;
  /** Changes written here and not yet taken by the other side. */
  outbound: { pending_ids: string[]; pending_files?: number; oldest_pending_at?: string; retries: number; uncertain_ids: string[] };
  /** Changes received and waiting on something (what they wait on, by id). */
  inbound: { received: number; waiting: { id: string; waiting_on: string[] }[] };
  /** Changes refused, by reason. */
  rejected: Record<string, number>;
  /** When this clone last exchanged, if it has. */
  last_exchange_at?: string;
  gaps: SyncGap[];
}

export type SyncState = { set_up: false; message: string } | SyncReport;

/** The sentence said when a clone has no sync set up. */
export const SYNC_NOT_SET_UP = 'sync is not set up for this clone';

/**
 * The sync state of the record folder `dir` (the `.twining/` in use), from what `twining sync`
 * keeps in the clone's git configuration and refs (sync/sync-state.ts), in twining-mcp's
 * exchange_status shape. Sync counts the record files changed since the last exchange, not ids:
 * they are `outbound.pending_files`, and `pending_ids` stays empty.
 */
export async function readSyncState(dir: string): Promise<SyncState> {
  const status = await syncStatus(dir);
  if (!status.enabled) return { set_up: false, message: SYNC_NOT_SET_UP };
  return {
    set_up: true,
    transport: `git remote ${status.remote ?? '(unset)'}, branch ${status.ref}`,
    outbound: { pending_ids: [], pending_files: status.pending, retries: 0, uncertain_ids: [] },
    inbound: { received: 0, waiting: [] },
    rejected: {},
    ...(status.last_sync_at !== undefined && { last_exchange_at: status.last_sync_at }),
    gaps: status.last_error ? [{ kind: 'sync_error', detail: status.fix ? `${status.last_error} (${status.fix})` : status.last_error, ids: [] }] : [],
  };
}
