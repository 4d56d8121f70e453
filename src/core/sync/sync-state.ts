/**
 * What a clone remembers about its sync, kept out of every commit: whether sync is on, the remote
 * and this clone's id in the repository's local git config (`twining.sync.*`, in `.git/config`),
 * and the last sync's time, error and file signatures in `.git/twining/sync-state.json` (the
 * common git directory, shared by every worktree of the clone). `syncStatus` reads them for the
 * status bar, `twining_exchange_status` and the briefing hook.
 */
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { runGit } from './sync-git';
import { setLocal, syncConfig } from './sync-config';
import { JSONL_FILES, SyncLayout, listLocalRecords, stampsOf } from './record-files';
import type { Repo } from './record-tree';
import { isSqliteFolder } from '../storage/sqlite/sqlite-detect';

/** The branch the record lives on at the remote: a branch, because every hosting service accepts one (docs/sync.md §Where the record lives). */
export const BRANCH = 'twining/record';
/** The remote's record as last fetched: a private local ref, never a branch of the user's. */
export const REMOTE_REF = 'refs/twining/remote-record';
/** The last state this clone synced (pushed or merged): the base of the next merge. */
export const BASE_REF = 'refs/twining/synced';
/** The clone's own state before the last sync changed it (a safety net: `git show refs/twining/before-sync:…`). */
export const BEFORE_REF = 'refs/twining/before-sync';

/** Default interval of the background sync (setting `twining.sync.intervalSeconds`, config `twining.sync.interval`). */
export const DEFAULT_INTERVAL_MS = 30_000;

export interface SyncState {
  last_sync_at?: string;
  last_attempt_at?: string;
  last_error?: string;
  fix?: string;
  remote?: string;
  commit?: string;
  /** Each synced file's size and modification time as the last sync left it (for `pending`). */
  signature?: Record<string, string>;
}

export interface SyncStatus {
  /** Whether this clone syncs (it did its first `twining sync`). */
  enabled: boolean;
  remote?: string;
  ref: string;
  clone?: string;
  last_sync_at?: string;
  last_attempt_at?: string;
  /** Record files changed here since the last sync (they go out with the next one). */
  pending: number;
  last_error?: string;
  /** What to do about the error. */
  fix?: string;
  /** One sentence for a person. */
  message: string;
}

/** The repository holding a `.twining/` folder, or undefined outside one. */
export async function repoOf(dir: string): Promise<Repo | undefined> {
  // A clone whose .twining/ is not made yet (it was never committed) is asked from its parent.
  const cwd = (await fs.stat(dir).catch(() => undefined))?.isDirectory() ? dir : path.dirname(dir);
  // Asked once per folder and process while its git directory stays (a long-lived engine syncs every 30 s).
  const known = repos.get(cwd);
  if (known && (await fs.stat(known.gitDir).catch(() => undefined))?.isDirectory()) return known;
  // Outside a repository git is asked again only once a `.git` up the tree appears, goes or changes.
  const entries = await gitEntriesUp(cwd);
  if (notRepos.get(cwd) === entries) return undefined;
  const r = await runGit(cwd, ['rev-parse', '--git-common-dir', '--show-object-format']).catch(() => undefined);
  if (!r || r.code !== 0) {
    if (r) notRepos.set(cwd, entries); // not when git could not be run at all
    return undefined;
  }
  notRepos.delete(cwd);
  const [common, format] = r.stdout.toString('utf8').trim().split('\n');
  const repo = { cwd, gitDir: path.resolve(cwd, common), objectFormat: format || 'sha1' };
  repos.set(cwd, repo);
  return repo;
}
const repos = new Map<string, Repo>();
/** Folders git said are in no repository, with the `.git` entries up their tree at the time (gitEntriesUp). */
const notRepos = new Map<string, string>();

/**
 * What git's search for a repository from `cwd` depends on, as one string: each `.git` file or
 * folder from `cwd` up to the root with its kind, inode and change times, and the variables
 * that point git elsewhere. A few stats, where asking git is a process.
 */
