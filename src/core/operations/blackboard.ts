/** The blackboard's operations: posting, reading and dismissing entries. */
import { operation } from './operation';
import * as blackboardOps from './blackboard-ops';
import * as graph from './graph-populate-ops';

export const blackboardOperations = {
  post: operation('post', (store, input) => graph.withGraph(store, () => blackboardOps.post(store, input))),
  read: operation('read', (store, input) => blackboardOps.read(store, input)),
  dismiss: operation('dismiss', (store, input) => graph.withGraph(store, () => blackboardOps.dismiss(store, input))),
};
