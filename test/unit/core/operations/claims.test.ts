/**
 * Claims through the engine on real folders with a controlled clock: who is told what, renewal,
 * release, lapse by expiry and by the holder being gone, release on handoff, taking a delegation,
 * and the CLI (its exit status 4 and --now).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { checkPath, lapsedClaimsOf } from '../../../../src/core/storage/claims-file';
import { CLI_JS, fixtureProject, rejectsWith, tempProject } from '../../../support/tmp';
import { INSTRUCTIONS } from '../../../../src/mcp/instructions';

function clocked(start: string) {
  let now = new Date(start);
  return { now: () => now, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

async function project() {
  const root = tempProject();
  fs.mkdirSync(path.join(root, 'src', 'auth'), { recursive: true });
  const clock = clocked('2026-11-22T10:00:00.000Z');
  const ws = await openWorkspace(root, { now: clock.now, warn: () => undefined });
  await ws.init();
  return { root, clock, ws };
}

test('of two colliding claims the second is refused and told who holds it, since and until when, and why', async () => {
  const { ws } = await project();
  const first = await ws.claim({ agent_id: 'alice', paths: ['src/auth'], reason: 'JWT rework', ttl_ms: 600_000 });
  assert.equal(first.granted, true);
  assert.equal(first.claims[0].target, 'src/auth/', 'an existing folder is claimed as a folder');
  const second = await ws.claim({ agent_id: 'bob', paths: ['docs/', 'src/**/*.ts'], reason: 'lint fixes' });
  assert.equal(second.granted, false);
  assert.deepEqual(second.claims, []);
  assert.equal(second.conflicts.length, 1);
  assert.equal(second.conflicts[0].target, 'src/**/*.ts');
  assert.equal(second.conflicts[0].held_by[0].agent_id, 'alice');
  assert.equal(second.conflicts[0].message, 'src/**/*.ts: alice holds src/auth/ since 2026-11-22T10:00:00.000Z until 2026-11-22T10:10:00.000Z (JWT rework)');
  // All or nothing: bob's uncontested docs/ was not taken either.
  assert.equal((await ws.claims({ agent_id: 'bob' })).claims.length, 0);
  // The holder itself may claim inside its own claim.
  assert.equal((await ws.claim({ agent_id: 'alice', paths: ['src/auth/jwt.ts'], reason: 'the file' })).granted, true);
});

test('claiming again renews: one record, later expiry, newer reason', async () => {
  const { ws, clock } = await project();
  const a = await ws.claim({ agent_id: 'alice', paths: ['src/a.ts'], reason: 'first', ttl_ms: 60_000 });
  clock.advance(30_000);
  const b = await ws.claim({ agent_id: 'alice', paths: ['src/a.ts'], reason: 'still at it', ttl_ms: 60_000 });
  assert.equal(b.claims[0].id, a.claims[0].id);
  assert.equal(b.claims[0].claimed_at, '2026-11-22T10:00:00.000Z');
  assert.equal(b.claims[0].renewed_at, '2026-11-22T10:00:30.000Z');
  assert.equal(b.claims[0].expires_at, '2026-11-22T10:01:30.000Z');
  const listed = await ws.claims();
  assert.equal(listed.claims.length, 1);
  assert.equal(listed.claims[0].reason, 'still at it');
});

test('release frees the path for others; releasing what one does not hold says so', async () => {
  const { ws } = await project();
  await ws.claim({ agent_id: 'alice', paths: ['src/a.ts', 'src/b.ts'], reason: 'x' });
  const r = await ws.release({ agent_id: 'alice', paths: ['src/a.ts', 'src/c.ts'] });
  assert.deepEqual(
    r.released.map(c => [c.target, c.state, c.released_because]),
    [['src/a.ts', 'released', 'released']],
  );
  assert.deepEqual(r.not_held, ['src/c.ts']);
  assert.equal((await ws.claim({ agent_id: 'bob', paths: ['src/a.ts'], reason: 'y' })).granted, true);
  assert.equal((await ws.claim({ agent_id: 'bob', paths: ['src/b.ts'], reason: 'y' })).granted, false);
  // Bob cannot release alice's claim.
  assert.equal((await ws.release({ agent_id: 'bob', paths: ['src/b.ts'] })).released.length, 0);
  assert.equal((await ws.release({ agent_id: 'alice' })).released.length, 1, 'no paths: all of alice’s claims');
  assert.equal((await ws.claims({ include_released: true })).claims.filter(c => c.state === 'released').length, 2);
});

