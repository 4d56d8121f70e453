/**
 * The knowledge graph filled in by the operations that twining-mcp 1.9 fills it from
 * (src/engine/graph-auto-populator.ts at commit 4846d7048cd84fe6771ff8c51aac1a29cc96d02b), with
 * the same entities, relations, properties and order, so that twining-mcp reading a folder we
 * wrote ranks and traces our decisions through their graph paths as if it had written them.
 *
 * As there, each step is best effort: the first that fails (a relation to an entity that does not
 * exist, such as a `depends_on` decision recorded before the graph was kept, or a name two
 * entities share) ends that operation's graph steps, keeping the ones before it; the operation
 * itself has already succeeded and is never failed by its graph. Each operation's steps are
 * applied together and each graph file is rewritten once, under its lock.
 */
import type { FolderStore } from '../engine/folder-store';
import type { BlackboardEntry, GraphEntity, GraphRelation } from '../records';
import { appendRelation, changeGraph, changeGraphSoon, upsertEntity } from './graph-ops';

/** Called for every appended blackboard line (blackboard-ops.ts appendEntryLocked): its graph steps follow when the operation succeeds (FolderStore.posting). */
export function notePosted(ctx: FolderStore, entry: BlackboardEntry): void {
  ctx.posting.entries.push(entry);
}

/**
 * Runs a writing operation, then the graph steps of the entries it posted (as twining-mcp's post
 * does for each) and `after`'s, in that order. An operation that fails posted nothing (its writes
 * were undone), so its notes are dropped.
 */
export async function withGraph<T>(ctx: FolderStore, run: () => Promise<T>, after?: (result: T) => Promise<void>): Promise<T> {
  let result: T;
  try {
    result = await run();
  } catch (error) {
    ctx.posting.entries = [];
    throw error;
  }
  const entries = ctx.posting.entries;
  ctx.posting.entries = [];
  for (const entry of entries) await onPost(ctx, entry);
  if (after) await after(result);
  if (entries.length) await ctx.posting.after?.();
  return result;
}

/** A scope with a "/" and an extension is a file; with a "/" and none, a module (directory). */
export const isFileLikeScope = (scope: string) => scope.includes('/') && /\.\w+$/.test(scope);
const isDirectoryLikeScope = (scope: string) => scope.includes('/') && !isFileLikeScope(scope);

/**
 * Runs `build`'s steps in order, stopping at the first that fails; never throws. An engine with
 * `batchGraph` (the MCP server) queues them to be written with the next ones (graph-ops.ts
 * changeGraphSoon) and answers the operation without waiting for them.
 */
async function populate(ctx: FolderStore, what: string, build: (add: Adder) => void): Promise<void> {
  if (ctx.readOnly) return;
  const work = (entities: GraphEntity[], relations: GraphRelation[]) => {
    const adder = new Adder(ctx, entities, relations);
    try {
      build(adder);
    } catch (error) {
      ctx.warn(`the knowledge graph was not completed after ${what}: ${(error as Error).message}`);
    }
  };
  const failed = (error: Error) => ctx.warn(`the knowledge graph was not updated after ${what}: ${error.message}`);
  try {
    if ((await ctx.config()).graph?.auto_populate === false) return;
    if (ctx.batchGraph) changeGraphSoon(ctx, work, failed);
    else await changeGraph(ctx, work);
  } catch (error) {
    failed(error as Error);
  }
}

class Adder {
  constructor(
    private readonly ctx: FolderStore,
    private readonly entities: GraphEntity[],
    private readonly relations: GraphRelation[],
  ) {}
  entity(name: string, type: string, properties?: Record<string, string>): GraphEntity {
    return upsertEntity(this.ctx, this.entities, { name, type, properties });
  }
  relation(source: string, target: string, type: string, properties?: Record<string, string>): void {
    appendRelation(this.ctx, this.entities, this.relations, { source, target, type, properties });
  }
}

