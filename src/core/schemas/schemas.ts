/**
 * Every operation's input, defined once. The CLI, the VS Code commands and the language model tools
 * all derive their argument handling from these schemas (field names are twining-mcp's tool
 * inputs, snake_case, docs/format.md §Tools).
 */
import { z } from 'zod';
import { TwiningError } from '../errors';
import { TIMESTAMP_RULE, canonicalTimestamp } from '../timestamps';
import { historyInputs } from './history-schemas';
import { workInputs } from './work-schemas';
import { surfaceInputs } from './surface-schemas';

// ---------------------------------------------------------------------------------------------
// Building blocks

const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ULID_RULE = 'must be a ULID (26 characters of Crockford base32, e.g. 01M80HHKAVJT8FG2B08Q4NGZ4W)';

/** A ULID, checked before any file path is built from it (no path traversal). */
export const ulidId = z.string().regex(ULID_PATTERN, { message: ULID_RULE });

export const isUlid = (value: unknown): value is string => typeof value === 'string' && ULID_PATTERN.test(value);

/** Throws INVALID_INPUT naming `field` unless `value` is a ULID (ids become file names). */
export function checkUlid(field: string, value: unknown): string {
  if (!isUlid(value)) throw new TwiningError('INVALID_INPUT', `${field}: ${ULID_RULE}`);
  return value;
}

/** Agent ids are chosen by callers; they must be usable as file names and readable in a list. */
export const agentId = z
  .string()
  .min(1, { message: 'must not be empty' })
  .max(128, { message: 'must be at most 128 characters' })
  .refine(s => !/[/\\\u0000-\u001f\u007f]/.test(s) && s !== '.' && s !== '..' && s.trim() === s, {
    message: 'must not contain slashes, control characters or surrounding spaces, and must not be "." or ".."',
  });

const summary200 = z.string().min(1, { message: 'must not be empty' }).max(200, { message: 'must be at most 200 characters (it is rejected, not truncated)' });

const text = (max: number) => z.string().max(max, { message: `must be at most ${max} characters` });
const nonEmptyText = (max: number) => text(max).min(1, { message: 'must not be empty' });
const list = <T extends z.ZodType>(item: T, max: number) => z.array(item).max(max, { message: `must have at most ${max} items` });
const tag = nonEmptyText(100);

/** A scope: a file path, a folder prefix (ending in "/") or "project". */
export const scope = text(1000).describe('A file path, a folder prefix ending in "/", or "project".');

/** A strict ISO 8601 date (timestamps.ts); compared as its canonical toISOString form. */
export const since = z
  .string()
  .refine(s => canonicalTimestamp(s) !== undefined, { message: TIMESTAMP_RULE })
  .describe('Only items at or after this time (ISO 8601).');

export const ENTRY_TYPES = ['need', 'offer', 'finding', 'decision', 'constraint', 'question', 'answer', 'status', 'artifact', 'warning'] as const;
export const POSTABLE_TYPES = ENTRY_TYPES.filter((t): t is Exclude<EntryType, 'decision'> => t !== 'decision');
export const URGENCIES = ['high', 'normal', 'low'] as const;
export const RESULT_STATUSES = ['completed', 'partial', 'blocked', 'failed'] as const;
export const CONFIDENCES = ['high', 'medium', 'low'] as const;
export const DECISION_STATUSES = ['active', 'provisional', 'superseded', 'overridden', 'archived'] as const;
export const SEARCH_SOURCES = ['decisions', 'blackboard'] as const;
export const VERIFY_CHECKS = ['test_coverage', 'warnings', 'assembly', 'drift', 'constraints'] as const;

export type EntryType = (typeof ENTRY_TYPES)[number];
export type Urgency = (typeof URGENCIES)[number];
export type ResultStatus = (typeof RESULT_STATUSES)[number];
export type Confidence = (typeof CONFIDENCES)[number];
export type DecisionStatus = (typeof DECISION_STATUSES)[number];

export const handoffResult = z.strictObject({
  description: nonEmptyText(2000).describe('What was done or attempted.'),
  status: z.enum(RESULT_STATUSES).describe('completed, partial, blocked or failed.'),
  artifacts: list(nonEmptyText(1000), 200).optional().describe('Files or other artifacts produced.'),
  notes: text(4000).optional().describe('Anything the receiver should know.'),
});