test('an expired claim lapses visibly: listed as lapsed, others may claim, and the holder is told on its next call', async () => {
  const { ws, clock } = await project();
  await ws.claim({ agent_id: 'alice', paths: ['src/auth/'], reason: 'x', ttl_ms: 60_000 });
  clock.advance(60_000);
  const listed = await ws.claims();
  assert.deepEqual(
    listed.claims.map(c => [c.target, c.state, c.lapsed_because]),
    [['src/auth/', 'lapsed', 'expired']],
  );
  assert.equal(listed.lapsed_count, 1);
  assert.equal((await ws.claim({ agent_id: 'bob', paths: ['src/auth/jwt.ts'], reason: 'y' })).granted, true);
  const told = await ws.claim({ agent_id: 'alice', paths: ['src/other.ts'], reason: 'z' });
  assert.deepEqual(
    told.lapsed.map(c => [c.target, c.lapsed_because]),
    [['src/auth/', 'expired']],
  );
  // Told once: the lapsed claim is closed.
  assert.deepEqual((await ws.claim({ agent_id: 'alice', paths: ['src/other.ts'], reason: 'z' })).lapsed, []);
  assert.equal((await ws.claims({ agent_id: 'alice' })).claims.length, 1);
});

test('the claim of an agent that is gone lapses; a registered agent’s activity keeps it alive', async () => {
  const { ws, clock } = await project();
  await ws.claim({ agent_id: 'alice', paths: ['src/a.ts'], reason: 'x', ttl_ms: 3 * 3600_000 });
  await ws.claim({ agent_id: 'carol', paths: ['src/c.ts'], reason: 'x', ttl_ms: 3 * 3600_000 });
  clock.advance(20 * 60_000);
  await ws.register({ agent_id: 'carol' });
  clock.advance(15 * 60_000); // alice silent for 35 min > gone_after (30 min); carol seen 15 min ago
  const states = Object.fromEntries((await ws.claims()).claims.map(c => [c.agent_id, `${c.state} ${c.lapsed_because ?? ''}`.trim()]));
  assert.deepEqual(states, { alice: 'lapsed holder gone', carol: 'live' });
  assert.equal((await ws.claim({ agent_id: 'bob', paths: ['src/a.ts'], reason: 'y' })).granted, true);
  assert.equal((await ws.claim({ agent_id: 'bob', paths: ['src/c.ts'], reason: 'y' })).granted, false);
});

test('a handoff releases the claims of its source in its scope and artifacts, and only those', async () => {
  const { ws } = await project();
  await ws.claim({ agent_id: 'alice', paths: ['src/auth/jwt.ts', 'src/auth/keys/', 'lib/x.ts', 'docs/'], reason: 'x' });
  const h = await ws.handoff({
    source_agent: 'alice',
    scope: 'src/auth/',
    summary: 'JWT done',
    results: [{ description: 'x', status: 'completed', artifacts: ['lib/x.ts'] }],
  });
  const left = (await ws.claims({ include_released: true })).claims.map(c => [c.target, c.state, c.released_because ?? '']);
  assert.deepEqual(left, [
    ['src/auth/jwt.ts', 'released', `handoff ${h.id}`],
    ['src/auth/keys/', 'released', `handoff ${h.id}`],
    ['lib/x.ts', 'released', `handoff ${h.id}`],
    ['docs/', 'live', ''],
  ]);
  // releaseCovered for record: nothing for an empty list, everything for "project".
  assert.deepEqual(await ws.releaseCovered('alice', [], 'record X'), []);
  assert.equal((await ws.releaseCovered('alice', ['project'], 'record X')).length, 1);
});

test('twining_record releases the claims of its agent on what it covers (scope and affected files), and only those', async () => {
  const { ws } = await project();
  await ws.claim({ agent_id: 'alice', paths: ['src/auth/', 'lib/y.ts', 'docs/'], reason: 'x' });
  await ws.claim({ agent_id: 'bob', paths: ['lib/z.ts'], reason: 'y' });
  const r = await ws.record({ agent_id: 'alice', summary: 'auth rework done', scope: 'src/auth/', affected_files: ['lib/y.ts', 'lib/z.ts'] });
  const left = (await ws.claims({ include_released: true })).claims.map(c => [c.agent_id, c.target, c.state, c.released_because ?? '']);
  assert.deepEqual(left, [
    ['alice', 'src/auth/', 'released', `record ${r.status_entry_id}`],
    ['alice', 'lib/y.ts', 'released', `record ${r.status_entry_id}`],
    ['alice', 'docs/', 'live', ''],
    ['bob', 'lib/z.ts', 'live', ''],
  ]);
});

test('the instructions ask for twining_claim where an agent starts a task', () => {
  const start = INSTRUCTIONS.split('\n').find(line => line.startsWith('- Before you start a task'));
  assert.match(start ?? '', /twining_assemble.*Then claim what you will change: twining_claim/);
});

test('taking a delegation claims it: the second taker is refused; unknown and expired needs are errors', async () => {
  const { ws, clock } = await project();
  const d = await ws.delegate({ summary: 'Review auth', required_capabilities: ['security'], timeout_ms: 60_000 });
  assert.equal((await ws.claim({ agent_id: 'alice', delegation_id: d.entry_id, reason: 'I take it' })).granted, true);
  const lost = await ws.claim({ agent_id: 'bob', delegation_id: d.entry_id, reason: 'me too' });
  assert.equal(lost.granted, false);
  assert.match(lost.conflicts[0].message, new RegExp(`alice holds delegation ${d.entry_id} since`));
  await rejectsWith(ws.claim({ agent_id: 'bob', delegation_id: '01M80HHKAVJT8FG2B08Q4NGZ4W', reason: 'x' }), 'NOT_FOUND', /not a delegation need/);
  clock.advance(60_000);
  await rejectsWith(ws.claim({ agent_id: 'bob', delegation_id: d.entry_id, reason: 'x' }), 'INVALID_INPUT', /expired/);
});