/** After decide: the decision as a concept, its files and symbols decided_by it, its depends_on, supersedes and commit. */
export function onDecide(
  ctx: FolderStore,
  d: {
    id: string;
    scope: string;
    summary: string;
    affected_files: string[];
    affected_symbols: string[];
    depends_on?: string[];
    supersedes?: string;
    commit_hash?: string;
  },
): Promise<void> {
  return populate(ctx, `decision ${d.id}`, add => {
    const decision = add.entity(d.id, 'concept', { summary: d.summary, scope: d.scope });
    for (const file of d.affected_files)
      add.relation(add.entity(file, 'file', { scope: d.scope }).name, decision.name, 'decided_by', { decision_summary: d.summary });
    for (const symbol of d.affected_symbols)
      add.relation(add.entity(symbol, 'function', { scope: d.scope }).name, decision.name, 'decided_by', { decision_summary: d.summary });
    for (const dep of d.depends_on ?? []) add.relation(d.id, dep, 'depends_on');
    if (d.supersedes) add.relation(d.id, d.supersedes, 'supersedes');
    if (d.commit_hash) {
      add.entity(d.commit_hash, 'commit', { decision: d.id });
      add.relation(d.commit_hash, d.id, 'decided_by');
    }
  });
}

/** After every blackboard entry (decision copies, handoff and link statuses included): its scope, and for warnings and findings a concept that affects it. */
export function onPost(ctx: FolderStore, entry: BlackboardEntry): Promise<void> {
  const scope = entry.scope;
  if (!scope || scope === 'project' || !scope.includes('/')) return Promise.resolve();
  return populate(ctx, `entry ${entry.id}`, add => {
    const scopeEntity = add.entity(scope, isFileLikeScope(scope) ? 'file' : isDirectoryLikeScope(scope) ? 'module' : 'module', {
      entry_type: entry.entry_type,
    });
    if (entry.entry_type === 'warning' || entry.entry_type === 'finding') {
      const concept = add.entity(`${entry.entry_type}:${entry.id}`, 'concept', { summary: entry.summary, entry_type: entry.entry_type });
      add.relation(concept.name, scopeEntity.name, 'affects', { summary: entry.summary });
    }
    for (const related of entry.relates_to ?? []) add.relation(scopeEntity.name, related, 'related_to', { via: entry.id });
  });
}

/** After a handoff: its agents, what they produced, and the scope it affects. */
export function onHandoff(
  ctx: FolderStore,
  h: { source_agent: string; target_agent?: string; scope?: string; results?: { artifacts?: string[] }[] },
): Promise<void> {
  return populate(ctx, 'the handoff', add => {
    const source = add.entity(h.source_agent, 'agent');
    if (h.target_agent) add.relation(source.name, add.entity(h.target_agent, 'agent').name, 'related_to', { type: 'handoff' });
    for (const result of h.results ?? [])
      for (const artifact of result.artifacts ?? []) {
        add.entity(artifact, 'file', { produced_by: h.source_agent });
        add.relation(h.source_agent, artifact, 'produces');
      }
    if (h.scope && h.scope !== 'project') {
      const scopeEntity = add.entity(h.scope, isFileLikeScope(h.scope) ? 'file' : 'module');
      add.relation(h.source_agent, scopeEntity.name, 'affects', { via: 'handoff' });
    }
  });
}

/** After link_commit: the commit, decided_by the decision. */
export function onLinkCommit(ctx: FolderStore, decisionId: string, commitHash: string): Promise<void> {
  return populate(ctx, `linking commit ${commitHash}`, add => {
    add.entity(commitHash, 'commit', { decision: decisionId });
    add.relation(commitHash, decisionId, 'decided_by');
  });
}

/** After register: the agent with its capabilities and role. */
export function onRegister(ctx: FolderStore, agentId: string, capabilities?: string[], role?: string): Promise<void> {
  const properties: Record<string, string> = {};
  if (capabilities?.length) properties.capabilities = capabilities.join(', ');
  if (role) properties.role = role;
  return populate(ctx, `registering ${agentId}`, add => void add.entity(agentId, 'agent', properties));
}

/** After reconsider or override: the agent challenged the decision. */
export function onChallenge(ctx: FolderStore, agentId: string, decisionId: string, action: 'reconsider' | 'override'): Promise<void> {
  return populate(ctx, `${action} of ${decisionId}`, add => {
    add.entity(agentId, 'agent');
    add.relation(agentId, decisionId, 'challenged', { action });
  });
}
