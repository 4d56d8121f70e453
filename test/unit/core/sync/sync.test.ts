/**
 * `twining sync` with real git: a bare remote and two clones in temporary folders, the bundled CLI
 * run as separate processes. Records cross, writes on both sides survive, the user's branches,
 * index and HEAD stay as they were, claims are exact across clones, an unreachable remote and a
 * hostile record are refused with nothing lost. Run `node esbuild.js --tests` first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawn } from 'child_process';
import { CLI_JS, tempProject } from '../../../support/tmp';
import { SyncTeam, cli, cliOk as ok, configureCommitter, git, gitMay, run, syncTeam } from '../../../support/git-repo';

/** A bare remote with one commit on main, and two clones of it, each with an empty .twining/. */
const team = (): SyncTeam => syncTeam(tempProject('team'), { path: 'src/auth/jwt.ts', text: 'export {};\n' });

const json = (cwd: string, ...args: string[]) => JSON.parse(ok(cwd, ...args, '--json'));
const summaries = (cwd: string) => (json(cwd, 'read', '--limit', '1000').entries as { summary: string }[]).map(e => e.summary).sort();

/** Every file of the work tree outside .git and .twining, with its bytes' length and mtime. */
function outsideTwining(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (full === path.join(root, '.git') || full === path.join(root, '.twining')) continue;
      if (e.isDirectory()) walk(full);
      else out.push(`${path.relative(root, full)} ${fs.lstatSync(full).size} ${fs.lstatSync(full).mtimeMs}`);
    }
  };
  walk(root);
  return out.sort();
}

/** Every file under .twining/ that sync carries or that the user could lose, with its bytes. */
function recordBytes(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const base = path.join(root, '.twining');
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      const rel = path.relative(base, full);
      if (rel.startsWith('sessions') || e.name.endsWith('.lock')) continue;
      if (e.isDirectory()) walk(full);
      else out.set(rel, fs.readFileSync(full, 'utf8'));
    }
  };
  walk(base);
  return out;
}

