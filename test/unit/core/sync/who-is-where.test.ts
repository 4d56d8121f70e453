/**
 * Who is where (issue 28 part 6), with two real clones of a bare remote: an agent session hooked
 * in clone a (real hook processes with JSON on stdin), its post and its claim reach clone b with
 * the clone they came from. b's session board shows a's session labelled with a's clone; b's
 * engine names a's clone for the entry and the claim; b's own records name none; a session that
 * ended on a leaves b's board once a syncs again; a hostile snapshot is refused alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { CLI_JS, tempProject } from '../../../support/tmp';
import { cliOk as ok, git, syncTeam } from '../../../support/git-repo';
import { openWorkspace } from '../../../../src/core/engine/engine';

function hook(root: string, event: string, session: string, extra: Record<string, unknown>) {
  const input = { session_id: session, transcript_path: path.join(root, 't.jsonl'), cwd: root, hook_event_name: event, ...extra };
  const r = spawnSync(process.execPath, [CLI_JS, 'hook', event, '--agent', 'alice'], { cwd: root, input: JSON.stringify(input), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

test('sessions, entries and claims from another clone say which clone they came from', { timeout: 180_000 }, async () => {
  const { remote, a, b } = syncTeam(tempProject('who'), { path: 'src/auth/jwt.ts', text: 'export {};\n' });
  git(a, 'config', 'twining.sync.label', 'laptop-a:team');
  git(b, 'config', 'twining.sync.label', 'desktop-b:team');
  ok(a, 'sync');
  ok(b, 'sync');

  // Alice works in clone a: a hooked session that edits a file, a post and a claim.
  hook(a, 'SessionStart', 'sess-alice', { source: 'startup' });
  hook(a, 'PostToolUse', 'sess-alice', {
    tool_name: 'Edit',
    tool_input: { file_path: path.join(a, 'src/auth/jwt.ts') },
    tool_response: {},
    tool_use_id: 't1',
  });
  const posted = JSON.parse(
    ok(a, 'post', '--entry-type', 'finding', '--summary', 'alice: token clock skew', '--scope', 'src/auth/', '--agent-id', 'alice', '--json'),
  );
  const claimed = JSON.parse(ok(a, 'claim', 'src/auth/jwt.ts', '--agent-id', 'alice', '--reason', 'JWT rework', '--json'));
  const claimId: string = claimed.claims[0].id;
  ok(a, 'sync');
  // The snapshot is in the record's tree, and no session file is.
  const tree = git(remote, 'ls-tree', '-r', '--name-only', 'refs/heads/twining/record').split('\n');
  const aId = git(a, 'config', 'twining.sync.clone');
  assert.ok(tree.includes(`sessions/${aId}.json`), tree.join(' '));
  assert.ok(!tree.some(p => p.startsWith('sessions/session-')));

  // Bob in clone b writes his own entry, then syncs.
  ok(b, 'post', '--entry-type', 'finding', '--summary', 'bob: his own', '--scope', 'src/', '--agent-id', 'bob');
  ok(b, 'sync');
  const engine = await openWorkspace(b, { warn: () => undefined });
  const board = await engine.sessions();
  const alice = board.sessions.find(s => s.session_id === 'sess-alice');
  assert.ok(alice, `b's board shows a's session: ${JSON.stringify(board.sessions)}`);
  assert.equal(alice.clone, 'laptop-a:team');
  assert.equal(alice.agent_id, 'alice');
  assert.deepEqual(alice.files_touched, ['src/auth/jwt.ts']);
  // a's own board shows its session as its own (no clone).
  const aBoard = await (await openWorkspace(a, { warn: () => undefined })).sessions();
  assert.equal(aBoard.sessions.find(s => s.session_id === 'sess-alice')?.clone, undefined);

  const origins = await engine.origins();
  assert.equal(origins.self, 'desktop-b:team');
  assert.equal(origins.records[posted.id], 'laptop-a:team', 'the entry names the clone it was written on');
  assert.equal(origins.records[claimId], 'laptop-a:team', "the claim names its holder's clone");
  const bobs = (JSON.parse(ok(b, 'read', '--json')).entries as { id: string; summary: string }[]).find(e => e.summary === 'bob: his own')!;
  assert.equal(origins.records[bobs.id], undefined, "b's own entry names no other clone");

  // Alice's session ends and is forgotten on a: the next syncs take it off b's board too.
  fs.rmSync(path.join(a, '.twining', 'sessions', 'session-sess-alice.json'));
  ok(a, 'sync');
  ok(b, 'sync');
  assert.equal(
    (await engine.sessions()).sessions.find(s => s.session_id === 'sess-alice'),
    undefined,
  );

  // A hostile snapshot (another clone's id, a label with a newline) is refused alone: the sync goes on and notes it.
  const m = path.join(path.dirname(remote), 'mallory');
  git(path.dirname(remote), 'clone', '-q', remote, m);
  git(m, 'fetch', '-q', 'origin', 'refs/heads/twining/record:refs/heads/record');
  git(m, 'checkout', '-q', 'record');
  fs.mkdirSync(path.join(m, 'sessions'), { recursive: true });
  fs.writeFileSync(path.join(m, 'sessions', 'abcdef.json'), JSON.stringify({ clone: 'abcdef', label: 'evil\nlabel', sessions: [] }));
  git(m, '-c', 'user.name=m', '-c', 'user.email=m@example.com', 'add', '-A');
  git(m, '-c', 'user.name=m', '-c', 'user.email=m@example.com', 'commit', '-q', '-m', 'hostile');
  git(m, 'push', '-q', 'origin', 'record:twining/record');
  const report = JSON.parse(ok(b, 'sync', '--json'));
  assert.ok(
    (report.notes as string[]).some(n => n.includes('sessions/abcdef.json') && n.includes('label')),
    JSON.stringify(report.notes),
  );
  assert.ok(!fs.readdirSync(path.join(b, '.twining', 'sessions')).some(n => n.includes('abcdef')));
});

test("a clone's first sync that sends only its card says so, not that nothing went out", { timeout: 120_000 }, () => {
  const { remote, a, b } = syncTeam(tempProject('card'), { path: 'README.md', text: '# team\n' });
  ok(a, 'sync');
  const before = git(remote, 'rev-parse', 'refs/heads/twining/record');
  const first = ok(b, 'sync');
  assert.notEqual(git(remote, 'rev-parse', 'refs/heads/twining/record'), before, "b's first sync pushed a commit (its clone card)");
  assert.match(first, /^ {2}out: no record \(this clone's card, session board or indexes\)$/m, first);
  const again = ok(b, 'sync');
  assert.match(again, /^ {2}out: nothing \(nothing to push\)$/m, again);
});
