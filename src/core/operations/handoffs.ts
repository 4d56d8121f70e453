/**
 * Handoffs: handing work over with a snapshot of its scope, listing them and acknowledging one.
 * `handoff` takes the snapshot the user confirmed, if any: when what is in scope changed since,
 * nothing is written (CHANGED, with what changed).
 */
import type { HandoffSnapshot } from '../records';
import { operation } from './operation';
import * as handoffOps from './handoff-ops';
import * as graph from './graph-populate-ops';

export const handoffOperations = {
  handoff: operation('handoff', (store, input, options?: { confirmed?: HandoffSnapshot }) =>
    graph.withGraph(
      store,
      () => handoffOps.handoff(store, input, options),
      h => graph.onHandoff(store, h),
    ),
  ),
  handoffs: operation('handoffs', (store, input) => handoffOps.handoffs(store, input)),
  acknowledge: operation('acknowledge', (store, input) => handoffOps.acknowledge(store, input)),
};
