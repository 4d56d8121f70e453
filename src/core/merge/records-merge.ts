/**
 * twining-mcp 2.x's `records/` files (one JSON file per record, src/storage/sync/record-export.ts):
 * a record changed on both branches is merged field by field by the same rules as its 1.x file,
 * and written back in the export's own bytes (record-text.ts), so git and twining-mcp see the file
 * twining-mcp would have written.
 *
 *   records/posts/<yyyy-mm>/<id>.json       a blackboard entry: a resolution is kept; when both
 *                                           sides resolved it, the first resolve wins whole
 *                                           (status, resolved_at, resolved_by, resolution_note)
 *   records/decisions/<id>.json             decisions/<id>.json's rules (status by precedence, …)
 *   records/handoffs/<id>.json              handoffs/<id>.json's rules (acknowledgement kept)
 *   records/graph/{entities,relations}/<id>.json   graph/*.json's rules
 */
import { mergeObject } from './object-merge';
import { JsonObject, compareStrings, firstOf } from './json-values';
import { mergeDecision } from './decision-merge';
import { mergeHandoffRecord } from './handoff-merge';
import { graphItems } from './graph-merge';
import { recordText } from '../storage/sqlite/record-text';

const RESOLUTION = ['status', 'resolved_at', 'resolved_by', 'resolution_note'] as const;

const resolved = (v: JsonObject) => v.status === 'resolved';
/** A field as text for ordering and notes (a string field, or its JSON). */
const text = (v: unknown, fallback: string): string => (v === undefined || v === null ? fallback : typeof v === 'string' ? v : JSON.stringify(v));

/** A blackboard entry changed on both sides (2.x rewrites an entry only to resolve it). */
export function mergePost(base: JsonObject | undefined, a: JsonObject, b: JsonObject, notes: string[], label: string): JsonObject {
  let primary: JsonObject;
  if (resolved(a) && resolved(b)) {
    const order = compareStrings(text(a.resolved_at, ''), text(b.resolved_at, ''));
    primary = order < 0 ? a : order > 0 ? b : firstOf(a, b);
    if (order !== 0)
      notes.push(
        `${label}: resolved on both sides; kept the first resolve (${text(primary.resolved_at, 'no time')}, by ${text(primary.resolved_by, 'unknown')})`,
      );
  } else primary = resolved(a) ? a : resolved(b) ? b : firstOf(a, b);
  const merged = mergeObject(base, primary, primary === a ? b : a, { label, notes });
  if (resolved(primary))
    for (const key of RESOLUTION) {
      if (key in primary) merged[key] = primary[key];
      else delete merged[key];
    }
  return merged;
}

export interface RecordFileKind {
  shape: 'object';
  what: string;
  merge: (base: JsonObject | undefined, a: JsonObject, b: JsonObject, notes: string[]) => JsonObject;
  write: (value: JsonObject) => string;
}

const POST = /^records\/posts\/[^/]+\/([^/]+)\.json$/;
const RECORD = /^records\/(decisions|handoffs|graph\/entities|graph\/relations)\/([^/]+)\.json$/;

/** The rules for a path inside `.twining/` under `records/`, or undefined (git's text merge). */
export function recordFileKind(rel: string): RecordFileKind | undefined {
  const post = POST.exec(rel);
  if (post) return { shape: 'object', what: `post ${post[1]}`, merge: (b, x, y, n) => mergePost(b, x, y, n, `post ${post[1]}`), write: recordText };
  const record = RECORD.exec(rel);
  if (!record) return undefined;
  const [, folder, id] = record;
  if (folder === 'decisions')
    return { shape: 'object', what: `decision ${id}`, merge: (b, x, y, n) => mergeDecision(b, x, y, n, `decision ${id}`), write: recordText };
  if (folder === 'handoffs') return { shape: 'object', what: `handoff ${id}`, merge: mergeHandoffRecord, write: recordText };
  return { shape: 'object', what: `graph item ${id}`, merge: (b, x, y, n) => graphItems.combine(b, x, y, n), write: recordText };
}
