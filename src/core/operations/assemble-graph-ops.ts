/**
 * What the knowledge graph adds to a briefing, as twining-mcp 1.9's context assembler computes it
 * (src/engine/context-assembler.ts, computeGraphReachability and getRelatedEntities, at commit
 * 4846d7048cd84fe6771ff8c51aac1a29cc96d02b):
 *
 * - reachability: from each entity named like the scope (a query of the scope, 20 at most, kept
 *   when its name and the scope are prefixes one of the other), three relations deep along
 *   depends_on, decided_by, implements, affects, produces and challenged: a decision's concept
 *   reached scores the relation's bonus; an entity reached that a decision affects (file or
 *   symbol) scores 0.7 of it. Best path per decision kept (its `relevance_path`), scores divided
 *   by the best;
 * - related entities: the first five entities the scope's query finds, each with its neighbours
 *   as `relation: name`.
 *
 * Reading the graph never fails a briefing: an unreadable graph adds nothing.
 */
import type { GraphEntity, GraphRelation } from '../records';
import { neighborsOf } from './graph-ops';

const FOLLOW = ['depends_on', 'decided_by', 'implements', 'affects', 'produces', 'challenged'];
const BONUS: Record<string, number> = {
  decided_by: 1.0,
  affects: 1.0,
  depends_on: 0.8,
  implements: 0.8,
  produces: 0.7,
  challenged: 0.7,
  supersedes: 0.6,
  tested_by: 0.6,
  related_to: 0.5,
};
/** Score of a path by its length: one hop, two hops (a decision reached through a file it affects). */
const ONE_HOP = 1.0;
const TWO_HOPS = 0.7;

export interface GraphDecision {
  id: string;
  affected_files?: readonly string[];
  affected_symbols?: readonly string[];
}

export interface GraphContext {
  /** Per decision id, 0 to 1 (only decisions the graph reaches). */
  reach: Map<string, number>;
  /** Per decision id, the path that gave its score, as twining-mcp writes it. */
  paths: Map<string, string>;
  related: { name: string; type: string; relations: string[] }[];
}

/** Entities whose name or a property value contains `query`, case-insensitively, in file order, `limit` at most. */
function query(entities: readonly GraphEntity[], text: string, limit: number): GraphEntity[] {
  const q = text.toLowerCase();
  const out: GraphEntity[] = [];
  for (const e of entities) {
    if (out.length >= limit) break;
    if (e.name.toLowerCase().includes(q) || Object.values(e.properties ?? {}).some(v => typeof v === 'string' && v.toLowerCase().includes(q))) out.push(e);
  }
  return out;
}

/**
 * Whether the graph adds anything to a briefing of `scope`: reach and related entities both start
 * from the entities its query finds (`entities` as read, anything not an entity skipped).
 */
export function graphTouches(entities: readonly unknown[], scope: string): boolean {
  const valid = entities.filter(
    (e): e is GraphEntity => !!e && typeof e === 'object' && typeof (e as GraphEntity).id === 'string' && typeof (e as GraphEntity).name === 'string',
  );
  return query(valid, scope, 1).length > 0;
}

/** Pure: what the graph adds for `scope` and the candidate decisions. */
export function graphContextOf(
  entities: readonly GraphEntity[],
  relations: readonly GraphRelation[],
  scope: string,
  decisions: readonly GraphDecision[],
): GraphContext {
  const reach = new Map<string, number>();
  const paths = new Map<string, string>();
  const keep = (id: string, score: number, path: string) => {
    if (score > (reach.get(id) ?? 0)) {
      reach.set(id, score);
      paths.set(id, path);
    }
  };
  const starts = query(entities, scope, 20).filter(e => e.name.startsWith(scope) || scope.startsWith(e.name));
  // Made only when the graph has somewhere to start from (a project-wide briefing has 10,000 candidates).
  const ids = starts.length ? new Set(decisions.map(d => d.id)) : new Set<string>();
  for (const start of starts)
    for (const n of neighborsOf(entities, relations, start, 3, FOLLOW)) {
      const type = n.relation.type;
      const bonus = BONUS[type] ?? 0.5;
      if (n.entity.type === 'concept' && ids.has(n.entity.name)) keep(n.entity.name, ONE_HOP * bonus, `${start.name} → ${type} → ${n.entity.name}`);
      for (const d of decisions)
        if (d.affected_files?.includes(n.entity.name) || d.affected_symbols?.includes(n.entity.name))
          keep(d.id, TWO_HOPS * bonus, `${start.name} → ${type} → ${n.entity.name} → decided_by → ${d.id}`);
    }
  const best = Math.max(0, ...reach.values());
  if (best > 0 && best !== 1) for (const [id, score] of reach) reach.set(id, score / best);
  const related = query(entities, scope, 5).map(e => ({
    name: e.name,
    type: e.type,
    relations: neighborsOf(entities, relations, e, 1).map(n => `${n.relation.type}: ${n.entity.name}`),
  }));
  return { reach, paths, related };
}

/** What the graph read (`readGraph`'s result, or why it could not be read) adds for `scope`: nothing when it could not. */
export function graphContextFrom(
  read: { entities: GraphEntity[]; relations: GraphRelation[] } | Error,
  scope: string,
  decisions: readonly GraphDecision[],
  warn: (message: string) => void,
): GraphContext {
  if (read instanceof Error) {
    warn(`the briefing goes without the knowledge graph: ${read.message}`);
    return { reach: new Map(), paths: new Map(), related: [] };
  }
  return graphContextOf(read.entities, read.relations, scope, decisions);
}
