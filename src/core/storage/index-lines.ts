/**
 * The 1.x index entries derived from a record: a decision's line in `decisions/index.json` and a
 * handoff's line in `handoffs/index.jsonl` (docs/format.md §Decision index, docs/format.md §Handoff index). Used where the records are
 * written (operations/) and where a 2.x folder's records are written back as a 1.x folder (migrate/migrate-reverse.ts).
 */
import { resultStatusOf } from '../rules/snapshot';
import type { HandoffIndexLine, HandoffRecord } from '../records';

/** A decision's index entry (docs/format.md §Decision index, keys in table order), from its record. */
export function indexEntryOf(record: Record<string, unknown>): Record<string, unknown> {
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  return {
    id: record.id,
    timestamp: record.timestamp,
    domain: record.domain,
    scope: record.scope,
    summary: record.summary,
    confidence: record.confidence ?? 'medium',
    status: record.status ?? 'active',
    affected_files: list(record.affected_files),
    affected_symbols: list(record.affected_symbols),
    commit_hashes: list(record.commit_hashes),
  };
}

/** A handoff's index line, keys in twining-mcp's order. */
export function indexLineOf(record: HandoffRecord, acknowledged: boolean): HandoffIndexLine {
  const line: Record<string, unknown> = { id: record.id, created_at: record.created_at, source_agent: record.source_agent };
  if (record.target_agent !== undefined) line.target_agent = record.target_agent;
  if (record.scope !== undefined) line.scope = record.scope;
  line.summary = record.summary;
  line.result_status = resultStatusOf(Array.isArray(record.results) ? record.results : []);
  line.acknowledged = acknowledged;
  return line as HandoffIndexLine;
}
