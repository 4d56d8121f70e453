/**
 * The inputs of twining-mcp 2.x's tools for closing and reviewing what is open: `resolve`
 * (src/tools/blackboard-tools.ts, commit e910d6ecf5cb8c519ae18f57a9ff95ff3f169376), `triage`
 * (src/core/commands/triage.ts, commit c6dbc077e20a3286ae947bfc1855e5ebfaa722f7), `archive_stale`
 * `unarchive` and `housekeeping` (src/tools/housekeeping-tools.ts, commit 161515b718c6a2896e2580419460c5be3b6e1525),
 * with its names and input fields. schemas.ts passes in its building blocks and adds these to its
 * `inputs`, so every schema is defined once and no module imports schemas.ts back.
 */
import { z } from 'zod';
import type { Blocks as HistoryBlocks } from './history-schemas';

export const TRIAGE_SECTIONS = ['all', 'open', 'recent'] as const;

type Blocks = Omit<HistoryBlocks<[string]>, 'ENTRY_TYPES'>;

export function surfaceInputs(b: Blocks) {
  const { ulidId, agentId, scope, since, text, nonEmptyText, list } = b;
  const ids = (what: string) => list(nonEmptyText(100), 1000).min(1, { message: 'must name at least one id' }).describe(what);
  return {
    resolve: z
      .strictObject({
        ids: ids('Ids of the needs, warnings or questions to mark resolved.'),
        note: text(4000).optional().describe('How each was handled (stored as resolution_note).'),
        agent_id: agentId.optional().describe('Who resolved them (stored as resolved_by).'),
      })
      .describe('Mark open needs, warnings or questions resolved: they stay on the blackboard with who resolved them, when and how, and leave the open lists.'),
    triage: z
      .strictObject({
        scope: scope.optional().describe('Only items whose scope overlaps this.'),
        window_ms: z.number().optional().describe('How far back recent activity goes, in milliseconds (default 7 days).'),
        section: z.enum(TRIAGE_SECTIONS).optional().describe('all (default), open or recent.'),
        limit: z.number().optional().describe('At most this many items per section (default 25, at most 200).'),
        since: since.optional().describe("Only recent items strictly after this time (a previous result's generated_at)."),
        open_after: text(1000).optional().describe("A previous result's open_cursor: the open items after it (paging)."),
        for_agent: text(128).optional().describe("Leave out this agent's own blackboard posts."),
      })
      .describe(
        'The review queue: open items (provisional decisions; needs, questions and warnings not resolved) oldest first, and recent activity (decisions made active, artifacts) newest first.',
      ),
    archive_stale: z
      .strictObject({
        ids: ids('Ids to archive: decisions (they become archived, restorable with unarchive) and blackboard entries (removed, kept in archive/).'),
        reason: text(4000).optional().describe('Why; recorded in a finding.'),
        reasons: z.record(z.string(), text(4000)).optional().describe('A reason per id, recorded in the finding.'),
      })
      .describe(
        'Archive stale items by id: a decision becomes "archived" (restorable with unarchive); a blackboard entry is removed, its full copy kept in archive/ with who and why.',
      ),
    unarchive: z
      .strictObject({
        ids: ids('Ids of archived decisions to restore.'),
        reason: text(4000).optional().describe('Why they are restored; recorded in a finding.'),
      })
      .describe('Restore archived decisions to the status they had before they were archived (archived_from; active when it is not known).'),
    housekeeping: z
      .strictObject({
        execute: z.boolean().optional().describe('Apply the changes (default false: a preview that says what would change).'),
        archive: z
          .boolean()
          .optional()
          .describe(
            'Run the blackboard archive pass: every entry except decisions, open needs, warnings and questions, and the newest archive.retain_recent of config.yml (200 when unset) (default false).',
          ),
        promote_provisionals: z.boolean().optional().describe('Promote provisional decisions older than stale_days to active (with execute).'),
        stale_days: z.number().optional().describe('Provisional decisions older than this many days are stale (default 7).'),
        metrics_retention_days: z.number().optional().describe('Drop metrics.jsonl lines older than this many days (default 30).'),
        staleness_review: z.boolean().optional().describe("Accepted for twining-mcp's callers; not run here (reported in not_run)."),
        merge_sweep: z.boolean().optional().describe("Accepted for twining-mcp's callers; not run here (reported in not_run)."),
        compact_archives: z.boolean().optional().describe("Accepted for twining-mcp's callers; not run here (reported in not_run)."),
        dedup_relations: z.boolean().optional().describe("Accepted for twining-mcp's callers; not run here (reported in not_run)."),
        amend_candidates: z.boolean().optional().describe("Accepted for twining-mcp's callers; not run here (reported in not_run)."),
        repair_entity_scopes: z.boolean().optional().describe("Accepted for twining-mcp's callers; not run here (reported in not_run)."),
        // twining-mcp 2.16 (its CHANGELOG: "Index-desync detection + repair (files backend)").
        repair_index: z
          .boolean()
          .optional()
          .describe(
            'Find decision records missing from decisions/index.json (invisible to every listing) and, with execute, put them back in it; on a twining.db folder it reports index_repair_error instead.',
          ),
      })
      .describe(
        'Periodic maintenance, a preview unless execute: duplicate blackboard entries removed (kept in archive/), stale provisional decisions and open warnings listed, orphan graph entities pruned, old metrics dropped; optionally the archive pass.',
      ),
    // twining-mcp 2.10's twining_amend (src/tools/decision-tools.ts, field D11): append-only metadata repair.
    amend: z
      .strictObject({
        decision_id: ulidId.describe('Id of the decision to amend.'),
        add_affected_files: list(nonEmptyText(1000), 500).optional().describe('File paths to add (those it has are kept; duplicates are ignored).'),
        add_affected_symbols: list(nonEmptyText(500), 500).optional().describe('Function, class or method names to add.'),
        reason: text(4000).optional().describe('Why the metadata is amended; kept in the amendments trail.'),
        agent_id: agentId.optional().describe('Who amends it (default "main").'),
      })
      .refine(v => (v.add_affected_files?.length ?? 0) + (v.add_affected_symbols?.length ?? 0) > 0, {
        message: 'give add_affected_files or add_affected_symbols (at least one path or symbol to add)',
      })
      .describe(
        'Add affected files or symbols to an existing decision (any status), so that why, the drift check and the graph find it by them; never removes or changes its text. The record keeps an amendments trail and a finding records the change.',
      ),
    // twining-mcp's twining_migrate_status (src/core/commands/migrate.ts): read-only.
    migrate_status: z
      .strictObject({})
      .describe(
        "The .twining/ folder's format and migration state: which layout it is on, whether a migration is complete, interrupted or rolled back, and the command to run next.",
      ),
    // twining-mcp's twining_exchange_status (src/core/commands/exchange.ts): read-only, never runs git.
    exchange_status: z
      .strictObject({
        include_ids: z.boolean().optional().describe('Include the ids behind each gap and uncertain transfer (default true); false gives counts.'),
      })
      .describe(
        "What this clone's exchange with other clones (twining sync) is uncertain about: pending outbound changes, what waits inbound, rejections, gaps; says so plainly when sync is not set up.",
      ),
  } as const;
}