test('bad input is refused naming the problem, with nothing written', async () => {
  const { ws, root } = await project();
  await rejectsWith(ws.claim({ agent_id: 'alice', reason: 'x' }), 'INVALID_INPUT', /at least one path or a delegation_id/);
  await rejectsWith(ws.claim({ agent_id: 'alice', paths: ['../outside'], reason: 'x' }), 'INVALID_INPUT', /outside the project/);
  await rejectsWith(ws.claim({ agent_id: 'alice', paths: ['a'], reason: '' }), 'INVALID_INPUT', /reason/);
  assert.equal(fs.existsSync(path.join(root, '.twining', 'claims', 'claims.jsonl')), false);
  // A torn last line (a writer killed mid-append) stays one unreadable line: the next claim starts
  // on a new line, and every reader skips it.
  const log = path.join(root, '.twining', 'claims', 'claims.jsonl');
  fs.mkdirSync(path.dirname(log), { recursive: true });
  fs.writeFileSync(log, '{"oops":');
  const granted = await ws.claim({ agent_id: 'alice', paths: ['a'], reason: 'x' });
  assert.equal(granted.granted, true);
  const lines = fs.readFileSync(log, 'utf8').split('\n');
  assert.equal(lines[0], '{"oops":');
  assert.equal(JSON.parse(lines[1]).target, 'a');
  assert.deepEqual(
    checkPath(root, 'a', 'bob', new Date('2026-11-22T10:01:00.000Z')).map(c => c.agent_id),
    ['alice'],
  );
});

test('checkPath (the hook’s read path) agrees with the engine', async () => {
  const { ws, root } = await project();
  await ws.claim({ agent_id: 'alice', paths: ['src/**/*.sql'], reason: 'migrations', ttl_ms: 600_000 });
  const now = new Date('2026-11-22T10:01:00.000Z');
  assert.deepEqual(
    checkPath(root, path.join(root, 'src', 'db', 'a.sql'), 'bob', now).map(c => c.agent_id),
    ['alice'],
  );
  assert.deepEqual(checkPath(root, 'src/db/a.sql', 'alice', now), []);
  assert.deepEqual(checkPath(root, 'src/db/a.ts', 'bob', now), []);
  assert.deepEqual(checkPath(root, 'src/db/a.sql', 'bob', new Date('2026-11-22T10:10:00.000Z')), [], 'expired');
  // The holder's next hook call learns of the lapse, until its next claim or release closes it.
  assert.deepEqual(lapsedClaimsOf(root, 'alice', now), []);
  assert.deepEqual(
    lapsedClaimsOf(root, 'alice', new Date('2026-11-22T10:10:00.000Z')).map(c => [c.target, c.lapsed_because]),
    [['src/**/*.sql', 'expired']],
  );
});

test('twining leaves the reference folder of twining-mcp as it was apart from claims/', async () => {
  const root = fixtureProject();
  const before = fs.readdirSync(path.join(root, '.twining')).sort();
  const ws = await openWorkspace(root, { warn: () => undefined });
  await ws.claim({ agent_id: 'alice', paths: ['src/'], reason: 'x' });
  assert.deepEqual(fs.readdirSync(path.join(root, '.twining')).sort(), [...before, 'claims'].sort());
  assert.deepEqual(fs.readdirSync(path.join(root, '.twining', 'claims')), ['claims.jsonl']);
});

test('the CLI claims, refuses with exit 4 naming the holder, lists and releases', async () => {
  const { root } = await project();
  const run = (...args: string[]) => spawnSync(process.execPath, [CLI_JS, ...args, '--now', '2026-11-22T10:00:00.000Z'], { cwd: root, encoding: 'utf8' });
  const a = run('claim', 'src/auth/', '--agent-id', 'alice', '--reason', 'JWT rework');
  assert.equal(a.status, 0, a.stderr);
  assert.match(a.stdout, /^Claimed src\/auth\/ until 2026-11-22T10:30:00.000Z/);
  const b = run('claim', 'src/auth/jwt.ts', '--agent-id', 'bob', '--reason', 'fix');
  assert.equal(b.status, 4, b.stderr);
  assert.match(b.stdout, /alice holds src\/auth\/ since 2026-11-22T10:00:00.000Z until 2026-11-22T10:30:00.000Z \(JWT rework\)/);
  const list = run('claims', '--json');
  assert.equal(JSON.parse(list.stdout).claims[0].agent_id, 'alice');
  const r = run('release', '--agent-id', 'alice');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Released 1: src\/auth\//);
});
