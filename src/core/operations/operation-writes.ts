/**
 * Which operations write to `.twining/`: the one table the engine (read-only refusal), the
 * extension (trust, confirmations, menus) and the manifest (tool tags) all consult. No value
 * import: the extension bundles it without loading the engine.
 */
import type { OperationName } from '../schemas/schemas';

const WRITING = [
  'register',
  'delegate',
  'handoff',
  'acknowledge',
  'post',
  'decide',
  'dismiss',
  'reconsider',
  'override',
  'promote',
  'claim',
  'release',
  'link_commit',
  'archive',
  'add_entity',
  'add_relation',
  'prune_graph',
  'record',
  'resolve',
  'archive_stale',
  'unarchive',
  'housekeeping',
  'amend',
] as const satisfies readonly OperationName[];

export type WritingOperation = (typeof WRITING)[number];

/** Whether `op` writes to `.twining/`. */
export function writes(op: OperationName): op is WritingOperation {
  return (WRITING as readonly string[]).includes(op);
}
