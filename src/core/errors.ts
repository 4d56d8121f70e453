/**
 * Errors the engine raises on purpose. Each carries a code that the CLI maps to an exit status and
 * the extension maps to a notification; the message always names what was wrong.
 */
export type TwiningErrorCode =
  | 'INVALID_INPUT' // the caller's input broke a rule (exit 1)
  | 'NOT_FOUND' // something named does not exist (exit 2)
  | 'CORRUPT' // a file on disk cannot be parsed, or is not a regular file, and will not be overwritten
  | 'LOCKED' // another writer held the lock for the whole retry period
  | 'CHANGED' // what the caller confirmed changed before the write (a handoff's snapshot); nothing was written
  | 'IO'; // the file system refused a read or write (full disk, no permission, a file where a folder belongs)

export class TwiningError extends Error {
  constructor(
    readonly code: TwiningErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'TwiningError';
  }
}

/**
 * Whether `error` is a TwiningError (with `code`, when given). Checked by shape, not `instanceof`:
 * the CLI, the MCP server, the library and the extension are separate bundles, each with its own
 * copy of the class.
 */
export function isTwiningError(error: unknown, code?: TwiningErrorCode): error is TwiningError {
  return (
    error instanceof Error &&
    error.name === 'TwiningError' &&
    typeof (error as TwiningError).code === 'string' &&
    (code === undefined || (error as TwiningError).code === code)
  );
}
