/**
 * The inputs of twining-mcp 1.9's tools for a decision's dependencies and commits, catching up,
 * the archive, the export and the knowledge graph (its src/tools/*.ts at commit
 * 4846d7048cd84fe6771ff8c51aac1a29cc96d02b), with its names and input fields. schemas.ts passes
 * in its building blocks and adds these to its `inputs`, so that every schema is defined once
 * and no module imports schemas.ts back.
 */
import { z } from 'zod';

export const TRACE_DIRECTIONS = ['upstream', 'downstream', 'both'] as const;

/** The building blocks schemas.ts passes in (surface-schemas.ts takes the same, less ids and entry types). */
export interface Blocks<E extends readonly [string, ...string[]]> {
  ulidId: z.ZodString;
  agentId: z.ZodType<string, string>;
  scope: z.ZodString;
  since: z.ZodType<string, string>;
  text: (max: number) => z.ZodString;
  nonEmptyText: (max: number) => z.ZodString;
  list: <T extends z.ZodType>(item: T, max: number) => z.ZodArray<T>;
  ENTRY_TYPES: E;
}

export function historyInputs<E extends readonly [string, ...string[]]>(b: Blocks<E>) {
  const { ulidId, agentId, scope, since, nonEmptyText, list } = b;
  const ENTRY_TYPES = b.ENTRY_TYPES;
  const commitHash = z.string().regex(/^[0-9a-fA-F]{4,64}$/, { message: 'must be a hexadecimal commit hash' });
  const graphProperties = z
    .record(z.string(), z.string().max(1000, { message: 'must be at most 1000 characters' }))
    .refine(o => Object.keys(o).length <= 50, { message: 'must have at most 50 properties' })
    .describe('Key-value properties (at most 50, values of at most 1000 characters).');
  return {
    trace: z
      .strictObject({
        decision_id: ulidId.describe('Id of the decision to trace.'),
        direction: z.enum(TRACE_DIRECTIONS).optional().describe('upstream (what it depends on), downstream (what depends on it) or both (default).'),
      })
      .describe("A decision's dependency chain, upstream through depends_on and downstream through its dependents."),
    what_changed: z
      .strictObject({
        since: since.describe('ISO 8601 time: what was posted or decided at or after it.'),
        scope: scope.optional().describe('Only what overlaps this scope.'),
      })
      .describe('New decisions, new blackboard entries, overridden and reconsidered decisions since a time.'),
    summarize: z
      .strictObject({
        scope: scope.optional().describe('Default "project" (everything).'),
      })
      .describe('Counts of active and provisional decisions, open needs, warnings and questions, and the last 24 hours in a sentence.'),
    link_commit: z
      .strictObject({
        decision_id: ulidId.describe('Id of the decision the commit implements.'),
        commit_hash: commitHash.describe('The git commit hash.'),
        agent_id: agentId.optional().describe('Who links it (default "main").'),
      })
      .describe('Link a git commit to a decision (both ways: twining_commits finds the decision from the commit).'),
    commits: z
      .strictObject({
        commit_hash: commitHash.describe('The git commit hash, as it was linked.'),
      })
      .describe('The decisions linked to a commit, newest first.'),
    recent: z
      .strictObject({
        n: z.number().int().min(0).max(100000).optional().describe('How many (default 20).'),
        entry_types: list(z.enum(ENTRY_TYPES), 10).optional(),
      })
      .describe('The latest blackboard entries, newest first.'),
    archive: z
      .strictObject({
        before: since.optional().describe('Archive entries older than this time (default now).'),
        keep_decisions: z.boolean().optional().describe('Keep decision entries on the blackboard (default true).'),
        summarize: z.boolean().optional().describe('Post a finding that summarises what was archived (default true).'),
        retain: z
          .number()
          .int()
          .min(0)
          .max(1000000)
          .optional()
          .describe('Keep at least the newest N entries on the blackboard whatever their age (twining-mcp 2.x).'),
        keep_open_needs_warnings: z
          .boolean()
          .optional()
          .describe(
            'Keep needs, warnings and questions that are not resolved on the blackboard whatever their age (twining-mcp 2.x; default true on a twining.db folder, false on a files folder as in 1.9).',
          ),
      })
      .describe(
        'Move old blackboard entries to archive/{date}-blackboard.jsonl (decision entries stay, and decisions are never archived); a handoff check still tells archived entries from dismissed ones.',
      ),
    export: z
      .strictObject({
        scope: scope.optional().describe('Only this part of the state (default everything).'),
      })
      .describe('The whole state (decisions with rationale, blackboard, knowledge graph) as one Markdown document.'),
    add_entity: z
      .strictObject({
        name: nonEmptyText(1000).describe('e.g. a class name, a file path, a concept.'),
        type: nonEmptyText(100).describe('module, function, class, file, concept, pattern, dependency, api_endpoint, agent or commit.'),
        properties: graphProperties.optional(),
      })
      .describe('Add a knowledge graph entity, or merge the properties of the one with the same name and type.'),
    add_relation: z
      .strictObject({
        source: nonEmptyText(1000).describe('Source entity id or (unambiguous) name.'),
        target: nonEmptyText(1000).describe('Target entity id or (unambiguous) name.'),
        type: nonEmptyText(100).describe(
          'depends_on, implements, decided_by, affects, tested_by, calls, imports, related_to, supersedes, produces or challenged.',
        ),
        properties: graphProperties.optional(),
      })
      .describe('Add a relation between two knowledge graph entities.'),
    neighbors: z
      .strictObject({
        entity: nonEmptyText(1000).describe('Entity id or name to start from.'),
        depth: z.number().optional().describe('1 to 3 (default 1).'),
        relation_types: list(nonEmptyText(100), 20).optional().describe('Follow only these relation types.'),
      })
      .describe('The entities connected to one, up to three relations away.'),
    graph_query: z
      .strictObject({
        query: z.string().max(1000).describe('Substring of entity names and property values (case-insensitive).'),
        entity_types: list(nonEmptyText(100), 20).optional(),
        limit: z.number().int().min(1).max(100000).optional().describe('Default 10.'),
      })
      .describe('Find knowledge graph entities by name or property substring.'),
    prune_graph: z
      .strictObject({
        entity_types: list(nonEmptyText(100), 20).optional().describe('Only orphans of these types.'),
        dry_run: z.boolean().optional().describe('Report without removing (default false).'),
      })
      .describe('Remove knowledge graph entities that have no relations.'),
  } as const;
}
