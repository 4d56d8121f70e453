// The demo's sync (README: Sync across machines), beside the demo folder: `<demo>.remote.git`, a
// bare repository standing for the team's remote, and `<demo>.teammate`, a second clone standing
// for a teammate's machine. The demo folder becomes a git repository, syncs once (so the editor
// syncs it in the background), and the teammate's clone receives the record. `teammatePosts`
// then writes in the teammate's clone and syncs it, as another machine would: the window shows
// it without anyone touching it. Who is where: the teammate's clone is labelled `cloud-box:…`, its
// agent runs a hooked session there (the hook bundle, JSON on standard input, as Claude Code runs
// it) and claims a file, so the window's session board, the claim's row and tooltip and the
// Context view's entries name the teammate's clone.
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const REPO = path.resolve(__dirname, '..');
const CLI = path.join(REPO, 'dist', 'cli.js');
const HOOK = path.join(REPO, 'dist', 'hook.js');

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
  git(teammate, 'config', 'twining.sync.label', `cloud-box:${path.basename(folder)}`);
  twining(teammate, 'sync');
  return teammate;
}

const POSTS = [
  ['warning', 'Rate limiter in src/api/ drops the Retry-After header (seen on the staging box)', 'src/api/'],
  ['finding', 'Staging: refresh tokens rotate correctly after the Ed25519 switch', 'src/auth/'],
  ['status', 'Load test on the cloud box: 1,200 rps on GET /users, p95 41 ms', 'src/api/users.ts'],
];

/** One hook call in the teammate's clone, as its agent's host makes it (a process with the event's JSON on standard input). */
function teammateHook(teammate, event, extra) {
  const input = {
    session_id: 'cloud-agent-session',
    transcript_path: path.join(teammate, 'transcript.jsonl'),
    cwd: teammate,
    hook_event_name: event,
    ...extra,
  };
  execFileSync(process.execPath, [HOOK, event, '--agent', 'cloud-agent', '--host', 'claude-code'], {
    cwd: teammate,
    input: JSON.stringify(input),
    stdio: ['pipe', 'ignore', 'ignore'],
  });
}

/** The teammate's agent works (a hooked session that edits a file, a claim on it the first time) and writes its next post, then syncs, as another machine would. */
function teammatePosts(teammate, n) {
  const [entry_type, summary, scope] = POSTS[n % POSTS.length];
  if (n === 0) teammateHook(teammate, 'SessionStart', { source: 'startup' });
  const file = scope.endsWith('/') ? `${scope}index.ts` : scope;
  teammateHook(teammate, 'PostToolUse', {
    tool_name: 'Edit',
    tool_input: { file_path: path.join(teammate, file) },
    tool_response: {},
    tool_use_id: `edit-${n}`,
  });
  if (n === 0) twining(teammate, 'claim', '--paths', 'src/api/', '--agent-id', 'cloud-agent', '--reason', 'Retry-After fix on the staging box');
  twining(teammate, 'post', '--entry-type', entry_type, '--summary', summary, '--scope', scope, '--agent-id', 'cloud-agent');
  return twining(teammate, 'sync');
}

module.exports = { prepareSyncDemo, teammatePosts };
