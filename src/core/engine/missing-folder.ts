/**
 * Reading a project that has no `.twining/`: an empty answer ("Healthy. 0 blackboard entries",
 * "No handoffs.") would read as an empty project when it is the wrong folder or one never set up.
 * Reads there fail instead (NOT_FOUND) with the folder looked in and how to create one; writes go
 * on and create the folder, as twining-mcp's do.
 */
import * as path from 'path';
import { TwiningError } from '../errors';
import { writes } from '../operations/operation-writes';
import type { OperationName } from '../schemas/schemas';

/**
 * Refuses a read of `op` when `exists` says there is no `.twining/` in `root`; `how` says how the
 * folder was chosen (e.g. "the current folder", "--dir"), to name where was looked.
 */
export async function refuseReadWithoutFolder(op: OperationName, root: string, exists: () => Promise<boolean>, how: string): Promise<void> {
  if (writes(op) || (await exists())) return;
  throw new TwiningError(
    'NOT_FOUND',
    `${op}: there is no .twining/ in ${path.resolve(root)} (${how}), so there is nothing to read. ` +
      `Create one with "twining init" there (or pass --dir <folder> for a project that has one); any write creates it too.`,
    { missing: path.join(path.resolve(root), '.twining') },
  );
}
