/**
 * The knowledge graph (`graph/entities.json`, `graph/relations.json`, docs/format.md §Knowledge graph) as
 * twining-mcp 1.9 keeps it (src/storage/graph-store.ts and src/engine/graph.ts at commit
 * 4846d7048cd84fe6771ff8c51aac1a29cc96d02b): entities upserted by (name, type) with their
 * properties merged, relations whose ends are given by id or by a name that must be unambiguous,
 * neighbours by breadth-first search up to depth 3, a substring query, and pruning of entities
 * without relations. Each file is rewritten whole under its own lock (docs/format.md §Which lock for which write).
 */
import { promises as fs } from 'fs';
import type { FolderStore } from '../engine/folder-store';
import { toJsonText } from '../storage/json-files';
import { TwiningError } from '../errors';
import type { InputOf } from '../schemas/schemas';
import type { GraphEntity, GraphRelation } from '../records';
import type { GraphQueue, GraphStep, GraphView } from '../storage/files/graph-files';

/**
 * Entities and relations as this process has them: the files as last read, with the changes still
 * queued applied (missing files: empty). While changes are queued or being written (an engine with
 * `batchGraph`), that is the queue's view (GraphQueue.view), so a query right after a post sees the
 * post's steps without waiting for the write; another process's change to the graph shows once the
 * batch is written, at most GRAPH_BATCH_MS and one write later.
 */
export async function readGraph(ctx: FolderStore): Promise<{ entities: GraphEntity[]; relations: GraphRelation[] }> {
  const q = ctx.graphQueue;
  const g = ctx.graph;
  for (;;) {
    if (q?.view) {
      applyPending(q.view, q.steps);
      return { entities: q.view.entities.filter(isEntity), relations: q.view.relations.filter(isRelation) };
    }
    // A write under way makes the view from the files as it finds them, or has written the steps already.
    if (q && q.writes !== q.written) {
      await q.writing;
      continue;
    }
    const writes = q?.writes;
    if (q?.steps.length) await ctx.ready();
    const [entities, relations] = await Promise.all([g.entities.get(), g.relations.get()]);
    // A write that began meanwhile may have changed the files after they were read: read again.
    if (q && (q.view || q.writes !== writes)) continue;
    if (!q?.steps.length) return { entities: entities.filter(isEntity), relations: relations.filter(isRelation) };
    q.view = viewOf(g.entities.raw, g.relations.raw);
  }
}

const isEntity = (e: unknown): e is GraphEntity =>
  !!e && typeof e === 'object' && typeof (e as GraphEntity).id === 'string' && typeof (e as GraphEntity).name === 'string';
const isRelation = (r: unknown): r is GraphRelation =>
  !!r && typeof r === 'object' && typeof (r as GraphRelation).source === 'string' && typeof (r as GraphRelation).target === 'string';

/**
 * A change to the graph made in memory and written in one go: `work` gets both arrays as read
 * under both locks and changes them in place; each file is written only if it changed.
 */
export async function changeGraph<T>(ctx: FolderStore, work: (entities: GraphEntity[], relations: GraphRelation[]) => T): Promise<T> {
  await settleGraph(ctx);
  const q = ctx.graphQueue;
  if (!q) return changeGraphNow(ctx, work);
  // In the queue's line of writes, counted as one: a read beside it waits for it; steps queued
  // meanwhile get a view made from the files it wrote.
  const change = q.writing.then(async () => {
    q.writes++;
    try {
      return await changeGraphNow(ctx, work);
    } finally {
      q.view = undefined;
      q.written++;
    }
  });
  q.writing = change.then(
    () => undefined,
    () => undefined,
  );
  return change;
}

/** How long the graph's upkeep waits for more of it: the next call of an agent, and its own steps, usually come within it. */
export const GRAPH_BATCH_MS = 25;

/**
 * Queues a change to the graph (`work` must not throw; `failed` hears when the batch could not be
 * written): applied with every change queued in the next GRAPH_BATCH_MS, under one pair of locks
 * and one write of each file, in the order they were queued. `settleGraph` applies them at once.
 * A post then takes one lock (the blackboard's), and its graph steps cost a share of one rewrite.
 */
