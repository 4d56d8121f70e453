/**
 * The engine's methods for twining-mcp 2.x's tools that close and review what is open: resolve,
 * triage, archive_stale and unarchive. TwiningEngine (engine.ts) extends this class through
 * HistoryAndGraphTools, so they are engine methods like the others; each is a thin call into ops/.
 */
import type { InputOf } from '../schemas/schemas';
import { HistoryAndGraphTools } from './engine-history-tools';
import * as graph from '../operations/graph-populate-ops';
import { resolve } from '../operations/resolve-ops';
import { triage } from '../operations/triage-ops';
import { archiveStale, unarchive } from '../operations/stale-ops';
import { housekeeping } from '../operations/housekeeping-ops';

export abstract class OpenItemTools extends HistoryAndGraphTools {
  /** Marks needs, warnings or questions resolved, keeping them on the blackboard (twining_resolve). */
  resolve(input: InputOf<'resolve'>) {
    return resolve(this.ctx, input);
  }
  /** The review queue: open items oldest first, recent activity newest first (twining_triage). */
  triage(input: InputOf<'triage'> = {}) {
    return triage(this.ctx, input);
  }
  /** Archives decisions (restorable) and removes blackboard entries with a tombstone (twining_archive_stale). */
  archive_stale(input: InputOf<'archive_stale'>) {
    return graph.withGraph(this.ctx, () => archiveStale(this.ctx, input));
  }
  /** Restores archived decisions to the status they had before (twining_unarchive). */
  unarchive(input: InputOf<'unarchive'>) {
    return graph.withGraph(this.ctx, () => unarchive(this.ctx, input));
  }
  /** Periodic maintenance, a preview unless `execute` (twining_housekeeping). */
  housekeeping(input: InputOf<'housekeeping'> = {}) {
    return graph.withGraph(this.ctx, () => housekeeping(this.ctx, input));
  }
}
