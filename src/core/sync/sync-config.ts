/**
 * The git configuration a sync needs (its own `twining.sync.*` keys, the remotes, the branch's
 * upstream, the push URL), read in one `git config --list` and kept for as long as the config
 * files it came from are unchanged: a long-lived engine (the extension's, `twining mcp`'s) syncs
 * every 30 s, and asking git for each key again would cost a process per key per sync.
 *
 * Kept per repository and keyed by the version stamps of the repository's own config and the
 * user's (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`): a change to any of them (a `git remote
 * set-url`, a new `insteadOf`) is read again at the next sync. Values are what git printed;
 * nothing here parses a config file itself.
 */
import * as os from 'os';
import * as path from 'path';
import { stampOfFile } from '../storage/version-stamp';
import { gitText, runGit } from './sync-git';
import type { Repo } from './record-tree';

export interface SyncConfig {
  /** Every value of a key, keys as git prints them (section and name lower case). */
  get(key: string): string | undefined;
  /** The names of the configured remotes. */
  remotes: string[];
  /** Push URLs already asked of git (`git remote get-url --push`), by remote. */
  pushUrls: Map<string, string>;
  /** Keys set more than once (git's `--get` prints the last value; `remote get-url` the first URL). */
  repeated: Set<string>;
  /** Whether any `url.<base>.insteadOf` or `pushInsteadOf` is set: git then rewrites remote URLs. */
  rewrites: boolean;
}

const kept = new Map<string, { stamps: string; config: Promise<SyncConfig> }>();

async function stampsOf(repo: Repo): Promise<string> {
  const xdg = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  const files = [path.join(repo.gitDir, 'config'), path.join(os.homedir(), '.gitconfig'), path.join(xdg, 'git', 'config')];
  if (process.env.GIT_CONFIG_GLOBAL) files.push(process.env.GIT_CONFIG_GLOBAL);
  return (await Promise.all(files.map(stampOfFile))).join('|');
}

async function load(repo: Repo): Promise<SyncConfig> {
  const out = (await runGit(repo.cwd, ['config', '-z', '--list'])).stdout.toString('utf8');
  const values = new Map<string, string>();
  const repeated = new Set<string>();
  const remotes = new Set<string>();
  let rewrites = false;
  for (const record of out.split('\0')) {
    if (!record) continue;
    const nl = record.indexOf('\n');
    const key = nl < 0 ? record : record.slice(0, nl);
    if (values.has(key)) repeated.add(key);
    if (/^url\..*\.(insteadof|pushinsteadof)$/.test(key)) rewrites = true;
    values.set(key, nl < 0 ? 'true' : record.slice(nl + 1)); // the last value of a key wins, as `git config --get` says
    const remote = /^remote\.(.+)\.[^.]+$/.exec(key);
    if (remote) remotes.add(remote[1]);
  }
  return { get: key => values.get(key), remotes: [...remotes], pushUrls: new Map(), repeated, rewrites };
}

/** The repository's configuration, from the last read while its files are unchanged. */
export async function syncConfig(repo: Repo): Promise<SyncConfig> {
  const stamps = await stampsOf(repo);
  const entry = kept.get(repo.gitDir);
  if (entry && entry.stamps === stamps) return entry.config;
  const config = load(repo);
  kept.set(repo.gitDir, { stamps, config });
  config.catch(() => kept.delete(repo.gitDir));
  return config;
}

/** Sets a local config key, unless it has that value already (a write would make every engine read the config again). */
export async function setLocal(repo: Repo, key: string, value: string): Promise<void> {
  if ((await syncConfig(repo)).get(key) === value) return;
  await gitText(repo.cwd, ['config', '--local', key, value]);
  kept.delete(repo.gitDir);
}

/**
 * Where a push to `remote` goes (its push URL, with any insteadOf applied by git), asked once per
 * config. When the configuration rewrites no URL and names the remote's URL once, that is the
 * answer `git remote get-url --push` gives (its `pushurl`, else its `url`), read from the config
 * already listed: a process less for every new process that syncs (the CLI). Else git is asked.
 */
export async function pushUrlOf(repo: Repo, remote: string): Promise<string> {
  const config = await syncConfig(repo);
  let url = config.pushUrls.get(remote);
  if (url === undefined) {
    const key = [`remote.${remote}.pushurl`, `remote.${remote}.url`].find(k => config.get(k) !== undefined);
    url = key && !config.rewrites && !config.repeated.has(key) ? config.get(key)! : (await gitText(repo.cwd, ['remote', 'get-url', '--push', remote])).trim();
    config.pushUrls.set(remote, url);
  }
  return url;
}