export function changeGraphSoon(ctx: FolderStore, work: GraphStep['work'], failed: GraphStep['failed']): void {
  const q = (ctx.graphQueue ??= { steps: [], writing: Promise.resolve(), writes: 0, written: 0 });
  q.steps.push({ work, failed });
  // Ref'd: a process that is about to end waits for it.
  q.timer ??= setTimeout(() => {
    settleGraph(ctx).catch(() => undefined);
  }, GRAPH_BATCH_MS);
}

/** Writes the queued changes to the graph now; resolves when they are written (or their failure reported). */
export function settleGraph(ctx: FolderStore): Promise<void> {
  const q = ctx.graphQueue;
  if (!q) return Promise.resolve();
  clearTimeout(q.timer);
  q.timer = undefined;
  if (q.steps.length) q.writing = q.writing.then(() => writeQueued(ctx, q));
  return q.writing;
}

/**
 * A view of the graph made from the files' items as read (copied: the cached arrays stay as on
 * disk). A read makes it when steps are queued and no write is under way, or the write does; each
 * queued step is applied to it once, and the write stores it as it is (its ids and times are the
 * ones readers were shown), unless another process changed the files since.
 */
function viewOf(entitiesRaw: readonly unknown[], relationsRaw: readonly unknown[]): GraphView {
  const entities = structuredClone(entitiesRaw) as GraphEntity[];
  const relations = structuredClone(relationsRaw) as GraphRelation[];
  return { entities, relations, base: { entities: toJsonText(entities), relations: toJsonText(relations) }, applied: 0 };
}

/** Applies the steps the view has not had yet (`steps` are the ones not yet written, oldest first). */
function applyPending(view: GraphView, steps: readonly GraphStep[]): void {
  for (const step of steps.slice(view.applied)) step.work(view.entities, view.relations);
  view.applied = steps.length;
}

/**
 * Writes the queued steps under both locks. The files are read afresh: as the view's base, the
 * view is written as it is; changed by another process since, the steps are applied again to them
 * (the view is made anew, and an entity the view created gets a new id).
 */
async function writeQueued(ctx: FolderStore, q: GraphQueue): Promise<void> {
  if (!q.steps.length) return;
  q.writes++;
  try {
    await writeSteps(ctx, q);
  } finally {
    q.written++;
  }
}

async function writeSteps(ctx: FolderStore, q: GraphQueue): Promise<void> {
  await ctx.ready();
  const g = ctx.graph;
  let steps: GraphStep[] = [];
  try {
    if (!ctx.sqlite) await fs.mkdir(ctx.layout.graphDir, { recursive: true });
    await ctx.lock([g.entitiesLock, g.relationsLock], async () => {
      const [e, r] = await Promise.all([g.entities.fresh(), g.relations.fresh()]);
      const onDisk = { entities: toJsonText(e.raw), relations: toJsonText(r.raw) };
      if (!q.view || q.view.base.entities !== onDisk.entities || q.view.base.relations !== onDisk.relations) q.view = viewOf(e.raw, r.raw);
      const view = q.view;
      // Synchronously from here to both writes' start: the steps taken are the ones written.
      applyPending(view, q.steps);
      steps = q.steps.splice(0);
      view.applied = 0;
      const text = { entities: toJsonText(view.entities), relations: toJsonText(view.relations) };
      await Promise.all([
        text.entities !== onDisk.entities ? ctx.storage.writeArray('entities', view.entities) : undefined,
        text.relations !== onDisk.relations ? ctx.storage.writeArray('relations', view.relations) : undefined,
      ]);
      view.base = text;
    });
    // Nothing queued meanwhile: the files are the graph again.
    if (!q.steps.length) q.view = undefined;
  } catch (error) {
    // What the files hold is the graph; steps queued meanwhile are applied to it afresh.
    q.view = undefined;
    for (const step of steps.length ? steps : q.steps.splice(0)) step.failed(error as Error);
  }
}

