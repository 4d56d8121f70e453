/** status: twining-mcp's summary of the folder, plus what a coordinator looks at first. */
import * as path from 'path';
import type { FolderStore } from '../engine/folder-store';
import { readGraph } from './graph-ops';
import type { InputOf } from '../schemas/schemas';
import { livenessReader } from './agent-ops';
import { delegations } from './delegation-ops';
import { indexOrphanDecisions } from './decision-ops';

export async function status(ctx: FolderStore, input: InputOf<'status'> = {}) {
  ctx.validate('status', input);
  await indexOrphanDecisions(ctx);
  const config = await ctx.config();
  const [liveness] = await Promise.all([livenessReader(ctx, config.agents.liveness), ctx.handoffIndex.refresh()]);
  const [registry, index] = await Promise.all([ctx.registry.get(), ctx.decisionIndex.get()]);
  const byLiveness = { active: 0, idle: 0, gone: 0 };
  for (const agent of registry) byLiveness[liveness(agent)]++;
  const { open_count, expired_count } = await delegations(ctx, {});
  const handoffs = ctx.handoffIndex.sorted();
  const unacknowledged = handoffs.filter(line => line.acknowledged !== true).length;
  const active_decisions = index.filter(d => d.status === 'active').length;
  const provisional_decisions = index.filter(d => d.status === 'provisional').length;
  const entries = ctx.blackboard.entries;
  const lastEntry = entries.length ? entries[entries.length - 1].timestamp : undefined;
  const lastDecision = index.reduce<string | undefined>((max, d) => (max === undefined || d.timestamp > max ? d.timestamp : max), undefined);
  const last_activity =
    [lastEntry, lastDecision]
      .filter((t): t is string => typeof t === 'string')
      .sort()
      .pop() ?? 'none';
  const threshold = config.archive.max_blackboard_entries_before_archive;
  const warnings: string[] = [];
  const weekAgo = new Date(ctx.now().getTime() - 7 * 24 * 3600 * 1000).toISOString();
  const staleProvisional = index.filter(d => d.status === 'provisional' && d.timestamp < weekAgo).length;
  if (staleProvisional) warnings.push(`${staleProvisional} provisional decision(s) older than 7 days`);
  // 0 is "never archive" (twining-mcp would still recommend archiving at 0; nothing would do it).
  if (threshold > 0 && entries.length >= threshold) warnings.push(`Blackboard has ${entries.length} entries (archive threshold ${threshold})`);
  const graph = await graphCounts(ctx);
  // twining-mcp's third warning (src/tools/lifecycle-tools.ts at 4846d70).
  if (graph.orphans > 0) warnings.push(`${graph.orphans} graph entities have no relations`);
  // A 2.x folder read from records/: its agents are not known, not none.
  const noAgents = ctx.sqlite?.agentsUnavailable();
  if (noAgents) warnings.push(noAgents);
  const summary =
    `${warnings.length ? 'Needs attention' : 'Healthy'}. ${entries.length} blackboard entries, ${active_decisions} active decisions, ` +
    `${graph.entities} graph entities. ${registry.length} registered agents (${byLiveness.active} active).` +
    (warnings.length ? ` ${warnings.join('. ')}.` : '');
  return {
    project: path.basename(ctx.root),
    blackboard_entries: entries.length,
    active_decisions,
    provisional_decisions,
    graph_entities: graph.entities,
    graph_relations: graph.relations,
    registered_agents: registry.length,
    active_agents: byLiveness.active,
    last_activity,
    needs_archiving: threshold > 0 && entries.length >= threshold,
    warnings,
    summary,
    // Beyond twining-mcp: what a coordinator looks at first.
    agents_by_liveness: byLiveness,
    open_delegations: open_count,
    expired_delegations: expired_count,
    handoffs: handoffs.length,
    unacknowledged_handoffs: unacknowledged,
    warning_entries: ctx.blackboard.warnings.length,
  };
}

/** Entity and relation counts, and the entities without a relation; a graph file that cannot be read counts as empty, as before. */
async function graphCounts(ctx: FolderStore): Promise<{ entities: number; relations: number; orphans: number }> {
  const { entities, relations } = await readGraph(ctx).catch(() => ({ entities: [], relations: [] }));
  const connected = new Set(relations.flatMap(r => [r.source, r.target]));
  return { entities: entities.length, relations: relations.length, orphans: entities.filter(e => !connected.has(e.id)).length };
}
