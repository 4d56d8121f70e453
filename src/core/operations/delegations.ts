/** Delegations: asking for an agent with given capabilities, and the open and expired requests. */
import { operation } from './operation';
import * as delegationOps from './delegation-ops';
import * as graph from './graph-populate-ops';

export const delegationOperations = {
  delegate: operation('delegate', (store, input) => graph.withGraph(store, () => delegationOps.delegate(store, input))),
  delegations: operation('delegations', (store, input) => delegationOps.delegations(store, input)),
};