/** What a user has in a clone that sync must never touch: HEAD, branches, index, status. */
function userState(repo: string): string {
  return [
    git(repo, 'rev-parse', 'HEAD'),
    git(repo, 'symbolic-ref', 'HEAD'),
    git(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/remotes', 'refs/tags'),
    git(repo, 'diff', '--cached', '--name-status'),
    git(repo, 'status', '--porcelain', '--untracked-files=all', '--', ':!.twining'),
    fs.readFileSync(path.join(repo, '.git', 'index')).toString('base64'),
  ].join('\n');
}

test(
  'posts, decisions, claims and handoffs cross clones; writes on both sides survive; the user’s branches, index and HEAD and the remote’s main are untouched',
  { timeout: 120_000 },
  () => {
    const { remote, a, b } = team();
    // The user has work in progress in both clones: a staged file and an edit.
    fs.writeFileSync(path.join(a, 'staged.txt'), 'staged\n');
    git(a, 'add', 'staged.txt');
    fs.appendFileSync(path.join(a, 'src', 'auth', 'jwt.ts'), '// edit\n');
    const mainBefore = git(remote, 'rev-parse', 'refs/heads/main');
    const [userA, userB] = [userState(a), userState(b)];

    ok(a, 'post', '--entry-type', 'warning', '--summary', 'alice: JWT expiry is off by one', '--scope', 'src/auth/', '--agent-id', 'alice');
    const decision = json(
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
    // (A handoff releases its author's claims in its scope, so the claim comes after it.)
    const handoff = json(
      a,
      'handoff',
      '--source-agent',
      'alice',
      '--target-agent',
      'bob',
      '--scope',
      'src/auth/',
      '--summary',
      'expiry fix, please review',
      '--results',
      'completed: expiry off by one fixed',
    );
    ok(a, 'claim', 'src/auth/jwt.ts', '--agent-id', 'alice', '--reason', 'fixing expiry');
    const first = json(a, 'sync');
    assert.equal(first.remote, 'origin');
    assert.ok(
      first.outgoing.entries >= 1 && first.outgoing.decisions === 1 && first.outgoing.handoffs === 1 && first.outgoing.claims === 1,
      JSON.stringify(first.outgoing),
    );

    // Meanwhile bob writes on B before it ever synced.
    ok(b, 'post', '--entry-type', 'finding', '--summary', 'bob: refresh tokens never expire', '--agent-id', 'bob');
    const inB = json(b, 'sync');
    assert.equal(inB.incoming.decisions, 1);
    assert.equal(inB.incoming.handoffs, 1);
    assert.equal(inB.incoming.claims, 1);
    assert.ok(inB.incoming_entries.some((e: { summary: string }) => e.summary === 'alice: JWT expiry is off by one'));
    // B sees A's decision, claim and handoff through its own engine.
    assert.equal(json(b, 'decisions').decisions.find((d: { id: string }) => d.id === decision.id)?.summary, 'Sign tokens with Ed25519');
    const claims = json(b, 'claims').claims as { agent_id: string; target: string; state: string }[];
    assert.deepEqual(
      claims.filter(c => c.state === 'live').map(c => `${c.agent_id} ${c.target}`),
      ['alice src/auth/jwt.ts'],
    );
    const refused = cli(b, 'claim', 'src/auth/jwt.ts', '--agent-id', 'bob', '--reason', 'also');
    assert.equal(refused.status, 4, 'bob is refused: alice holds it, from the other clone');
    assert.ok(json(b, 'handoffs').handoffs.some((h: { id: string }) => h.id === handoff.id));

    // Both sides write between syncs; every write survives, on both.
    ok(a, 'post', '--entry-type', 'status', '--summary', 'alice: A between syncs', '--agent-id', 'alice');
    ok(b, 'post', '--entry-type', 'status', '--summary', 'bob: B between syncs', '--agent-id', 'bob');
    ok(b, 'acknowledge', handoff.id, '--agent-id', 'bob');
    json(a, 'sync');
    json(b, 'sync');
    json(a, 'sync');
    const expected = ['alice: A between syncs', 'alice: JWT expiry is off by one', 'bob: B between syncs', 'bob: refresh tokens never expire'];
    for (const clone of [a, b]) for (const s of expected) assert.ok(summaries(clone).includes(s), `${clone} has "${s}"`);
    assert.equal(fs.readFileSync(path.join(a, '.twining', 'blackboard.jsonl'), 'utf8'), fs.readFileSync(path.join(b, '.twining', 'blackboard.jsonl'), 'utf8'));
    assert.ok(json(a, 'handoffs').handoffs.find((h: { id: string }) => h.id === handoff.id).acknowledged, 'the acknowledgement made on B reached A');

    // Nothing of the user's was touched, and the remote's main is where it was.
    assert.equal(userState(a), userA);
    assert.equal(userState(b), userB);
    assert.equal(git(remote, 'rev-parse', 'refs/heads/main'), mainBefore);
    assert.deepEqual(git(remote, 'for-each-ref', '--format=%(refname)').split('\n').sort(), ['refs/heads/main', 'refs/heads/twining/record']);
    // The record's branch holds record files only: no database, sessions, locks or config.
    const files = git(a, 'ls-tree', '-r', '--name-only', 'refs/twining/synced').split('\n');
    assert.ok(
      files.every(f =>
        /^(twining-sync\.json|clones\/|blackboard\.jsonl\.parts\/|claims\/claims\.jsonl\.parts\/|handoffs\/|decisions\/|agents\/registry\.json|graph\/)/.test(
          f,
        ),
      ),
      files.join('\n'),
    );
    // Sync is remembered in the local config, never committed.
    assert.equal(git(a, 'config', '--get', 'twining.sync.enabled'), 'true');
    const status = json(a, 'sync', '--status');
    assert.equal(status.enabled, true);
    assert.equal(status.pending, 0);
    assert.equal(status.remote, 'origin');
  },
);

test('a claim race of 16 processes on two clones has exactly one winner, and both clones name it', { timeout: 180_000 }, async () => {
  const { a, b } = team();
  json(a, 'sync');
  json(b, 'sync');
  const claimers = Array.from({ length: 16 }, (_, i) => ({ clone: i % 2 ? b : a, agent: `agent-${i}` }));
  const results = await Promise.all(
    claimers.map(
      c =>
        new Promise<{ agent: string; status: number; out: string; err: string }>(resolve => {
          const child = spawn(process.execPath, [CLI_JS, 'claim', 'src/auth/jwt.ts', '--agent-id', c.agent, '--reason', 'race', '--json'], { cwd: c.clone });
          let out = '';
          let err = '';
          child.stdout.on('data', d => (out += d));
          child.stderr.on('data', d => (err += d));
          child.on('close', status => resolve({ agent: c.agent, status: status ?? -1, out, err }));
        }),
    ),
  );
  const winners = results.filter(r => r.status === 0);
  assert.equal(winners.length, 1, results.map(r => `${r.agent}: ${r.status} ${r.err.slice(0, 200)}`).join('\n'));
  for (const r of results) assert.ok(r.status === 0 || r.status === 4, `${r.agent} exited ${r.status}: ${r.err}`);
  const winner = winners[0].agent;
  assert.equal(JSON.parse(winners[0].out).sync.confirmed, true);
  json(a, 'sync');
  json(b, 'sync');
  for (const clone of [a, b]) {
    const live = (json(clone, 'claims').claims as { agent_id: string; state: string }[]).filter(c => c.state === 'live');
    assert.deepEqual(
      live.map(c => c.agent_id),
      [winner],
      `${clone} names ${winner} as the only holder`,
    );
  }
});

test('an unreachable remote fails clearly and loses nothing; a claim is granted here with a warning; the next sync catches up', { timeout: 120_000 }, () => {
  const { remote, a, b } = team();
  json(a, 'sync');
  json(b, 'sync');
  git(a, 'remote', 'set-url', 'origin', path.join(path.dirname(remote), 'gone.git'));
  ok(a, 'post', '--entry-type', 'warning', '--summary', 'written offline', '--agent-id', 'alice');
  const before = recordBytes(a);
  const r = cli(a, 'sync');
  assert.equal(r.status, 3);
  assert.match(r.stderr, /git fetch origin failed/);
  assert.match(r.stderr, /could not be reached|check the remote/);
  assert.deepEqual(recordBytes(a), before, 'nothing local changed');
  const status = json(a, 'sync', '--status');
  assert.match(status.last_error, /fetch origin failed/);
  assert.ok(status.fix, 'the status says what to do');
  assert.equal(status.message.split(status.fix).length, 2, `the status says its fix once: ${status.message}`);
  assert.ok(!/^twining: sync: sync:/m.test(r.stderr), `the error does not say "sync:" twice: ${r.stderr}`);
  assert.ok(status.pending >= 1, 'the offline post is pending');
  // A claim while the remote is away: granted on this clone, with a warning saying so.
  const claim = cli(a, 'claim', 'src/auth/jwt.ts', '--agent-id', 'alice', '--reason', 'offline', '--json');
  assert.equal(claim.status, 0, claim.stderr);
  const result = JSON.parse(claim.stdout);
  assert.equal(result.granted, true);
  assert.equal(result.sync.confirmed, false);
  assert.match(result.sync.warning, /granted on this clone only/);
  // Back online: what was written offline goes out and B has it.
  git(a, 'remote', 'set-url', 'origin', remote);
  const back = json(a, 'sync');
  assert.ok(back.outgoing.entries >= 1);
  json(b, 'sync');
  assert.ok(summaries(b).includes('written offline'));
  assert.equal((json(b, 'claims').claims as { agent_id: string; state: string }[]).filter(c => c.state === 'live')[0]?.agent_id, 'alice');
});

/** Pushes a commit on twining/record whose tree is the remote record's with `change` applied (a mallory clone). */
function pushHostile(remote: string, change: (index: string, repo: string) => void, parent = true): void {
  const top = tempProject('mallory');
  const m = path.join(top, 'm');
  git(top, 'clone', '-q', remote, m);
  configureCommitter(m);
  git(m, 'fetch', '-q', 'origin', 'refs/heads/twining/record:refs/heads/record');
  const index = path.join(top, 'index');
  const env = { ...process.env, GIT_INDEX_FILE: index };
  run(m, 'git', ['read-tree', 'refs/heads/record']);
  fs.copyFileSync(path.join(m, '.git', 'index'), index);
  change(index, m);
  const tree = runEnv(m, env, ['write-tree']);
  const commit = runEnv(m, env, ['commit-tree', tree, ...(parent ? ['-p', 'refs/heads/record'] : []), '-m', 'hostile']);
  git(m, 'push', '-q', '--force', 'origin', `${commit}:refs/heads/twining/record`);
}

function runEnv(cwd: string, env: NodeJS.ProcessEnv, args: string[], input?: string): string {
  const r = require('child_process').spawnSync('git', args, { cwd, env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function addBlob(index: string, repo: string, treePath: string, content: string | Buffer, mode = '100644'): void {
  const env = { ...process.env, GIT_INDEX_FILE: index };
  const file = path.join(path.dirname(index), 'blob');
  fs.writeFileSync(file, content);
  const id = runEnv(repo, env, ['hash-object', '-w', file]);
  runEnv(repo, env, ['update-index', '--add', '--index-info'], `${mode} ${id}\t${treePath}\n`);
}

test(
  'a hostile or malformed remote record is refused naming the remote and the record; nothing outside .twining/ is written and nothing local lost',
  { timeout: 180_000 },
  () => {
    const { remote, a, b } = team();
    json(a, 'sync');
    json(b, 'sync');
    ok(b, 'post', '--entry-type', 'status', '--summary', 'B keeps this', '--agent-id', 'bob');
    const part = (repo: string) =>
      git(repo, 'ls-tree', '--name-only', '-r', 'refs/heads/record')
        .split('\n')
        .find(p => p.startsWith('blackboard.jsonl.parts/'))!;
    const entry = (id: string) =>
      JSON.stringify({
        id,
        entry_type: 'warning',
        summary: 'evil',
        detail: '',
        tags: [],
        scope: 'project',
        agent_id: 'mallory',
        timestamp: '2026-11-29T00:00:00.000Z',
      }) + '\n';
    const cases: [string, (index: string, repo: string) => void, RegExp, boolean?][] = [
      [
        'a symbolic link in the tree',
        (index, repo) => addBlob(index, repo, 'handoffs/01M80HHKAVJT8FG2B08Q4NGZ4W.json', '../../../../etc/passwd', '120000'),
        /symbolic link/,
      ],
      ['a file where no record belongs', (index, repo) => addBlob(index, repo, 'hooks/post-checkout', '#!/bin/sh\ntouch /tmp/pwned\n'), /not a record file/],
      [
        'an id with a path separator',
        (index, repo) => addBlob(index, repo, `${part(repo) ?? 'blackboard.jsonl.parts/000000'}`, entry('../../outside')),
        /not a plain id/,
      ],
      [
        'a line that is not JSON',
        (index, repo) => addBlob(index, repo, part(repo) ?? 'blackboard.jsonl.parts/000000', '{"id": "01M8", oops\n'),
        /not valid JSON/,
      ],
      ['an oversized file', (index, repo) => addBlob(index, repo, 'agents/registry.json', Buffer.alloc(65 * 1024 * 1024, 32)), /over the limit/],
      [
        'a record whose name and id differ',
        (index, repo) => addBlob(index, repo, 'decisions/01M80HHKAVJT8FG2B08Q4NGZ4W.json', JSON.stringify({ id: 'other' })),
        /not 01M80HHKAVJT8FG2B08Q4NGZ4W/,
      ],
      ['a rewritten history', (index, repo) => addBlob(index, repo, 'agents/registry.json', '[]'), /history was rewritten/, false],
    ];
    for (const [name, change, problem, parent] of cases) {
      pushHostile(remote, change, parent !== false);
      const [outside, records, user] = [outsideTwining(b), recordBytes(b), userState(b)];
      const r = cli(b, 'sync');
      assert.equal(r.status, 3, `${name}: ${r.stderr}`);
      assert.match(r.stderr, /the record on origin \(twining\/record\)/, name);
      assert.match(r.stderr, problem, name);
      assert.match(r.stderr, /nothing was written/, name);
      assert.deepEqual(outsideTwining(b), outside, `${name}: nothing outside .twining/ was written`);
      assert.deepEqual(recordBytes(b), records, `${name}: nothing in .twining/ changed`);
      assert.equal(userState(b), user, name);
      assert.ok(!fs.existsSync(path.join(path.dirname(b), 'outside')), name);
      // Repair the remote for the next case: the record B last synced goes back over it.
      gitMay(b, 'push', '-q', '--force', 'origin', 'refs/twining/synced:refs/heads/twining/record');
    }
    assert.ok(summaries(b).includes('B keeps this'));
    // Once the remote is sound again, B syncs and its post goes out.
    json(b, 'sync');
    json(a, 'sync');
    assert.ok(summaries(a).includes('B keeps this'));
  },
);

test('a 1.x clone and a twining-mcp 2.x clone: the sync is refused with what to do, nothing lost', { timeout: 60_000 }, () => {
  const { a, b } = team();
  ok(a, 'post', '--entry-type', 'status', '--summary', 'from the files layout', '--agent-id', 'alice');
  json(a, 'sync');
  // B is a twining-mcp 2.x folder (records/ only, as a fresh clone of one has it).
  const twining = path.join(b, '.twining');
  fs.writeFileSync(path.join(twining, 'config.yml'), 'version: 2\nstorage:\n  backend: sqlite\n');
  fs.mkdirSync(path.join(twining, 'records', 'posts', '2026-11'), { recursive: true });
  const post = {
    id: '01M8KH9FVWAGEKFJMBDS9XCNB9',
    agent_id: 'bob',
    detail: '',
    entry_type: 'status',
    scope: 'project',
    summary: '2.x post',
    tags: [],
    timestamp: '2026-11-29T11:33:20.900Z',
  };
  fs.writeFileSync(path.join(twining, 'records', 'posts', '2026-11', `${post.id}.json`), JSON.stringify(post, null, 2) + '\n');
  const before = recordBytes(b);
  const r = cli(b, 'sync');
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /1\.x files layout/);
  assert.match(r.stderr, /twining migrate/);
  assert.deepEqual(recordBytes(b), before);
});
