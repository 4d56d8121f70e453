/** Looking at the whole record: the folder's status, a handoff's or a scope's verification, and search. */
import { operation } from './operation';
import { status } from './status-ops';
import { recordStatus } from '../git/fold-checked-out-copy';
import { verify } from './verify-ops';
import { search } from './search-ops';
import * as graph from './graph-populate-ops';

export const checkOperations = {
  /** twining-mcp's summary, plus `record`: which record this is and why, when the engine was opened through routing. */
  status: operation('status', async (store, input) => {
    const result = await status(store, input);
    // A folder outside any repository has nothing to say beyond its own path; status stays as before there.
    return store.route && store.route.mode !== 'folder' ? { ...result, record: await recordStatus(store, store.route, result.warnings) } : result;
  }),
  verify: operation('verify', (store, input) => graph.withGraph(store, () => verify(store, input))),
  search: operation('search', (store, input) => search(store, input)),
};
