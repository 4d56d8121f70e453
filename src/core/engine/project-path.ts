/**
 * Paths a caller gave (a scope, a claimed file, a decision's files) as paths of the project, so
 * that what is written from a linked worktree meets what is written from the primary.
 */
import { realpathSync } from 'fs';
import * as path from 'path';

/** `file` with symbolic links resolved in its nearest existing folder (the file itself may not exist yet). */
function realSpelling(file: string): string {
  const rest: string[] = [];
  for (let at = path.resolve(file); ; at = path.dirname(at)) {
    try {
      return path.join(realpathSync.native(at), ...rest.reverse());
    } catch {
      if (path.dirname(at) === at) return path.resolve(file);
      rest.push(path.basename(at));
    }
  }
}

/**
 * `given` as a path of the project at `root`: an absolute path inside `worktree` (the linked
 * worktree the engine was opened from, if any) is made relative to that worktree (as the hooks
 * make an edited file's path, agents/hooks/hook-events.ts projectPath), so it matches claims and
 * scopes made from the primary; another absolute path is made relative to the project root (it
 * starts with `..` when it is outside). Relative paths are returned as given; a trailing `/` (a
 * folder scope) is kept.
 */
export function projectPath(given: string, root: string, worktree?: string): string {
  if (!path.isAbsolute(given)) return given;
  if (/[\\/]$/.test(given) && given.length > 1) {
    const folder = projectPath(given.replace(/[\\/]+$/, ''), root, worktree);
    return folder === '' ? folder : `${folder}/`;
  }
  const bases = worktree ? [worktree, root] : [root];
  for (const spelling of [path.resolve(given), realSpelling(given)]) {
    for (const base of bases) {
      const rel = path.relative(base, spelling);
      if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
    }
  }
  return path.relative(root, given).split(path.sep).join('/');
}
