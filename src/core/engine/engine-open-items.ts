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
import { amend } from '../operations/amend-ops';
import { getDecision } from '../operations/decision-ops';
import { exchangeStatus, migrateStatus } from '../operations/store-status-ops';

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
  /** Adds affected files or symbols to a decision, keeping a trail (twining_amend); the graph gains the new ones only. */
  amend(input: InputOf<'amend'>) {
    return graph.withGraph(
      this.ctx,
      () => amend(this.ctx, input),
      async r => {
        if (r.unchanged) return;
        const d = await getDecision(this.ctx, r.id);
        if (d)
          await graph.onDecide(this.ctx, { id: d.id, scope: d.scope, summary: d.summary, affected_files: r.added_files, affected_symbols: r.added_symbols });
      },
    );
  }
  /** The folder's format and where a migration stands (twining_migrate_status). */
  migrate_status(input: InputOf<'migrate_status'> = {}) {
    return migrateStatus(this.ctx, input);
  }
  /** What this clone's exchange with others (twining sync) is uncertain about (twining_exchange_status). */
  exchange_status(input: InputOf<'exchange_status'> = {}) {
    return exchangeStatus(this.ctx, input);
  }
}
