/** Looking at the whole record: the folder's status, a handoff's or a scope's verification, and search. */
import { operation } from './operation';
import { status } from './status-ops';
import { routeSummary } from '../git/record-location';
import { verify } from './verify-ops';
import { search } from './search-ops';
import * as graph from './graph-populate-ops';

export const checkOperations = {
  /** twining-mcp's summary, plus `record`: which record this is and why, when the engine was opened through routing. */
  status: operation('status', async (store, input) => {
    const result = await status(store, input);
    return store.route ? { ...result, record: routeSummary(store.route) } : result;
  }),
  verify: operation('verify', (store, input) => graph.withGraph(store, () => verify(store, input))),
  search: operation('search', (store, input) => search(store, input)),
};
