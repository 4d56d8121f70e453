/**
 * Defaults that apply where a model reads the answer (the MCP server's tools and VS Code's
 * language model tools), as twining-mcp's tools apply them, while the library and the CLI answer
 * in full unless asked otherwise: `why` keeps to 4000 tokens (twining-mcp's max_tokens default,
 * its #41: unbounded answers reached 350 KB) unless the caller gives `max_tokens` or `ids`.
 */
import type { OperationName } from './schemas';

/** twining-mcp's default budget of twining_why (DEFAULT_WHY_MAX_TOKENS). */
export const WHY_MAX_TOKENS = 4000;

/** `input` with the defaults a model's call gets; other operations' input as it is. */
export function withModelDefaults(op: OperationName, input: unknown): unknown {
  if (op !== 'why' || input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const args = input as Record<string, unknown>;
  if (args.max_tokens !== undefined || (Array.isArray(args.ids) && args.ids.length > 0)) return input;
  return { ...args, max_tokens: WHY_MAX_TOKENS };
}
