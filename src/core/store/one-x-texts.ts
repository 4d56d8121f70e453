/**
 * The files of the 1.x layout (docs/format.md) as texts, made from a twining-mcp 2.x folder's records held
 * in a TwoXState: what a process lays out in its private copy (two-x-mirror.ts) and what
 * `twining migrate --reverse` writes into `.twining/` (migrate/migrate-reverse.ts), as twining-mcp's
 * own reverse does (src/migrate/reverse.ts): the blackboard one line per entry in row order, each
 * decision and handoff record as JSON with two spaces, the decision index from the records, the
 * handoff index from each row's `index_data` as stored.
 */
import * as path from 'path';
import { toJsonText } from './files';
import { indexEntryOf, indexLineOf } from './index-lines';
import type { Item, StateKind, TwoXState } from './two-x-state';
import type { HandoffRecord } from '../records';

/** The 1.x file each array kind lives in, relative to `.twining/`. */
export const ARRAY_FILES: Partial<Record<StateKind, string>> = {
  agents: path.join('agents', 'registry.json'),
  entities: path.join('graph', 'entities.json'),
  relations: path.join('graph', 'relations.json'),
};

/** `blackboard.jsonl`: each post's stored JSON text on its own line, in row order. */
export function blackboardText(state: TwoXState): string {
  return state
    .sorted('posts')
    .map(p => p.text + '\n')
    .join('');
}

/** `decisions/index.json`, made from the decision records in row order. */
export function decisionIndexText(state: TwoXState): string {
  return toJsonText(state.sorted('decisions').map(d => indexEntryOf(d.value)));
}

/** `handoffs/index.jsonl`: each row's `index_data` as stored (made from the record when it has none). */
export function handoffIndexText(state: TwoXState): string {
  return state
    .sorted('handoffs')
    .map(h => (h.index ?? JSON.stringify(indexLineOf(h.value as unknown as HandoffRecord, h.value.acknowledged_by !== undefined))) + '\n')
    .join('');
}

/** `agents/registry.json`, `graph/entities.json` or `graph/relations.json`. */
export function arrayText(state: TwoXState, kind: StateKind): string {
  return toJsonText(state.sorted(kind).map(i => i.value));
}

/** `decisions/{id}.json` or `handoffs/{id}.json`. */
export function recordFileText(item: Item): string {
  return toJsonText(item.value);
}
