/**
 * The remote side of a sync: which remote (asked for, remembered, the branch's upstream, else
 * origin), fetching its record into the private ref, and what a failed fetch or push means for
 * the person reading the error (unreachable, or no credentials that work without a prompt).
 */
import { TwiningError } from '../errors';
import { gitText, runGit } from './sync-git';
import { syncConfig } from './sync-config';
import type { Repo } from './record-tree';
import { BRANCH, REMOTE_REF } from './sync-state';

/** The remote to use: asked for, remembered, the current branch's upstream remote, else origin. */
export async function chooseRemote(repo: Repo, asked?: string): Promise<string> {
  const config = await syncConfig(repo);
  let remote = asked ?? config.get('twining.sync.remote');
  if (!remote) {
    const branch = (await runGit(repo.cwd, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).stdout.toString('utf8').trim();
    remote = (branch && config.get(`branch.${branch}.remote`)) || 'origin';
    if (remote === '.') remote = 'origin';
  }
  // A remote configured the old way (.git/remotes/, .git/branches/) is not in the config: git is asked then.
  const remotes = config.remotes.includes(remote) ? config.remotes : (await gitText(repo.cwd, ['remote'])).split('\n').filter(Boolean);
  if (!remotes.includes(remote))
    throw new TwiningError(
      'NOT_FOUND',
      `sync: this repository has no remote named "${remote}"${remotes.length ? ` (it has ${remotes.join(', ')}; pass --remote NAME)` : ' (add one: git remote add origin URL)'}; nothing was synced`,
    );
  return remote;
}

/** What a failed fetch or push means, and what to do about it. */
export function networkFailure(step: string, remote: string, stderr: string): TwiningError {
  const s = stderr.toLowerCase();
  let fix = 'check the remote with `git fetch ' + remote + '`, then sync again; nothing local was lost and the next sync sends what is pending';
  if (/authentication|could not read username|permission denied|terminal prompts disabled|403|401|publickey|host key verification/.test(s))
    fix = `git has no credentials for ${remote} that work without asking (sync never prompts): set up a credential helper, an ssh key or agent, or run \`git fetch ${remote}\` once by hand`;
  else if (
    /could not resolve|connection refused|timed out|took longer|network is unreachable|does not appear to be a git repository|no such file|not found/.test(s)
  )
    fix = `${remote} could not be reached; the sync is retried later, and what is pending here goes out then`;
  const problem = `git ${step} ${remote} failed: ${stderr.split('\n').filter(Boolean).slice(-2).join(' ')}`;
  // The message says both; the state keeps them apart (`problem` and `fix`), so the status says each once.
  return new TwiningError('IO', `${problem} (fix: ${fix})`, { fix, problem });
}

/**
 * Fetches the remote's record into REMOTE_REF. Says `missing` when the remote has none yet
 * (REMOTE_REF is then stale: the caller drops it), `same` when git reports the ref up to date (so
 * REMOTE_REF is what it was: no process is needed to read it again), else `moved`.
 */
export async function fetchRecord(repo: Repo, remote: string, timeoutMs: number): Promise<'missing' | 'same' | 'moved'> {
  const r = await runGit(
    repo.cwd,
    // --verbose: git then names an unchanged ref "[up to date]" (messages are in the C locale, sync-git.ts).
    ['fetch', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--refmap=', '--verbose', remote, `+refs/heads/${BRANCH}:${REMOTE_REF}`],
    { timeoutMs },
  );
  if (r.code !== 0) {
    if (/couldn't find remote ref/i.test(r.stderr)) return 'missing'; // no record there yet: this sync makes it
    throw networkFailure('fetch', remote, r.stderr);
  }
  return new RegExp(`^ = \\[up to date\\]\\s+\\S+\\s+->\\s+${REMOTE_REF}$`, 'm').test(r.stderr) ? 'same' : 'moved';
}
