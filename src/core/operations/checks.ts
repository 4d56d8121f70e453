/** Looking at the whole record: the folder's status, a handoff's or a scope's verification, and search. */
import { operation } from './operation';
import { status } from './status-ops';
import { verify } from './verify-ops';
import { search } from './search-ops';
import * as graph from './graph-populate-ops';

export const checkOperations = {
  status: operation('status', (store, input) => status(store, input)),
  verify: operation('verify', (store, input) => graph.withGraph(store, () => verify(store, input))),
  search: operation('search', (store, input) => search(store, input)),
};
