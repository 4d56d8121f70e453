/**
 * Whether git is in the middle of an operation in the repository holding a project, found from
 * the file system alone (cheap enough to ask before every write): `checkout`, `pull`, `merge`
 * and `rebase` rewrite files under `.twining/` wholesale, and a write landing in between would be
 * overwritten by git or make it stop with "local changes would be overwritten".
 */
import * as fs from 'fs';
import * as path from 'path';

/**
 * The git directory of the work tree holding `dir`: `.git` itself, or for a linked work tree or a
 * submodule the folder its `.git` file names (`gitdir: …`). Undefined outside a repository.
 */
export function findGitDir(dir: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const dotGit = path.join(at, '.git');
    const st = fs.statSync(dotGit, { throwIfNoEntry: false });
    if (st?.isDirectory()) return dotGit;
    if (st?.isFile()) {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'));
      if (m) return path.resolve(at, m[1]);
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/** What each marker means, in the words of a message. */
const MARKERS: [file: string, meaning: string][] = [
  ['index.lock', 'git is updating the work tree (index.lock)'],
  ['MERGE_HEAD', 'a git merge is in progress (MERGE_HEAD)'],
  ['REBASE_HEAD', 'a git rebase is in progress (REBASE_HEAD)'],
  ['rebase-merge', 'a git rebase is in progress (rebase-merge)'],
  ['rebase-apply', 'a git rebase or am is in progress (rebase-apply)'],
  ['CHERRY_PICK_HEAD', 'a git cherry-pick is in progress (CHERRY_PICK_HEAD)'],
  ['REVERT_HEAD', 'a git revert is in progress (REVERT_HEAD)'],
];

/** Why writes must wait now, or undefined when git is idle. */
export function gitBusyReason(gitDir: string | undefined): string | undefined {
  if (!gitDir) return undefined;
  for (const [file, meaning] of MARKERS) if (fs.existsSync(path.join(gitDir, file))) return meaning;
  return undefined;
}

/** The git directory's entries whose appearance or removal marks the start or end of an operation. */
export const GIT_OPERATION_FILES = ['HEAD', ...MARKERS.map(([file]) => file)];
