/**
 * The round a sync makes while its fetch runs (src/core/sync/sync-run.ts, guessRound): the commit
 * is made on the remote's record as this clone last fetched it, and pushed at once when the fetch
 * finds the remote unchanged. With two real clones of a bare remote: when nothing came in, the
 * guessed commit is the one pushed (one commit made); when the other clone synced meanwhile, the
 * guessed commit is dropped (it exists only in this clone's objects, on no ref that matters), the
 * sync merges and pushes on the remote's new record, and nothing of either side is lost. The
 * user's branches and the remote's main are untouched throughout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { tempProject } from '../../../support/tmp';
import { cliOk as ok, git, run, syncTeam } from '../../../support/git-repo';
import { openWorkspace } from '../../../../src/core/engine/engine';

/** Every commit object in `repo` whose first parent is `parent` (loose or packed, on a ref or not). */
function childrenOf(repo: string, parent: string): string[] {
  const all = git(repo, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)')
    .split('\n')
    .filter(l => l.endsWith(' commit'))
    .map(l => l.split(' ')[0]);
  return all.filter(id => git(repo, 'rev-list', '--parents', '-n', '1', id).split(' ')[1] === parent);
}

const has = (repo: string, id: string) => run(repo, 'git', ['cat-file', '-e', id], true).status === 0;

/** The user's side of a clone: its branches, tags and remote-tracking refs, HEAD and index. */
const userSide = (repo: string) => [
  git(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/remotes', 'refs/tags'),
  git(repo, 'symbolic-ref', 'HEAD'),
  git(repo, 'status', '--porcelain', '--', ':!.twining'),
];

const boardIds = (root: string) =>
  fs
    .readFileSync(path.join(root, '.twining', 'blackboard.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => (JSON.parse(l) as { summary: string }).summary);

test(
  'the commit made while the fetch runs is pushed when nothing came in, and dropped with nothing lost when the remote moved',
  { timeout: 180_000 },
  async () => {
    const { remote, a, b } = syncTeam(tempProject('sync-guess'), { path: 'src/app.ts', text: 'export {};\n' });
    ok(a, 'sync');
    ok(b, 'sync');
    const engine = await openWorkspace(a, { warn: () => undefined });
    await engine.sync(); // a's last sync is the remote's record: the next sync guesses on it
    const userA = userSide(a);
    const mainBefore = git(remote, 'rev-parse', 'refs/heads/main');

    // Nothing came in: the commit made while the fetch ran is the one pushed, and the only one made.
    let tip = git(a, 'rev-parse', 'refs/twining/synced');
    await engine.post({ entry_type: 'finding', summary: 'a: first', scope: 'src/', agent_id: 'alice' });
    let report = await engine.sync();
    assert.equal(report.pushed, true);
    assert.equal(report.attempts, 1);
    assert.deepEqual(childrenOf(a, tip), [report.commit], 'one commit was made on the last synced record, and pushed');
    assert.equal(git(remote, 'rev-parse', 'refs/heads/twining/record'), report.commit);

    // b syncs meanwhile: a's guess is made on a record that is no longer the remote's.
    ok(b, 'post', '--entry-type', 'finding', '--summary', 'b: meanwhile', '--scope', 'src/', '--agent-id', 'bob');
    ok(b, 'sync');
    const bTip = git(remote, 'rev-parse', 'refs/heads/twining/record');
    tip = git(a, 'rev-parse', 'refs/twining/synced');
    assert.notEqual(bTip, tip);
    await engine.post({ entry_type: 'finding', summary: 'a: second', scope: 'src/', agent_id: 'alice' });
    report = await engine.sync();
    assert.equal(report.pushed, true);
    const guessed = childrenOf(a, tip).filter(id => id !== bTip);
    assert.equal(guessed.length, 1, `a commit was made on a's last synced record while the fetch ran: ${guessed.join(' ')}`);
    assert.notEqual(guessed[0], report.commit, 'and it is not the one pushed');
    assert.equal(has(remote, guessed[0]), false, 'the dropped commit never reached the remote');
    assert.equal(git(remote, 'rev-parse', `${report.commit}^`), bTip, "the pushed commit follows b's");
    for (const ref of ['refs/twining/synced', 'refs/twining/remote-record']) assert.equal(git(a, 'rev-parse', ref), report.commit, ref);
    const holding = git(a, 'for-each-ref', `--contains=${guessed[0]}`, '--format=%(refname)').split('\n').filter(Boolean);
    assert.ok(
      holding.every(ref => ref === 'refs/twining/outgoing'),
      `only sync's scratch ref may hold it: ${holding.join(' ')}`,
    );
    // Nothing lost on either side.
    assert.deepEqual(
      boardIds(a)
        .filter(s => /^[ab]: /.test(s))
        .sort(),
      ['a: first', 'a: second', 'b: meanwhile'],
    );
    ok(b, 'sync');
    assert.deepEqual(
      boardIds(b)
        .filter(s => /^[ab]: /.test(s))
        .sort(),
      ['a: first', 'a: second', 'b: meanwhile'],
    );
    // The user's side of a and the remote's main are as they were.
    assert.deepEqual(userSide(a), userA);
    assert.equal(git(remote, 'rev-parse', 'refs/heads/main'), mainBefore);
    assert.deepEqual(git(remote, 'for-each-ref', '--format=%(refname)').split('\n').sort(), ['refs/heads/main', 'refs/heads/twining/record']);
  },
);
