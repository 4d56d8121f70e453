/**
 * An operation as data: its name (twining-mcp's tool name without `twining_`), its input schema
 * (schemas.ts), what it writes to `.twining/` (operation-writes.ts), what is said about it
 * (operation-info.ts) and how it runs on a folder's store. The families of operations
 * (agents.ts, blackboard.ts, …) each export theirs; registry.ts puts them in one table, which the
 * engine, and through it the CLI, the MCP server, the language model tools and the commands, call.
 */
import type { FolderStore } from '../engine/folder-store';
import { inputs, type InputOf, type OperationName } from '../schemas/schemas';
import { type WrittenData, writes, writtenBy } from './operation-writes';
import { OPERATIONS } from './operation-info';

export interface Operation<K extends OperationName, R, O = undefined> {
  readonly name: K;
  /** The input's zod schema; `run` validates against it before it touches anything. */
  readonly input: (typeof inputs)[K];
  /** Whether it writes to `.twining/` (refused in a read-only workspace). */
  readonly writes: boolean;
  /** What it may write: kinds of data, the graph, the archive (empty: it only reads). */
  readonly writesTo: readonly WrittenData[];
  /** A short title for people. */
  readonly title: string;
  /** What it does, for a language model (the schema's own description comes with the schema). */
  readonly description: string;
  run(store: FolderStore, input: InputOf<K>, options?: O): Promise<R>;
}

/** Any operation of the table, whatever its result and options. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a table of operations with different results and options
export type AnyOperation = Operation<OperationName, unknown, any>;

/** The operation `name`, described by the shared tables, running `run`. */
export function operation<K extends OperationName, R, O = undefined>(
  name: K,
  run: (store: FolderStore, input: InputOf<K>, options?: O) => Promise<R>,
): Operation<K, R, O> {
  return {
    name,
    input: inputs[name],
    writes: writes(name),
    writesTo: writtenBy(name),
    title: OPERATIONS[name].title,
    description: OPERATIONS[name].model,
    run,
  };
}
