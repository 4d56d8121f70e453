/**
 * The inputs of the operations around a piece of work: `assemble` (twining-mcp's twining_assemble),
 * `record` (twining-mcp 2.x's twining_record) and claims (ours: twining-mcp has none). schemas.ts
 * passes in its building blocks and adds these to its `inputs`, so every schema is defined once
 * and no module imports schemas.ts back.
 */
import { z } from 'zod';

interface Blocks<C extends readonly [string, ...string[]], S extends readonly [string, ...string[]] = readonly [string, ...string[]]> {
  ulidId: z.ZodString;
  agentId: z.ZodType<string, string>;
  scope: z.ZodString;
  nonEmptyText: (max: number) => z.ZodString;
  list: <T extends z.ZodType>(item: T, max: number) => z.ZodArray<T>;
  summary200: z.ZodString;
  alternative: z.ZodType;
  handoffResult: z.ZodType;
  CONFIDENCES: C;
  NEW_DECISION_STATUSES: S;
}

export function workInputs<C extends readonly [string, ...string[]], S extends readonly [string, ...string[]]>(b: Blocks<C, S>) {
  const { ulidId, agentId, scope, nonEmptyText, list, summary200, alternative, handoffResult, CONFIDENCES, NEW_DECISION_STATUSES } = b;
  return {
    assemble: z
      .strictObject({
        task: nonEmptyText(4000).describe('What the agent is about to do.'),
        scope: nonEmptyText(1000).describe('A file path, a folder prefix ending in "/", or "project".'),
        max_tokens: z
          .number()
          .int()
          .min(100)
          .max(1000000)
          .optional()
          .describe('Token budget (default: context_assembly.default_max_tokens in config.yml, 4000).'),
        agent_id: agentId.optional().describe('The agent being briefed (default "main"): its waiting handoffs, and what changed since its last briefing.'),
      })
      .describe(
        'A briefing for a task in a scope, within a token budget: handoffs waiting for this agent, active warnings, the decisions that constrain the scope, open needs and questions, findings, and what changed since its last briefing; each item says why it is there.',
      ),
    record: z
      .strictObject({
        summary: nonEmptyText(4000).describe(
          'What this piece of work did, in a sentence or two (a status entry; cut to 200 characters, the full text kept in its detail).',
        ),
        decisions: list(
          z.union([
            nonEmptyText(2000),
            z.strictObject({
              summary: summary200.describe('The decision in one line.'),
              rationale: nonEmptyText(20000).optional().describe('Why (default: the summary).'),
              context: nonEmptyText(20000).optional().describe('What prompted it (default: the record summary).'),
              domain: nonEmptyText(200).optional().describe('Default "implementation".'),
              alternatives: list(alternative, 50).optional(),
              constraints: list(nonEmptyText(2000), 100).optional(),
              confidence: z.enum(CONFIDENCES).optional(),
              affected_files: list(nonEmptyText(1000), 500).optional().describe("This decision's files (default: the record's affected_files)."),
              affected_symbols: list(nonEmptyText(500), 500).optional(),
              // twining-mcp 2.x (src/tools/record-tools.ts): per decision, over the record's own.
              status: z.enum(NEW_DECISION_STATUSES).optional().describe('active (default) or provisional (awaiting promote or override).'),
              assumptions: list(nonEmptyText(2000), 100).optional().describe("This decision's assumptions (default: the record's assumptions)."),
            }),
          ]),
          50,
        )
          .optional()
          .describe('Choices made: a sentence ("Chose X over Y — because Z") or an object with its rationale and affected files.'),
        findings: list(nonEmptyText(4000), 100).optional().describe('What the next session should know; a "warning:" or "need:" prefix posts it as one.'),
        warnings: list(nonEmptyText(4000), 100).optional().describe('Warnings for whoever works here next.'),
        resolves: list(nonEmptyText(100), 100).optional().describe('Ids of needs, warnings or questions this work settled.'),
        assumptions: list(nonEmptyText(2000), 100)
          .optional()
          .describe('Conditions the decisions depend on (each decision keeps them, unless it names its own).'),
        constraints: list(nonEmptyText(2000), 100).optional().describe('What limited the options (each decision keeps them).'),
        affected_files: list(nonEmptyText(1000), 500).optional().describe('Files changed or affected.'),
        affected_symbols: list(nonEmptyText(500), 500).optional(),
        depends_on: list(ulidId, 100).optional().describe('Ids of earlier decisions these depend on.'),
        supersedes: ulidId.optional().describe('Id of a decision the first decision here replaces.'),
        reversible: z.boolean().optional(),
        commit_hash: z
          .string()
          .regex(/^[0-9a-fA-F]{4,64}$/, { message: 'must be a hexadecimal commit hash' })
          .optional(),
        scope: scope.min(1, { message: 'must not be empty' }).optional().describe('Default: the folder the affected files share, else "project".'),
        agent_id: agentId.optional().describe('Default "main".'),
        handoff: z
          .strictObject({
            target_agent: agentId.optional().describe('Who takes the work over (omit for any agent).'),
            summary: nonEmptyText(4000).optional().describe('Default: the record summary.'),
            results: list(handoffResult, 200).optional(),
          })
          .optional()
          .describe('Hand the work over too, with a snapshot that includes what this call records.'),
      })
      .describe('The end of a piece of work in one call: a summary, decisions, findings, warnings, what it resolved and optionally a handoff; all or nothing.'),
    claim: z
      .strictObject({
        agent_id: agentId.describe('The agent claiming.'),
        paths: list(nonEmptyText(1000), 100)
          .optional()
          .describe('Files, folders (ending in "/") or globs ("src/**/*.sql") relative to the project root; all are claimed or none.'),
        delegation_id: ulidId.optional().describe('Id of a delegation need to take (claims it for this agent).'),
        reason: nonEmptyText(2000).describe('Why: shown to every agent and person who meets the claim.'),
        ttl_ms: z
          .number()
          .int()
          .min(1000)
          .max(7 * 24 * 3600 * 1000)
          .optional()
          .describe('How long the claim lasts unless renewed (default 30 minutes). Claiming again renews it.'),
      })
      .describe('Claim files, folders, globs or a delegation for one agent at a time; claiming again renews.'),
    release: z
      .strictObject({
        agent_id: agentId.describe('The agent releasing its claims.'),
        paths: list(nonEmptyText(1000), 100).optional().describe('The claimed paths to release, as claimed.'),
        delegation_id: ulidId.optional().describe('The delegation to release.'),
        claim_ids: list(ulidId, 1000).optional().describe('Ids of the claims to release.'),
      })
      .describe("Release an agent's claims (all of them when no path, delegation or id is given)."),
    claims: z
      .strictObject({
        agent_id: agentId.optional().describe("Only this agent's claims."),
        path: nonEmptyText(1000).optional().describe('Only claims that collide with this file, folder or glob.'),
        include_released: z.boolean().optional().describe('Also list released claims (kept a week; default false).'),
      })
      .describe('List claims: live ones, and lapsed ones (expired, or their holder gone) marked lapsed.'),
  };
}
