/**
 * `twining sync` without the engine (src/core/sync/sync-quick.ts): when nothing came in, the CLI
 * syncs without loading the engine; whenever the round needs it, it gives up before its push and
 * the engine's sync runs. With real clones of a bare remote, copied so that the same state syncs
 * both ways: the quick sync and the engine's give the same record here and the same tree on the
 * remote; the quick one gives up (nothing pushed, nothing written) when the remote has changes
 * to write here or a claim made here must be settled with the remote's, and the CLI then syncs
 * through the engine. A copy of dist/cli.js and dist/sync.js without dist/core.js shows which
 * ran: it syncs alone when nothing came in, and fails for want of the engine when something did.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { tempProject } from '../../../support/tmp';
import { cliOk as ok, git, run, syncTeam } from '../../../support/git-repo';
import { DIST } from '../../../support/dist';
import { openWorkspace } from '../../../../src/core/engine/engine';
import { quickSync } from '../../../../src/core/sync/sync-quick';

const RECORD = 'refs/heads/twining/record';

/** Every file of a clone's `.twining/` (relative path → text), what a sync may write. */
function folderOf(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, e.name);
      if (e.isDirectory()) walk(file);
      else if (e.isFile() && !e.name.endsWith('.lock')) out.set(path.relative(root, file), fs.readFileSync(file, 'utf8'));
    }
  };
  walk(path.join(root, '.twining'));
  return out;
}

/** A copy of a whole team (remote and clones) whose clones push to the copy's remote. */
function copyTeam(top: string, to: string): void {
  fs.cpSync(top, to, { recursive: true });
  for (const clone of ['a', 'b']) git(path.join(to, clone), 'remote', 'set-url', 'origin', path.join(to, 'remote.git'));
}

/** dist/cli.js and dist/sync.js in a folder of their own, without the engine's dist/core.js. */
function syncAlone(): string {
  const dir = tempProject('sync-alone'); // removed with the test's other folders, whatever its outcome
  for (const name of ['cli.js', 'sync.js']) fs.copyFileSync(path.join(DIST, name), path.join(dir, name));
  return path.join(dir, 'cli.js');
}

test('a quick sync and the engine’s sync of the same clone give the same record and the same tree on the remote', { timeout: 180_000 }, async () => {
  const top = tempProject('sync-quick');
  const { a, b } = syncTeam(top, { path: 'src/app.ts', text: 'export {};\n' });
  ok(a, 'sync');
  ok(b, 'sync');
  ok(a, 'sync'); // a's last sync is the remote's record
  // Written here since: appended logs, rewritten files (the graph, the decision index) and new ones (a decision, a handoff).
  for (let i = 0; i < 10; i++) ok(a, 'post', '--entry-type', 'finding', '--summary', `a: entry ${i}`, '--scope', 'src/', '--agent-id', 'alice');
  ok(
    a,
    'decide',
    '--domain',
    'auth',
    '--scope',
    'src/auth/',
    '--summary',
    'Sign tokens with Ed25519',
    '--context',
    'c',
    '--rationale',
    'r',
    '--agent-id',
    'alice',
  );
  ok(a, 'handoff', '--source-agent', 'alice', '--target-agent', 'bob', '--scope', 'src/', '--summary', 'please review', '--results', 'completed: x');
  const copyTop = tempProject('sync-quick-copy');
  copyTeam(top, copyTop);
  const a2 = path.join(copyTop, 'a');

  const quick = await quickSync(a);
  assert.ok(quick, 'nothing came in: the sync ran without the engine');
  const full = await (await openWorkspace(a2, { warn: () => undefined })).sync();
  assert.equal(quick.pushed, true);
  assert.equal(full.pushed, true);
  const strip = (r: typeof quick) => ({ ...r, commit: undefined, at: undefined, parts_work: undefined, clone: undefined });
  assert.deepEqual(strip(quick), strip(full), 'the same report');
  assert.ok(quick.outgoing.entries >= 10, `the ten posts went out (${quick.outgoing.entries} entries)`);
  const remoteTree = (team: string) => git(path.join(team, 'remote.git'), 'rev-parse', `${RECORD}^{tree}`);
  assert.equal(remoteTree(top), remoteTree(copyTop), 'the same tree on the remote');
  assert.equal(git(a, 'rev-parse', 'refs/twining/synced'), quick.commit, 'the pushed commit is the last synced one');
  assert.equal(git(a, 'rev-parse', 'refs/twining/remote-record'), quick.commit);
  assert.equal(git(a, 'rev-parse', `${quick.commit}^`), git(a2, 'rev-parse', `${full.commit}^`), 'both follow the same remote record');
  assert.deepEqual(folderOf(a), folderOf(a2), 'the same record here');

  // b gets the quick sync's record as it would have got the engine's.
  ok(b, 'sync');
  assert.match(fs.readFileSync(path.join(b, '.twining', 'blackboard.jsonl'), 'utf8'), /a: entry 9/);
});

