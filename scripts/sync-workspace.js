// The 'sync' host-test workspace (scripts/run-host-tests.js): two clones of one repository and
// its bare remote, as two machines would have them. root/remote.git (the remote), root/here (the
// clone the window opens; the reference .twining, synced once so background sync is on) and
// root/peer (the other clone, which the test writes and syncs with the CLI).
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { REPO, makeProject } = require('./workspace');

const CLI = path.join(REPO, 'dist', 'cli.js');

function git(cwd, ...args) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
}

function identity(repo, name) {
  git(repo, 'config', 'user.email', `${name}@example.com`);
  git(repo, 'config', 'user.name', name);
  git(repo, 'config', 'commit.gpgsign', 'false');
}

/** Returns { open, folders, peer }: the clone to open, and the other clone's path. */
function makeSyncWorkspace(root) {
  const remote = path.join(root, 'remote.git');
  git(root, 'init', '-q', '--bare', '-b', 'main', remote);
  const here = makeProject(path.join(root, 'here'), { twining: false });
  git(here, 'init', '-q', '-b', 'main');
  identity(here, 'here');
  git(here, 'add', '-A');
  git(here, 'commit', '-q', '-m', 'code');
  git(here, 'remote', 'add', 'origin', remote);
  git(here, 'push', '-q', '-u', 'origin', 'main');
  const peer = path.join(root, 'peer');
  git(root, 'clone', '-q', remote, peer);
  identity(peer, 'peer');
  // The reference record: the window's clone syncs first (that turns sync on for it), then the peer.
  fs.cpSync(path.join(REPO, 'test', 'fixtures', 'reference-twining'), path.join(here, '.twining'), { recursive: true });
  for (const clone of [here, peer]) execFileSync(process.execPath, [CLI, 'sync'], { cwd: clone, stdio: ['ignore', 'ignore', 'inherit'] });
  return { open: here, folders: [here], peer };
}

module.exports = { makeSyncWorkspace };
