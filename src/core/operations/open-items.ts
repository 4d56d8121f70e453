/** twining-mcp 2.x's tools that close and review what is open: resolve, triage, archive_stale, unarchive and housekeeping. */
import { operation } from './operation';
import { resolve } from './resolve-ops';
import { triage } from './triage-ops';
import { archiveStale, unarchive } from './stale-ops';
import { housekeeping } from './housekeeping-ops';
import * as graph from './graph-populate-ops';

export const openItemOperations = {
  resolve: operation('resolve', (store, input) => resolve(store, input)),
  triage: operation('triage', (store, input) => triage(store, input)),
  archive_stale: operation('archive_stale', (store, input) => graph.withGraph(store, () => archiveStale(store, input))),
  unarchive: operation('unarchive', (store, input) => graph.withGraph(store, () => unarchive(store, input))),
  housekeeping: operation('housekeeping', (store, input) => graph.withGraph(store, () => housekeeping(store, input))),
};
