/**
 * An agent's own piece of work: claims on files, folders, globs and delegations, the briefing at
 * its start (assemble) and the record at its end (record, which releases the claims it covers).
 */
import { operation } from './operation';
import * as claimOps from './claim-ops';
import { type AssembleOptions, assemble } from './assemble-ops';
import { record } from './record-ops';

export const workOperations = {
  claim: operation('claim', (store, input) => claimOps.claim(store, input)),
  release: operation('release', (store, input) => claimOps.release(store, input)),
  claims: operation('claims', (store, input) => claimOps.claims(store, input)),
  assemble: operation('assemble', (store, input, options?: AssembleOptions) => assemble(store, input, options)),
  record: operation('record', async (store, input) => {
    const result = await record(store, input);
    // The work is recorded: the agent's claims on what it covered go with it, as a handoff's do (a
    // failure is a warning, the record stands). twining_record's agent_id defaults to "main".
    const agentId = input.agent_id ?? 'main';
    await claimOps
      .releaseCovered(store, agentId, [result.scope, ...(input.affected_files ?? [])], `record ${result.status_entry_id}`)
      .catch((error: Error) => store.warn(`record ${result.status_entry_id} was written, but the claims it covers were not released: ${error.message}`));
    return result;
  }),
};
