/**
 * Which `.twining/` a process started in some folder reads and writes: ONE record per repository,
 * the primary (main) worktree's, whichever worktree of the repository the process runs in. A
 * linked worktree checks out its own copy of `.twining/`; reading that copy would show each agent
 * a private, stale record, so it is never used (and never written) unless its user asks for
 * isolation.
 *
 * Found from the file system alone, without spawning git (the hooks run this on every tool call):
 * walk up from the start folder to the first `.git` entry. A `.git` folder is a repository's main
 * worktree. A `.git` file (`gitdir: …`) names the worktree's own git directory; when that
 * directory has a `commondir` file the folder is a linked worktree (`git worktree add`), and the
 * common directory's work tree is the primary. A `.git` file without `commondir` is a submodule
 * (its git directory under the superproject's `.git/modules/`) or a repository made with
 * `--separate-git-dir`: a repository of its own, with its own record. This follows git's own
 * layout (gitrepository-layout(5): "commondir", "worktrees/<id>/gitdir"; git-worktree(1)).
 *
 * Overrides: `TWINING_PROJECT` (twining-mcp's variable naming the project folder) takes the
 * record from that folder as it is; a linked worktree whose git directory holds a file named
 * `twining-isolated` keeps the record it checks out (`ISOLATION_MARKER`).
 */
import * as fs from 'fs';
import * as path from 'path';
import { TwiningError } from '../errors';

/** The file in a linked worktree's own git directory that keeps that worktree's record apart. */
export const ISOLATION_MARKER = 'twining-isolated';

/**
 * How the record was chosen: `shared` (a repository's one record, from its primary or any linked
 * worktree), `isolated` (a linked worktree that keeps its own), `override` (TWINING_PROJECT), `folder`
 * (no repository: the nearest folder with `.twining/`, or the start folder).
 */
export type RouteMode = 'shared' | 'isolated' | 'override' | 'folder';

export interface RecordRoute {
  /** The folder holding the record (`.twining/` is inside it): what the engine is opened on. */
  projectRoot: string;
  /** The record itself: `projectRoot/.twining`. */
  dir: string;
  mode: RouteMode;
  /** Why this record, in a sentence ("the shared record of /repo, used from worktree agent-b on branch agent-b"). */
  reason: string;
  /** The work tree the start folder is in (undefined outside a repository). */
  worktree?: string;
  /** git's name for a linked worktree (its folder under `.git/worktrees/`); undefined for the primary. */
  worktreeName?: string;
  /** The branch checked out there, or `detached at 1234567`. */
  branch?: string;
  /** Whether the start folder is in a linked worktree (not the primary). */
  linked: boolean;
  /** A linked worktree's own checked-out `.twining/`, which is never written (when it exists and is not the record). */
  checkedOutCopy?: string;
  /** Something the user should know about this route (the record does not exist yet, a bare repository). */
  note?: string;
}

export interface RouteOptions {
  /** twining-mcp's TWINING_PROJECT: when set, the record of that folder, taken as it is. */
  project?: string;
}

