/**
 * What the extension needs from git besides the merge: finding the git directory of a project
 * (also in a linked work tree, whose `.git` is a file), telling when git is in the middle of an
 * operation, holding the engine's writes back meanwhile, and when a configured driver should be
 * pointed at a newly installed CLI. Real repositories, real conflicted merges and rebases.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace, findGitDir, gitBusyReason, driverNeedsUpdate, driverCommand } from '../../../../src/core';
import { commitAll, fixtureRepo, git, gitMay } from '../../../support/git-repo';
import { tempProject } from '../../../support/tmp';

/** A repository with a conflicted merge of README.md in progress (the driver has nothing to do with it). */
function conflictedMerge(repo: string, cwd = repo): void {
  fs.writeFileSync(path.join(cwd, 'README.md'), 'base\n');
  commitAll(cwd, 'readme');
  git(cwd, 'checkout', '-q', '-b', `side-${path.basename(cwd)}`);
  fs.writeFileSync(path.join(cwd, 'README.md'), 'side\n');
  commitAll(cwd, 'side');
  git(cwd, 'checkout', '-q', '-');
  fs.writeFileSync(path.join(cwd, 'README.md'), 'main\n');
  commitAll(cwd, 'main');
  assert.notEqual(gitMay(cwd, 'merge', '--no-edit', `side-${path.basename(cwd)}`).status, 0);
}

describe('git state', () => {
  test('the git directory of a project, of a linked work tree (.git file), and none outside a repository', () => {
    const repo = fixtureRepo();
    assert.equal(findGitDir(path.join(repo, '.twining', 'handoffs')), path.join(repo, '.git'));
    const linked = path.join(repo, '..', 'linked');
    git(repo, 'worktree', 'add', '-q', linked, '-b', 'linked');
    assert.ok(fs.statSync(path.join(linked, '.git')).isFile());
    assert.equal(findGitDir(linked), path.join(fs.realpathSync(repo), '.git', 'worktrees', 'linked'));
    assert.equal(findGitDir(tempProject()), undefined);
  });

  test('a conflicted merge, a stopped rebase and index.lock each hold writes back; an idle repository does not', () => {
    const repo = fixtureRepo();
    const dir = findGitDir(repo)!;
    assert.equal(gitBusyReason(dir), undefined);
    conflictedMerge(repo);
    assert.match(gitBusyReason(dir)!, /merge is in progress \(MERGE_HEAD\)/);
    git(repo, 'merge', '--abort');
    assert.equal(gitBusyReason(dir), undefined);
    git(repo, 'checkout', '-q', `side-${path.basename(repo)}`);
    assert.notEqual(gitMay(repo, 'rebase', 'main').status, 0);
    assert.match(gitBusyReason(dir)!, /rebase is in progress/);
    git(repo, 'rebase', '--abort');
    fs.writeFileSync(path.join(dir, 'index.lock'), '');
    assert.match(gitBusyReason(dir)!, /index\.lock/);
  });

  test('in a linked work tree the markers of its own git directory count', () => {
    const repo = fixtureRepo();
    const linked = path.join(repo, '..', 'wt2');
    git(repo, 'worktree', 'add', '-q', linked, '-b', 'wt2');
    conflictedMerge(repo, linked);
    assert.match(gitBusyReason(findGitDir(linked))!, /MERGE_HEAD/);
    assert.equal(gitBusyReason(findGitDir(repo)), undefined, 'the main work tree is idle');
  });

  test('the engine writes nothing while git is mid-merge, says why, and writes once git is done', async () => {
    const repo = fixtureRepo();
    conflictedMerge(repo);
    const dir = findGitDir(repo);
    const ws = await openWorkspace(repo, { writeGate: () => gitBusyReason(dir), writeGateMs: 300 });
    const before = fs.readFileSync(path.join(repo, '.twining', 'blackboard.jsonl'));
    await assert.rejects(ws.post({ entry_type: 'finding', summary: 'during the merge' }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'LOCKED');
      assert.match(e.message, /MERGE_HEAD.*nothing was written/);
      return true;
    });
    assert.deepEqual(fs.readFileSync(path.join(repo, '.twining', 'blackboard.jsonl')), before);
    git(repo, 'merge', '--abort');
    await ws.post({ entry_type: 'finding', summary: 'after the merge' });
    assert.match(fs.readFileSync(path.join(repo, '.twining', 'blackboard.jsonl'), 'utf8'), /after the merge/);
  });

  test('a write waits for a short-lived index.lock to go, then goes ahead', async () => {
    const repo = fixtureRepo();
    const dir = findGitDir(repo)!;
    const ws = await openWorkspace(repo, { writeGate: () => gitBusyReason(dir) });
    fs.writeFileSync(path.join(dir, 'index.lock'), '');
    let removedAt = 0;
    setTimeout(() => {
      fs.rmSync(path.join(dir, 'index.lock'));
      removedAt = Date.now();
    }, 400);
    await ws.post({ entry_type: 'status', summary: 'after the checkout' });
    assert.ok(removedAt > 0 && Date.now() >= removedAt, 'the post finished after index.lock was gone');
  });
});

describe('keeping the configured driver on the current CLI', () => {
  const ext = (v: string) => `/home/u/.vscode/extensions/twining.twining-vscode-${v}/dist/cli.js`;
  const current = driverCommand(ext('0.2.0'), '/usr/bin/code', true);
  const exists = (f: string) => f !== ext('0.0.9');
  test('another installed version of the extension, or a CLI that is gone: update', () => {
    assert.equal(driverNeedsUpdate(driverCommand(ext('0.1.0'), '/usr/bin/code', true), current, exists), true);
    assert.equal(driverNeedsUpdate(driverCommand(ext('0.0.9'), '/usr/bin/node', false), current, exists), true);
  });
  test("the same command, none configured, or a command of someone's own: leave alone", () => {
    assert.equal(driverNeedsUpdate(current, current, exists), false);
    assert.equal(driverNeedsUpdate(undefined, current, exists), false);
    assert.equal(driverNeedsUpdate("'/usr/bin/node' '/opt/twining/dist/cli.js' merge %O %A %B %P %L", current, exists), false);
    assert.equal(driverNeedsUpdate('twining merge %O %A %B %P', current, exists), false);
  });
  test('inside VS Code the command runs its Electron binary as Node', () => {
    assert.equal(current, "ELECTRON_RUN_AS_NODE=1 '/usr/bin/code' '/home/u/.vscode/extensions/twining.twining-vscode-0.2.0/dist/cli.js' merge %O %A %B %P %L");
  });
});
