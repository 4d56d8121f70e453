/** twining-mcp 2.x's tools that close and review what is open: resolve, triage, archive_stale, unarchive and housekeeping; and amend, migrate_status and exchange_status. */
import { operation } from './operation';
import { resolve } from './resolve-ops';
import { triage } from './triage-ops';
import { archiveStale, unarchive } from './stale-ops';
import { housekeeping } from './housekeeping-ops';
import * as graph from './graph-populate-ops';
import { amend } from './amend-ops';
import { getDecision } from './decision-ops';
import { exchangeStatus, migrateStatus } from './store-status-ops';

export const openItemOperations = {
  resolve: operation('resolve', (store, input) => resolve(store, input)),
  triage: operation('triage', (store, input) => triage(store, input)),
  archive_stale: operation('archive_stale', (store, input) => graph.withGraph(store, () => archiveStale(store, input))),
  unarchive: operation('unarchive', (store, input) => graph.withGraph(store, () => unarchive(store, input))),
  housekeeping: operation('housekeeping', (store, input) => graph.withGraph(store, () => housekeeping(store, input))),
  // Adds affected files or symbols to a decision, keeping a trail; the graph gains the new ones only.
  amend: operation('amend', (store, input) =>
    graph.withGraph(
      store,
      () => amend(store, input),
      async r => {
        if (r.unchanged) return;
        const d = await getDecision(store, r.id);
        if (d) await graph.onDecide(store, { id: d.id, scope: d.scope, summary: d.summary, affected_files: r.added_files, affected_symbols: r.added_symbols });
      },
    ),
  ),
  migrate_status: operation('migrate_status', (store, input) => migrateStatus(store, input)),
  exchange_status: operation('exchange_status', (store, input) => exchangeStatus(store, input)),
};