async function changeGraphNow<T>(ctx: FolderStore, work: (entities: GraphEntity[], relations: GraphRelation[]) => T): Promise<T> {
  await ctx.ready();
  const g = ctx.graph;
  if (!ctx.sqlite) await fs.mkdir(ctx.layout.graphDir, { recursive: true });
  return ctx.lock([g.entitiesLock, g.relationsLock], async () => {
    // Copies: the cached arrays stay as on disk if a write fails.
    const entities = structuredClone((await g.entities.fresh()).raw) as GraphEntity[];
    const relations = structuredClone((await g.relations.fresh()).raw) as GraphRelation[];
    const before = { e: toJsonText(entities), r: toJsonText(relations) };
    let result: T;
    try {
      result = work(entities, relations);
    } finally {
      // What was done before a failure stays done, as twining-mcp writes after each step.
      const e = toJsonText(entities);
      const r = toJsonText(relations);
      if (e !== before.e) await ctx.storage.writeArray('entities', entities);
      if (r !== before.r) await ctx.storage.writeArray('relations', relations);
    }
    return result;
  });
}

/** Upserts by (name, type): properties merged, `updated_at` refreshed (graph-store.ts addEntity). */
export function upsertEntity(
  ctx: FolderStore,
  entities: GraphEntity[],
  input: { name: string; type: string; properties?: Record<string, string> },
): GraphEntity {
  const now = ctx.timestamp();
  const existing = entities.find(e => isEntity(e) && e.name === input.name && e.type === input.type);
  if (existing) {
    existing.properties = { ...existing.properties, ...(input.properties ?? {}) };
    existing.updated_at = now;
    return existing;
  }
  const entity: GraphEntity = { id: ctx.id(), name: input.name, type: input.type, properties: input.properties ?? {}, created_at: now, updated_at: now };
  entities.push(entity);
  return entity;
}

/** An entity by id, else by a name only one entity has (NOT_FOUND / ambiguous otherwise). */
export function resolveEntity(entities: readonly GraphEntity[], ref: string): GraphEntity {
  const byId = entities.find(e => isEntity(e) && e.id === ref);
  if (byId) return byId;
  const byName = entities.filter(e => isEntity(e) && e.name === ref);
  if (byName.length === 0) throw new TwiningError('NOT_FOUND', `Entity not found: "${ref}"`);
  if (byName.length > 1)
    throw new TwiningError(
      'INVALID_INPUT',
      `Ambiguous entity name "${ref}" matches: ${byName.map(e => `${e.name} (${e.type})`).join(', ')}; give its id instead`,
    );
  return byName[0];
}

/** Appends a relation between two entities named by id or name (graph-store.ts addRelation). */
export function appendRelation(
  ctx: FolderStore,
  entities: readonly GraphEntity[],
  relations: GraphRelation[],
  input: { source: string; target: string; type: string; properties?: Record<string, string> },
): GraphRelation {
  const source = resolveEntity(entities, input.source);
  const target = resolveEntity(entities, input.target);
  const relation: GraphRelation = {
    id: ctx.id(),
    source: source.id,
    target: target.id,
    type: input.type,
    properties: input.properties ?? {},
    created_at: ctx.timestamp(),
  };
  relations.push(relation);
  return relation;
}

export async function addEntity(ctx: FolderStore, input: InputOf<'add_entity'>): Promise<{ id: string; entity: GraphEntity }> {
  const args = ctx.validate('add_entity', input);
  const entity = await changeGraph(ctx, entities => ({ ...upsertEntity(ctx, entities, args) }));
  return { id: entity.id, entity };
}

export async function addRelation(ctx: FolderStore, input: InputOf<'add_relation'>): Promise<{ id: string; relation: GraphRelation }> {
  const args = ctx.validate('add_relation', input);
  const relation = await changeGraph(ctx, (entities, relations) => appendRelation(ctx, entities, relations, args));
  return { id: relation.id, relation };
}

export interface Neighbor {
  entity: GraphEntity;
  relation: GraphRelation;
  direction: 'outgoing' | 'incoming';
}

/** Breadth-first from an entity (id, else the first with that name), depth 1 to 3 (graph.ts neighbors). */
export async function neighbors(ctx: FolderStore, input: InputOf<'neighbors'>): Promise<{ center: GraphEntity; neighbors: Neighbor[] }> {
  const args = ctx.validate('neighbors', input);
  const { entities, relations } = await readGraph(ctx);
  const center = entities.find(e => e.id === args.entity) ?? entities.find(e => e.name === args.entity);
  if (!center) throw new TwiningError('NOT_FOUND', `Entity not found: "${args.entity}"`);
  return { center, neighbors: neighborsOf(entities, relations, center, args.depth, args.relation_types) };
}

