/**
 * What each operation writes to `.twining/`, by kind of data: the one table the engine (read-only
 * refusal), the extension (trust, confirmations, menus) and the manifest (tool tags) all consult;
 * whether an operation writes at all is whether it is in the table. The kinds are the data kinds
 * of engine/data-kinds.ts, plus four no view watches (see WrittenData). Some writes depend on the input (a decision's commit, a handoff that releases
 * claims): the table names every kind an operation may write; test/unit/core/operations/
 * operation-writes.test.ts runs each on a real folder and checks that it writes nothing else.
 * No value import: the extension bundles it without loading the engine.
 */
import type { OperationName } from '../schemas/schemas';
import type { DataKind } from '../engine/data-kinds';

/**
 * What an operation can write: a data kind, the knowledge graph (`graph/`), the archive of
 * blackboard entries (`archive/`), twining-mcp's `metrics.jsonl` (housekeeping drops old lines),
 * or `.last-record` (the time of the last `record`, which twining-mcp's plugin hooks read).
 */
export type WrittenData = DataKind | 'graph' | 'archive' | 'metrics' | 'lastRecord';

const WRITES_TO = {
  register: ['registry', 'graph'],
  delegate: ['blackboard', 'graph'],
  handoff: ['handoffs', 'handoffRecords', 'blackboard', 'claims', 'graph'],
  acknowledge: ['handoffs', 'handoffRecords'],
  post: ['blackboard', 'graph'],
  decide: ['decisions', 'blackboard', 'graph'],
  dismiss: ['blackboard'],
  reconsider: ['decisions', 'blackboard', 'graph'],
  override: ['decisions', 'blackboard', 'graph'],
  promote: ['decisions', 'blackboard'],
  claim: ['claims'],
  release: ['claims'],
  link_commit: ['decisions', 'blackboard', 'graph'],
  archive: ['blackboard', 'archive'],
  add_entity: ['graph'],
  add_relation: ['graph'],
  prune_graph: ['graph'],
  record: ['decisions', 'blackboard', 'handoffs', 'handoffRecords', 'claims', 'lastRecord'],
  resolve: ['blackboard'],
  archive_stale: ['decisions', 'blackboard', 'archive'],
  unarchive: ['decisions', 'blackboard'],
  housekeeping: ['decisions', 'blackboard', 'archive', 'graph', 'metrics'],
  amend: ['decisions', 'blackboard', 'graph'],
} as const satisfies { [K in OperationName]?: readonly WrittenData[] };

export type WritingOperation = keyof typeof WRITES_TO;

/** Whether `op` writes to `.twining/`. */
export function writes(op: OperationName): op is WritingOperation {
  return Object.prototype.hasOwnProperty.call(WRITES_TO, op);
}

/** What `op` may write (nothing for an operation that only reads). */
export function writtenBy(op: OperationName): readonly WrittenData[] {
  return writes(op) ? WRITES_TO[op] : [];
}

/** Each kind of written data in words, for people (the editor's confirmations). */
const IN_WORDS: Record<WrittenData, string> = {
  registry: 'the agent registry',
  blackboard: 'the blackboard',
  handoffs: 'the handoff list',
  handoffRecords: 'handoff records',
  decisions: 'decisions',
  config: 'config.yml',
  sessions: 'session files',
  claims: 'claims',
  graph: 'the knowledge graph',
  archive: 'the archive',
  metrics: 'metrics.jsonl',
  lastRecord: '.last-record',
};

/** What `op` may change, in words ("the blackboard and the knowledge graph"); empty for an operation that only reads. */
export function writtenInWords(op: OperationName): string {
  const words = writtenBy(op).map(kind => IN_WORDS[kind]);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
