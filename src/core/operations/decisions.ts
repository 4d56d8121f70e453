/**
 * Decisions: recording one, listing them, why a file is as it is, and a decision's later life
 * (reconsider, override, promote), each with twining-mcp's knowledge graph steps.
 */
import type { FolderStore } from '../engine/folder-store';
import { operation } from './operation';
import { why } from './why-ops';
import * as decisionOps from './decision-ops';
import * as lifecycleOps from './decision-lifecycle-ops';
import * as graph from './graph-populate-ops';

/** The graph steps of a decision just recorded (twining-mcp's onDecide), from its record. */
async function graphOfDecision(store: FolderStore, id: string, input: { depends_on?: string[]; supersedes?: string; commit_hash?: string }): Promise<void> {
  const d = await decisionOps.getDecision(store, id);
  if (!d) return;
  await graph.onDecide(store, { ...d, depends_on: input.depends_on, supersedes: input.supersedes, commit_hash: input.commit_hash });
}

export const decisionOperations = {
  decide: operation('decide', (store, input) =>
    graph.withGraph(
      store,
      () => decisionOps.decide(store, input),
      r => graphOfDecision(store, r.id, input),
    ),
  ),
  decisions: operation('decisions', (store, input) => decisionOps.decisions(store, input)),
  why: operation('why', (store, input) => why(store, input)),
  reconsider: operation('reconsider', (store, input) =>
    graph.withGraph(
      store,
      () => lifecycleOps.reconsider(store, input),
      () => graph.onChallenge(store, input.agent_id ?? 'main', input.decision_id, 'reconsider'),
    ),
  ),
  override: operation('override', (store, input) =>
    graph.withGraph(
      store,
      () => lifecycleOps.override(store, input),
      async r => {
        await graph.onChallenge(store, input.overridden_by ?? 'human', input.decision_id, 'override');
        if (r.new_decision_id) await graphOfDecision(store, r.new_decision_id, { supersedes: input.decision_id });
      },
    ),
  ),
  promote: operation('promote', (store, input) => graph.withGraph(store, () => lifecycleOps.promote(store, input))),
};