/** The entities within `depth` (1 to 3, default 1) relations of `center`, each with the relation that first reached it. */
export function neighborsOf(
  entities: readonly GraphEntity[],
  relations: readonly GraphRelation[],
  center: GraphEntity,
  depth = 1,
  types?: readonly string[],
): Neighbor[] {
  const maxDepth = Math.min(Math.max(depth, 1), 3);
  const byId = new Map(entities.map(e => [e.id, e]));
  const adjacency = new Map<string, { other: string; relation: GraphRelation; direction: Neighbor['direction'] }[]>();
  const edge = (from: string) => adjacency.get(from) ?? (adjacency.set(from, []), adjacency.get(from)!);
  for (const r of relations) {
    if (types && !types.includes(r.type)) continue;
    edge(r.source).push({ other: r.target, relation: r, direction: 'outgoing' });
    edge(r.target).push({ other: r.source, relation: r, direction: 'incoming' });
  }
  const visited = new Set([center.id]);
  const result: Neighbor[] = [];
  let frontier = [center.id];
  for (let d = 0; d < maxDepth && frontier.length; d++) {
    const next: string[] = [];
    for (const node of frontier)
      for (const { other, relation, direction } of adjacency.get(node) ?? []) {
        if (visited.has(other)) continue;
        visited.add(other);
        const entity = byId.get(other);
        if (!entity) continue;
        result.push({ entity, relation, direction });
        next.push(other);
      }
    frontier = next;
  }
  return result;
}

/** Entities whose name or a property value contains the query, case-insensitively, in file order (graph.ts query). */
export async function graphQuery(ctx: FolderStore, input: InputOf<'graph_query'>): Promise<{ entities: GraphEntity[] }> {
  const args = ctx.validate('graph_query', input);
  const { entities } = await readGraph(ctx);
  const q = args.query.toLowerCase();
  const matches = entities.filter(
    e =>
      (!args.entity_types || args.entity_types.includes(e.type)) &&
      (e.name.toLowerCase().includes(q) || Object.values(e.properties ?? {}).some(v => typeof v === 'string' && v.toLowerCase().includes(q))),
  );
  return { entities: matches.slice(0, args.limit ?? 10) };
}

export interface PruneResult {
  pruned: { id: string; name: string; type: string }[];
  total_orphans_found: number;
  total_removed: number;
  removed_relations: number;
  dry_run: boolean;
}

/** Removes entities without any relation, optionally of some types only (graph.ts prune). */
export async function pruneGraph(ctx: FolderStore, input: InputOf<'prune_graph'> = {}): Promise<PruneResult> {
  const args = ctx.validate('prune_graph', input);
  const dryRun = args.dry_run ?? false;
  const find = (entities: readonly GraphEntity[], relations: readonly GraphRelation[]) => {
    const connected = new Set(relations.flatMap(r => [r.source, r.target]));
    const all = entities.filter(e => isEntity(e) && !connected.has(e.id));
    const types = args.entity_types?.length ? new Set(args.entity_types) : undefined;
    return { all, orphans: types ? all.filter(e => types.has(e.type)) : all };
  };
  const summary = (orphans: GraphEntity[], total: number, removed: number, removedRelations: number): PruneResult => ({
    pruned: orphans.map(e => ({ id: e.id, name: e.name, type: e.type })),
    total_orphans_found: total,
    total_removed: removed,
    removed_relations: removedRelations,
    dry_run: dryRun,
  });
  if (dryRun) {
    const { entities, relations } = await readGraph(ctx);
    const { all, orphans } = find(entities, relations);
    return summary(orphans, all.length, 0, 0);
  }
  return changeGraph(ctx, (entities, relations) => {
    const { all, orphans } = find(entities, relations);
    const ids = new Set(orphans.map(e => e.id));
    const remainingEntities = entities.filter(e => !isEntity(e) || !ids.has(e.id));
    const remainingRelations = relations.filter(r => !isRelation(r) || (!ids.has(r.source) && !ids.has(r.target)));
    const result = summary(orphans, all.length, entities.length - remainingEntities.length, relations.length - remainingRelations.length);
    entities.splice(0, entities.length, ...remainingEntities);
    relations.splice(0, relations.length, ...remainingRelations);
    return result;
  });
}
