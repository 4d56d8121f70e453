// The demo's sync (README: Sync across machines), beside the demo folder: `<demo>.remote.git`, a
// bare repository standing for the team's remote, and `<demo>.teammate`, a second clone standing
// for a teammate's machine. The demo folder becomes a git repository, syncs once (so the editor
// syncs it in the background), and the teammate's clone receives the record. `teammatePosts`
// then writes in the teammate's clone and syncs it, as another machine would: the window shows
// it without anyone touching it.
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const REPO = path.resolve(__dirname, '..');
const CLI = path.join(REPO, 'dist', 'cli.js');

function git(cwd, ...args) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }).trim();
}

function twining(cwd, ...args) {
  return execFileSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function identity(repo, name) {
  git(repo, 'config', 'user.email', `${name}@example.com`);
  git(repo, 'config', 'user.name', name);
  git(repo, 'config', 'commit.gpgsign', 'false');
}

/** Makes the remote and the teammate's clone and syncs both; returns the teammate's folder. */
function prepareSyncDemo(folder) {
  const remote = `${folder}.remote.git`;
  const teammate = `${folder}.teammate`;
  fs.rmSync(remote, { recursive: true, force: true });
  fs.rmSync(teammate, { recursive: true, force: true });
  fs.rmSync(path.join(folder, '.git'), { recursive: true, force: true });
  git(path.dirname(folder), 'init', '-q', '--bare', '-b', 'main', remote);
  git(folder, 'init', '-q', '-b', 'main');
  identity(folder, 'demo');
  fs.writeFileSync(path.join(folder, '.gitignore'), '.twining/\n');
  git(folder, 'add', '-A');
  git(folder, 'commit', '-q', '-m', 'orbit-shop');
  git(folder, 'remote', 'add', 'origin', remote);
  git(folder, 'push', '-q', '-u', 'origin', 'main');
  twining(folder, 'sync');
  git(path.dirname(folder), 'clone', '-q', remote, teammate);
  identity(teammate, 'teammate');
  twining(teammate, 'sync');
  return teammate;
}

const POSTS = [
  ['warning', 'Rate limiter in src/api/ drops the Retry-After header (seen on the staging box)', 'src/api/'],
  ['finding', 'Staging: refresh tokens rotate correctly after the Ed25519 switch', 'src/auth/'],
  ['status', 'Load test on the cloud box: 1,200 rps on GET /users, p95 41 ms', 'src/api/users.ts'],
];

/** The teammate's agent writes its next post and syncs, as another machine would. */
function teammatePosts(teammate, n) {
  const [entry_type, summary, scope] = POSTS[n % POSTS.length];
  twining(teammate, 'post', '--entry-type', entry_type, '--summary', summary, '--scope', scope, '--agent-id', 'cloud-agent');
  return twining(teammate, 'sync');
}

module.exports = { prepareSyncDemo, teammatePosts };