test(
  'a quick sync gives up before its push when something must be written here or a claim settled; the CLI then syncs through the engine',
  { timeout: 180_000 },
  async () => {
    const { remote, a, b } = syncTeam(tempProject('sync-quick-fallback'), { path: 'src/app.ts', text: 'export {};\n' });
    ok(a, 'sync');
    ok(b, 'sync');
    ok(a, 'sync');
    const alone = syncAlone();
    const aloneSync = (cwd: string) => run(cwd, process.execPath, [alone, 'sync', '--json'], true);

    // Nothing came in: the CLI syncs without the engine (the copy has no core.js).
    ok(a, 'post', '--entry-type', 'finding', '--summary', 'a: alone', '--scope', 'src/', '--agent-id', 'alice');
    const r = aloneSync(a);
    assert.equal(r.status, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { pushed: boolean }).pushed, true);
    assert.match(git(remote, 'show', `${RECORD}:blackboard.jsonl.parts/000000`), /a: alone/);

    // b's entry came in: the quick sync stops before its push, writes nothing here and leaves the remote as b left it.
    ok(b, 'sync');
    ok(b, 'post', '--entry-type', 'finding', '--summary', 'b: meanwhile', '--scope', 'src/', '--agent-id', 'bob');
    ok(b, 'sync');
    ok(a, 'post', '--entry-type', 'finding', '--summary', 'a: pending', '--scope', 'src/', '--agent-id', 'alice');
    let tip = git(remote, 'rev-parse', RECORD);
    let before = folderOf(a);
    const synced = git(a, 'rev-parse', 'refs/twining/synced');
    assert.equal(await quickSync(a), undefined, 'the remote has changes to write here: the engine is needed');
    assert.equal(git(remote, 'rev-parse', RECORD), tip, 'nothing was pushed');
    assert.deepEqual(folderOf(a), before, 'nothing was written here');
    assert.equal(git(a, 'rev-parse', 'refs/twining/synced'), synced, 'the last synced record is as it was');
    const state = JSON.parse(fs.readFileSync(path.join(a, '.git', 'twining', 'sync-state.json'), 'utf8')) as { last_error?: string };
    assert.equal(state.last_error, undefined, 'giving up is no error');
    const failed = aloneSync(a);
    assert.notEqual(failed.status, 0, 'the CLI needs the engine for it (the copy has none)');
    assert.match(failed.stderr, /core\.js/);
    const report = JSON.parse(ok(a, 'sync', '--json')) as { pushed: boolean; incoming: { entries: number }; outgoing: { entries: number } };
    assert.equal(report.pushed, true);
    assert.equal(report.incoming.entries, 1, "b's entry came in through the engine's sync");
    assert.equal(report.outgoing.entries, 1, "a's pending entry went out");
    const board = fs.readFileSync(path.join(a, '.twining', 'blackboard.jsonl'), 'utf8');
    assert.match(board, /b: meanwhile/);
    assert.match(board, /a: pending/);

    // A claim made here since the last sync is settled against the remote's claims, with the engine's clock: the engine's sync.
    // (A claim syncs at once when it can: made while the remote is out of reach, it is granted here and waits.)
    git(a, 'remote', 'set-url', 'origin', path.join(path.dirname(remote), 'nowhere.git'));
    ok(a, 'claim', 'src/app.ts', '--agent-id', 'alice', '--reason', 'fixing');
    git(a, 'remote', 'set-url', 'origin', remote);
    tip = git(remote, 'rev-parse', RECORD);
    before = folderOf(a);
    assert.equal(await quickSync(a), undefined, 'a claim to settle: the engine is needed');
    assert.equal(git(remote, 'rev-parse', RECORD), tip, 'nothing was pushed');
    assert.deepEqual(folderOf(a), before, 'nothing was written here');
    ok(a, 'sync');
    assert.match(git(remote, 'show', `${RECORD}:claims/claims.jsonl.parts/000000`), /fixing/);
    // Claims unchanged since: a post syncs quickly again.
    ok(a, 'post', '--entry-type', 'finding', '--summary', 'a: after the claim', '--scope', 'src/', '--agent-id', 'alice');
    const again = aloneSync(a);
    assert.equal(again.status, 0, again.stderr);
  },
);