export const contextSnapshot = z.strictObject({
  decision_ids: list(ulidId, 10000),
  warning_ids: list(ulidId, 10000),
  finding_ids: list(ulidId, 10000),
  summaries: list(text(1000), 10000),
});

const alternative = z.strictObject({
  option: nonEmptyText(1000),
  pros: list(text(1000), 100).optional(),
  cons: list(text(1000), 100).optional(),
  // Optional since twining-mcp 2.16 (its CHANGELOG, review CS-2): absent means "not stated", and the record leaves the key out.
  reason_rejected: nonEmptyText(2000).optional(),
});

/** The statuses a decision may be recorded with (twining-mcp 2.x's `status` of twining_decide and of twining_record's decisions). */
export const NEW_DECISION_STATUSES = ['active', 'provisional'] as const;

// ---------------------------------------------------------------------------------------------
// Operation inputs, one per operation, named as the operation.

export const inputs = {
  register: z
    .strictObject({
      agent_id: agentId.describe('Unique id of the agent (file-name safe).'),
      capabilities: list(tag, 100).optional().describe('Capability tags; normalised to lower case.'),
      role: nonEmptyText(200).optional().describe('e.g. implementer, reviewer, tester.'),
      description: nonEmptyText(2000).optional().describe('What the agent does.'),
    })
    .describe('Register an agent or refresh its liveness; capabilities are merged with the stored ones.'),
  agents: z
    .strictObject({
      include_gone: z.boolean().optional().describe('List agents whose liveness is gone (default true).'),
    })
    .describe('List registered agents with their liveness (active, idle, gone).'),
  discover: z
    .strictObject({
      required_capabilities: list(tag, 100).describe('Capabilities the work needs.'),
      include_gone: z.boolean().optional().describe('Score gone agents too (default true).'),
      min_score: z.number().min(0).max(1).optional().describe('Only agents scoring at least this (0 to 1).'),
    })
    .describe('Rank agents by capability overlap (70%) and liveness (30%).'),
  delegate: z
    .strictObject({
      summary: summary200.describe('What help is needed (1 to 200 characters).'),
      required_capabilities: list(tag, 100).describe('Capabilities an agent needs to take this on.'),
      urgency: z.enum(URGENCIES).optional().describe('high, normal (default) or low; sets the default timeout.'),
      timeout_ms: z
        .number()
        .int()
        .positive()
        .max(365 * 24 * 3600 * 1000)
        .optional()
        .describe('Expiry in ms from now.'),
      scope: scope.min(1, { message: 'must not be empty' }).optional(),
      tags: list(tag, 100).optional(),
      agent_id: agentId.optional().describe('Who needs the help (default "main").'),
    })
    .describe('Post a delegation need and get the agents best suited to take it.'),
  delegations: z
    .strictObject({
      include_expired: z.boolean().optional().describe('Also list expired needs, marked expired: true (default false).'),
      scope: scope.optional().describe('Only needs whose scope overlaps this.'),
    })
    .describe('List open delegation needs with their suggested agents.'),
  handoff: z
    .strictObject({
      source_agent: agentId.describe('The agent handing the work over.'),
      target_agent: agentId.optional().describe('The intended receiver; omit for any agent.'),
      scope: scope.min(1, { message: 'must not be empty (omit it for no scope)' }).optional(),
      summary: nonEmptyText(4000).describe('What is being handed over.'),
      results: list(handoffResult, 200).describe('Results, each with a status; may be empty.'),
      auto_snapshot: z.boolean().optional().describe('Attach decisions, warnings and findings in scope (default true).'),
      context_snapshot: contextSnapshot.optional().describe('An explicit snapshot; overrides the automatic one.'),
      continues: ulidId.optional().describe('Id of the handoff this one continues (chains A to B to C).'),
      expected_digest: z
        .string()
        .regex(/^sha256:[0-9a-f]{64}$/, { message: 'must be "sha256:" and 64 hex digits (a snapshot_digest)' })
        .optional()
        .describe('The digest of the snapshot the caller confirmed: if what is in scope changed since, nothing is written (error CHANGED).'),
    })
    .describe('Hand work over with its results and a snapshot of the decisions, warnings and findings in scope.'),
  handoffs: z
    .strictObject({
      source_agent: agentId.optional(),
      target_agent: agentId.optional(),
      scope: scope.optional().describe('Only handoffs whose scope overlaps this (handoffs without scope always match).'),
      since: since.optional(),
      acknowledged: z.boolean().optional().describe('true: only acknowledged; false: only unacknowledged.'),
      limit: z.number().int().min(1).max(100000).optional().describe('At most this many, newest first (default 50).'),
    })
    .describe('List handoffs, newest first.'),
  acknowledge: z
    .strictObject({
      handoff_id: ulidId.describe('Id of the handoff.'),
      agent_id: agentId.describe('The agent taking the handoff.'),
    })
    .describe('Acknowledge a handoff: the receiving agent has taken it.'),
  post: z
    .strictObject({
      entry_type: z
        .enum(POSTABLE_TYPES as [string, ...string[]], { message: `must be one of ${POSTABLE_TYPES.join(', ')} (decisions are recorded with decide)` })
        .describe('The kind of entry.'),
      summary: summary200.describe('One line (1 to 200 characters).'),
      detail: text(65536).optional().describe('The full text.'),
      tags: list(tag, 100).optional(),
      scope: scope.min(1, { message: 'must not be empty' }).optional().describe('Default "project".'),
      relates_to: list(nonEmptyText(100), 100).optional().describe('Ids of related entries or decisions.'),
      agent_id: agentId.optional().describe('Default "main".'),
    })
    .describe('Post a warning, finding, need, question or other entry to the shared blackboard.'),
  read: z
    .strictObject({
      entry_types: list(z.enum(ENTRY_TYPES), 10).optional(),
      tags: list(tag, 100).optional().describe('At least one must match exactly.'),
      scope: scope.optional(),
      since: since.optional(),
      limit: z.number().int().min(0).max(1000000).optional().describe('The last N that match (default 50; 0 for all).'),
    })
    .describe('Read blackboard entries, oldest first.'),
  decide: z
    .strictObject({
      domain: nonEmptyText(200).describe('e.g. architecture, security, api.'),
      scope: scope.min(1, { message: 'must not be empty' }),
      summary: summary200,
      context: nonEmptyText(20000),
      rationale: nonEmptyText(20000),
      constraints: list(nonEmptyText(2000), 100).optional(),
      alternatives: list(alternative, 50).optional(),
      depends_on: list(ulidId, 100).optional(),
      supersedes: ulidId.optional().describe('Id of the decision this one replaces.'),
      confidence: z.enum(CONFIDENCES).optional(),
      reversible: z.boolean().optional(),
      affected_files: list(nonEmptyText(1000), 500).optional(),
      affected_symbols: list(nonEmptyText(500), 500).optional(),
      // twining-mcp 2.x (src/tools/decision-tools.ts): the status it is recorded with, and what it assumes.
      status: z
        .enum(NEW_DECISION_STATUSES)
        .optional()
        .describe(
          'active (default) or provisional: awaiting ratification with promote, or a veto with override. Not with supersedes (the target would be retired before ratification).',
        ),
      assumptions: list(nonEmptyText(2000), 100).optional().describe('Assumptions the decision depends on: if one changes, reconsider it.'),
      commit_hash: z
        .string()
        .regex(/^[0-9a-fA-F]{4,64}$/, { message: 'must be a hexadecimal commit hash' })
        .optional(),
      agent_id: agentId.optional(),
    })
    .refine(v => !(v.status === 'provisional' && v.supersedes !== undefined), {
      message:
        'a provisional decision cannot supersede at creation: the target would be retired before ratification; record it active, or promote it first and then supersede',
    })
    .describe('Record a decision with its rationale; conflicting active decisions make it provisional.'),
  decisions: z
    .strictObject({
      scope: scope.optional(),
      status: z.union([z.enum(DECISION_STATUSES), list(z.enum(DECISION_STATUSES), 5)]).optional(),
      domain: nonEmptyText(200).optional(),
      limit: z.number().int().min(1).max(1000000).optional().describe('At most this many, newest first.'),
    })
    .describe('List decisions, newest first, by scope, status and domain.'),
  status: z.strictObject({}).describe('Counts: agents by liveness, delegations, unacknowledged handoffs, decisions, warnings.'),
  verify: z
    .strictObject({
      handoff_id: ulidId.optional().describe('Id of the handoff to check (its snapshot and drift); or give scope instead.'),
      // twining-mcp's twining_verify of a scope (operations/scope-verify-ops.ts).
      scope: nonEmptyText(1000)
        .optional()
        .describe('A scope to verify with twining-mcp\'s checks (e.g. "src/auth/" or "project"); or give handoff_id instead.'),
      checks: list(z.enum(VERIFY_CHECKS), 5).optional().describe('Checks of the scope to run (default all).'),
      agent_id: agentId.optional().describe("Only this agent's decisions in the assembly check."),
      fail_on: list(nonEmptyText(100), 5).optional().describe('Checks whose "fail" status makes the verification fail (failed: true).'),
    })
    .refine(v => (v.handoff_id === undefined) !== (v.scope === undefined), {
      message: 'give handoff_id (to check a handoff) or scope (to verify a scope), one of the two',
    })
    .describe(
      "Check a handoff's snapshot and drift (handoff_id), or verify a scope as twining-mcp does: test coverage, warnings, assembly, drift, constraints (scope).",
    ),
  // twining-mcp 2.x's bounded why (src/tools/decision-tools.ts, src/engine/decisions.ts; its #41).
  why: z
    .strictObject({
      scope: nonEmptyText(1000).optional().describe('A file path, a folder prefix, or a symbol name (required unless ids is given).'),
      ids: list(nonEmptyText(100), 100)
        .min(1, { message: 'must name at least one decision' })
        .optional()
        .describe('Full detail (context, alternatives, constraints) for exactly these decision ids; scope and the budget do not apply.'),
      max_tokens: z
        .number()
        .int()
        .min(100)
        .max(1000000)
        .optional()
        .describe(
          'Token budget of the answer (at least 100; default 4000 for the MCP and language model tools, none for the CLI): the decisions that fit come in full, the rest as one-liners in more.',
        ),
      include_superseded: z.boolean().optional().describe('Include superseded, overridden and archived decisions (left out by default).'),
      lineage: z
        .boolean()
        .optional()
        .describe('Give each left-out superseded or overridden decision its lineage_head: superseded_by followed to the current answer.'),
    })
    .refine(v => v.scope !== undefined || (v.ids !== undefined && v.ids.length > 0), { message: 'Provide a scope or a list of decision ids' })
    .describe(
      'The decisions behind a file, folder or symbol, ranked (most specific, then active, then newest) and cut to a token budget; the rest as one-liners in more.',
    ),
  dismiss: z
    .strictObject({
      ids: list(nonEmptyText(100), 1000).min(1, { message: 'must name at least one entry' }).describe('Ids of the blackboard entries to remove.'),
      reason: text(2000).optional().describe('Why they are dismissed; recorded in a status entry.'),
      agent_id: agentId.optional().describe('Who dismisses them (default "main").'),
    })
    .describe('Remove blackboard entries (a warning dealt with, a finding no longer true); the reason is kept in a status entry.'),
  reconsider: z
    .strictObject({
      decision_id: ulidId.describe('Id of the decision to reconsider.'),
      new_context: nonEmptyText(20000).describe('What changed, or why the decision should be looked at again.'),
      agent_id: agentId.optional().describe('Who asks (default "main").'),
    })
    .describe('Flag a decision for reconsideration: an active one becomes provisional, and a warning names the decisions that depend on it.'),
  override: z
    .strictObject({
      decision_id: ulidId.describe('Id of the decision to override.'),
      reason: nonEmptyText(20000).describe('Why it is overridden.'),
      new_decision: summary200.optional().describe('Summary of a replacement decision, recorded superseding it.'),
      overridden_by: agentId.optional().describe('Who overrides it (default "human").'),
    })
    .describe('Override a decision: it becomes overridden, with who and why; optionally a replacement decision supersedes it.'),
  promote: z
    .strictObject({
      decision_ids: list(ulidId, 1000).min(1, { message: 'must name at least one decision' }).describe('Ids of provisional decisions to make active.'),
      promoted_by: agentId.optional().describe('Who promotes them (default "main").'),
    })
    .describe('Promote provisional decisions to active.'),
  search: z
    .strictObject({
      query: nonEmptyText(1000).describe('Keywords; each also matches as a prefix and, from five letters on, with one typo.'),
      source: z
        .enum(SEARCH_SOURCES)
        .optional()
        .describe(
          'decisions: decision records only; blackboard: blackboard entries only (their copies of decisions included). Default both, each decision once (from its record).',
        ),
      entry_types: list(z.enum(ENTRY_TYPES), 10).optional().describe('Only these types ("decision" for decisions, the others for blackboard entries).'),
      domain: nonEmptyText(200).optional().describe('Only decisions of this domain.'),
      status: z
        .union([z.enum(DECISION_STATUSES), list(z.enum(DECISION_STATUSES), 5)])
        .optional()
        .describe('Only decisions with this status (or one of these).'),
      confidence: z.enum(CONFIDENCES).optional().describe('Only decisions with this confidence.'),
      scope: scope.optional().describe('Only records whose scope overlaps this.'),
      limit: z.number().int().min(1).max(1000).optional().describe('At most this many, best first (default 20).'),
    })
    .describe(
      'Ranked keyword search over decisions (summary, context, rationale, alternatives, domain, scope) and blackboard entries (summary, detail, tags, scope).',
    ),
  // twining-mcp 1.9's other tools, under its names and input fields (history-schemas.ts).
  ...historyInputs({ ulidId, agentId, scope, since, text, nonEmptyText, list, ENTRY_TYPES }),
  // The briefing, the record of a piece of work and claims (work-schemas.ts).
  ...workInputs({ ulidId, agentId, scope, nonEmptyText, list, summary200, alternative, handoffResult, CONFIDENCES, NEW_DECISION_STATUSES }),
  // twining-mcp 2.x's tools for closing and reviewing what is open, amending a decision and the store's state (surface-schemas.ts).
  ...surfaceInputs({ ulidId, agentId, scope, since, text, nonEmptyText, list }),
} as const;

