/**
 * The one rule for writes in a read-only (untrusted) workspace, and its one error. The engine
 * applies it to every writing operation (FolderStore.validate), so every write path passes it:
 * commands, chat, language model tools and the library. The extension asks the same rule early,
 * before its prompts (nobody answers five questions to be told the workspace is read-only), and for
 * the few files it writes outside `.twining/` (agent setup); the MCP server it offers is not
 * offered at all in an untrusted workspace.
 */
import { TwiningError } from '../errors';

/** The refusal of `what` when `readOnly`; undefined when it may write. */
export function writeRefusal(readOnly: boolean, what: string): TwiningError | undefined {
  if (!readOnly) return undefined;
  return new TwiningError(
    'INVALID_INPUT',
    `Twining is read-only in an untrusted workspace: "${what}" would write to the project; nothing was written. Trust the workspace to use it.`,
    { readOnly: true },
  );
}

/** Whether `error` is that refusal (by shape: each bundle has its own TwiningError class). */
export function isWriteRefusal(error: unknown): error is Error {
  return error instanceof Error && (error as { details?: { readOnly?: unknown } }).details?.readOnly === true;
}
