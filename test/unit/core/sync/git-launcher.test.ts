/**
 * git started for a long-lived engine (src/core/sync/git-launcher.ts): a process that has synced
 * twice starts git through a small helper process, so starting git no longer copies a large
 * process's memory. Checked with a real process: its git calls (a plain one, and a fast-import
 * whose stream and refs go through the helper) run as the helper's children and give what git
 * gives; the helper does not keep the process alive, and ends with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { git, newRepo } from '../../../support/git-repo';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test(
  'after two syncs git runs through the helper, which never keeps the process alive and ends with it',
  { skip: process.platform !== 'linux', timeout: 60_000 },
  async () => {
    const repo = newRepo();
    const started = Date.now();
    const r = spawnSync(process.execPath, [path.join(__dirname, 'git-helper-process.js'), repo], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.ok(Date.now() - started < 25_000, 'the process ended on its own: the helper did not keep it alive');
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { helper: number; self: number; gitParent: number; gitDir: string; commit: string };
    assert.ok(out.helper > 0 && out.helper !== out.self, 'a helper process ran');
    assert.equal(out.gitParent, out.helper, 'git was started by the helper, not by the process itself');
    assert.equal(out.gitDir, '.git');
    // The fast-import through the helper made the commit and moved the ref it was asked to.
    assert.equal(git(repo, 'rev-parse', 'refs/twining/synced'), out.commit);
    assert.equal(git(repo, 'show', `${out.commit}:a.txt`), 'through the helper');
    for (let i = 0; i < 100 && alive(out.helper); i++) await new Promise(resolve => setTimeout(resolve, 50));
    assert.equal(alive(out.helper), false, 'the helper ended with its process');
  },
);
