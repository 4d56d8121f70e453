/**
 * A resolved need, warning or question in words (twining-mcp 2.x's `status: "resolved"` with
 * `resolved_by`, `resolved_at` and `resolution_note`; core/rules/resolution.ts has the rule). No
 * value import of the core: the views load without the engine.
 */
import type { BlackboardEntry } from '../../core';

export interface ResolutionFacts {
  by?: string;
  at?: string;
  note?: string;
}

/** Who resolved the entry, when and how; undefined while it is open. */
export function resolutionFacts(entry: BlackboardEntry): ResolutionFacts | undefined {
  if (entry.status !== 'resolved') return undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return { by: text(entry.resolved_by), at: text(entry.resolved_at), note: text(entry.resolution_note) };
}

/** "Resolved by X on 2026-11-26 10:04: note". */
export function resolutionSentence(r: ResolutionFacts): string {
  const by = r.by ? ` by ${r.by}` : '';
  const at = r.at ? ` on ${r.at.slice(0, 16).replace('T', ' ')}` : '';
  return `Resolved${by}${at}${r.note ? `: ${r.note}` : ''}`;
}