const isDir = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** The first line of a small regular file, or undefined when it is missing; anything else (a FIFO, a device, a folder) is refused by name. */
function readSmallFile(file: string, what: string): string | undefined {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st) return undefined;
  if (!st.isFile()) throw new TwiningError('CORRUPT', `${file} (${what}) is not a regular file; Twining cannot tell which record to use and wrote nothing`);
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString('utf8', 0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** `git config`'s `[core]` keys this needs (`bare`, `worktree`), read from a config file by its simple form. */
function coreConfig(file: string): { bare?: boolean; worktree?: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const out: { bare?: boolean; worktree?: string } = {};
  let inCore = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const section = /^\[\s*([^\]\s"]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
    if (section) {
      inCore = section[1].toLowerCase() === 'core' && !line.includes('"');
      continue;
    }
    if (!inCore) continue;
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!kv) continue;
    const key = kv[1].toLowerCase();
    const value = kv[2].replace(/^"(.*)"$/, '$1');
    if (key === 'bare') out.bare = /^(true|yes|on|1)$/i.test(value);
    if (key === 'worktree') out.worktree = value;
  }
  return out;
}

/** The branch a git directory's HEAD names, or `detached at <short hash>`. */
export function branchOf(gitDir: string): string | undefined {
  let head: string | undefined;
  try {
    head = readSmallFile(path.join(gitDir, 'HEAD'), 'the worktree\u2019s HEAD');
  } catch {
    return undefined;
  }
  if (!head) return undefined;
  const ref = /^ref:\s*refs\/heads\/(.+?)\s*$/m.exec(head);
  if (ref) return ref[1];
  const hash = /^([0-9a-f]{7,})/.exec(head.trim());
  return hash ? `detached at ${hash[1].slice(0, 7)}` : undefined;
}

/** The start folder with symbolic links resolved (so two spellings of one worktree give one route). */
function realStart(start: string): string {
  const resolved = path.resolve(start);
  try {
    return fs.realpathSync.native(resolved);
  } catch {
    return resolved;
  }
}

function folderRoute(root: string, reason: string): RecordRoute {
  return { projectRoot: root, dir: path.join(root, '.twining'), mode: 'folder', reason, linked: false };
}

/**
 * The record a process started in `start` uses, and why. Throws a TwiningError naming the file
 * when the repository's own files point nowhere (a moved or removed primary) or are not what git
 * writes; nothing is written then.
 */
export function resolveRecord(start: string, options: RouteOptions = {}): RecordRoute {
  if (options.project !== undefined && options.project.trim() !== '') {
    const root = path.resolve(options.project);
    return {
      projectRoot: root,
      dir: path.join(root, '.twining'),
      mode: 'override',
      reason: `the record of ${root}, named by TWINING_PROJECT`,
      linked: false,
    };
  }
  const begin = realStart(start);
  for (let at = begin; ; at = path.dirname(at)) {
    const dotGit = path.join(at, '.git');
    const st = fs.lstatSync(dotGit, { throwIfNoEntry: false });
    if (st?.isDirectory()) return primaryRoute(at, dotGit);
    if (st?.isSymbolicLink()) {
      // A `.git` symbolic link to a git directory: followed as git follows it.
      const target = fs.statSync(dotGit, { throwIfNoEntry: false });
      if (target?.isDirectory()) return primaryRoute(at, fs.realpathSync(dotGit));
      if (target?.isFile()) return gitFileRoute(at, dotGit);
    }
    if (st?.isFile()) return gitFileRoute(at, dotGit);
    if (st && !st.isSymbolicLink())
      throw new TwiningError('CORRUPT', `${dotGit} is neither a folder nor a file; Twining cannot tell which record to use and wrote nothing`);
    // A folder with a record of its own below a work tree's root (a project inside a repository): its record.
    if (isDir(path.join(at, '.twining'))) return folderRoute(at, `the record of ${at} (not the root of a git worktree)`);
    if (path.dirname(at) === at) return folderRoute(begin, `the record of ${begin} (no git repository and no .twining/ above it)`);
  }
}

function primaryRoute(root: string, gitDir: string): RecordRoute {
  const branch = branchOf(gitDir);
  const dir = path.join(root, '.twining');
  return {
    projectRoot: root,
    dir,
    mode: 'shared',
    reason: `the shared record of ${root}, used from its main worktree${branch ? ` on branch ${branch}` : ''}`,
    worktree: root,
    branch,
    linked: false,
    note: isDir(dir) ? undefined : `${dir} does not exist yet; the first write (or twining init) makes it`,
  };
}

function gitFileRoute(at: string, dotGit: string): RecordRoute {
  const text = readSmallFile(dotGit, 'a .git file') ?? '';
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!m) throw new TwiningError('CORRUPT', `${dotGit} is a file without a "gitdir: …" line; Twining cannot tell which record to use and wrote nothing`);
  const gitDir = path.resolve(at, m[1]);
  if (!isDir(gitDir))
    throw new TwiningError(
      'NOT_FOUND',
      `${dotGit} points to ${gitDir}, which does not exist: the repository this worktree belongs to was moved or removed. ` +
        `Run "git worktree repair ${at}" from the main worktree (or remove this worktree); until then Twining cannot reach the shared record and wrote nothing`,
    );
  const commonText = readSmallFile(path.join(gitDir, 'commondir'), 'git\u2019s commondir');
  // No commondir: a submodule (its git directory under the superproject's .git/modules/) or
  // `git init --separate-git-dir`: a repository of its own, with its own record.
  if (commonText === undefined) return primaryRoute(at, gitDir);
  const common = path.resolve(gitDir, commonText.trim());
  const name = path.basename(gitDir);
  const branch = branchOf(gitDir);
  const where = `worktree ${name}${branch ? ` on branch ${branch}` : ''}`;
  const own = path.join(at, '.twining');
  if (!isDir(common))
    throw new TwiningError(
      'NOT_FOUND',
      `${path.join(gitDir, 'commondir')} points to ${common}, which does not exist: the main repository of ${where} was moved or removed. ` +
        `Run "git worktree repair" from the moved main worktree; until then Twining cannot reach the shared record and wrote nothing`,
    );
  const base = { worktree: at, worktreeName: name, branch, linked: true };
  if (fs.existsSync(path.join(gitDir, ISOLATION_MARKER)))
    return {
      ...base,
      projectRoot: at,
      dir: own,
      mode: 'isolated',
      reason: `the own record of ${where}, isolated by ${path.join(gitDir, ISOLATION_MARKER)}`,
    };
  const config = coreConfig(path.join(common, 'config'));
  let primary: string;
  let bare = false;
  if (config.worktree) primary = path.resolve(common, config.worktree);
  else if (config.bare || path.basename(common) !== '.git') {
    // A bare repository has no primary work tree: the record lives inside the repository itself
    // (`<bare>/.twining`), the one place every worktree reaches and no branch checks out.
    primary = common;
    bare = true;
  } else primary = path.dirname(common);
  if (!bare && !isDir(primary))
    throw new TwiningError(
      'NOT_FOUND',
      `the main worktree of ${where}, ${primary}, does not exist (moved or removed); Twining cannot reach the shared record and wrote nothing`,
    );
  const dir = path.join(primary, '.twining');
  const exists = isDir(dir);
  const copy = isDir(own) ? own : undefined;
  return {
    ...base,
    projectRoot: primary,
    dir,
    mode: 'shared',
    reason: bare
      ? `the shared record of the bare repository ${primary} (it has no main worktree, so the record lives inside it), used from ${where}`
      : `the shared record of ${primary}, used from ${where}`,
    checkedOutCopy: copy,
    note: exists
      ? undefined
      : `${bare ? 'the bare repository' : 'the main worktree'} has no .twining/ yet (${dir}); the first write (or twining init) makes it there`,
  };
}

/** What to tell an agent or a user about the route, in one line: the reason, and the note when there is one. */
export function describeRoute(route: RecordRoute): string {
  return route.note ? `${route.reason}. Note: ${route.note}` : route.reason;
}

/** The route as `status` reports it (`record` in its JSON): snake_case fields, as the rest of the output. */
export function routeSummary(route: RecordRoute) {
  return {
    path: route.dir,
    mode: route.mode,
    reason: route.reason,
    ...(route.worktree !== undefined && { worktree: route.worktree }),
    ...(route.worktreeName !== undefined && { worktree_name: route.worktreeName }),
    ...(route.branch !== undefined && { branch: route.branch }),
    linked: route.linked,
    ...(route.checkedOutCopy !== undefined && { checked_out_copy: route.checkedOutCopy }),
    ...(route.note !== undefined && { note: route.note }),
  };
}
