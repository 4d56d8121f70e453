/**
 * Where a sync pushes (src/core/sync/sync-config.ts, pushUrlOf): the push URL git would use for
 * the remote, whether read from the config (no URL rewritten) or asked of git (an `insteadOf`
 * rule). With real clones of bare remotes: a remote's URL rewritten by `url.<base>.insteadOf`
 * reaches the rewritten remote; a `pushurl` takes the push, and the `url` the fetch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'path';
import { tempProject } from '../../../support/tmp';
import { cliOk as ok, git, syncTeam } from '../../../support/git-repo';

const RECORD = 'refs/heads/twining/record';
const post = (clone: string, summary: string) => ok(clone, 'post', '--entry-type', 'finding', '--summary', summary, '--scope', 'src/', '--agent-id', 'alice');
const syncJson = (clone: string) => JSON.parse(ok(clone, 'sync', '--json')) as { pushed: boolean; commit: string };

test('a sync pushes where git would: through an insteadOf rewrite, and to a pushurl apart from the fetch url', { timeout: 120_000 }, () => {
  const top = tempProject('sync-push-url');
  const { remote, a } = syncTeam(top, { path: 'src/app.ts', text: 'export {};\n' });
  ok(a, 'sync');
  ok(a, 'sync');

  // The remote named by a URL that only an insteadOf rule makes real.
  git(a, 'remote', 'set-url', 'origin', 'team-host:remote.git');
  git(a, 'config', `url.${path.dirname(remote)}/.insteadOf`, 'team-host:');
  post(a, 'through the rewrite');
  let report = syncJson(a);
  assert.equal(report.pushed, true);
  assert.equal(git(remote, 'rev-parse', RECORD), report.commit, 'the push reached the rewritten remote');

  // A push URL of its own: the push goes there, not to the fetch URL.
  git(a, 'config', '--unset', `url.${path.dirname(remote)}/.insteadOf`);
  git(a, 'remote', 'set-url', 'origin', remote);
  const mirror = path.join(top, 'mirror.git');
  git(top, 'clone', '-q', '--bare', remote, mirror);
  git(a, 'remote', 'set-url', '--push', 'origin', mirror);
  const before = git(remote, 'rev-parse', RECORD);
  post(a, 'to the push url');
  report = syncJson(a);
  assert.equal(report.pushed, true);
  assert.equal(git(mirror, 'rev-parse', RECORD), report.commit, 'the push went to the push URL');
  assert.equal(git(remote, 'rev-parse', RECORD), before, 'the fetch URL was not pushed to');
});
