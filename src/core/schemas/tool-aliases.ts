/**
 * Tools under twining-mcp's names that are one of our operations with some fields fixed:
 * `twining_search_decisions` and `twining_query` are `search` with source "decisions" and
 * "blackboard". Their input schemas are picked from `search`'s (schemas.ts), so prompts written
 * for twining-mcp keep working and nothing is defined twice. No value import of the engine: the
 * extension and the MCP server both read this table.
 */
import { TwiningError } from '../errors';
import { AliasName, InputOf, aliasInputs, formatIssues } from './schemas';

export interface ToolAlias {
  /** The operation it runs. */
  op: 'search';
  /** Its input as the operation's input. */
  toInput(args: Record<string, unknown>): InputOf<'search'>;
}

export const TOOL_ALIASES: Record<AliasName, ToolAlias> = {
  search_decisions: { op: 'search', toInput: args => ({ ...(args as InputOf<'search'>), source: 'decisions' }) },
  // twining-mcp's twining_query gives 10 results unless told otherwise.
  query: { op: 'search', toInput: args => ({ ...(args as InputOf<'search'>), source: 'blackboard', limit: (args.limit as number | undefined) ?? 10 }) },
};

export const ALIAS_NAMES = Object.keys(TOOL_ALIASES) as AliasName[];

/** Validates an alias tool's input against its own schema (errors name the tool) and gives the operation's input. */
export function aliasInput(name: AliasName, value: unknown): InputOf<'search'> {
  const result = aliasInputs[name].safeParse(value ?? {});
  if (!result.success) throw new TwiningError('INVALID_INPUT', `${name}: ${formatIssues(result.error)}`, result.error.issues);
  return TOOL_ALIASES[name].toInput(result.data);
}