async function gitEntriesUp(cwd: string): Promise<string> {
  const seen = [process.env.GIT_DIR ?? '', process.env.GIT_COMMON_DIR ?? '', process.env.GIT_CEILING_DIRECTORIES ?? ''];
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const stat = await fs.stat(path.join(dir, '.git')).catch(() => undefined);
    if (stat) seen.push(`${dir}:${stat.isDirectory() ? 'd' : 'f'}:${stat.ino}:${stat.mtimeMs}:${stat.ctimeMs}`);
    if (path.dirname(dir) === dir) return seen.join('|');
  }
}

export const stateFile = (repo: Repo) => path.join(repo.gitDir, 'twining', 'sync-state.json');

export async function readState(repo: Repo): Promise<SyncState> {
  try {
    return JSON.parse(await fs.readFile(stateFile(repo), 'utf8')) as SyncState;
  } catch {
    return {};
  }
}

export async function writeState(repo: Repo, state: SyncState): Promise<void> {
  const file = stateFile(repo);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temp, JSON.stringify(state, null, 2));
  await fs.rename(temp, file);
}

export async function syncEnabled(repo: Repo): Promise<boolean> {
  return (await syncConfig(repo)).get('twining.sync.enabled') === 'true';
}

/** This clone's id and label ("host:folder"), made and kept in the local config at its first sync. */
export async function cloneIdentity(repo: Repo): Promise<{ id: string; label: string }> {
  const config = await syncConfig(repo);
  let id = config.get('twining.sync.clone');
  let label = config.get('twining.sync.label');
  if (!id) {
    id = randomBytes(6).toString('hex');
    await setLocal(repo, 'twining.sync.clone', id);
  }
  if (!label) {
    const top = (await runGit(repo.cwd, ['rev-parse', '--show-toplevel'])).stdout.toString('utf8').trim();
    label = `${os.hostname()}:${path.basename(top)}`;
    await setLocal(repo, 'twining.sync.label', label);
  }
  return { id, label };
}

/** Each synced file's version stamp (storage/version-stamp.ts), to tell what changed since. */
export async function signatureOf(dir: string, layout: SyncLayout): Promise<Record<string, string>> {
  await listLocalRecords(dir, layout); // stats only: nothing is read
  return Object.fromEntries(stampsOf(dir));
}

/** Files whose signature differs from the state's (new, changed or removed). */
export async function pendingFiles(dir: string, layout: SyncLayout, state: SyncState): Promise<string[]> {
  const now = await signatureOf(dir, layout);
  const before = state.signature ?? {};
  const changed = Object.keys(now).filter(rel => now[rel] !== before[rel]);
  for (const rel of Object.keys(before)) if (!(rel in now) && !JSONL_FILES[layout].includes(rel)) changed.push(rel);
  return changed;
}

/**
 * The sync state of the `.twining/` folder `dir` (the engine's `layout.dir`): whether it syncs,
 * with which remote and ref, when it last did, what is pending, the last error and its fix.
 */
export async function syncStatus(dir: string): Promise<SyncStatus> {
  const repo = await repoOf(dir);
  if (!repo) return { enabled: false, ref: BRANCH, pending: 0, message: `${dir} is not in a git repository, so sync is not set up` };
  const [config, state] = await Promise.all([syncConfig(repo), readState(repo)]);
  const enabled = config.get('twining.sync.enabled') === 'true';
  const remote = config.get('twining.sync.remote');
  const clone = config.get('twining.sync.label');
  if (!enabled) return { enabled, ref: BRANCH, pending: 0, message: 'sync is not set up: run `twining sync` (or Twining: Sync) once in this clone' };
  const layout: SyncLayout = isSqliteFolder(dir) ? 'sqlite' : 'files';
  const pending = (await pendingFiles(dir, layout, state).catch(() => [])).length;
  const when = state.last_sync_at ? `last synced ${state.last_sync_at}` : 'never synced';
  const message = state.last_error
    ? `sync with ${remote} failed: ${state.last_error}${state.fix ? ` (${state.fix})` : ''}; ${when}`
    : `syncs with ${remote} (${BRANCH}); ${when}; ${pending ? `${pending} file(s) pending` : 'nothing pending'}`;
  return {
    enabled,
    remote,
    ref: BRANCH,
    clone,
    last_sync_at: state.last_sync_at,
    last_attempt_at: state.last_attempt_at,
    pending,
    last_error: state.last_error,
    fix: state.fix,
    message,
  };
}
