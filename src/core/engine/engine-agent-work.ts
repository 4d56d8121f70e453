/**
 * The engine's methods for an agent's own piece of work: claims on files, folders, globs and
 * delegations (claim, release, claims), the briefing at its start (assemble) and the record at its
 * end (record, which releases the claims it covers). TwiningEngine (engine.ts) extends this class
 * through OpenItemTools and HistoryAndGraphTools, so they are engine methods like the others.
 */
import type { InputOf } from '../schemas/schemas';
import { OpenItemTools } from './engine-open-items';
import * as claimOps from '../operations/claim-ops';
import { type AssembleOptions, assemble } from '../operations/assemble-ops';
import { record } from '../operations/record-ops';

export abstract class AgentWorkTools extends OpenItemTools {
  claim(input: InputOf<'claim'>) {
    return claimOps.claim(this.ctx, input);
  }
  release(input: InputOf<'release'>) {
    return claimOps.release(this.ctx, input);
  }
  claims(input: InputOf<'claims'> = {}) {
    return claimOps.claims(this.ctx, input);
  }
  /** Releases `agentId`'s claims that `scopes` cover (a record's scope and files); `because` names what released them. */
  releaseCovered(agentId: string, scopes: readonly (string | undefined)[], because: string) {
    return claimOps.releaseCovered(this.ctx, agentId, scopes, because);
  }

  /** A briefing for a task in a scope (twining_assemble). */
  assemble(input: InputOf<'assemble'>, options?: AssembleOptions) {
    return assemble(this.ctx, input, options);
  }
  /** The end of a piece of work in one call, all or nothing (twining_record). */
  async record(input: InputOf<'record'>) {
    const result = await record(this.ctx, input);
    // The work is recorded: the agent's claims on what it covered go with it, as a handoff's do (a
    // failure is a warning, the record stands). twining_record's agent_id defaults to "main".
    const agentId = input.agent_id ?? 'main';
    await claimOps
      .releaseCovered(this.ctx, agentId, [result.scope, ...(input.affected_files ?? [])], `record ${result.status_entry_id}`)
      .catch((error: Error) => this.ctx.warn(`record ${result.status_entry_id} was written, but the claims it covers were not released: ${error.message}`));
    return result;
  }
}
