/**
 * A window on a linked worktree folds, once per folder and session, what something else wrote into
 * that worktree's own checked-out `.twining/` into the shared record it shows
 * (core/git/fold-checked-out-copy.ts), and says so in the log and a notification. Only where the
 * route found such a copy (no git is run otherwise) and the workspace is trusted (the engine is
 * read-only otherwise and folds nothing).
 */
import type { TwiningFolder } from './twining-folder';
import { inform, log, messageOf } from '../log';

const looked = new Set<string>();

export async function foldWorktreeCopy(folder: TwiningFolder): Promise<void> {
  if (looked.has(folder.key) || !folder.route.checkedOutCopy || folder.isReadOnly) return;
  looked.add(folder.key);
  try {
    const report = await folder.write('folding the worktree copy', engine => engine.foldCheckedOutCopy());
    if (!report?.message) return;
    log.info(`${folder.name}: ${report.message}`);
    inform(`Twining: ${report.message}`);
  } catch (error) {
    log.warn(`${folder.name}: the worktree's own .twining/ could not be folded into the shared record: ${messageOf(error)}`);
  }
}
