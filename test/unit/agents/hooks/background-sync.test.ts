/**
 * SessionStart on a clone that syncs (src/agents/hooks/background-sync.ts), run as a host runs the
 * hook (dist/hook.js, JSON on stdin) on two real clones of a bare remote: when a sync is due the
 * hook answers at once and a detached process brings in what the other clone wrote; with the
 * remote unreachable (its ssh transport hangs, as a host that drops packets does) the hook answers
 * as fast as with the remote present, and the background sync fails later with the error in the
 * sync state, nothing lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { CLI_JS, tempProject } from '../../../support/tmp';
import { cliOk as ok, git, syncTeam } from '../../../support/git-repo';

const HOOK_JS = path.join(path.dirname(CLI_JS), 'hook.js');
const HANG_S = 8;

/** One SessionStart as a host runs it: its exit, its briefing and how long the host waited. */
function sessionStart(root: string, session: string, env: NodeJS.ProcessEnv = process.env) {
  const input = { session_id: session, transcript_path: path.join(root, 't.jsonl'), cwd: root, hook_event_name: 'SessionStart', source: 'startup' };
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [HOOK_JS, 'SessionStart', '--agent', 'starter'], { cwd: root, env, input: JSON.stringify(input), encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  return { status: r.status, stderr: r.stderr, ms, context: r.stdout.trim() ? (JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string) : '' };
}

const stateOf = (repo: string) => JSON.parse(fs.readFileSync(path.join(repo, '.git', 'twining', 'sync-state.json'), 'utf8'));

/** Makes the clone's last sync attempt an hour old, so a sync is due. */
function makeDue(repo: string): void {
  const file = path.join(repo, '.git', 'twining', 'sync-state.json');
  const old = new Date(Date.now() - 3_600_000).toISOString();
  fs.writeFileSync(file, JSON.stringify({ ...stateOf(repo), last_attempt_at: old, last_sync_at: old }));
}

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise(resolve => setTimeout(resolve, 200));
  }
}

test('SessionStart starts a due sync in the background; an unreachable remote does not delay the hook', { timeout: 180_000 }, async () => {
  const top = tempProject('hook-sync');
  const { a, b } = syncTeam(top, { path: 'README.md', text: '# code\n' });
  ok(a, 'sync');
  ok(b, 'post', '--entry-type', 'warning', '--summary', 'from b: the cache key misses the locale', '--agent-id', 'bob');
  ok(b, 'sync');
  const board = () => fs.readFileSync(path.join(a, '.twining', 'blackboard.jsonl'), 'utf8');
  assert.doesNotMatch(board(), /from b/);

  // Not due (a synced just now): no background sync starts.
  const notDue = sessionStart(a, 's0');
  assert.equal(notDue.status, 0, notDue.stderr);
  await new Promise(resolve => setTimeout(resolve, 1500));
  assert.doesNotMatch(board(), /from b/, 'a sync that is not due is not started');

  // Due, remote present: the hook answers, and b's entry arrives afterwards, by the detached sync.
  makeDue(a);
  const present = sessionStart(a, 's1');
  assert.equal(present.status, 0, present.stderr);
  assert.ok(present.context.length > 0, 'a briefing');
  await until('the background sync to bring in b’s entry', () => /from b/.test(board()));
  await until('the sync state to say so', () => Date.parse(stateOf(a).last_sync_at) > Date.now() - 600_000);

  // Due, remote unreachable: its transport hangs for HANG_S seconds.
  git(a, 'remote', 'set-url', 'origin', 'ssh://unreachable.invalid/remote.git');
  // git runs GIT_SSH_COMMAND through the shell with the host and command appended; `; false` ends on them.
  const hanging = { ...process.env, GIT_SSH_COMMAND: `sleep ${HANG_S}; false` };
  makeDue(a);
  const before = board();
  const awayAt = Date.now();
  const away = sessionStart(a, 's2', hanging);
  assert.equal(away.status, 0, away.stderr);
  assert.ok(away.context.length > 0, 'a briefing');
  assert.ok(away.ms < HANG_S * 1000, `the hook did not wait on the remote (${Math.round(away.ms)} ms)`);
  assert.ok(away.ms < present.ms * 3 + 2000, `as fast as with the remote there (${Math.round(away.ms)} ms against ${Math.round(present.ms)} ms)`);
  await until('the background sync to fail and say so', () => /origin/.test(stateOf(a).last_error ?? ''), HANG_S * 1000 + 60_000);
  assert.ok(Date.now() - awayAt >= HANG_S * 1000, 'the remote really hung: the sync failed only after it gave up');
  assert.equal(board(), before, 'nothing local lost');
});

/** dist/hook.js and dist/sync.js (with the hook's own bundles) in a folder of their own, without the engine's dist/core.js. */
function hookWithoutEngine(): string {
  const dir = tempProject('hook-alone');
  for (const name of ['hook.js', 'hook-start.js', 'hook-yaml.js', 'sync.js']) fs.copyFileSync(path.join(path.dirname(CLI_JS), name), path.join(dir, name));
  return path.join(dir, 'hook.js');
}

test('the background sync runs without the engine when nothing came in, and hands over to it when something did', { timeout: 180_000 }, () => {
  const top = tempProject('hook-sync-quick');
  const { remote, a, b } = syncTeam(top, { path: 'README.md', text: '# code\n' });
  ok(a, 'sync');
  ok(b, 'sync');
  ok(a, 'sync');
  const alone = hookWithoutEngine();
  const background = (hook: string) => spawnSync(process.execPath, [hook, '--sync-in-background', a], { cwd: a, encoding: 'utf8' });

  // Written here, nothing came in: the sync is done by dist/sync.js alone.
  ok(a, 'post', '--entry-type', 'finding', '--summary', 'from a: pushed in the background', '--agent-id', 'alice');
  const quick = background(alone);
  assert.equal(quick.status, 0, quick.stderr);
  assert.equal(git(remote, 'rev-parse', 'refs/heads/twining/record'), git(a, 'rev-parse', 'refs/twining/synced'));
  assert.match(git(remote, 'show', 'refs/heads/twining/record:blackboard.jsonl.parts/000000'), /pushed in the background/);

  // b's entry to bring in: only the engine writes it, so the copy without dist/core.js fails, nothing written
  // or pushed; the whole dist then syncs it.
  ok(b, 'post', '--entry-type', 'warning', '--summary', 'from b: to bring in', '--agent-id', 'bob');
  ok(b, 'sync');
  const tip = git(remote, 'rev-parse', 'refs/heads/twining/record');
  const board = () => fs.readFileSync(path.join(a, '.twining', 'blackboard.jsonl'), 'utf8');
  const needsEngine = background(alone);
  assert.notEqual(needsEngine.status, 0);
  assert.match(needsEngine.stderr, /core\.js/);
  assert.doesNotMatch(board(), /from b/);
  assert.equal(git(remote, 'rev-parse', 'refs/heads/twining/record'), tip);
  const engine = background(HOOK_JS);
  assert.equal(engine.status, 0, engine.stderr);
  assert.match(board(), /from b: to bring in/);
});
