/**
 * What a sync needs of the folder it runs on, beyond git and the record's files (sync-run.ts):
 * the engine's parts, supplied by sync-folder.ts for an engine's folder, or by sync-quick.ts for
 * `twining sync` started as a new process, which does not load the engine unless it must.
 */
import type { ClaimClock } from '../rules/claims';
import type { SyncLayout } from './record-files';

export interface SyncHost {
  /** The record folder (`.twining/`) the sync reads and writes. */
  readonly dir: string;
  readonly layout: SyncLayout;
  timestamp(): string;
  /** Throws when this folder must not be written (write-trust.ts). */
  assertWritable(op: string): void;
  /** Before anything is read: the graph's upkeep still queued written, a missing folder made. */
  prepare(): Promise<void>;
  /** The claims' clock (who is live), for settling claims made on both sides (claim-settle.ts). */
  claimClock(): Promise<ClaimClock>;
  /** Writes what came in into the folder under the operations' locks (sync-apply.ts). */
  applyLocally(read: Map<string, Buffer>, merged: Map<string, Buffer>, notes: string[]): Promise<void>;
  /**
   * Set by the quick host: a round that would write anything into the folder (something came in,
   * a claim was lost) is dropped before its push and the sync throws EngineNeeded, so that the
   * caller runs the whole sync on the engine instead. Nothing has then moved but the fetched ref.
   */
  readonly quick?: boolean;
}

/** A quick sync (sync-quick.ts) met what only the engine's sync handles; nothing was pushed or written to the folder. */
export class EngineNeeded extends Error {
  /** Set when the remote refused the push made before any fetch: its record moved, so the engine's sync fetches first (SyncOptions.fetchFirst). */
  remoteMoved = false;
}
