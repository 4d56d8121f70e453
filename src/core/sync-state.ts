/**
 * The state of `twining sync` for one clone: the one place `twining_exchange_status`
 * (ops/store-status-ops.ts) learns it from. `twining sync` (another piece of work, issue 28) fills
 * this in when it lands; until a clone has been set up for sync, the answer is plainly that it has
 * not. Pure Node; reads, never writes and never runs git.
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
  outbound: { pending_ids: string[]; oldest_pending_at?: string; retries: number; uncertain_ids: string[] };
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
 * The sync state of the project at `root` (the folder that holds `.twining/`). Today no clone is
 * set up for sync: `twining sync` is not part of this version yet.
 */
export function readSyncState(root: string): Promise<SyncState> {
  void root;
  return Promise.resolve({ set_up: false, message: SYNC_NOT_SET_UP });
}
