/**
 * `twining sync` on an engine's folder (sync-run.ts), the engine supplying what the sync needs of
 * it (sync-host.ts): its graph's queued upkeep, its folder made when missing, the claims' clock
 * and its locks for writing what came in.
 */
import { promises as fs } from 'fs';
import type { FolderStore } from '../engine/folder-store';
import { settleGraph } from '../operations/graph-ops';
import { claimClock } from '../operations/claim-ops';
import { applyLocally } from './sync-apply';
import type { SyncLayout } from './record-files';
import type { SyncHost } from './sync-host';
import { SyncOptions, SyncReport, syncWith } from './sync-run';

export function layoutOf(ctx: FolderStore): SyncLayout {
  return ctx.sqlite ? 'sqlite' : 'files';
}

export function engineHost(ctx: FolderStore): SyncHost {
  return {
    dir: ctx.layout.dir,
    layout: layoutOf(ctx),
    timestamp: () => ctx.timestamp(),
    assertWritable: op => ctx.assertWritable(op),
    async prepare() {
      // The graph's upkeep still queued after a post (an MCP server's batched graph) is written first: a sync right after a post sends all of it.
      await settleGraph(ctx);
      // A clone that never had the record (its .twining/ was not committed) gets the folder first.
      if (!(await fs.stat(ctx.layout.dir).catch(() => undefined))?.isDirectory()) await ctx.ready();
    },
    claimClock: () => claimClock(ctx),
    applyLocally: (read, merged, notes) => applyLocally(ctx, read, merged, notes),
  };
}

/**
 * Syncs the engine's folder with its repository's remote. Throws a TwiningError naming the remote
 * and the record when it cannot (nothing local is lost; the state says why, for the status bar).
 */
export function syncFolder(ctx: FolderStore, options: SyncOptions = {}): Promise<SyncReport> {
  return syncWith(engineHost(ctx), options);
}