/**
 * twining-mcp's two search tools, with its names and input fields: each is `search` with some of
 * its fields (derived from the one schema above) and a fixed source.
 */
export const aliasInputs = {
  search_decisions: inputs.search
    .pick({ query: true, domain: true, status: true, confidence: true, limit: true })
    .describe('Search decisions across all scopes by keyword, best first, filtered by domain, status and confidence.'),
  query: inputs.search.pick({ query: true, entry_types: true, limit: true }).describe('Search blackboard entries by keyword, best first (default 10).'),
} as const;
export type AliasName = keyof typeof aliasInputs;

export type OperationName = keyof typeof inputs;
export const OPERATION_NAMES = Object.keys(inputs) as OperationName[];
export type InputOf<K extends OperationName> = z.input<(typeof inputs)[K]>;
export type ParsedInputOf<K extends OperationName> = z.output<(typeof inputs)[K]>;

/** Validates an operation's input; throws INVALID_INPUT naming every field and broken rule. */
export function parseInput<K extends OperationName>(op: K, value: unknown): ParsedInputOf<K> {
  const result = (inputs[op] as z.ZodType).safeParse(value ?? {});
  if (result.success) return result.data as ParsedInputOf<K>;
  throw new TwiningError('INVALID_INPUT', `${op}: ${formatIssues(result.error)}`, result.error.issues);
}

export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map(issue => {
      if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map(k => `"${k}"`).join(', ')}`;
      const where = issue.path.length
        ? issue.path
            .map(p => (typeof p === 'number' ? `[${p}]` : String(p)))
            .join('.')
            .replace(/\.\[/g, '[')
        : 'input';
      // A field left out: say so, rather than "expected array, received undefined".
      if (issue.code === 'invalid_type' && issue.path.length && /received undefined$/.test(issue.message)) return `${where}: required (${issue.expected})`;
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}

/** JSON Schema of an operation's (or an alias tool's) input, for language model tools and documentation. */
export function jsonSchemaOf(op: OperationName | AliasName): Record<string, unknown> {
  const input: z.ZodType = op in inputs ? inputs[op as OperationName] : aliasInputs[op as AliasName];
  const schema = z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
